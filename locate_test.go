package researchctx

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
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
			_, ev := resolveSelection(t, &res, dir, tt.sel)
			if diff := cmp.Diff(tt.want, placed{ev.Page, ev.Section, ev.CitationURI}); diff != "" {
				t.Errorf("evidence (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResolveCitesEveryPageOfAQuote: a selection whose text runs over a
// page break is cited by both pages, whichever of them the host names or
// when it names none; a quote on one page has one citation.
func TestResolveCitesEveryPageOfAQuote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	const pdf = "papers/2401.01234/2401.01234.pdf"
	var res Resolver
	t.Cleanup(func() { res.Close() })
	lib, err := res.Library(dir)
	if err != nil {
		t.Fatal(err)
	}
	src, err := lib.Open(context.Background(), grant.KindPaper, "papers/2401.01234")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := src.Read(context.Background(), pdf)
	if err != nil {
		t.Fatal(err)
	}
	pageWords := map[int][]string{}
	for _, p := range doc.Parts {
		pageWords[p.Page] = append(pageWords[p.Page], strings.Fields(p.Text)...)
	}
	if len(pageWords[1]) < 10 || len(pageWords[2]) < 10 {
		t.Fatalf("the sample paper's pages 1 and 2 have %d and %d words", len(pageWords[1]), len(pageWords[2]))
	}
	end1, start2 := pageWords[1][len(pageWords[1])-8:], pageWords[2][:8]
	across := strings.Join(append(append([]string{}, end1...), start2...), " ")
	p1, p2 := pdf+"#page=1", pdf+"#page=2"
	type cited struct {
		Page         int
		CitationURI  string
		CitationURIs []string
	}
	tests := []struct {
		name string
		sel  Selection
		want cited
	}{
		{"across the break, page 1 named", Selection{Text: across, Path: pdf, Page: 1}, cited{1, p1, []string{p1, p2}}},
		{"across the break, page 2 named", Selection{Text: across, Path: pdf, Page: 2}, cited{2, p2, []string{p1, p2}}},
		{"across the break, no page", Selection{Text: across, Path: pdf}, cited{1, p1, []string{p1, p2}}},
		{"on one page", Selection{Text: strings.Join(start2, " "), Path: pdf, Page: 2}, cited{2, p2, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ev := resolveSelection(t, &res, dir, tt.sel)
			if diff := cmp.Diff(tt.want, cited{ev.Page, ev.CitationURI, ev.CitationURIs}); diff != "" {
				t.Errorf("evidence (-want +got):\n%s", diff)
			}
			for _, d := range p.Dropped {
				t.Errorf("dropped %+v: the quote is where the host said", d)
			}
			wantCite := "Cite: " + tt.want.CitationURI + "\n"
			if len(tt.want.CitationURIs) > 1 {
				wantCite = "Cite: " + strings.Join(tt.want.CitationURIs, ", ") + "\n"
			}
			if prompt := p.Prompt(); !strings.Contains(prompt, wantCite) {
				t.Errorf("the prompt lacks %q:\n%s", wantCite, prompt)
			}
		})
	}
}
