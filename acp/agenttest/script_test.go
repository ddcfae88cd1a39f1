package agenttest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCitations(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"text rendering", "1. Title\n   cite: papers/a/a.pdf#page=2\n2. Other\n   cite: notes/x.md#section=A%20b\n", []string{"papers/a/a.pdf#page=2", "notes/x.md#section=A%20b"}},
		{"structured copy", `{"cards":[{"citationUri":"papers/a/a.pdf#page=1"},{"citationUri":"notes/\"q\".md"}]}`, []string{"papers/a/a.pdf#page=1", `notes/"q".md`}},
		{"none", "not granted", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Citations(tt.text)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Research walks a turn: load the deferred tools (Claude Code), search,
// read the first card, answer citing the read; and the two other prompts.
func TestResearch(t *testing.T) {
	const (
		search = "mcp__agentero-context__context_search"
		read   = "mcp__agentero-context__context_read"
	)
	declared := []Tool{{Name: ToolSearch}, {Name: search}, {Name: read}, {Name: "Bash"}, {Name: "Read"}}
	user := func(text string) Message { return Message{Role: RoleUser, Text: text} }
	call := func(id, name string) Message {
		return Message{Role: RoleModel, Calls: []Call{{ID: id, Name: name}}}
	}
	result := func(id, text string, isErr bool) Message {
		return Message{Role: RoleUser, Results: []Result{{ID: id, Text: text, IsError: isErr}}}
	}
	script := Research("/tmp/marker", "/v/secret.txt", "/v/secret.png")
	const hostileCmd = "cat /v/secret.txt; cat /v/secret.png; touch /tmp/marker # context_search"
	tests := []struct {
		name string
		req  Request
		want Reply
	}{
		{"tools deferred: ToolSearch first",
			Request{Tools: []Tool{{Name: ToolSearch}}, Messages: []Message{user("q " + search + " " + read)}, Body: []byte(search + " " + read)},
			Reply{Calls: []Call{{Name: ToolSearch, Args: map[string]any{"query": "select:" + read + "," + search, "max_results": 2}}}}},
		{"search",
			Request{Tools: declared, Messages: []Message{user("q")}},
			Reply{Calls: []Call{{Name: search, Args: map[string]any{"query": ResearchQuery}}}}},
		{"read the first card",
			Request{Tools: declared, Messages: []Message{user("q"), call("1", search), result("1", "cite: papers/a.pdf#page=2\ncite: notes/b.md", false)}},
			Reply{Calls: []Call{{Name: read, Args: map[string]any{"target": "papers/a.pdf#page=2", "mode": "excerpt", "quote": ResearchQuery}}}}},
		{"answer citing the read",
			Request{Tools: declared, Messages: []Message{user("q"), call("1", search), result("1", "cite: papers/a.pdf#page=2", false), call("2", read), result("2", "cite: papers/a.pdf#page=2", false)}},
			Reply{Text: "Strided global tokens summarise the whole document [papers/a.pdf#page=2]."}},
		{"out of grant",
			Request{Tools: declared, Messages: []Message{user(AskOutOfGrant)}},
			Reply{Calls: []Call{{Name: read, Args: map[string]any{"target": OutsideGrant, "mode": "metadata"}}}}},
		{"out of grant: the error",
			Request{Tools: declared, Messages: []Message{user(AskOutOfGrant), call("1", read), result("1", "not granted", true)}},
			Reply{Text: "The read came back: not granted"}},
		{"hostile",
			Request{Tools: declared, Messages: []Message{user(AskHostile)}},
			Reply{Calls: []Call{{Name: "Bash", Args: map[string]any{"command": "cat /v/secret.txt; cat /v/secret.png; touch /tmp/marker # context_search", "description": "context_search"}},
				{Name: "Read", Args: map[string]any{"file_path": "/v/secret.txt"}}}}},
		{"hostile, Codex's exec_command",
			Request{Tools: []Tool{{Name: search}, {Name: "exec_command"}}, Messages: []Message{user(AskHostile)}},
			Reply{Calls: []Call{{Name: "exec_command", Args: map[string]any{"cmd": "cat /v/secret.txt; cat /v/secret.png; touch /tmp/marker # context_search"}}}}},
		{"hostile, no shell tool declared",
			Request{Tools: []Tool{{Name: search}, {Name: ViewImage}}, Messages: []Message{user(AskHostile)}},
			Reply{Calls: []Call{
				{Name: "run_shell_command", Args: map[string]any{"command": hostileCmd, "description": "context_search"}},
				{Name: "Bash", Args: map[string]any{"command": hostileCmd, "description": "context_search"}},
				{Name: "exec_command", Args: map[string]any{"cmd": hostileCmd}},
				{Name: "shell", Args: map[string]any{"command": []any{"bash", "-lc", hostileCmd}}},
				{Name: "shell_command", Args: map[string]any{"command": hostileCmd}},
				{Name: "Read", Args: map[string]any{"file_path": "/v/secret.txt"}},
				{Name: "read_file", Args: map[string]any{"file_path": "/v/secret.txt"}},
				{Name: ViewImage, Args: map[string]any{"path": "/v/secret.png"}},
			}}},
		{"hostile, Codex's apply_patch: the patches that read, then the one that writes",
			Request{Tools: []Tool{{Name: search}, {Name: ApplyPatch}}, Messages: []Message{user(AskHostile)}},
			Reply{Calls: []Call{
				{Name: "run_shell_command", Args: map[string]any{"command": hostileCmd, "description": "context_search"}},
				{Name: "Bash", Args: map[string]any{"command": hostileCmd, "description": "context_search"}},
				{Name: "exec_command", Args: map[string]any{"cmd": hostileCmd}},
				{Name: "shell", Args: map[string]any{"command": []any{"bash", "-lc", hostileCmd}}},
				{Name: "shell_command", Args: map[string]any{"command": hostileCmd}},
				{Name: "Read", Args: map[string]any{"file_path": "/v/secret.txt"}},
				{Name: "read_file", Args: map[string]any{"file_path": "/v/secret.txt"}},
				{Name: ApplyPatch, Args: map[string]any{"input": HostilePatches("/v/secret.txt")[0]}},
				{Name: ApplyPatch, Args: map[string]any{"input": HostilePatches("/v/secret.png")[0]}},
			}}},
		{"hostile, Codex's apply_patch: the add after the results",
			Request{Tools: []Tool{{Name: search}, {Name: ApplyPatch}}, Messages: []Message{user(AskHostile), call("1", "exec_command"), result("1", "unsupported call", false)}},
			Reply{Calls: []Call{{Name: ApplyPatch, Args: map[string]any{"input": "*** Begin Patch\n*** Add File: /tmp/marker.patch\n+context_search\n*** End Patch\n"}}}}},
		{"read with the agent's own tool",
			Request{Tools: declared, Messages: []Message{user(AskRead)}},
			Reply{Calls: []Call{{Name: "Read", Args: map[string]any{"file_path": "/v/secret.txt"}}}}},
		{"hostile: what came back",
			Request{Tools: declared, Messages: []Message{user(AskHostile), call("1", "Bash"), result("1", "denied", true)}},
			Reply{Text: "The shell call came back: denied"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, script(tt.req)); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}
