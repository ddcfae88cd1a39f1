package usage

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
)

// TestReadUsageSameWork: a work reached by several locators — a library
// paper's PDF and its arXiv or DOI link — is one source, named by its Vault
// path, with every locator and its strongest use; pages stay sources of
// their own.
func TestReadUsageSameWork(t *testing.T) {
	const (
		pdf   = "papers/1706.03762/1706.03762.pdf"
		arxiv = "https://arxiv.org/abs/1706.03762"
		doi   = "https://doi.org/10.5555/other"
	)
	tests := []struct {
		name  string
		lines []Line
		want  []Used
	}{
		{"a link first, then the paper's metadata", []Line{
			{TurnID: "t", Tool: grant.ToolRelations, URIs: []string{arxiv, doi}},
			{TurnID: "t", Tool: grant.ToolRead, URIs: []string{pdf}, Same: [][]string{{pdf, arxiv}}},
			{TurnID: "t", Tool: grant.ToolRead, URIs: []string{pdf + "#page=3"}},
		}, []Used{
			{URI: pdf, Use: UseRead, Tools: []string{grant.ToolRelations, grant.ToolRead}, Place: InGrant, Locators: []string{pdf, arxiv}},
			{URI: doi, Use: UseRelated, Tools: []string{grant.ToolRelations}, Place: Outside},
			{URI: pdf + "#page=3", Use: UseRead, Tools: []string{grant.ToolRead}, Place: InGrant},
		}},
		{"a card naming both, the link seen again", []Line{
			{TurnID: "t", Tool: grant.ToolRelations, URIs: []string{pdf}, Same: [][]string{{pdf, arxiv}}},
			{TurnID: "t", Tool: grant.ToolRelations, URIs: []string{arxiv}},
		}, []Used{
			{URI: pdf, Use: UseRelated, Tools: []string{grant.ToolRelations}, Place: InGrant, Locators: []string{pdf, arxiv}},
		}},
		{"a set that links two sets", []Line{
			{TurnID: "t", Tool: grant.ToolRelations, URIs: []string{arxiv}},
			{TurnID: "t", Tool: grant.ToolRelations, URIs: []string{doi}},
			{TurnID: "t", Tool: grant.ToolSearch, URIs: []string{pdf}, Same: [][]string{{arxiv, doi}, {doi, pdf}}},
		}, []Used{
			{URI: pdf, Use: UseSearched, Tools: []string{grant.ToolRelations, grant.ToolSearch}, Place: InGrant, Locators: []string{pdf, arxiv, doi}},
		}},
		{"a set whose locators were not returned", []Line{
			{TurnID: "t", Tool: grant.ToolRead, URIs: []string{pdf}, Same: [][]string{{pdf, arxiv, doi}}},
		}, []Used{
			{URI: pdf, Use: UseRead, Tools: []string{grant.ToolRead}, Place: InGrant},
		}},
	}
	scope := &grant.Scope{Sources: []grant.Ref{{Kind: grant.KindPaper, Path: "papers/1706.03762"}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), grant.UsageFile)
			for _, l := range tt.lines {
				if err := appendLine(path, l); err != nil {
					t.Fatal(err)
				}
			}
			u, err := Read(path, "t", scope)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, u.Sources); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
		})
	}
}
