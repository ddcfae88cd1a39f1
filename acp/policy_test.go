package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/tools"
)

// permissionFixture is a file of testdata/permissions: permission requests
// as a real agent builds them (reconstructed from its published source),
// ours and hostile ones.
type permissionFixture struct {
	Agent    string `json:"agent"`
	Source   string `json:"source"`
	Requests []struct {
		Name    string                       `json:"name"`
		Want    string                       `json:"want"` // allow | deny
		Tool    string                       `json:"tool"` // our tool, for allowed ones
		Request sdk.RequestPermissionRequest `json:"request"`
	} `json:"requests"`
}

func readFixtures(t *testing.T) []permissionFixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "permissions", "*.json"))
	if err != nil || len(paths) < 2 {
		t.Fatalf("want the permission requests of at least two agents, got %v (%v)", paths, err)
	}
	var out []permissionFixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f permissionFixture
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, f)
	}
	return out
}

// TestPolicyRecorded runs the default policy on the recorded requests of
// real agents: only our three tools are allowed, and a shell call whose
// title names our tool, a call titled exactly like ours, and a tool of the
// same name on another server are rejected.
func TestPolicyRecorded(t *testing.T) {
	for _, f := range readFixtures(t) {
		allowedN, denied := 0, 0
		for _, r := range f.Requests {
			t.Run(f.Agent+"/"+r.Name, func(t *testing.T) {
				resp, err := AllowContextTools(context.Background(), r.Request)
				if err != nil {
					t.Fatal(err)
				}
				sel := resp.Outcome.Selected
				if sel == nil {
					t.Fatalf("cancelled, want a selected option (every recorded request offers %s)", r.Want)
				}
				kind := optionKind(r.Request, sel.OptionId)
				switch r.Want {
				case "allow":
					allowedN++
					if kind != sdk.PermissionOptionKindAllowOnce {
						t.Errorf("selected %s (%s), want the allow_once option; identity %+v", sel.OptionId, kind, Identify(r.Request))
					}
					if id := Identify(r.Request); !id.Ours || id.Tool != r.Tool || id.Server != grant.ServerName || id.Agent != f.Agent {
						t.Errorf("identity %+v, want ours %s by %s", id, r.Tool, f.Agent)
					}
				case "deny":
					denied++
					if kind != sdk.PermissionOptionKindRejectOnce {
						t.Errorf("selected %s (%s), want the reject_once option", sel.OptionId, kind)
					}
					if id := Identify(r.Request); id.Ours || id.Reason == "" {
						t.Errorf("identity %+v: a hostile call passed for ours", id)
					}
				default:
					t.Fatalf("fixture want %q", r.Want)
				}
			})
		}
		if allowedN < 2 || denied < 4 {
			t.Errorf("%s: %d allowed and %d denied requests, want ≥ 2 and ≥ 4", f.Agent, allowedN, denied)
		}
	}
}

func optionKind(req sdk.RequestPermissionRequest, id sdk.PermissionOptionId) sdk.PermissionOptionKind {
	for _, o := range req.Options {
		if o.OptionId == id {
			return o.Kind
		}
	}
	return ""
}

