package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/tools"
)

// fakeToolset answers with canned outputs or errors, so the transport layer
// can be tested apart from the tools' meaning.
type fakeToolset struct {
	search    *tools.SearchOutput
	read      *tools.ReadOutput
	relations *tools.RelationsOutput
	err       error
}

func (f *fakeToolset) Search(ctx context.Context, in tools.SearchInput) (*tools.SearchOutput, error) {
	return f.search, f.err
}

func (f *fakeToolset) Read(ctx context.Context, in tools.ReadInput) (*tools.ReadOutput, error) {
	return f.read, f.err
}

func (f *fakeToolset) Relations(ctx context.Context, in tools.RelationsInput) (*tools.RelationsOutput, error) {
	return f.relations, f.err
}

// connect runs s on an in-memory transport and returns a connected client
// session, closed at the end of the test.
func connect(t *testing.T, s *sdk.Server, opts *sdk.ClientSessionOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, tool string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", tool, args, err)
	}
	return res
}

// text returns the text blocks of a result, joined.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// size is the size of a result as maxResultChars counts it.
func size(t *testing.T, res *sdk.CallToolResult) int {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return utf8.RuneCountInString(text(res)) + utf8.RuneCount(data)
}

// TestRegister registers every tool (a jsonschema tag with keywords would
// panic here) and checks what tools/list tells a client.
func TestRegister(t *testing.T) {
	cs := connect(t, NewServer(&fakeToolset{}, nil), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want read-only, idempotent, closed-world", tool.Name, a)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"additionalProperties":false`) {
			t.Errorf("%s: input schema accepts unknown fields: %s", tool.Name, schema)
		}
		// Single-type schemas only: clients that map tool schemas onto a
		// single-type dialect drop type arrays.
		out, _ := json.Marshal(tool.OutputSchema)
		if strings.Contains(string(schema)+string(out), `"type":[`) {
			t.Errorf("%s: a type array in the schemas: %s %s", tool.Name, schema, out)
		}
	}
	want := []string{grant.ToolRead, grant.ToolSearch, grant.ToolRelations}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d characters of JSON", len(data))
	if testing.Verbose() {
		t.Logf("%s", data)
	}
	if len(data) > 6000 {
		t.Errorf("tools/list is %d characters of JSON, want ≤ 6000", len(data))
	}
	init := cs.InitializeResult()
	if init.ServerInfo.Name != grant.ServerName {
		t.Errorf("server name %q, want %q", init.ServerInfo.Name, grant.ServerName)
	}
	if init.Instructions != instructions {
		t.Errorf("instructions not sent")
	}
	//lint:ignore SA1019 the capability must stay unadvertised while it is deprecated
	if init.Capabilities.Logging != nil {
		t.Errorf("logging capability advertised")
	}
}

func TestRegisterSubset(t *testing.T) {
	cs := connect(t, NewServer(&fakeToolset{}, &ServerOptions{Tools: []string{grant.ToolSearch}}), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != grant.ToolSearch {
		t.Errorf("tools %v, want only %s", res.Tools, grant.ToolSearch)
	}
}

// validArgs are minimal valid arguments of each tool.
var validArgs = map[string]map[string]any{
	grant.ToolSearch:    {"query": "x"},
	grant.ToolRead:      {"target": "x"},
	grant.ToolRelations: {"paper": "x"},
}

// TestErrors: a Toolset error reaches the model as an isError result with
// one line and no Vault path, never as a protocol error.
func TestErrors(t *testing.T) {
	const vault = "/home/someone/Vault"
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"grant changed", tools.ErrGrantChanged, "the grant changed; start a new session"},
		{"not granted", fmt.Errorf("%w: papers/x", tools.ErrNotGranted), "not granted in this turn: papers/x"},
		{"budget", fmt.Errorf("%w: 60000 of 60000 characters used", tools.ErrBudgetSpent), "the turn's reading budget is spent: 60000 of 60000 characters used"},
		{"multi-line", errors.New("bad\nthing"), "bad thing"},
		{"vault path", errors.New("open " + vault + "/papers/x: denied"), "open {vault}/papers/x: denied"},
		{"absolute argument", fmt.Errorf("%w: %q", tools.ErrNotGranted, "/etc/passwd"), `not granted in this turn: "(absolute path)"`},
		{"file URL", fmt.Errorf("%w: %q", tools.ErrNotGranted, "file:///etc/passwd"), `not granted in this turn: "(absolute path)"`},
		{"home", fmt.Errorf("%w: ~/x and C:\\x", tools.ErrNotGranted), `not granted in this turn: (absolute path) and (absolute path)`},
		{"links and relative paths stay", fmt.Errorf("%w: %q is an external link, see https://doi.org/10.1/x", tools.ErrNotGranted, "papers/x/../y"), `not granted in this turn: "papers/x/../y" is an external link, see https://doi.org/10.1/x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := connect(t, NewServer(&fakeToolset{err: tt.err}, &ServerOptions{Vault: vault}), nil)
			for tool, args := range validArgs {
				res := call(t, cs, tool, args)
				if !res.IsError {
					t.Errorf("%s: not an isError result", tool)
				}
				if got := text(res); got != tt.want {
					t.Errorf("%s: message %q, want %q", tool, got, tt.want)
				}
			}
		})
	}
}

// TestMalformedArguments: arguments that break the schema are isError
// results the model can fix.
func TestMalformedArguments(t *testing.T) {
	ok := &fakeToolset{
		search:    &tools.SearchOutput{Cards: []tools.Card{}},
		read:      &tools.ReadOutput{Target: "x", Mode: "metadata"},
		relations: &tools.RelationsOutput{Paper: "x"},
	}
	cs := connect(t, NewServer(ok, nil), nil)
	tests := []struct {
		tool string
		args any
	}{
		{grant.ToolSearch, map[string]any{}},
		{grant.ToolSearch, map[string]any{"query": 3}},
		{grant.ToolSearch, map[string]any{"query": "x", "limit": "many"}},
		{grant.ToolSearch, map[string]any{"query": "x", "unknown": true}},
		{grant.ToolRead, map[string]any{"target": []string{"a"}}},
		{grant.ToolRead, map[string]any{"target": "x", "page": 1.5}},
		{grant.ToolRead, map[string]any{"target": "x", "path": "y"}},
		{grant.ToolRead, nil},
		{grant.ToolRelations, map[string]any{"paper": nil}},
		{grant.ToolRelations, json.RawMessage(`{"paper":"x","limit":1e400}`)},
		{grant.ToolRelations, json.RawMessage(`[1,2]`)},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Errorf("%s(%v): protocol error %v, want an isError result", tt.tool, tt.args, err)
			continue
		}
		if !res.IsError {
			t.Errorf("%s(%v): accepted, want an isError result", tt.tool, tt.args)
		}
	}
}

// TestNilResult: a Toolset that returns nothing is an isError result, not
// a crash.
func TestNilResult(t *testing.T) {
	cs := connect(t, NewServer(&fakeToolset{}, nil), nil)
	for tool, args := range validArgs {
		if res := call(t, cs, tool, args); !res.IsError {
			t.Errorf("%s: %s", tool, text(res))
		}
	}
}

// TestUnknownTool: calling a tool that does not exist is a protocol error,
// as the SDK defines.
func TestUnknownTool(t *testing.T) {
	cs := connect(t, NewServer(&fakeToolset{}, &ServerOptions{Tools: []string{grant.ToolSearch}}), nil)
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: grant.ToolRead, Arguments: map[string]any{"target": "x"}})
	if err == nil {
		t.Error("calling an unserved tool succeeded")
	}
}
