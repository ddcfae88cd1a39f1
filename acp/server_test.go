package acp

import (
	"encoding/json"
	"errors"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// The wire form of the entry on all three session requests: empty lists,
// never null, and an entry that decodes back as the stdio variant.
func TestServerEntryJSON(t *testing.T) {
	srv := Server{Command: "/opt/host/bin/host", Args: []string{"--agentero-context-mcp", "/v/.agentero/context-sessions/r/grant.json"}}
	d := Decision{AttachServer: true}
	servers, err := d.McpServers(srv)
	if err != nil {
		t.Fatal(err)
	}
	wantEntry := map[string]any{
		"name":    "agentero-context",
		"command": "/opt/host/bin/host",
		"args":    []any{"--agentero-context-mcp", "/v/.agentero/context-sessions/r/grant.json"},
		"env":     []any{},
	}
	reqs := map[string]any{
		"session/new":    sdk.NewSessionRequest{Cwd: "/v", McpServers: servers},
		"session/load":   sdk.LoadSessionRequest{Cwd: "/v", SessionId: "s", McpServers: servers},
		"session/resume": sdk.ResumeSessionRequest{Cwd: "/v", SessionId: "s", McpServers: servers},
	}
	for method, req := range reqs {
		data, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var got struct {
			McpServers []map[string]any `json:"mcpServers"`
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]map[string]any{wantEntry}, got.McpServers); diff != "" {
			t.Errorf("%s mcpServers (-want +got):\n%s\nraw: %s", method, diff, data)
		}
		// The agent side decodes it as the stdio variant.
		var back sdk.NewSessionRequest
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if len(back.McpServers) != 1 || back.McpServers[0].Stdio == nil {
			t.Errorf("%s: entry does not decode as stdio: %+v", method, back.McpServers)
		}
	}

	// No args at all still sends an empty list.
	e, err := Server{Command: "/bin/host"}.Entry()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(e)
	if want := `{"args":[],"command":"/bin/host","env":[],"name":"agentero-context"}`; string(data) != want {
		t.Errorf("entry without args = %s, want %s", data, want)
	}
}

// Why the entry must be built with empty slices: the SDK's own zero values
// go out as null, and without args/env the entry decodes as HTTP.
func TestSDKNullGotchas(t *testing.T) {
	data, _ := json.Marshal(sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "x", Command: "/bin/x"}})
	if want := `{"args":null,"command":"/bin/x","env":null,"name":"x"}`; string(data) != want {
		t.Errorf("nil Args/Env marshal as %s, want %s (did the SDK change?)", data, want)
	}
	var u sdk.McpServer
	if err := json.Unmarshal([]byte(`{"name":"x","command":"/bin/x"}`), &u); err != nil {
		t.Fatal(err)
	}
	if u.Stdio != nil || u.Http == nil {
		t.Errorf("entry without args/env decoded as %+v, want the HTTP variant (did the SDK change?)", u)
	}
	data, _ = json.Marshal(sdk.NewSessionRequest{Cwd: "/v"})
	if want := `{"cwd":"/v","mcpServers":null}`; string(data) != want {
		t.Errorf("nil McpServers marshal as %s, want %s", data, want)
	}
}

func TestMcpServersWithoutServer(t *testing.T) {
	servers, err := Decision{}.McpServers(Server{})
	if err != nil {
		t.Fatal(err)
	}
	if servers == nil || len(servers) != 0 {
		t.Fatalf("prompt-only servers = %#v, want an empty non-nil list", servers)
	}
	data, _ := json.Marshal(sdk.NewSessionRequest{Cwd: "/v", McpServers: servers})
	if want := `{"cwd":"/v","mcpServers":[]}`; string(data) != want {
		t.Errorf("session/new = %s, want %s", data, want)
	}
}

func TestServerEntryErrors(t *testing.T) {
	for _, s := range []Server{{}, {Command: "relative/host"}} {
		if _, err := (Decision{AttachServer: true}).McpServers(s); !errors.Is(err, ErrServer) {
			t.Errorf("McpServers(%+v) error = %v, want ErrServer", s, err)
		}
	}
}
