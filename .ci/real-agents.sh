#!/usr/bin/env bash
# End-to-end tests with unmodified real agents: installs the pinned agents
# from npm and runs acp's TestRealAgents and quickchat's
# TestRealAgentsQuickchat against them (a scripted model
# on 127.0.0.1 answers their model calls; see README, "Tests with real
# agents").
#
# Pinned by .ci/agents/package-lock.json:
#   @google/gemini-cli                     0.61.0  (gemini --acp)
#   @agentclientprotocol/claude-agent-acp  0.101.0 (Claude Code's ACP adapter;
#     brings @anthropic-ai/claude-agent-sdk and its linux-x64 Claude Code binary)
#   @zed-industries/codex-acp              0.16.0  (Codex's ACP adapter; its
#     native binary comes in the platform package, e.g. codex-acp-linux-x64)
# installed with `npm ci` into RESEARCHCTX_REAL_AGENTS_DIR (default
# .cache/agents in the repository, git-ignored) and reused while the
# lockfile is unchanged.
#
#   .ci/real-agents.sh            install (if needed) and run the tests
#   .ci/real-agents.sh install    install only
#
# Without npm the script says so and exits 0: the tests skip themselves
# when the agents are not installed.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "real agents: SKIPPED: npm or node is not installed, so the pinned agents cannot be installed; TestRealAgents skips itself"
	exit 0
fi

dir="${RESEARCHCTX_REAL_AGENTS_DIR:-$PWD/.cache/agents}"
src=.ci/agents
mkdir -p "$dir"
if ! cmp -s "$src/package-lock.json" "$dir/installed-lock.json" ||
	[ ! -x "$dir/node_modules/.bin/gemini" ] || [ ! -x "$dir/node_modules/.bin/claude-agent-acp" ] || [ ! -x "$dir/node_modules/.bin/codex-acp" ]; then
	echo "real agents: npm ci (locked versions) into $dir"
	rm -rf "$dir/node_modules" "$dir/installed-lock.json"
	cp "$src/package.json" "$src/package-lock.json" "$dir/"
	(cd "$dir" && timeout 900 npm ci --no-audit --no-fund --loglevel=error --cache "$dir/npm-cache")
	cp "$src/package-lock.json" "$dir/installed-lock.json"
	echo "real agents: installed in $((SECONDS - start)) s ($(du -sh "$dir/node_modules" | cut -f1))"
fi
for bin in gemini claude-agent-acp codex-acp; do
	if [ ! -x "$dir/node_modules/.bin/$bin" ]; then
		echo "real agents: FAIL: $bin missing after the install"
		exit 1
	fi
done
if [ "${1:-}" = install ]; then
	exit 0
fi

# Node 20 runs the agents, although Claude's adapter asks for >= 22. Codex
# needs no Node past its launcher; bubblewrap (installed by .ci/run) gives
# it the sandbox it has on a user's machine.
echo "real agents: node $(node --version); go test ./acp ./examples/quickchat -run 'TestRealAgents|...Declarations...'"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
code=0
RESEARCHCTX_REAL_AGENTS="$dir" timeout 900 go test -count=1 -v ./acp/ ./examples/quickchat/ \
	-run 'TestRealAgents|TestRecordedToolDeclarations|TestDeclarationProblems|TestReconstructedDeclarations' >"$log" 2>&1 || code=$?
if [ "$code" -ne 0 ]; then
	cat "$log"
	echo "real agents: FAIL (exit $code) after $((SECONDS - start)) s"
	exit "$code"
fi
grep -E '^(--- |    --- |        --- )|realagent_test.go:[0-9]+: [a-z]+ turn 1:' "$log" || true
echo "real agents: passed in $((SECONDS - start)) s"