// TestPolicyHostileTitles: no title alone, however close to ours, gets a
// call allowed; nor a kind that acts on the machine with our fields.
func TestPolicyHostileTitles(t *testing.T) {
	options := []sdk.PermissionOption{
		{Kind: sdk.PermissionOptionKindAllowAlways, OptionId: "always"},
		{Kind: sdk.PermissionOptionKindAllowOnce, OptionId: "once"},
		{Kind: sdk.PermissionOptionKindRejectOnce, OptionId: "reject"},
	}
	ptr := func(s string) *string { return &s }
	kind := func(k sdk.ToolKind) *sdk.ToolKind { return &k }
	ours := map[string]any{"claudeCode": map[string]any{"toolName": "mcp__agentero-context__context_search"}}
	tests := []struct {
		name string
		tc   sdk.ToolCallUpdate
	}{
		{"bare tool name", sdk.ToolCallUpdate{Title: ptr("context_search")}},
		{"shell command naming the tool", sdk.ToolCallUpdate{Title: ptr("touch x # context_search"), Kind: kind(sdk.ToolKindExecute)}},
		{"old default's accepted title", sdk.ToolCallUpdate{Title: ptr("agentero-context.context_read")}},
		{"Claude's name as a title, no _meta", sdk.ToolCallUpdate{Title: ptr("mcp__agentero-context__context_search"), Kind: kind(sdk.ToolKindOther)}},
		{"gemini title with a trailing command", sdk.ToolCallUpdate{Title: ptr("context_search (agentero-context MCP Server); rm -rf ~"), Kind: kind(sdk.ToolKindOther)}},
		{"gemini title, kind execute", sdk.ToolCallUpdate{Title: ptr("context_search (agentero-context MCP Server)"), Kind: kind(sdk.ToolKindExecute)}},
		{"gemini title, no kind", sdk.ToolCallUpdate{Title: ptr("context_search (agentero-context MCP Server)")}},
		{"our _meta, kind execute", sdk.ToolCallUpdate{Meta: ours, Kind: kind(sdk.ToolKindExecute)}},
		{"our _meta, kind edit", sdk.ToolCallUpdate{Meta: ours, Kind: kind(sdk.ToolKindEdit)}},
		{"our _meta, kind delete", sdk.ToolCallUpdate{Meta: ours, Kind: kind(sdk.ToolKindDelete)}},
		{"our _meta, kind move", sdk.ToolCallUpdate{Meta: ours, Kind: kind(sdk.ToolKindMove)}},
		{"our _meta, kind fetch", sdk.ToolCallUpdate{Meta: ours, Kind: kind(sdk.ToolKindFetch)}},
		{"our _meta, rawInput not an object", sdk.ToolCallUpdate{Meta: ours, RawInput: "touch x"}},
		{"our _meta, rawInput without the query", sdk.ToolCallUpdate{Meta: ours, RawInput: map[string]any{"limit": 3}}},
		{"a server prefix that only starts like ours", sdk.ToolCallUpdate{Meta: map[string]any{"claudeCode": map[string]any{"toolName": "mcp__agentero-context-evil__context_search"}}}},
		{"a fourth tool on our server", sdk.ToolCallUpdate{Meta: map[string]any{"claudeCode": map[string]any{"toolName": "mcp__agentero-context__write_note"}}}},
		{"untitled", sdk.ToolCallUpdate{}},
		{"Codex invocation on another server", sdk.ToolCallUpdate{RawInput: codexInv("other", "context_search", map[string]any{"query": "q"})}},
		{"Codex invocation of a fourth tool", sdk.ToolCallUpdate{RawInput: codexInv("agentero-context", "write_note", map[string]any{"text": "x"})}},
		{"Codex invocation, kind execute", sdk.ToolCallUpdate{RawInput: codexInv("agentero-context", "context_search", map[string]any{"query": "q"}), Kind: kind(sdk.ToolKindExecute)}},
		{"Codex invocation with arguments not ours", sdk.ToolCallUpdate{RawInput: codexInv("agentero-context", "context_search", map[string]any{"query": "q", "cmd": "cat x"})}},
		{"Codex invocation with a key more", sdk.ToolCallUpdate{RawInput: map[string]any{"server": "agentero-context", "tool": "context_search", "arguments": map[string]any{"query": "q"}, "command": "cat x"}}},
		{"Codex invocation with file locations", sdk.ToolCallUpdate{RawInput: codexInv("agentero-context", "context_read", map[string]any{"target": "notes"}), Locations: []sdk.ToolCallLocation{{Path: "/etc/passwd"}}}},
		{"Codex's title for our call, nothing else", sdk.ToolCallUpdate{Title: ptr("Tool: agentero-context/context_search")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.tc.ToolCallId = "c1"
			req := sdk.RequestPermissionRequest{SessionId: "s", Options: options, ToolCall: tt.tc}
			resp, err := AllowContextTools(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId != "reject" {
				t.Errorf("outcome %+v, want reject; identity %+v", resp.Outcome, Identify(req))
			}
		})
	}
}

// codexInv is rawInput as Codex reports an MCP tool call.
func codexInv(server, tool string, args map[string]any) map[string]any {
	return map[string]any{"server": server, "tool": tool, "arguments": args}
}

// Codex reports its MCP tool calls (tool_call updates, as recorded from
// codex-acp 0.16.0) with the invocation as rawInput: ours are told by
// server and tool, with the tool's arguments, and their arguments are
// the call's.
func TestIdentifyCodexEvents(t *testing.T) {
	raw := `{"sessionUpdate":"tool_call","toolCallId":"call_0002_0","status":"in_progress","title":"Tool: agentero-context/context_read",` +
		`"rawInput":{"arguments":{"mode":"excerpt","quote":"strided global tokens","target":"papers/2401.01234/2401.01234.pdf#page=1"},"server":"agentero-context","tool":"context_read"}}`
	var u sdk.SessionUpdate
	if err := json.Unmarshal([]byte(raw), &u); err != nil {
		t.Fatal(err)
	}
	tr := newTracker(nil)
	tr.update(u)
	calls := tr.finish(nil, StatusUnfinished)
	if len(calls) != 1 {
		t.Fatalf("calls %+v", calls)
	}
	c := calls[0]
	if !c.Ours || c.Tool != "context_read" || c.Server != "agentero-context" {
		t.Errorf("call %+v, want ours context_read", c)
	}
	var args map[string]any
	if err := json.Unmarshal(c.Args, &args); err != nil || args["target"] != "papers/2401.01234/2401.01234.pdf#page=1" || args["server"] != nil {
		t.Errorf("args %s, want the invocation's arguments", c.Args)
	}
}

func TestAnswer(t *testing.T) {
	all := []sdk.PermissionOption{
		{Kind: sdk.PermissionOptionKindAllowAlways, OptionId: "always"},
		{Kind: sdk.PermissionOptionKindAllowOnce, OptionId: "once"},
		{Kind: sdk.PermissionOptionKindRejectAlways, OptionId: "never"},
		{Kind: sdk.PermissionOptionKindRejectOnce, OptionId: "reject"},
	}
	tests := []struct {
		name    string
		options []sdk.PermissionOption
		allow   bool
		want    string // "" for cancelled
	}{
		{"allow picks allow_once", all, true, "once"},
		{"reject picks reject_once", all, false, "reject"},
		{"reject falls back to reject_always", all[:3], false, "never"},
		{"no reject option: cancelled", all[:2], false, ""},
		{"allow never picks allow_always", all[:1], true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := sdk.RequestPermissionRequest{Options: tt.options}
			resp := Answer(req, tt.allow)
			got := ""
			if resp.Outcome.Selected != nil {
				got = string(resp.Outcome.Selected.OptionId)
			} else if resp.Outcome.Cancelled == nil {
				t.Fatal("neither selected nor cancelled")
			}
			if got != tt.want {
				t.Errorf("selected %q, want %q", got, tt.want)
			}
			if allowed(req, resp) != (tt.want == "once") {
				t.Errorf("allowed = %v", allowed(req, resp))
			}
		})
	}
}

