package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilevault"
	"github.com/researchctx/researchctx/sources"
)

const samplePDF = "papers/2401.01234/2401.01234.pdf"

// sampleMarks are the marks of the sample paper: its PDF's and its
// marks/annotations.json's, the highlight both hold listed once.
var sampleMarks = []sources.Mark{
	{Location: sources.Location{Path: samplePDF, Page: 1}, Kind: sources.MarkUnderline, Text: "aligned to sentence boundaries", Comment: "Does alignment still help with 512-token blocks?", Author: "Mira Okafor", Created: "2024-03-14T10:42:00+00:00", Color: "#ffff00"},
	{Location: sources.Location{Path: samplePDF, Page: 1}, Kind: sources.MarkNote, Comment: "Cite this in the related-work section of our draft, next to Longformer.", Created: "2024-03-16T08:05:00Z"},
	{Location: sources.Location{Path: samplePDF, Page: 2}, Kind: sources.MarkHighlight, Text: "The pooled summary is added to each block", Comment: "Gate init matters: check the Aldana and Ferreira residual design before we reuse it.", Author: "Mira Okafor", Created: "2024-03-14T10:30:00+00:00", Color: "#ffff00"},
	{Location: sources.Location{Path: samplePDF, Page: 3}, Kind: sources.MarkNote, Comment: "Ask Hana whether the MedRec numbers used the same split as Longformer.", Author: "Mira Okafor", Created: "2024-03-15T09:15:00+00:00", Color: "#ffcc00"},
}

func TestPaperMarks(t *testing.T) {
	root := paperSampleRoot(t)
	l := paperLibrary(t, root)
	ctx := context.Background()
	p := openPaper(t, l, "papers/2401.01234")
	for _, path := range []string{"", "papers/2401.01234", samplePDF} {
		got, err := p.Marks(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&sources.Marks{Marks: sampleMarks}, got); diff != "" {
			t.Errorf("sources.Marks(%q) (-want +got):\n%s", path, diff)
		}
	}
	// A Markdown file of the paper holds none; outside the paper is outside.
	if got, err := p.Marks(ctx, "papers/2401.01234/NOTES.md"); err != nil || len(got.Marks) != 0 {
		t.Errorf("NOTES.md marks: %v, %v", got, err)
	}
	if _, err := p.Marks(ctx, "papers/2403.05678/2403.05678.pdf"); !errors.Is(err, sources.ErrOutside) {
		t.Errorf("another paper's PDF: %v, want ErrOutside", err)
	}

	// The PDF granted as a file, and the paper as a directory's entry.
	src, err := l.Open(ctx, grant.KindFile, samplePDF)
	if err != nil {
		t.Fatal(err)
	}
	got, err := src.(sources.MarkReader).Marks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []sources.Mark{sampleMarks[0], sampleMarks[2], sampleMarks[3]}
	if diff := cmp.Diff(want, got.Marks); diff != "" {
		t.Errorf("loose PDF marks (-want +got):\n%s", diff)
	}
	dir, err := l.Open(ctx, grant.KindDirectory, "papers")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]sources.Mark{"papers/2401.01234": sampleMarks, samplePDF: sampleMarks, "papers/2401.01234/NOTES.md": nil} {
		got, err := dir.(sources.MarkReader).Marks(ctx, path)
		if err != nil {
			t.Fatalf("directory sources.Marks(%s): %v", path, err)
		}
		if diff := cmp.Diff(want, got.Marks); diff != "" {
			t.Errorf("directory sources.Marks(%s) (-want +got):\n%s", path, diff)
		}
	}
}

