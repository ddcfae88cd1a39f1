package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/tools"
)

// addDownloads gives the sample vault a downloads/ folder without the
// paper layout: a copy of the SBA paper's PDF, a one-page PDF in a
// subfolder and a damaged PDF.
func addDownloads(t *testing.T) func(vault string) {
	return func(vault string) {
		sba, err := os.ReadFile(filepath.Join(vault, "papers", "2401.01234", "2401.01234.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		for rel, data := range map[string][]byte{
			"downloads/sba.pdf":          sba,
			"downloads/field/quokka.pdf": hostilepdf.Plain("Quokkas sleep in hollow logs by day."),
			"downloads/broken.pdf":       []byte("%PDF-1.7\nthis is not a PDF body\n"),
		} {
			p := filepath.Join(vault, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

const sbaTitle = "Strided Block Attention for Long Document Encoding"

// TestLoosePDFMentioned: a PDF mentioned directly is granted as a file and
// served in every read mode, its cards and reads cited by page.
func TestLoosePDFMentioned(t *testing.T) {
	f := newFixtureWith(t, nil, addDownloads(t), "downloads/sba.pdf")
	if !cmp.Equal(f.plan.Sources[len(f.plan.Sources)-1], grant.Ref{Kind: grant.KindFile, Path: "downloads/sba.pdf", Title: sbaTitle}) {
		t.Fatalf("plan sources %+v", f.plan.Sources)
	}
	ctx := context.Background()
	res, err := f.ts.Search(ctx, tools.SearchInput{Query: "block partition", Source: "downloads/sba.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cards) == 0 || res.Cards[0].CitationURI != "downloads/sba.pdf#page=1" || res.Cards[0].Page != 1 || res.Cards[0].Title != sbaTitle {
		t.Fatalf("cards %+v, want page 1 of downloads/sba.pdf first", res.Cards)
	}

	md, err := f.ts.Read(ctx, tools.ReadInput{Target: "downloads/sba.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if md.Title != sbaTitle || md.Pages != 3 || !cmp.Equal(md.Authors, []string{"Mira Okafor", "Tomas Lindqvist", "Hana Sato"}) ||
		!strings.HasPrefix(md.Abstract, "Transformer encoders") || len(md.Sections) != 9 || md.CitationURI != "downloads/sba.pdf" {
		t.Errorf("metadata = %+v", md)
	}

	for _, tt := range []struct {
		name string
		in   tools.ReadInput
		cite string
		has  string
	}{
		{"section by number", tools.ReadInput{Target: "downloads/sba.pdf", Mode: tools.ReadSection, Section: "3.2"}, "downloads/sba.pdf#page=2", "For a stride s, the j-th global token"},
		{"page", tools.ReadInput{Target: "downloads/sba.pdf", Mode: tools.ReadPage, Page: 2}, "downloads/sba.pdf#page=2", "4 Experiments"},
		{"page from the citation", tools.ReadInput{Target: "downloads/sba.pdf#page=2"}, "downloads/sba.pdf#page=2", "4 Experiments"},
		{"excerpt", tools.ReadInput{Target: "downloads/sba.pdf", Quote: "the total attention cost is O(n b + n g)"}, "downloads/sba.pdf#page=2", "the total attention cost is O(n b + n g)"},
		{"full", tools.ReadInput{Target: "downloads/sba.pdf", Mode: tools.ReadFull}, "downloads/sba.pdf#page=1", "[page 1]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := f.ts.Read(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if out.CitationURI != tt.cite || !strings.Contains(out.Text, tt.has) {
				t.Errorf("read = {cite %q, text %.80q}, want %q with %q", out.CitationURI, out.Text, tt.cite, tt.has)
			}
		})
	}
	// A quote with a word changed is found approximately, verbatim.
	out, err := f.ts.Read(ctx, tools.ReadInput{Target: "downloads/sba.pdf", Quote: "the pooled summary is added to every block through a gated residual connection"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Match != tools.MatchApproximate || out.Page != 2 || !strings.Contains(strings.Join(strings.Fields(out.Text), " "), "added to each block through a gated residual connection") {
		t.Errorf("approximate excerpt = {match %q, page %d, text %.80q}", out.Match, out.Page, out.Text)
	}

	// The usage log names the PDF and the pages cited.
	got := usageOf(t, f.grant).URIs()
	slices.Sort(got)
	if want := []string{"downloads/sba.pdf", "downloads/sba.pdf#page=1", "downloads/sba.pdf#page=2", "downloads/sba.pdf#page=3"}; !cmp.Equal(got, want) {
		t.Errorf("usage URIs %v, want %v", got, want)
	}

	// A loose PDF has relations as a paper has: the references its text
	// lists, each with its label and the sentences citing it, cited by
	// the PDF's pages.
	rel, err := f.ts.Relations(ctx, tools.RelationsInput{Paper: "downloads/sba.pdf", Kind: tools.RelReferences})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Paper != "downloads/sba.pdf" || len(rel.References) == 0 {
		t.Fatalf("relations of a loose PDF = %+v, want its references", rel)
	}
	for _, c := range rel.References {
		if c.Label == "" {
			t.Errorf("reference %q has no label", c.Title)
		}
		for _, x := range c.Contexts {
			if !strings.HasPrefix(x.CitationURI, "downloads/sba.pdf#page=") {
				t.Errorf("reference %q: context cited as %s", c.Title, x.CitationURI)
			}
		}
	}
}

// TestLoosePDFInDirectory: the PDFs of a mentioned folder without the
// paper layout are searched by page and read with the PDF's metadata.
func TestLoosePDFInDirectory(t *testing.T) {
	f := newFixtureWith(t, nil, addDownloads(t), "downloads")
	ctx := context.Background()
	res, err := f.ts.Search(ctx, tools.SearchInput{Query: "quokkas hollow logs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cards) == 0 || res.Cards[0].CitationURI != "downloads/field/quokka.pdf#page=1" {
		t.Fatalf("cards %+v, want page 1 of downloads/field/quokka.pdf first", res.Cards)
	}
	md, err := f.ts.Read(ctx, tools.ReadInput{Target: "downloads/sba.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if md.Title != sbaTitle || md.Pages != 3 || len(md.Authors) != 3 || len(md.Sections) != 9 {
		t.Errorf("metadata through the folder = %+v", md)
	}
	pg, err := f.ts.Read(ctx, tools.ReadInput{Target: "downloads/sba.pdf", Page: 3})
	if err != nil || pg.CitationURI != "downloads/sba.pdf#page=3" || !strings.Contains(pg.Text, "Big Bird") {
		t.Errorf("page 3 through the folder = %+v, %v", pg, err)
	}
	list, err := f.ts.Read(ctx, tools.ReadInput{Target: "downloads"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list.Entries {
		names = append(names, string(e.Kind)+" "+e.Name)
	}
	if diff := cmp.Diff([]string{"directory field", "file broken.pdf", "file sba.pdf"}, names); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
	// The damaged PDF is one clear error; the folder is still served.
	_, err = f.ts.Read(ctx, tools.ReadInput{Target: "downloads/broken.pdf", Mode: tools.ReadPage, Page: 1})
	if err == nil || !strings.Contains(err.Error(), "downloads/broken.pdf") || !strings.Contains(err.Error(), "unreadable") {
		t.Errorf("reading a damaged PDF: %v", err)
	}
	if err != nil {
		f.noLeak(t, err.Error())
	}
	if _, err := f.ts.Search(ctx, tools.SearchInput{Query: "strided global tokens", Source: "downloads"}); err != nil {
		t.Errorf("search after the damaged PDF: %v", err)
	}
}

// TestLoosePDFSelection: a selection whose path is a loose PDF is evidence
// located on its page, and the plan grants the PDF as a file, titled as
// the PDF titles itself.
func TestLoosePDFSelection(t *testing.T) {
	f := newFixtureWith(t, nil, addDownloads(t), "notes")
	var r researchctx.Resolver
	defer r.Close()
	plan, err := r.Resolve(context.Background(), researchctx.Request{
		Vault: f.vault, RuntimeID: "rt", TurnID: "turn-2",
		Selections: []researchctx.Selection{{Path: "downloads/sba.pdf", Text: "The pooled summary is added to each block through a gated residual connection"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(plan.Sources, []grant.Ref{{Kind: grant.KindFile, Path: "downloads/sba.pdf", Title: sbaTitle}}) {
		t.Errorf("plan sources %+v", plan.Sources)
	}
	if len(plan.Evidence) != 1 {
		t.Fatalf("evidence %+v", plan.Evidence)
	}
	if ev := plan.Evidence[0]; ev.Path != "downloads/sba.pdf" || ev.Page != 2 || ev.CitationURI != "downloads/sba.pdf#page=2" || ev.PaperRef != "" || ev.Title != sbaTitle {
		t.Errorf("evidence %+v, want page 2 of downloads/sba.pdf", ev)
	}
}
