#!/usr/bin/env bash
# Real third-party MCP clients against the agentero-context server, built
# from examples/quickchat and started as `quickchat --agentero-context-mcp
# <grant>`: the MCP Inspector CLI (tools/list, one tools/call of each tool, a
# refusal) and the official TypeScript SDK (mcp/testdata/node/client.mjs).
#
# The npm packages pinned by mcp/testdata/node/package-lock.json are
# installed at the locked versions into a cache folder outside the
# repository (RESEARCHCTX_NPM_CACHE, default ~/.cache/researchctx-npm) and
# reused while the lockfile is unchanged. `npm install` with the lockfile,
# not `npm ci`: vite (a dependency of the Inspector) names a Windows-only
# optional package that the registry does not serve, and `npm ci` refuses a
# lockfile without it.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

cache="${RESEARCHCTX_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/researchctx-npm}"
node_dir="$cache/node"
src=mcp/testdata/node
mkdir -p "$node_dir"
if ! cmp -s "$src/package-lock.json" "$node_dir/installed-lock.json" || [ ! -x "$node_dir/node_modules/.bin/mcp-inspector" ]; then
	echo "npm install (locked versions) into $node_dir"
	rm -rf "$node_dir/node_modules" "$node_dir/installed-lock.json"
	cp "$src/package.json" "$src/package-lock.json" "$node_dir/"
	(cd "$node_dir" && npm install --no-save --no-audit --no-fund --loglevel=error --cache "$cache/npm-cache")
	cp "$src/package-lock.json" "$node_dir/installed-lock.json"
fi
cp "$src/client.mjs" "$node_dir/"
inspector="$node_dir/node_modules/.bin/mcp-inspector"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/quickchat" ./examples/quickchat
go run ./internal/cmd/samplevault "$work/vault"
cat >"$work/request.json" <<JSON
{"vault": "$work/vault", "runtimeId": "ci-interop", "turnId": "turn-1",
 "currentPaper": "papers/2401.01234", "mentions": ["notes", "papers/2403.05678"]}
JSON
"$work/quickchat" plan -request "$work/request.json" >"$work/plan.json"
grant=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).grantPath)' "$work/plan.json")
server=("$work/quickchat" --agentero-context-mcp "$grant")

failures=0
# inspect NAME WANT_EXIT PATTERN INSPECTOR_ARGS... runs the Inspector CLI
# against the server and checks its exit code and that its output matches
# PATTERN (a grep -E expression).
inspect() {
	local name=$1 want=$2 pattern=$3
	shift 3
	local out code=0
	out=$(timeout 60 "$inspector" --cli "$@" -- "${server[@]}" 2>&1) || code=$?
	if [ "$code" != "$want" ]; then
		echo "FAIL inspector $name: exit $code, want $want"
		echo "$out" | head -20
		failures=$((failures + 1))
	elif ! grep -Eq -- "$pattern" <<<"$out"; then
		echo "FAIL inspector $name: output does not match /$pattern/"
		echo "$out" | head -20
		failures=$((failures + 1))
	else
		echo "ok   inspector $name (exit $code)"
	fi
}

inspect "tools/list" 0 '"paper_relations"' --method tools/list --strict
# --strict reports tool-schema portability problems on stderr; want none.
if timeout 60 "$inspector" --cli --method tools/list --strict -- "${server[@]}" 2>&1 >/dev/null | grep -q 'Issue:'; then
	echo "FAIL inspector tools/list --strict reports schema portability problems"
	failures=$((failures + 1))
else
	echo "ok   inspector tools/list --strict: no schema portability problems"
fi
inspect "context_search" 0 'cite: papers/' --method tools/call --tool-name context_search --tool-arg 'query=strided global tokens'
inspect "context_read" 0 '2401\.01234\.pdf#page=2' --method tools/call --tool-name context_read --tool-arg target=papers/2401.01234 mode=page page=2
inspect "paper_relations" 0 'Reproduction Study' --method tools/call --tool-name paper_relations --tool-arg paper=papers/2401.01234
inspect "refusal is isError" 5 'not granted' --method tools/call --tool-name context_read --tool-arg target=papers/vision/resnet-like

echo "node @modelcontextprotocol/sdk client"
if ! (cd "$node_dir" && timeout 60 node client.mjs "$work/quickchat" "$grant"); then
	failures=$((failures + 1))
fi

# A call line has a tool; the budget's reservation records (reserve, and
# its release when a call is refused) are not calls.
usage="$(dirname "$grant")/usage.jsonl"
lines=$(grep -c '"tool":' "$usage" || true)
reserved=$(grep -c '"reserve":{' "$usage" || true)
closed=$(grep -c '"settles":\|"release":"' "$usage" || true)
echo "usage.jsonl: $lines call lines, $reserved reservations, $closed settled or released"
if [ "$lines" -ne 6 ]; then
	echo "FAIL usage.jsonl has $lines call lines, want 6 (three tool calls from each client)"
	failures=$((failures + 1))
fi
if [ "$reserved" -ne "$closed" ]; then
	echo "FAIL usage.jsonl: $reserved reservations but $closed settled or released"
	failures=$((failures + 1))
fi

echo "mcp interop: $failures failures in $((SECONDS - start)) s"
[ "$failures" -eq 0 ]
