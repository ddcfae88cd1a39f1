package tools_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/tools"
)

// A search never returns the same passage twice, whatever the scope: not
// for a plan whose mentions overlap (Resolve grants the containing source
// once), nor for a grant written by hand whose sources overlap (a folder,
// a paper in it, that paper's PDF and notes).
func TestSearchSamePassageOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	var res researchctx.Resolver
	defer res.Close()
	for _, tt := range []struct {
		name     string
		mentions []string
		extra    []grant.Ref // added to the plan's sources by hand
	}{
		{"overlapping mentions", []string{"papers/vision/resnet-like/paper.pdf", "papers/vision/resnet-like", "papers/vision"}, nil},
		{"a grant whose sources overlap", []string{"papers/vision"}, []grant.Ref{
			{Kind: grant.KindPaper, Path: "papers/vision/resnet-like"},
			{Kind: grant.KindFile, Path: "papers/vision/resnet-like/paper.pdf"},
			{Kind: grant.KindFile, Path: "papers/vision/resnet-like/NOTES.md"},
			{Kind: grant.KindPaper, Path: "papers/vision/patch-tokens"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := res.Resolve(context.Background(), researchctx.Request{Vault: dir, RuntimeID: "rt", TurnID: "turn-1", Mentions: tt.mentions})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Sources) != 1 {
				t.Fatalf("sources %+v, want the folder alone", plan.Sources)
			}
			if tt.extra != nil {
				plan.Sources = append(plan.Sources, tt.extra...)
				plan.Fingerprint = plan.Scope.Fingerprint()
			}
			gr, err := plan.WriteGrant()
			if err != nil {
				t.Fatal(err)
			}
			ts, err := tools.Open(context.Background(), gr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ts.Close()
			for _, q := range []string{"residual gate", "sparse attention patches tile", "scalar gate initialised at zero"} {
				out, err := ts.Search(context.Background(), tools.SearchInput{Query: q, Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				if len(out.Cards) == 0 {
					t.Fatalf("%q: no cards", q)
				}
				seen := map[[2]string]bool{}
				for _, c := range out.Cards {
					k := [2]string{c.CitationURI, c.Excerpt}
					if seen[k] {
						t.Errorf("%q: the passage at %s twice", q, c.CitationURI)
					}
					seen[k] = true
				}
			}
		})
	}
}
