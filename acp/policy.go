package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/researchctx/researchctx/grant"
)

// Policy answers an agent's session/request_permission. The default,
// AllowContextTools, allows only the three read-only agentero-context
// tools; a host plugs in its own through AgentOptions.Permission, usually on
// top of Identify (what the call is) and Answer (the option to pick).
type Policy func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)

// Identity is what a tool call an agent reports is, as far as the agent's
// structured fields tell. Titles are display text (a shell call is titled
// with its command) and never identify a call.
type Identity struct {
	// Ours is set when the call is one of the three agentero-context tools
	// on the agentero-context server, identified exactly.
	Ours bool
	// Tool is the bare tool name when Ours ("context_search"); otherwise the
	// agent's own name for the tool when it sends one (Claude Code's
	// "Bash", "mcp__other__x"), else "".
	Tool string
	// Server is "agentero-context" when Ours, else the MCP server the agent
	// names, if any.
	Server string
	// Agent names the shape the call was recognised by: "claude-code",
	// "gemini-cli", "codex" or "" when none matched.
	Agent string
	// Reason says why the call is not ours; "" when it is.
	Reason string
}

// toolArgs lists, per tool, its input properties and the required ones, as
// package tools declares them (a test keeps the two in step). A call whose
// arguments have other keys is not a call of ours.
var toolArgs = map[string]struct{ props, required []string }{
	grant.ToolSearch:    {props: []string{"query", "limit", "source"}, required: []string{"query"}},
	grant.ToolRead:      {props: []string{"target", "mode", "quote", "section", "page", "region", "cursor"}, required: []string{"target"}},
	grant.ToolRelations: {props: []string{"paper", "kind", "limit", "cursor", "library"}, required: []string{"paper"}},
}

// Claude Code (through @agentclientprotocol/claude-agent-acp) names an MCP
// tool "mcp__<server>__<tool>" in _meta.claudeCode.toolName and the server
// in _meta.claudeCode.mcpServer {name, source}. The source says where the
// server's definition came from; ours is given over ACP ("dynamic"). A
// server of the same name from a configuration file (for example a
// .mcp.json in the Vault) is not ours.
var claudeConfigSources = []string{"project", "local", "user", "plugin", "managed", "enterprise", "claudeai", "agent"}

// gemini-cli names an MCP tool "<tool> (<server> MCP Server)" in the
// title, sends kind "other", and puts the arguments as JSON (or, past 500
// characters, "[Payload omitted due to length with parameters: a, b]") in
// the content. Its call id starts with the name of the function the model
// called, which is the tool it runs: core/turn.js makes every id
// "<name>__<id>" (the model's id, or "<name>_<millis>_<n>"), and the ACP
// session's fallback is "<name>-<millis>-<n>". Our tools are named
// "mcp_agentero-context_<tool>" there.
var geminiOmitted = regexp.MustCompile(`^\[Payload omitted due to length(?: with parameters: ([^\]]*))?\]$`)

