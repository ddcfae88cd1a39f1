package acp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrUnguarded is wrapped by the error of a turn refused because
// AgentOptions.RequireGuard is set and the agent is not known to be kept to
// the agentero-context tools (Guard).
var ErrUnguarded = errors.New("agent not kept to the agentero-context tools")

// Guard says whether, and how, the agent of a turn is kept to the
// agentero-context tools: every call other than ours either does not exist
// for the model or reaches the Permission policy, which rejects it.
type Guard struct {
	// Agent is the agent as initialize's agentInfo identifies it:
	// "codex-acp", "@agentclientprotocol/claude-agent-acp", "gemini-cli"...
	// ("" when it sent none).
	Agent string `json:"agent,omitempty"`
	// Kept is set when the guarantee holds for this turn.
	Kept bool `json:"kept"`
	// How says how it is kept: the settings applied, or the mode pinned.
	How string `json:"how,omitempty"`
	// Problem says why it does not hold; empty when Kept.
	Problem string `json:"problem,omitempty"`
}

// The agents the package knows, by the name in initialize's agentInfo.
const (
	agentCodex  = "codex-acp"
	agentClaude = "@agentclientprotocol/claude-agent-acp"
	agentGemini = "gemini-cli"
)

// askingAgents ask the host before their tool calls in the session mode
// DefaultSessionMode, but for the read-only ones: pinning that mode keeps them to
// our tools only once those are gone too (Claude Code: sessionMeta) or ask
// too (gemini-cli: GeminiPolicy).
var askingAgents = []string{agentClaude, agentClaudeOld, agentGemini}

// agentClaudeOld is the name of Claude Code's former ACP adapter.
const agentClaudeOld = "@zed-industries/claude-code-acp"

// isClaude reports whether the agent is Claude Code's ACP adapter.
func isClaude(name string) bool { return name == agentClaude || name == agentClaudeOld }

// sessionMeta is the _meta of session/new, load and resume. Claude Code
// reads, globs and greps the session's folder without asking the host in
// every mode (its read-only tools need no permission), and runs the tools
// of MCP servers its settings allow without asking either, so its adapter
// is asked for a session without built-in tools (_meta.claudeCode.options
// tools: []) and with no MCP server but the session's (strictMcpConfig):
// only our tools remain.
func (a *Agent) sessionMeta() map[string]any {
	if a.cfg.KeepTools || !isClaude(a.caps.AgentName) {
		return nil
	}
	return map[string]any{"claudeCode": map[string]any{"options": map[string]any{"tools": []any{}, "strictMcpConfig": true}}}
}

// codexProfile is the Codex permission profile CodexOverrides select.
const codexProfile = "researchctx"

// CodexOverrides returns the configuration overrides (codex-acp's -c
// key=value, TOML values) that keep Codex to the tools of the MCP servers
// the host attaches. Codex runs its own tools without asking the host in
// every preset mode (read-only runs reading commands), so the overrides
// take them away, and its own file access with them:
//
//   - the shell tools (shell, exec_command, write_stdin), the JavaScript
//     and code-mode runners, sub-agents, apps, browser and computer use,
//     web search and the permission-request tool are turned off;
//   - mcp_servers is emptied, so only the servers of the ACP session
//     remain (a server of the user's configuration is not the host's);
//   - a permission profile that reads nothing but the system files a
//     process needs (":minimal") replaces the sandbox: view_image and
//     apply_patch, which no setting removes, find no file of the user's
//     to read (a patch that only adds a file asks), and neither would
//     any command;
//   - approval_policy "untrusted" makes whatever is left ask the host,
//     whose policy rejects it.
//
// Start applies them when initialize names the agent codex-acp. Each call
// returns a new slice.
func CodexOverrides() []string { return slices.Clone(codexOverrides) }

// codexOverrides is what CodexOverrides returns.
var codexOverrides = []string{
	"features.shell_tool=false",
	"features.unified_exec=false",
	"features.js_repl=false",
	"features.code_mode=false",
	"features.multi_agent=false",
	"features.multi_agent_v2=false",
	"features.apps=false",
	"features.browser_use=false",
	"features.computer_use=false",
	"features.request_permissions_tool=false",
	`web_search="disabled"`,
	"mcp_servers={}",
	`approval_policy="untrusted"`,
	`default_permissions="` + codexProfile + `"`,
	`permissions.` + codexProfile + `={filesystem={":minimal"="read"}}`,
}

// GeminiPolicy is the gemini-cli policy (a TOML policy file, loaded with
// --policy) under which every tool call asks the host: gemini-cli runs its
// read-only tools (read_file, read_many_files, glob, grep_search,
// list_directory) without asking in every mode otherwise. Its priority is
// the highest of the user tier, which beats the Vault's own workspace
// policies and every rule gemini-cli derives from settings; only an
// administrator's policy ranks higher. The host's policy then allows only
// our tools.
const GeminiPolicy = `# researchctx: every tool call asks the host, whose policy allows only the
# agentero-context tools.
[[rule]]
toolName = "*"
decision = "ask_user"
priority = 999
`

