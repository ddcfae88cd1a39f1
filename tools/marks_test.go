package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
)

const markedPDF = "papers/2401.01234/2401.01234.pdf"

// sampleMarks are the sample paper's marks as a marks read lists them.
var sampleMarks = []tools.MarkInfo{
	{Kind: "underline", Page: 1, Text: "aligned to sentence boundaries", Comment: "Does alignment still help with 512-token blocks?", Author: "Mira Okafor", Created: "2024-03-14T10:42:00+00:00", Color: "#ffff00", CitationURI: markedPDF + "#page=1"},
	{Kind: "note", Page: 1, Comment: "Cite this in the related-work section of our draft, next to Longformer.", Created: "2024-03-16T08:05:00Z", CitationURI: markedPDF + "#page=1"},
	{Kind: "highlight", Page: 2, Text: "The pooled summary is added to each block", Comment: "Gate init matters: check the Aldana and Ferreira residual design before we reuse it.", Author: "Mira Okafor", Created: "2024-03-14T10:30:00+00:00", Color: "#ffff00", CitationURI: markedPDF + "#page=2"},
	{Kind: "note", Page: 3, Comment: "Ask Hana whether the MedRec numbers used the same split as Longformer.", Author: "Mira Okafor", Created: "2024-03-15T09:15:00+00:00", Color: "#ffcc00", CitationURI: markedPDF + "#page=3"},
}

func TestReadMarks(t *testing.T) {
	f := newFixture(t, nil, "papers")
	ctx := context.Background()
	for _, target := range []string{"papers/2401.01234", markedPDF} {
		out, err := f.ts.Read(ctx, tools.ReadInput{Target: target, Mode: tools.ReadMarks})
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if diff := cmp.Diff(sampleMarks, out.Marks); diff != "" {
			t.Errorf("%s: marks (-want +got):\n%s", target, diff)
		}
		wantURIs := []string{markedPDF + "#page=1", markedPDF + "#page=2", markedPDF + "#page=3"}
		if diff := cmp.Diff(wantURIs, out.CitationURIs); diff != "" || out.CitationURI != wantURIs[0] || out.Truncated {
			t.Errorf("%s: uris %q (-want +got):\n%s truncated %v", target, out.CitationURI, diff, out.Truncated)
		}
	}
	// Every page a mark is on is a source of the turn.
	u := usageOf(t, f.grant)
	var used []string
	for _, s := range u.Sources {
		used = append(used, s.URI)
		used = append(used, s.Locators...)
	}
	for _, p := range []string{"#page=1", "#page=2", "#page=3"} {
		if !slices.Contains(used, markedPDF+p) {
			t.Errorf("usage sources %q lack %s", u.Sources, p)
		}
	}
	// The metadata read counts them.
	md, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234"})
	if err != nil || md.MarkCount != 4 {
		t.Errorf("metadata markCount %d, err %v", md.MarkCount, err)
	}
	// A folder's text file has none; a folder cannot be read for marks.
	out, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234/NOTES.md", Mode: tools.ReadMarks})
	if err != nil || len(out.Marks) != 0 {
		t.Errorf("NOTES.md marks: %v, %v", out, err)
	}
	if _, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers", Mode: tools.ReadMarks}); err == nil {
		t.Error("marks of a folder: no error")
	}
}

func TestReadMarksPaged(t *testing.T) {
	f := newFixture(t, &grant.BudgetOverrides{ReadChars: intp(330)})
	ctx := context.Background()
	var got []tools.MarkInfo
	in := tools.ReadInput{Target: "papers/2401.01234", Mode: tools.ReadMarks}
	for calls := 0; ; calls++ {
		if calls > 8 {
			t.Fatal("the cursor does not end")
		}
		out, err := f.ts.Read(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Marks) == 0 {
			t.Fatalf("call %d returned no marks", calls)
		}
		if out.Chars() > 330 {
			t.Errorf("call %d charged %d, over the read cap", calls, out.Chars())
		}
		got = append(got, out.Marks...)
		if out.NextCursor == "" {
			if calls == 0 {
				t.Error("the whole list fit in 330 characters: the test does not page")
			}
			break
		}
		if !out.Truncated {
			t.Error("a paged read is not marked truncated")
		}
		in = tools.ReadInput{Cursor: out.NextCursor}
	}
	if diff := cmp.Diff(sampleMarks, got); diff != "" {
		t.Errorf("paged marks (-want +got):\n%s", diff)
	}
}

