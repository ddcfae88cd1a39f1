package relations

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
)

// titleLibrary is a Vault of papers without identifiers in their
// reference lists: papers/citer cites the others by title only.
func titleLibrary(tb testing.TB) map[string]string {
	return map[string]string{
		"papers/citer/metadata.json": js(tb, obj{"title": "A Citing Paper", "year": 2020, "authors": []string{"Cy Citer"}}),
		"papers/citer/citer.pdf":     "%PDF-1.4 citer\n",
		"papers/res/metadata.json":   js(tb, obj{"title": "Deep Residual Learning for Image Recognition", "year": 2016, "authors": []string{"Kaiming He", "Xiangyu Zhang"}}),
		"papers/res/res.pdf":         "%PDF-1.4 res\n",
		// Two library papers share a title: a reference to it is ambiguous.
		"papers/dup1/metadata.json":  js(tb, obj{"title": "Attention Models: A Survey", "year": 2019, "authors": []string{"Ann Alpha"}}),
		"papers/dup1/dup1.pdf":       "%PDF-1.4 dup1\n",
		"papers/dup2/metadata.json":  js(tb, obj{"title": "Attention models - a survey", "year": 2019, "authors": []string{"Ann Alpha"}}),
		"papers/dup2/dup2.pdf":       "%PDF-1.4 dup2\n",
		"papers/late/metadata.json":  js(tb, obj{"title": "Windows in Long Documents", "year": 2010, "authors": []string{"Lee Late"}}),
		"papers/late/late.pdf":       "%PDF-1.4 late\n",
		"papers/short/metadata.json": js(tb, obj{"title": "Fast R-CNN", "year": 2015, "authors": []string{"Ross Girshick"}}),
		"papers/short/short.pdf":     "%PDF-1.4 short\n",
	}
}

const citerRefs = "A Citing Paper\nReferences\n" +
	// Title with other capitals and a hyphen lost at a line break,
	// confirmed by year and first author.
	"[1] K. He, X. Zhang, S. Ren, and J. Sun. Deep residual learning for image\nrecognition. In CVPR, 2016.\n" +
	// Ambiguous: two library papers have this title.
	"[2] A. Alpha. Attention models: a survey. In ACL, 2019.\n" +
	// Same title, but neither the year nor the first author agrees.
	"[3] Q. Other. Windows in long documents. In ICML, 2021.\n" +
	// A short title needs both the year and the first author.
	"[4] R. Girshick. Fast R-CNN. In ICCV, 2015.\n" +
	"[5] Q. Other. Fast R-CNN. In ICCV, 2015.\n"

