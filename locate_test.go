package researchctx

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/samplevault"
)

// TestResolveLocatesSelections: a selection sent without a page or section
// is placed where its text is in the file, exactly or approximately, as is
// one whose page does not hold its text; one whose text is not there stays
// unplaced and uncited.
func TestResolveLocatesSelections(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	const pdf = "papers/2401.01234/2401.01234.pdf"
	type placed struct {
		Page        int
		Section     string
		CitationURI string
	}
	tests := []struct {
		name string
		sel  Selection
		want placed
	}{
		{"exact, current paper", Selection{Text: "When we remove the gate and add the summary directly, SciLong accuracy drops by 1.7 points"},
			placed{2, "", pdf + "#page=2"}},
		{"words dropped, the PDF named", Selection{Text: "When we remove the gate and add the summary, SciLong accuracy drops 1.7 points", Path: pdf},
			placed{2, "", pdf + "#page=2"}},
		{"the text, not the host's page, places it", Selection{Text: "When we remove the gate and add the summary directly", Page: 1},
			placed{2, "", pdf + "#page=2"}},
		{"a Markdown note by section", Selection{Text: "Does the gated summary of SBA help when answers sit in tables?", Path: "notes/reading-plan.md"},
			placed{0, "Open questions", "notes/reading-plan.md#section=Open%20questions"}},
		{"not in the paper", Selection{Text: "Convolutional networks were trained on ImageNet with stochastic gradient descent and momentum"},
			placed{0, "", ""}},
	}
	var res Resolver
	t.Cleanup(func() { res.Close() })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(dir)
			r.CurrentPaper = "papers/2401.01234"
			r.Selections = []Selection{tt.sel}
			p, err := res.Resolve(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Evidence) != 1 {
				t.Fatalf("evidence = %+v, want one item", p.Evidence)
			}
			ev := p.Evidence[0]
			if diff := cmp.Diff(tt.want, placed{ev.Page, ev.Section, ev.CitationURI}); diff != "" {
				t.Errorf("evidence (-want +got):\n%s", diff)
			}
		})
	}
}