func TestSearchFindsMarks(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		query string
		kind  sources.MarkKind
		page  int
	}{
		{"MedRec numbers same split", "note", 3},
		{"Gate init Aldana Ferreira residual design", "highlight", 2},
		{"alignment 512-token blocks", "underline", 1},
	} {
		out, err := f.ts.Search(ctx, tools.SearchInput{Query: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Cards) == 0 {
			t.Fatalf("%q: no cards", tc.query)
		}
		c := out.Cards[0]
		if c.Mark.Kind != tc.kind || c.Page != tc.page || c.CitationURI != markedPDF+"#page="+itoa(tc.page) || c.Mark.Comment == "" {
			t.Errorf("%q: first card %+v", tc.query, c)
		}
	}
	// A search that no mark answers has no mark cards.
	out, err := f.ts.Search(ctx, tools.SearchInput{Query: "contracts theses clinical records"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Cards {
		if c.Mark.Kind != "" {
			t.Errorf("unexpected mark card %+v", c)
		}
	}
}

func TestMalformedMarksFileRead(t *testing.T) {
	f := newFixtureWith(t, nil, func(vault string) {
		if err := os.WriteFile(filepath.Join(vault, "papers", "2401.01234", "marks", "annotations.json"), []byte("[{oops"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	out, err := f.ts.Read(context.Background(), tools.ReadInput{Target: "papers/2401.01234", Mode: tools.ReadMarks})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Marks) != 3 || len(out.Problems) != 1 || !strings.Contains(out.Problems[0], "annotations.json") {
		t.Errorf("marks %d, problems %q", len(out.Marks), out.Problems)
	}
	f.noLeak(t, strings.Join(out.Problems, " "))
}

func itoa(n int) string { return string(rune('0' + n)) }

// TestMarksOfAPaperWithoutPDF: the marks file of a paper without a PDF is
// cited as that file.
func TestMarksOfAPaperWithoutPDF(t *testing.T) {
	const file = "papers/vision/patch-tokens/marks/annotations.json"
	f := newFixtureWith(t, nil, func(vault string) {
		p := filepath.Join(vault, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`[{"page": 2, "quote": "patch tokens", "comment": "compare"}]`), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	out, err := f.ts.Read(context.Background(), tools.ReadInput{Target: "papers/vision/patch-tokens", Mode: tools.ReadMarks})
	if err != nil {
		t.Fatal(err)
	}
	want := []tools.MarkInfo{{Kind: "highlight", Page: 2, Text: "patch tokens", Comment: "compare", CitationURI: file}}
	if diff := cmp.Diff(want, out.Marks); diff != "" {
		t.Errorf("marks (-want +got):\n%s", diff)
	}
}

// TestFolderSearchFindsMarks: a search over a granted folder matches the
// marks of its loose PDFs (a folder of downloads) and of its papers (the
// marks/annotations.json of a paper without a PDF), by a comment's words
// or the marked text; the mark's card comes first, cites the mark's page
// (or its file) and is a source of the turn.
func TestFolderSearchFindsMarks(t *testing.T) {
	const (
		loose = "downloads/annotated.pdf"
		file  = "papers/vision/patch-tokens/marks/annotations.json"
	)
	f := newFixtureWith(t, nil, func(vault string) {
		data, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(markedPDF)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(vault, "downloads"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(vault, filepath.FromSlash(loose)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(vault, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		marks := `[{"page": 2, "quote": "patch tokens", "comment": "Weigh the quokka stem against our convolutional baseline."}]`
		if err := os.WriteFile(p, []byte(marks), 0o644); err != nil {
			t.Fatal(err)
		}
	}, "downloads", "papers/vision")
	for _, tc := range []struct {
		query, folder string
		want          tools.Card
	}{
		{"MedRec numbers same split", "downloads", tools.Card{Path: loose, Page: 3, CitationURI: loose + "#page=3",
			Mark: tools.CardMark{Kind: "note", Comment: "Ask Hana whether the MedRec numbers used the same split as Longformer."}}},
		{"Gate init Aldana Ferreira residual design", "downloads", tools.Card{Path: loose, Page: 2, CitationURI: loose + "#page=2",
			Excerpt: "The pooled summary is added to each block",
			Mark:    tools.CardMark{Kind: "highlight", Comment: "Gate init matters: check the Aldana and Ferreira residual design before we reuse it."}}},
		{"quokka stem convolutional baseline", "papers/vision", tools.Card{Path: file, Page: 2, CitationURI: file, Excerpt: "patch tokens",
			Mark: tools.CardMark{Kind: "highlight", Comment: "Weigh the quokka stem against our convolutional baseline."}}},
	} {
		out := indexedSearch(t, f.ts, tools.SearchInput{Query: tc.query, Source: tc.folder})
		if len(out.Cards) == 0 {
			t.Fatalf("%q: no cards", tc.query)
		}
		c := out.Cards[0]
		got := tools.Card{Path: c.Path, Page: c.Page, CitationURI: c.CitationURI, Mark: c.Mark, Excerpt: c.Excerpt}
		if tc.want.Excerpt == "" {
			got.Excerpt = "" // a note's excerpt is its comment
			if c.Excerpt != tc.want.Mark.Comment {
				t.Errorf("%q: note excerpt %q", tc.query, c.Excerpt)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: first card (-want +got):\n%s", tc.query, diff)
		}
	}
	u := usageOf(t, f.grant)
	var used []string
	for _, s := range u.Sources {
		used = append(used, s.URI)
		used = append(used, s.Locators...)
	}
	for _, uri := range []string{loose + "#page=3", loose + "#page=2", file} {
		if !slices.Contains(used, uri) {
			t.Errorf("usage sources %q lack %s", u.Sources, uri)
		}
	}
}

// TestSampleFolderSearchFindsMarks: the sample vault's papers folder,
// searched for a mark's comment's words, puts the mark's card first.
func TestSampleFolderSearchFindsMarks(t *testing.T) {
	f := newFixture(t, nil, "papers")
	ctx := context.Background()
	for _, tc := range []struct {
		query string
		kind  sources.MarkKind
		page  int
	}{
		{"MedRec numbers same split", "note", 3},
		{"Gate init Aldana Ferreira residual design", "highlight", 2},
		{"alignment 512-token blocks", "underline", 1},
		{"related-work section of our draft", "note", 1},
	} {
		out, err := f.ts.Search(ctx, tools.SearchInput{Query: tc.query, Source: "papers"})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Cards) == 0 {
			t.Fatalf("%q: no cards", tc.query)
		}
		c := out.Cards[0]
		if c.Mark.Kind != tc.kind || c.Page != tc.page || c.Path != markedPDF || c.CitationURI != markedPDF+"#page="+itoa(tc.page) || c.Mark.Comment == "" {
			t.Errorf("%q: first card %+v", tc.query, c)
		}
	}
	// The page's own words still find the page.
	out, err := f.ts.Search(ctx, tools.SearchInput{Query: "contracts theses clinical records", Source: "papers"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Cards {
		if c.Mark.Kind != "" {
			t.Errorf("unexpected mark card %+v", c)
		}
	}
}
