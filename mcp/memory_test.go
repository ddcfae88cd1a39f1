package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/tools"
)

// The server serves any Source: here an in-memory one standing for a
// connector to another library. Nothing in mcp or tools changes.
func TestServeMemorySource(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(vault, 0o755); err != nil {
		t.Fatal(err)
	}
	mem := sourcetest.NewMemory(
		sources.Info{Path: "zotero/ITEM42", Kind: grant.KindFile, Title: "Connector notes"},
		sourcetest.TextDocument("zotero/ITEM42", "Connector notes\nA memory source is searched and read like any other.\n"),
	)
	plan := &researchctx.Plan{
		Vault: vault, RuntimeID: "mem", TurnID: "t1",
		Scope: grant.Scope{
			Mode: grant.ModeMCP, Tools: grant.Tools(),
			Sources: []grant.Ref{{Kind: grant.KindFile, Path: "zotero/ITEM42"}},
			Budget:  grant.DefaultBudget(),
		},
	}
	plan.Fingerprint = plan.Scope.Fingerprint()
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, &tools.Options{
		Sources: func(context.Context, *grant.Grant, tools.OpenFunc) ([]sources.Source, error) {
			return []sources.Source{mem}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	cs := connect(t, NewServer(ts, &ServerOptions{Tools: plan.Tools, Vault: vault}), nil)
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: grant.ToolSearch, Arguments: map[string]any{"query": "memory source"}})
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, res)
	var out tools.SearchOutput
	decode(t, res, &out)
	if len(out.Cards) != 1 || out.Cards[0].CitationURI != "zotero/ITEM42" || !strings.Contains(out.Cards[0].Excerpt, "searched and read") {
		t.Fatalf("cards = %+v", out.Cards)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: grant.ToolRead, Arguments: map[string]any{"target": "zotero/ITEM42", "mode": "full"}})
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, res)
	var read tools.ReadOutput
	decode(t, res, &read)
	if !strings.Contains(read.Text, "like any other") {
		t.Errorf("read = %+v", read)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: grant.ToolRead, Arguments: map[string]any{"target": "zotero/OTHER"}})
	if err != nil || !res.IsError {
		t.Errorf("a source outside the grant was read: %v %v", res, err)
	}
	if u := turnUsage(t, gr, "t1"); u.Calls != 2 || len(u.Sources) != 1 || u.Sources[0].URI != "zotero/ITEM42" {
		t.Errorf("usage = %+v", u)
	}
}