// geminiCallOf reports whether a gemini-cli call id is one of the function
// name.
func geminiCallOf(id, name string) bool {
	if strings.HasPrefix(id, name+"__") {
		return true
	}
	rest, ok := strings.CutPrefix(id, name+"-")
	if !ok {
		return false
	}
	a, b, ok := strings.Cut(rest, "-")
	return ok && digits(a) && digits(b)
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Identify says what the tool call of a permission request is. A call is
// ours only when every structured field the agent sends agrees:
//
//   - Claude Code: _meta.claudeCode.toolName is exactly
//     "mcp__agentero-context__<tool>", _meta.claudeCode.mcpServer (when
//     sent) names agentero-context from a source that is not a
//     configuration file, and rawInput has only the tool's arguments.
//   - Codex: rawInput is exactly {server, tool, arguments} with server
//     agentero-context, tool one of ours and arguments only the tool's,
//     no kind but other and no file locations; or, when Codex asks, an
//     approval of kind mcp_tool_call for server agentero-context whose id
//     names the call and whose arguments are those of exactly one of our
//     tools.
//   - gemini-cli: the title is exactly "<tool> (agentero-context MCP
//     Server)", the kind is "other", no option is gemini's non-MCP
//     "proceed_always", the call id starts with the function name
//     "mcp_agentero-context_<tool>" ("…__" or "…-<millis>-<n>"), and the
//     arguments shown have only the tool's keys.
//
// In both, a kind other than other, read or search (execute, edit, delete,
// move, fetch...) is never ours. Everything else is not ours.
func Identify(req sdk.RequestPermissionRequest) Identity {
	return identify(req.ToolCall, req.Options, true)
}

// identify recognises a call from its fields; options are checked only for
// a permission request (asking).
func identify(tc sdk.ToolCallUpdate, options []sdk.PermissionOption, asking bool) Identity {
	if tc.Kind != nil {
		switch *tc.Kind {
		case sdk.ToolKindOther, sdk.ToolKindRead, sdk.ToolKindSearch:
		default:
			id := Identity{Reason: "kind " + string(*tc.Kind) + " is never an agentero-context call"}
			if cc := claudeMeta(tc); cc != nil {
				id.Tool, _ = cc["toolName"].(string)
				id.Agent = "claude-code"
			}
			return id
		}
	}
	if cc := claudeMeta(tc); cc != nil {
		return identifyClaude(tc, cc, asking)
	}
	if inv := codexInvocation(tc); inv != nil {
		return identifyCodex(tc, inv)
	}
	if el := codexApproval(tc); el != nil {
		return identifyCodexApproval(tc, el)
	}
	return identifyGemini(tc, options, asking)
}

// Codex (through codex-acp) reports an MCP tool call with the invocation
// as rawInput: exactly {server, tool, arguments}, the server by the name
// the ACP session gave it. Its other calls (commands, patches, searches)
// carry rawInput of other shapes, or a kind that is never ours.
var codexInvocationKeys = []string{"arguments", "server", "tool"}

// codexInvocation returns a call's rawInput when it has the shape of a
// Codex MCP invocation, else nil.
func codexInvocation(tc sdk.ToolCallUpdate) map[string]any {
	m, ok := toMap(tc.RawInput)
	if !ok || len(m) != len(codexInvocationKeys) {
		return nil
	}
	for _, k := range codexInvocationKeys {
		if _, ok := m[k]; !ok {
			return nil
		}
	}
	if _, ok := m["server"].(string); !ok {
		return nil
	}
	if _, ok := m["tool"].(string); !ok {
		return nil
	}
	return m
}

// Codex asks the host before an MCP tool call (when the server does not
// annotate the tool read-only) with an elicitation as rawInput:
// {id: "mcp_tool_call_approval_<call id>", server_name, turn_id, request:
// {_meta: {codex_approval_kind: "mcp_tool_call", tool_params, ...},
// message, ...}}. The tool's name is only in the message, which is display
// text; the server, the call id and the arguments are structured, and the
// arguments of our three tools are told apart by their required keys.
const (
	codexApprovalPrefix = "mcp_tool_call_approval_"
	codexApprovalKind   = "mcp_tool_call"
)

// codexApproval returns a call's rawInput when it has the shape of a Codex
// approval request (an id, a server_name and a request), else nil.
func codexApproval(tc sdk.ToolCallUpdate) map[string]any {
	m, ok := toMap(tc.RawInput)
	if !ok {
		return nil
	}
	if _, ok := m["server_name"].(string); !ok {
		return nil
	}
	if _, ok := m["id"].(string); !ok {
		return nil
	}
	if _, ok := m["request"].(map[string]any); !ok {
		return nil
	}
	return m
}

func identifyCodexApproval(tc sdk.ToolCallUpdate, el map[string]any) Identity {
	server := el["server_name"].(string)
	id := Identity{Server: server, Agent: "codex"}
	meta, _ := el["request"].(map[string]any)["_meta"].(map[string]any)
	kind, _ := meta["codex_approval_kind"].(string)
	switch {
	case server != grant.ServerName:
		id.Reason = "server " + server + " is not " + grant.ServerName
	case kind != codexApprovalKind:
		id.Reason = "an approval of kind " + strconv.Quote(kind) + ", not an MCP tool call"
	case el["id"] != codexApprovalPrefix+string(tc.ToolCallId):
		id.Reason = "approval id " + fmt.Sprint(el["id"]) + " is not that of call " + string(tc.ToolCallId)
	case tc.Kind != nil && *tc.Kind != sdk.ToolKindOther:
		id.Reason = "an MCP tool call of kind " + string(*tc.Kind)
	case len(tc.Locations) > 0:
		id.Reason = "an agentero-context call has no file locations"
	}
	if id.Reason != "" {
		return id
	}
	var tools []string
	for _, tool := range grant.Tools() {
		if checkArgs(tool, meta["tool_params"]) == "" {
			tools = append(tools, tool)
		}
	}
	if len(tools) != 1 {
		id.Reason = "the arguments are those of no single agentero-context tool"
		return id
	}
	return Identity{Ours: true, Tool: tools[0], Server: grant.ServerName, Agent: "codex"}
}

func identifyCodex(tc sdk.ToolCallUpdate, inv map[string]any) Identity {
	server, tool := inv["server"].(string), inv["tool"].(string)
	id := Identity{Tool: tool, Server: server, Agent: "codex"}
	switch {
	case server != grant.ServerName:
		id.Reason = "server " + server + " is not " + grant.ServerName
	case toolArgs[tool].props == nil:
		id.Reason = "tool " + tool + " is not an agentero-context tool"
	case tc.Kind != nil && *tc.Kind != sdk.ToolKindOther:
		id.Reason = "an MCP tool call of kind " + string(*tc.Kind)
	case len(tc.Locations) > 0:
		id.Reason = "an agentero-context call has no file locations"
	default:
		// Codex sends the invocation whole, on the first report as on a
		// permission request: the arguments must be the tool's.
		id.Reason = checkArgs(tool, inv["arguments"])
	}
	id.Ours = id.Reason == ""
	return id
}

func claudeMeta(tc sdk.ToolCallUpdate) map[string]any {
	cc, _ := tc.Meta["claudeCode"].(map[string]any)
	if _, ok := cc["toolName"].(string); !ok {
		return nil
	}
	return cc
}

func identifyClaude(tc sdk.ToolCallUpdate, cc map[string]any, asking bool) Identity {
	name := cc["toolName"].(string)
	id := Identity{Tool: name, Agent: "claude-code"}
	if srv, ok := cc["mcpServer"].(map[string]any); ok {
		id.Server, _ = srv["name"].(string)
		if src, _ := srv["source"].(string); slices.Contains(claudeConfigSources, src) {
			id.Reason = "server " + id.Server + " comes from a configuration file (" + src + "), not from the host"
			return id
		}
		if id.Server != grant.ServerName {
			id.Reason = "server " + id.Server + " is not " + grant.ServerName
			return id
		}
	}
	tool, ok := strings.CutPrefix(name, "mcp__"+grant.ServerName+"__")
	if !ok || toolArgs[tool].props == nil {
		id.Reason = "tool " + name + " is not an agentero-context tool"
		return id
	}
	if id.Reason = rawInputReason(tool, tc, asking); id.Reason != "" {
		return id
	}
	return Identity{Ours: true, Tool: tool, Server: grant.ServerName, Agent: "claude-code"}
}

// emptyArgs reports a call's arguments as not yet known: nil or {}.
func emptyArgs(v any) bool {
	m, ok := v.(map[string]any)
	return v == nil || ok && len(m) == 0
}

func identifyGemini(tc sdk.ToolCallUpdate, options []sdk.PermissionOption, asking bool) Identity {
	title := ""
	if tc.Title != nil {
		title = *tc.Title
	}
	tool, ok := strings.CutSuffix(title, " ("+grant.ServerName+" MCP Server)")
	if !ok || toolArgs[tool].props == nil {
		return Identity{Reason: "no structured field identifies an agentero-context tool"}
	}
	id := Identity{Tool: tool, Server: grant.ServerName, Agent: "gemini-cli"}
	if tc.Kind == nil || *tc.Kind != sdk.ToolKindOther {
		id.Reason = "an MCP tool call without kind other"
		return id
	}
	if asking {
		for _, o := range options {
			if o.OptionId == "proceed_always" {
				id.Reason = "options of a non-MCP confirmation"
				return id
			}
		}
	}
	if !geminiCallOf(string(tc.ToolCallId), "mcp_"+grant.ServerName+"_"+tool) {
		id.Reason = "call id " + string(tc.ToolCallId) + " is not one of mcp_" + grant.ServerName + "_" + tool
		return id
	}
	if len(tc.Locations) > 0 {
		id.Reason = "an agentero-context call has no file locations"
		return id
	}
	// The content of a permission request shows the arguments; that of a
	// later update shows the output, which says nothing of the call.
	for _, c := range tc.Content {
		if !asking {
			break
		}
		if c.Content == nil || c.Content.Content.Text == nil {
			continue
		}
		text := strings.TrimSpace(c.Content.Content.Text.Text)
		if m := geminiOmitted.FindStringSubmatch(text); m != nil {
			if reason := checkKeys(tool, splitKeys(m[1]), false); reason != "" {
				id.Reason = reason
				return id
			}
			continue
		}
		var args any
		if err := json.Unmarshal([]byte(text), &args); err != nil {
			id.Reason = "the arguments shown are not JSON"
			return id
		}
		if reason := checkArgs(tool, args); reason != "" {
			id.Reason = reason
			return id
		}
	}
	if id.Reason = rawInputReason(tool, tc, asking); id.Reason != "" {
		return id
	}
	id.Ours = true
	return id
}

// rawInputReason checks a call's raw arguments, when it has them, and says
// why they are not the tool's ("" when they are). An agent may announce a
// call before its arguments have streamed in ({}, as Claude does): only a
// permission request's arguments must be complete.
func rawInputReason(tool string, tc sdk.ToolCallUpdate, asking bool) string {
	if tc.RawInput != nil && (asking || !emptyArgs(tc.RawInput)) {
		return checkArgs(tool, tc.RawInput)
	}
	return ""
}

// checkArgs checks that v is a JSON object of the tool's arguments.
func checkArgs(tool string, v any) string {
	m, ok := toMap(v)
	if !ok {
		return "arguments are not an object"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return checkKeys(tool, keys, true)
}

func checkKeys(tool string, keys []string, complete bool) string {
	spec := toolArgs[tool]
	for _, k := range keys {
		if !slices.Contains(spec.props, k) {
			return "argument " + k + " is not one of " + tool + "'s"
		}
	}
	if complete {
		for _, r := range spec.required {
			if !slices.Contains(keys, r) {
				return tool + " without its argument " + r
			}
		}
	}
	return ""
}

func splitKeys(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" && k != "..." {
			out = append(out, k)
		}
	}
	return out
}