func TestTitleMatch(t *testing.T) {
	v, _ := openVault(t, titleLibrary(t))
	l := New(v, &Options{Text: func(_ context.Context, p *catalog.Paper) (string, error) {
		if p.Ref == "papers/citer" {
			return citerRefs, nil
		}
		return "nothing cited\n", nil
	}})
	r := mustRelations(t, l, "papers/citer")
	type card struct{ Title, Paper string }
	var got []card
	for _, w := range r.References {
		got = append(got, card{w.Title, w.Paper})
	}
	want := []card{
		{"Deep Residual Learning for Image Recognition", "papers/res"},
		{"Attention models: a survey", ""},
		{"Windows in long documents", ""},
		{"Fast R-CNN", "papers/short"},
		{"Fast R-CNN", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	// Cited-by is the reverse edge: the citing paper appears under its own
	// path and metadata, in the cited paper's list and nowhere else.
	for _, tt := range []struct {
		ref  string
		want []Work
	}{
		// The label is how the citing paper cites it; its text has no
		// body, so no sentence cites it.
		{"papers/res", []Work{{Title: "A Citing Paper", Authors: []string{"Cy Citer"}, Year: 2020, Paper: "papers/citer", PDF: "papers/citer/citer.pdf", Label: "1"}}},
		{"papers/short", []Work{{Title: "A Citing Paper", Authors: []string{"Cy Citer"}, Year: 2020, Paper: "papers/citer", PDF: "papers/citer/citer.pdf", Label: "4"}}},
		{"papers/dup1", nil},
		{"papers/dup2", nil},
		{"papers/late", nil},
	} {
		if diff := cmp.Diff(tt.want, mustRelations(t, l, tt.ref).CitedBy); diff != "" {
			t.Errorf("%s cited-by (-want +got):\n%s", tt.ref, diff)
		}
	}
}

func TestTitleIndexConfirmed(t *testing.T) {
	p := &catalog.Paper{Meta: catalog.Metadata{Year: 2017, Authors: []string{"Ashish Vaswani"}}}
	ix := &titleIndex{titles: map[*catalog.Paper][]string{p: {"attention", "is", "all", "you", "need"}}}
	ws := func(s string) []string { return fieldsOf(normTitle(s)) }
	tests := []struct {
		name string
		r    ref
		want bool
	}{
		{"year", ref{title: "Attention is all you need", year: 2017}, true},
		{"preprint a year early", ref{title: "Attention is all you need", year: 2016}, true},
		{"first author, printed surname first", ref{title: "Attention is all you need", authors: []string{"Vaswani, A."}}, true},
		{"a word dropped", ref{title: "Attention is all need", year: 2017}, true},
		{"first author, small capitals", ref{title: "Attention is all you need", authors: []string{"VASWANI, A."}}, true},
		{"neither year nor author", ref{title: "Attention is all you need", year: 2012, authors: []string{"B. Other"}}, false},
		{"nothing to confirm with", ref{title: "Attention is all you need"}, false},
		{"another title", ref{title: "Attention is not all you need at all", year: 2017}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ix.confirmed(p, tt.r, ws(tt.r.title)); got != tt.want {
				t.Errorf("confirmed = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTitleCompounds: a compound whose hyphen was lost at a line end, or
// written as one word or two, is the same word on both sides; joining
// never makes two different titles agree.
func TestTitleCompounds(t *testing.T) {
	p := &catalog.Paper{Meta: catalog.Metadata{Year: 2022, Authors: []string{"Mohammed Al-Rashid"}}}
	ix := &titleIndex{titles: map[*catalog.Paper][]string{p: fieldsOf(normTitle("Robust Text Extraction from Born-Digital PDFs"))}}
	for _, tt := range []struct {
		title string
		want  bool
	}{
		{"Robust text extraction from borndigital pdfs", true},
		{"Robust text extraction from born digital PDFs", true},
		{"Robust text extraction from born-digital PDFs", true},
		{"Robust text extraction from scanned pdfs", false},
		{"Robust text extraction from born", false},
	} {
		if got := ix.confirmed(p, ref{title: tt.title, year: 2022}, fieldsOf(normTitle(tt.title))); got != tt.want {
			t.Errorf("%q: confirmed = %v, want %v", tt.title, got, tt.want)
		}
	}
	if got := joinCompounds([]string{"a", "data", "set", "of", "data", "sets"}, []string{"dataset", "datasets"}); !cmp.Equal(got, []string{"a", "dataset", "of", "datasets"}) {
		t.Errorf("joinCompounds = %q", got)
	}
}

func fieldsOf(s string) []string { return strings.Fields(s) }

// TestSidecarNotMatchedByTitle: a sidecar's citations are tied by their
// localMatch or identifiers only (its producer records a title match as a
// localMatch); the same title parsed from a PDF is matched.
func TestSidecarNotMatchedByTitle(t *testing.T) {
	files := titleLibrary(t)
	files["papers/citer/source/agentero-cite.json"] = sidecarDoc(t,
		obj{"metadata": obj{"title": "Deep Residual Learning for Image Recognition", "year": 2016, "authors": []string{"Kaiming He"}}})
	v, _ := openVault(t, files)
	l := New(v, &Options{Text: func(context.Context, *catalog.Paper) (string, error) { return citerRefs, nil }})
	r := mustRelations(t, l, "papers/citer")
	if len(r.References) != 1 || r.References[0].Paper != "" {
		t.Errorf("sidecar references = %+v, want one card without a path", r.References)
	}
}

func TestSurname(t *testing.T) {
	for in, want := range map[string]string{
		"Geoffrey E. Hinton": "hinton", "Hinton, G. E.": "hinton", "HINTON, G.": "hinton",
		"van der Maaten, L.": "maaten", "Laurens van der Maaten": "maaten", "Sepp Hochreiter Jr.": "hochreiter",
		"Jürgen Schmidhuber": "schmidhuber", "Çaglar Gülçehre": "gulcehre", "": "",
	} {
		if got := surname(in); got != want {
			t.Errorf("surname(%q) = %q, want %q", in, got, want)
		}
	}
}
