package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// TestLibraryPaperByTwoLocatorsIsOneSource: a library paper the agent read
// (its PDF) and saw on a connector's relation card (its arXiv link) is one
// source of the turn, with both locators. The paper has no metadata.json:
// its arXiv id is the one its PDF's first page shows.
func TestLibraryPaperByTwoLocatorsIsOneSource(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t, "pdfs"), "arxiv-1706.03762.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	vaultDir := t.TempDir()
	unit := filepath.Join(vaultDir, "papers", "1706.03762")
	if err := os.MkdirAll(unit, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"1706.03762.pdf": data, "NOTES.md": []byte("To read.\n")} {
		if err := os.WriteFile(filepath.Join(unit, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("wiki", wiki{})
	r := researchctx.Resolver{Registry: reg}
	t.Cleanup(func() { r.Close() })
	plan, err := r.Resolve(context.Background(), researchctx.Request{Vault: vaultDir, RuntimeID: "same", TurnID: "turn-1",
		Mentions: []string{"papers/1706.03762", "wiki:leaky"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, &tools.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	ctx := context.Background()
	// The connector's card names the paper by its arXiv link.
	rels, err := ts.Relations(ctx, tools.RelationsInput{Paper: "wiki/leaky"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rels.References) != 1 || rels.References[0].CitationURI != "https://arxiv.org/abs/1706.03762" {
		t.Fatalf("references %+v", rels.References)
	}
	meta, err := ts.Read(ctx, tools.ReadInput{Target: "papers/1706.03762"})
	if err != nil {
		t.Fatal(err)
	}
	if meta.ArXivID != "1706.03762" || meta.Title != "Attention Is All You Need" {
		t.Errorf("metadata: title %q, arXiv %q; want the PDF's", meta.Title, meta.ArXivID)
	}
	u, err := usage.Read(grant.UsagePath(gr), "turn-1", &plan.Scope)
	if err != nil {
		t.Fatal(err)
	}
	want := []usage.Used{{
		URI: "papers/1706.03762/1706.03762.pdf", Use: usage.UseRead, Tools: []string{grant.ToolRelations, grant.ToolRead}, Place: usage.InGrant,
		Locators: []string{"papers/1706.03762/1706.03762.pdf", "https://arxiv.org/abs/1706.03762"},
	}}
	if diff := cmp.Diff(want, u.Sources); diff != "" {
		t.Errorf("the turn's sources (-want +got):\n%s", diff)
	}
}