func TestMalformedMarksFile(t *testing.T) {
	root := paperSampleRoot(t)
	file := filepath.Join(root, "papers", "2401.01234", "marks", "annotations.json")
	if err := os.WriteFile(file, []byte(`{"annotations": [{"page": 1, "comment": "cut`), 0o644); err != nil {
		t.Fatal(err)
	}
	l := paperLibrary(t, root)
	got, err := openPaper(t, l, "papers/2401.01234").Marks(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	// The PDF's marks are all there; the file's problem is said.
	if len(got.Marks) != 3 || len(got.Problems) != 1 || !strings.Contains(got.Problems[0], "marks/annotations.json: malformed marks file: not valid JSON") {
		t.Errorf("got %d marks, problems %q", len(got.Marks), got.Problems)
	}
	if strings.Contains(strings.Join(got.Problems, ""), root) {
		t.Errorf("a problem names the machine's path: %q", got.Problems)
	}
}

func TestParseMarksFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    []sources.Mark
		skipped int
		err     bool
	}{
		{name: "array", in: `[{"id": "a", "page": 2, "text": "marked  words", "contents": "a comment", "color": "#ff0000", "createdAt": "2024-01-01T00:00:00Z", "extra": {"x": 1}}]`,
			want: []sources.Mark{{Location: sources.Location{Page: 2}, Kind: sources.MarkHighlight, Text: "marked words", Comment: "a comment", Color: "#ff0000", Created: "2024-01-01T00:00:00Z"}}},
		{name: "object, pageIndex, quote, comment", in: `{"annotations": [{"pageIndex": 0, "quote": "q", "comment": "c"}, {"pageIndex": 4, "comment": "note"}]}`,
			want: []sources.Mark{{Location: sources.Location{Page: 1}, Kind: sources.MarkHighlight, Text: "q", Comment: "c"}, {Location: sources.Location{Page: 5}, Kind: sources.MarkNote, Comment: "note"}}},
		{name: "page order, kind named", in: `[{"page": 3, "comment": "late"}, {"page": "1", "text": "t", "kind": "Underline"}]`,
			want: []sources.Mark{{Location: sources.Location{Page: 1}, Kind: sources.MarkUnderline, Text: "t"}, {Location: sources.Location{Page: 3}, Kind: sources.MarkNote, Comment: "late"}}},
		{name: "bad entries left out", in: `[1, "x", null, {"comment": "no page"}, {"page": -1}, {"page": 1.5}, {"page": 1, "text": 7, "comment": "kept"}]`,
			want: []sources.Mark{{Location: sources.Location{Page: 1}, Kind: sources.MarkNote, Comment: "kept"}}, skipped: 6},
		{name: "empty", in: `[]`},
		{name: "not JSON", in: `{"annotations": [`, err: true},
		{name: "wrong shape", in: `{"marks": []}`, err: true},
		{name: "a number", in: `42`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped, err := ParseMarksFile([]byte(tc.in))
			if (err != nil) != tc.err || err != nil && !errors.Is(err, ErrMarksFile) {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || skipped != tc.skipped {
				t.Errorf("marks (-want +got):\n%s skipped %d, want %d", diff, skipped, tc.skipped)
			}
		})
	}
	// A 10 MB comment is cut.
	big := `[{"page": 1, "comment": "` + strings.Repeat("y", 10<<20) + `"}]`
	got, _, err := ParseMarksFile([]byte(big))
	if err != nil || len(got) != 1 || len(got[0].Comment) > 8000 {
		t.Errorf("a 10 MB comment: %d marks, err %v", len(got), err)
	}
}