// geminiArgs returns the arguments with --policy and a file holding
// GeminiPolicy appended, whether they were missing, and what removes the
// file.
func geminiArgs(args []string) (out []string, missing bool, cleanup func(), err error) {
	if hasGeminiPolicy(args) {
		return args, false, nil, nil
	}
	dir, err := os.MkdirTemp("", "researchctx-gemini-")
	if err != nil {
		return nil, false, nil, fmt.Errorf("%w: cannot write gemini-cli's policy file: %v", ErrAgent, errors.Unwrap(err))
	}
	cleanup = func() { os.RemoveAll(dir) }
	path := filepath.Join(dir, "ask-every-tool.toml")
	if err := os.WriteFile(path, []byte(GeminiPolicy), 0o600); err != nil {
		cleanup()
		return nil, false, nil, fmt.Errorf("%w: cannot write gemini-cli's policy file: %v", ErrAgent, errors.Unwrap(err))
	}
	return append(slices.Clone(args), "--policy", path), true, cleanup, nil
}

// hasGeminiPolicy reports whether args load GeminiPolicy: a --policy file
// that holds exactly it.
func hasGeminiPolicy(args []string) bool {
	for i, arg := range args {
		var path string
		switch {
		case arg == "--policy" && i+1 < len(args):
			path = args[i+1]
		case strings.HasPrefix(arg, "--policy="):
			path = strings.TrimPrefix(arg, "--policy=")
		default:
			continue
		}
		if data, err := os.ReadFile(path); err == nil && string(data) == GeminiPolicy {
			return true
		}
	}
	return false
}

// codexArgs returns the arguments with CodexOverrides appended (later
// overrides win over the host's own), and whether they were missing.
func codexArgs(args []string) ([]string, bool) {
	if hasOverrides(args) {
		return args, false
	}
	out := slices.Clone(args)
	for _, o := range codexOverrides {
		out = append(out, "-c", o)
	}
	return out, true
}

// hasOverrides reports whether args end with CodexOverrides.
func hasOverrides(args []string) bool {
	n := 2 * len(codexOverrides)
	if len(args) < n {
		return false
	}
	tail := args[len(args)-n:]
	for i, o := range codexOverrides {
		if tail[2*i] != "-c" || tail[2*i+1] != o {
			return false
		}
	}
	return true
}

// startGuard is the guard known once initialize has named the agent.
func (a *Agent) startGuard() Guard {
	g := Guard{Agent: a.caps.AgentName}
	switch {
	case g.Agent == agentCodex && a.cfg.KeepTools:
		g.Problem = "KeepTools is set: Codex runs its own tools (shell commands, view_image) without asking the host"
	case g.Agent == agentCodex && !hasOverrides(a.cfg.Args):
		g.Problem = "Codex was started without the overrides that turn its own tools off"
	case g.Agent == agentCodex:
		g.Kept = true
		g.How = "codex-acp started with " + fmt.Sprint(len(codexOverrides)) + " config overrides: its shell, code, web and sub-agent tools off, no MCP server but the host's, a sandbox profile that reads no user file, approval asked for anything else"
	case g.Agent == agentGemini && a.cfg.KeepTools:
		g.Problem = "KeepTools is set: gemini-cli runs its own read-only tools (read_file, glob, grep_search...) without asking the host"
	case g.Agent == agentGemini && !hasGeminiPolicy(a.cfg.Args):
		g.Problem = "gemini-cli was started without the policy that makes its own tools ask the host"
	case slices.Contains(askingAgents, g.Agent):
		// Known once the mode is pinned (turnGuard).
	case g.Agent == "":
		g.Problem = "the agent did not name itself at initialize: whether it asks the host before running its own tools is not known"
	default:
		g.Problem = fmt.Sprintf("unknown agent %q: whether it asks the host before running its own tools is not known", g.Agent)
	}
	return g
}

// turnGuard is the guard of a turn, given how its session mode was pinned.
func (a *Agent) turnGuard(mode SessionModeReport) Guard {
	g := a.guard
	if !slices.Contains(askingAgents, g.Agent) {
		if g.Agent == agentCodex && g.Kept && len(mode.Available) > 0 {
			// Under the overrides no preset matches, so codex-acp offers no
			// modes; a preset in force means they were not applied.
			g.Kept, g.How = false, ""
			g.Problem = "the Codex session runs in the preset mode " + mode.Current + ": the overrides that turn its own tools off did not take effect"
		}
		return g
	}
	if g.Problem != "" {
		return g
	}
	switch {
	case isClaude(g.Agent) && a.cfg.KeepTools:
		g.Problem = "KeepTools is set: Claude Code runs its own read-only tools (Read, Glob, Grep) without asking the host"
	case a.cfg.KeepSessionMode:
		g.Problem = "KeepMode is set: the session mode is the agent's, which may run tools without asking the host"
	case mode.Problem != "":
		g.Problem = "session mode " + mode.Want + " not in force: " + mode.Problem
	case mode.Want != DefaultSessionMode:
		g.Problem = "session mode " + mode.Want + " is not " + DefaultSessionMode + ", the mode in which the agent asks before its tool calls"
	case g.Agent == agentGemini:
		g.Kept = true
		g.How = "every tool call asks the host (GeminiPolicy loaded with --policy) and session mode " + DefaultSessionMode + " in force"
	default:
		g.Kept = true
		g.How = "no built-in tool and no MCP server but the session's (session _meta.claudeCode.options: tools [], strictMcpConfig) and session mode " + DefaultSessionMode + " in force"
	}
	return g
}

// guardWarning is the status line a turn streams when its guard does not
// hold.
func guardWarning(g Guard) string {
	return "warning: only the agentero-context tools are guaranteed to read the library, but not with this agent: " + strings.TrimSpace(g.Problem)
}
