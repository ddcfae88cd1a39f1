package tools_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// A connector's source — here an in-memory one — is served by the same
// Toolset, with the same budget, citation URIs and usage log as the Vault's
// own sources: nothing in tools or mcp knows where the text came from.
func Example_customSource() {
	dir, _ := os.MkdirTemp("", "example-vault")
	defer os.RemoveAll(dir)
	vault := filepath.Join(dir, "vault")
	os.MkdirAll(vault, 0o755)

	mem := sourcetest.NewMemory(
		sources.Info{Path: "zotero/ABCD1234", Kind: grant.KindFile, Title: "Reading notes"},
		sourcetest.TextDocument("zotero/ABCD1234", "# Reading notes\n\nSparse attention keeps a local window per token.\n"),
	)
	// The grant names the source like any other.
	plan := &researchctx.Plan{
		Vault: vault, RuntimeID: "example", TurnID: "t1",
		Scope: grant.Scope{
			Mode:    grant.ModeMCP,
			Tools:   grant.Tools(),
			Sources: []grant.Ref{{Kind: grant.KindFile, Path: "zotero/ABCD1234"}},
			Budget:  grant.DefaultBudget(),
		},
	}
	plan.Fingerprint = plan.Scope.Fingerprint()
	gr, err := plan.WriteGrant()
	if err != nil {
		log.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, &tools.Options{
		Sources: func(context.Context, *grant.Grant, tools.OpenFunc) ([]sources.Source, error) {
			return []sources.Source{mem}, nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer ts.Close()
	out, err := ts.Search(context.Background(), tools.SearchInput{Query: "local window"})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range out.Cards {
		fmt.Println(c.CitationURI, "—", c.Excerpt)
	}
	u, _ := usage.Read(grant.UsagePath(gr), "t1", &plan.Scope)
	for _, s := range u.Sources {
		fmt.Println("source:", s.URI, s.Use, s.Place)
	}
	// Output:
	// zotero/ABCD1234 — Sparse attention keeps a local window per token.
	// source: zotero/ABCD1234 searched grant
}
