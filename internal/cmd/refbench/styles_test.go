package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/sources/vault"
)

// styleFloor is what a fixture of testdata/styles scores today: entries
// split out, titles and years read exactly, of the 20 in refs.bib.
type styleFloor struct{ entries, titles, years int }

// styleFloors gates the bibliography-style fixtures. Every style gives all
// 20 entries, in one column and two; the titles it misses are hyphenation
// it cannot undo ("low-resource" broken as "low-" + "resource" reads as
// "lowresource"). In two columns natbib's first lines hang into the
// gutter and alpha's labels stand apart from their entries; the text
// layer finds those pages' columns since PDF text version 10.
var styleFloors = map[string]styleFloor{
	"abbrv-one": {20, 20, 20}, "abbrv-two": {20, 20, 20},
	"abbrvnat-one": {20, 19, 19}, "abbrvnat-two": {20, 18, 18},
	"acm-one": {20, 19, 19}, "acm-two": {20, 20, 20},
	"alpha-one": {20, 19, 19}, "alpha-two": {20, 19, 19},
	"apalike-one": {20, 20, 20}, "apalike-two": {20, 19, 19},
	"ieeetr-one": {20, 20, 20}, "ieeetr-two": {20, 20, 20},
	"plain-one": {20, 19, 19}, "plain-two": {20, 20, 20},
	"plainnat-one": {20, 19, 19}, "plainnat-two": {20, 20, 20},
	"siam-one": {20, 19, 19}, "siam-two": {20, 20, 20},
	"unsrt-one": {20, 19, 19}, "unsrt-two": {20, 20, 20},
	"unsrtnat-one": {20, 20, 20}, "unsrtnat-two": {20, 20, 20},
}

// TestBibliographyStyles reads the reference section of one bibliography
// typeset with eleven BibTeX styles (numbered, labelled with letters,
// author–year with and without labels, initials or full names first) in
// one and two columns, through the loose-PDF source as the tools read it,
// and checks each against refs.bib.
func TestBibliographyStyles(t *testing.T) {
	bib, err := os.ReadFile(filepath.Join("testdata", "styles", "refs.bib"))
	if err != nil {
		t.Fatal(err)
	}
	years := map[string]int{} // normalised title → year
	for _, m := range regexp.MustCompile(`title=\{([^}]*)\}[^@]*year=\{(\d+)\}`).FindAllStringSubmatch(string(bib), -1) {
		years[squashTitle(m[1])] = atoi(m[2])
	}
	if len(years) != 20 {
		t.Fatalf("refs.bib: %d titles read, want 20", len(years))
	}
	pdfs, _ := filepath.Glob(filepath.Join("testdata", "styles", "*.pdf"))
	if len(pdfs) != len(styleFloors) {
		t.Fatalf("%d fixtures, want %d", len(pdfs), len(styleFloors))
	}
	vaultDir := t.TempDir()
	for _, p := range pdfs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(vaultDir, "styles"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(vaultDir, "styles", filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := vault.OpenLibrary(vaultDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ctx := context.Background()
	for _, p := range pdfs {
		name := strings.TrimSuffix(filepath.Base(p), ".pdf")
		t.Run(name, func(t *testing.T) {
			src, err := lib.Open(ctx, grant.KindFile, "styles/"+name+".pdf")
			if err != nil {
				t.Fatal(err)
			}
			doc, err := src.Read(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			texts := make([]string, len(doc.Parts))
			for i, part := range doc.Parts {
				texts[i] = part.Text
			}
			var got styleFloor
			for _, e := range relations.Entries(strings.Join(texts, "\f")) {
				got.entries++
				if y, ok := years[squashTitle(e.Title)]; ok {
					got.titles++
					if y == e.Year {
						got.years++
					}
				}
			}
			want := styleFloors[name]
			t.Logf("entries %d, titles %d, years %d of 20", got.entries, got.titles, got.years)
			if got.entries > 20 || got.entries < want.entries || got.titles < want.titles || got.years < want.years {
				t.Errorf("got %+v, want at least %+v (and at most 20 entries)", got, want)
			}
		})
	}
}

// readBib reads the entries of testdata/styles/refs.bib, one a line.
func readBib(t *testing.T) []bibEntry {
	t.Helper()
	out, err := readBibFile(filepath.Join("testdata", "styles", "refs.bib"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// edgeFloors are the edges found today where fewer than all 20 are: none
// since the two-column fixtures' columns are read apart (see styleFloors).
var edgeFloors = map[string]int{}

// TestBibliographyStylesEdges lays the style fixtures out as papers of one
// library beside the 20 works they cite, each a paper with a title,
// authors and a year but no DOI or arXiv id, and checks the edges
// paper_relations finds: every one must be right, and it must find all
// that the parsed entries allow.
func TestBibliographyStylesEdges(t *testing.T) {
	bib := readBib(t)
	if len(bib) != 20 {
		t.Fatalf("refs.bib: %d entries, want 20", len(bib))
	}
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range bib {
		m, _ := json.Marshal(map[string]any{"title": e.title, "authors": e.authors, "year": e.year})
		write("papers/"+e.key+"/metadata.json", m)
	}
	pdfs, _ := filepath.Glob(filepath.Join("testdata", "styles", "*.pdf"))
	for _, p := range pdfs {
		name := strings.TrimSuffix(filepath.Base(p), ".pdf")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		write("papers/style-"+name+"/"+name+".pdf", b)
		m, _ := json.Marshal(map[string]any{"title": "A test paper set in " + name, "year": 2026})
		write("papers/style-"+name+"/metadata.json", m)
	}
	v, _, rel, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	for _, p := range pdfs {
		name := strings.TrimSuffix(filepath.Base(p), ".pdf")
		t.Run(name, func(t *testing.T) {
			rels, err := rel.Relations(ctx, "papers/style-"+name)
			if err != nil {
				t.Fatal(err)
			}
			right, wrong := map[string]bool{}, 0
			for _, w := range rels.References {
				switch {
				case w.Paper == "":
				case strings.HasPrefix(w.Paper, "papers/a"):
					right[w.Paper] = true
				default:
					wrong++
					t.Errorf("edge to %s (%q)", w.Paper, w.Title)
				}
			}
			t.Logf("edges %d of 20, %d wrong", len(right), wrong)
			want, ok := edgeFloors[name]
			if !ok {
				want = 20
			}
			if len(right) < want {
				t.Errorf("%d edges, want at least %d", len(right), want)
			}
		})
	}
}