// TestToolArgs keeps the policy's argument lists in step with the tools'
// input types (the schema package mcp derives from them).
func TestToolArgs(t *testing.T) {
	inputs := map[string]any{
		grant.ToolSearch:    tools.SearchInput{},
		grant.ToolRead:      tools.ReadInput{},
		grant.ToolRelations: tools.RelationsInput{},
	}
	if len(inputs) != len(grant.Tools()) || len(toolArgs) != len(grant.Tools()) {
		t.Fatalf("tools %v, inputs %d, policy lists %d", grant.Tools(), len(inputs), len(toolArgs))
	}
	for name, in := range inputs {
		var props, required []string
		rt := reflect.TypeOf(in)
		for i := range rt.NumField() {
			tag := rt.Field(i).Tag.Get("json")
			key, opts, _ := strings.Cut(tag, ",")
			props = append(props, key)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, key)
			}
		}
		got := toolArgs[name]
		if diff := cmp.Diff(props, got.props); diff != "" {
			t.Errorf("%s properties (-tools +policy):\n%s", name, diff)
		}
		if diff := cmp.Diff(required, got.required); diff != "" {
			t.Errorf("%s required (-tools +policy):\n%s", name, diff)
		}
		if !slices.Contains(grant.Tools(), name) {
			t.Errorf("%s is not one of %v", name, grant.Tools())
		}
	}
}