// TestDirectorySearchFindsMarks: a folder's search finds a paper's marks
// through the library index, by a comment's words, the hit carrying the
// mark; a mark added to marks/annotations.json is found by the paper's
// next search (its stamp covers the file).
func TestDirectorySearchFindsMarks(t *testing.T) {
	root := paperSampleRoot(t)
	l := paperLibrary(t, root)
	ctx := context.Background()
	dir, err := l.Open(ctx, grant.KindDirectory, "papers")
	if err != nil {
		t.Fatal(err)
	}
	searchOf := func(t *testing.T, src sources.Source, query string) *sources.Results {
		t.Helper()
		res, err := src.Search(ctx, sources.Query{Text: query, Limit: 5, ExcerptChars: 300})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Fatalf("%q: no hits", query)
		}
		return res
	}
	search := func(query string) *sources.Results {
		t.Helper()
		return searchOf(t, dir, query)
	}
	h := search("MedRec numbers same split").Hits[0]
	want := &sources.Mark{Location: sources.Location{Path: samplePDF, Page: 3}, Kind: sources.MarkNote, Comment: sampleMarks[3].Comment}
	if diff := cmp.Diff(want, h.Mark); diff != "" || h.Location != want.Location || h.Excerpt != want.Comment {
		t.Errorf("first hit %+v, mark (-want +got):\n%s", h, diff)
	}
	// A search no mark answers has no mark hits, though a mark shares a word.
	for _, h := range search("MedRec clinical records classification").Hits {
		if h.Mark != nil {
			t.Errorf("unexpected mark hit %+v", h)
		}
	}
	file := filepath.Join(root, "papers", "2401.01234", "marks", "annotations.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	added := strings.Replace(string(data), "[", `[{"page": 2, "comment": "Numbat wombat echidna: rerun with the larger stride."},`, 1)
	if added == string(data) {
		t.Fatal("the sample marks file is not an array")
	}
	if err := os.WriteFile(file, []byte(added), 0o644); err != nil {
		t.Fatal(err)
	}
	h = searchOf(t, openPaper(t, l, "papers/2401.01234"), "numbat wombat echidna").Hits[0]
	if h.Mark == nil || h.Mark.Kind != sources.MarkNote || h.Page != 2 || !strings.HasPrefix(h.Mark.Comment, "Numbat wombat") {
		t.Errorf("added mark: first hit %+v", h)
	}
}

// TestHostileMarksFile: a marks/annotations.json built to exhaust its
// reader — 16 MiB of junk, a million tiny entries, JSON nested millions
// deep, junk just under the bounds — costs at most a few megabytes to
// parse, and its problem is said while the PDF's marks and the paper's
// text are still served.
func TestHostileMarksFile(t *testing.T) {
	root := paperSampleRoot(t)
	file := filepath.Join(root, "papers", "2401.01234", "marks", "annotations.json")
	l := paperLibrary(t, root)
	ctx := context.Background()
	p := openPaper(t, l, "papers/2401.01234")
	pdfMarks := []sources.Mark{sampleMarks[0], sampleMarks[2], sampleMarks[3]}
	for _, c := range hostilevault.MarksCases() {
		t.Run(c.Name, func(t *testing.T) {
			data := c.Make()
			// Parsing costs what the file's bytes and its entry bound
			// allow, not what it nests or repeats (16 MiB of junk cost
			// 530 MB before the bounds; the file here is refused unread).
			if len(data) <= MarksFileMaxBytes {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				ParseMarksFile(data)
				runtime.ReadMemStats(&after)
				if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
					t.Errorf("parsing allocated %d MB, over 32 MB", alloc>>20)
				}
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := p.Marks(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(pdfMarks, got.Marks); diff != "" {
				t.Errorf("marks (-want +got):\n%s", diff)
			}
			if len(got.Problems) != 1 || !strings.Contains(got.Problems[0], "papers/2401.01234/marks/annotations.json: ") || !strings.Contains(got.Problems[0], c.Problem) {
				t.Errorf("problems %q, want one saying %q", got.Problems, c.Problem)
			}
			if strings.Contains(strings.Join(got.Problems, ""), root) {
				t.Errorf("a problem names the machine's path: %q", got.Problems)
			}
			res, err := p.Search(ctx, sources.Query{Text: "pooled summary block", Limit: 3, ExcerptChars: 200})
			if err != nil || len(res.Hits) == 0 {
				t.Errorf("search of the paper: %v, %v", res, err)
			}
		})
	}
}

// TestMarksFileEntriesBound: a file of MarksFileMaxEntries marks is read
// whole; one entry more and it is refused.
func TestMarksFileEntriesBound(t *testing.T) {
	entry := `{"page": 2, "comment": "c"}`
	full := "[" + strings.Repeat(entry+",", MarksFileMaxEntries-1) + entry + "]"
	got, skipped, err := ParseMarksFile([]byte(full))
	if err != nil || len(got) != MarksFileMaxEntries || skipped != 0 {
		t.Fatalf("%d entries: %d marks, %d skipped, %v", MarksFileMaxEntries, len(got), skipped, err)
	}
	over := `{"annotations": [` + strings.Repeat(entry+",", MarksFileMaxEntries) + entry + "]}"
	if _, _, err := ParseMarksFile([]byte(over)); !errors.Is(err, ErrMarksFile) || !strings.Contains(err.Error(), "more than 20000 entries") {
		t.Errorf("%d entries: err = %v, want the entries bound", MarksFileMaxEntries+1, err)
	}
}