// toMap returns v as a JSON object, decoding it from JSON when it came as
// raw bytes or a typed value.
func toMap(v any) (map[string]any, bool) {
	switch v := v.(type) {
	case map[string]any:
		return v, true
	case nil:
		return nil, false
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// AllowContextTools is the default Policy: it allows, once, a call that
// Identify recognises as one of the three read-only agentero-context tools,
// and rejects every other call — shell, edit, delete, move, fetch, another
// server's tool, anything unknown. The session is for reading the granted
// sources, not for acting on the machine.
func AllowContextTools(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return Answer(req, Identify(req).Ours), nil
}

// Answer returns the response that allows the request once (allow is true)
// or rejects it: the agent's allow_once option, else its reject_once, else
// its reject_always option. When the agent offers no such option the
// outcome is cancelled, which every agent treats as not allowed. An
// allow_always option is never picked: each call is asked again.
func Answer(req sdk.RequestPermissionRequest, allow bool) sdk.RequestPermissionResponse {
	want := []sdk.PermissionOptionKind{sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways}
	if allow {
		want = []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce}
	}
	for _, k := range want {
		for _, o := range req.Options {
			if o.Kind == k {
				return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
					Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId},
				}}
			}
		}
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Cancelled: &sdk.RequestPermissionOutcomeCancelled{},
	}}
}

// allowed reports whether a response lets the call run: an allow option
// was selected.
func allowed(req sdk.RequestPermissionRequest, resp sdk.RequestPermissionResponse) bool {
	if resp.Outcome.Selected == nil {
		return false
	}
	for _, o := range req.Options {
		if o.OptionId == resp.Outcome.Selected.OptionId {
			return o.Kind == sdk.PermissionOptionKindAllowOnce || o.Kind == sdk.PermissionOptionKindAllowAlways
		}
	}
	return false
}
