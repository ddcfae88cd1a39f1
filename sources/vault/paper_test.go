package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
)

// paperSampleRoot extracts the sample vault into a temporary folder and returns
// its root.
func paperSampleRoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// paperLibrary opens a Library over the Vault at root, with its caches
// in a temporary folder.
func paperLibrary(t testing.TB, root string) *Library {
	t.Helper()
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	// The text layer as the extractor reads it: OCR of the corpus's
	// scan (minutes of tesseract) is ocr_test.go's.
	lib := NewLibrary(v, &LibraryOptions{CacheDir: t.TempDir(), OCR: ocr.Off()})
	t.Cleanup(func() { lib.Close() })
	return lib
}

// openPaper returns the paper source at ref.
func openPaper(t testing.TB, l *Library, ref string) *Paper {
	t.Helper()
	s, err := l.Open(context.Background(), grant.KindPaper, ref)
	if err != nil {
		t.Fatalf("Open(%s): %v", ref, err)
	}
	p, ok := s.(*Paper)
	if !ok {
		t.Fatalf("Open(%s) = %T, want *Paper", ref, s)
	}
	return p
}

// writeVaultFile writes a file below root, creating its folders.
func writeVaultFile(t testing.TB, root, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPaperDescribe(t *testing.T) {
	l := paperLibrary(t, paperSampleRoot(t))
	const sbaAbstract = "Transformer encoders spend most of their compute on pairs of tokens that never influence each other. We propose strided block attention (SBA), which splits a document into fixed blocks, lets every token attend densely inside its block, and adds a small set of strided global tokens that summarise the whole document. On three long-document benchmarks SBA matches a dense encoder at 4,096 tokens while using 38% of its attention memory, and it scales to 32,768 tokens on a single accelerator."
	tests := []struct {
		ref  string
		want sources.Metadata
	}{
		{"papers/2401.01234", sources.Metadata{
			Title:    "Strided Block Attention for Long Document Encoding",
			Authors:  []string{"Mira Okafor", "Tomas Lindqvist", "Hana Sato"},
			Year:     2024,
			Abstract: sbaAbstract,
			DOI:      "10.5555/sba.2024.0001",
			ArXivID:  "2401.01234",
			Pages:    3,
			Documents: []string{
				"papers/2401.01234/2401.01234.pdf",
				"papers/2401.01234/PAPER.md",
				"papers/2401.01234/NOTES.md",
			},
			// The layout index lists both (its ids win); the captions agree.
			Figures: []sources.Figure{
				{ID: "figure-1", Kind: "figure", Number: "1", Page: 2, Caption: "Figure 1: Peak attention memory (relative units) as the input grows from 512 to 32,768 tokens. Dense attention grows quadratically; strided block attention grows linearly once the block size is fixed."},
				{ID: "table-1", Kind: "table", Number: "1", Page: 2, Caption: "Table 1: Results at 4,096 tokens. Memory is peak attention memory relative to the dense encoder."},
			},
		}},
		// No metadata.json: the title is the largest text on page 1, not
		// the Info dictionary's "draft-v3-final", and it wraps onto two lines.
		{"papers/local-window-eval", sources.Metadata{
			Title:    "How Wide Should a Local Window Be? Evidence from Legal and Scientific Documents",
			Authors:  []string{"Hana Sato", "Elif Demir"},
			Abstract: "Local attention windows are the cheapest way to make an encoder handle long inputs, yet the window width is usually copied from earlier work. We measure how task accuracy changes with the window width on legal and scientific documents and find that a width of 512 tokens recovers 97% of the accuracy of a 2,048-token window at a quarter of the cost.",
			Pages:    2,
			Documents: []string{
				"papers/local-window-eval/local-window-eval.PDF",
				"papers/local-window-eval/NOTES.md",
			},
			// No layout files: the captions give them.
			Figures: []sources.Figure{
				{ID: "table-1", Kind: "table", Number: "1", Page: 1, Caption: "Table 1: Accuracy (%) by window width. Relative cost is attention memory against the 2,048-token window."},
				{ID: "figure-1", Kind: "figure", Number: "1", Page: 1, Caption: "Figure 1: Accuracy against window width on a log scale. Both curves flatten after 512 tokens."},
			},
		}},
		{"papers/vision/resnet-like", sources.Metadata{
			Title:     "Residual Pathways for Shallow Image Classifiers",
			Authors:   []string{"Lucía Aldana", "Bruno Ferreira"},
			Year:      2023,
			Abstract:  "Residual connections are usually credited with making very deep networks trainable. We show that they also help shallow classifiers of four to eight layers, provided the residual branch is gated by a learned scalar that starts at zero. Gated residual pathways improve the accuracy of small image classifiers by 1.1 to 2.3 points at no measurable cost.",
			DOI:       "10.5555/RPC.2023.0042",
			Pages:     2,
			Documents: []string{"papers/vision/resnet-like/paper.pdf", "papers/vision/resnet-like/NOTES.md"},
			Figures: []sources.Figure{
				{ID: "figure-1", Kind: "figure", Number: "1", Page: 1, Caption: "Figure 1: Gate values of a six-layer classifier during training. Early blocks open first; the last block stays nearly closed."},
				{ID: "table-1", Kind: "table", Number: "1", Page: 1, Caption: "Table 1: Top-1 accuracy (%) with and without gated residual pathways."},
			},
		}},
		// No PDF: metadata and PAPER.md only.
		{"papers/vision/patch-tokens", sources.Metadata{
			Title:     "Patch Tokens as Documents: Sparse Attention for Gigapixel Images",
			Authors:   []string{"Bruno Ferreira", "Hana Sato", "Wen Li", "Lucía Aldana"},
			Year:      2023,
			ArXivID:   "2312.04321v1",
			Documents: []string{"papers/vision/patch-tokens/PAPER.md"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			p := openPaper(t, l, tt.ref)
			got, err := p.Describe(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("Describe (-want +got):\n%s", diff)
			}
			if info := p.Info(); info != (sources.Info{Path: tt.ref, Kind: grant.KindPaper, Title: tt.want.Title}) {
				t.Errorf("Info = %+v", info)
			}
		})
	}
}

// partSummary is what a test checks of a Part.
type partSummary struct {
	Loc         sources.Location
	NoTextLayer bool
	Err         bool
}

func partSummaries(parts []sources.Part) []partSummary {
	out := make([]partSummary, len(parts))
	for i, p := range parts {
		out[i] = partSummary{Loc: p.Location, NoTextLayer: p.NoTextLayer, Err: p.Err != nil}
	}
	return out
}

func TestPaperReadPDF(t *testing.T) {
	l := paperLibrary(t, paperSampleRoot(t))
	const survey = "papers/2406.09876/2406.09876.pdf"
	const sba = "papers/2401.01234/2401.01234.pdf"
	tests := []struct {
		ref, path string
		title     string
		parts     []partSummary
		quotes    map[string]int // quote → 1-based physical page
	}{
		{
			ref: "papers/2401.01234", path: "", title: "Strided Block Attention for Long Document Encoding",
			parts: []partSummary{{Loc: sources.Location{Path: sba, Page: 1}}, {Loc: sources.Location{Path: sba, Page: 2}}, {Loc: sources.Location{Path: sba, Page: 3}}},
			quotes: map[string]int{
				"Strided global tokens let every block see a coarse summary of the whole document at a cost that grows linearly with its length.": 1,
				"A block size of 256 tokens was the best trade-off in our experiments":                                                            1,
				"When we remove the gate and add the summary directly, SciLong accuracy drops by 1.7 points, so the gate matters.":                2,
				"SBA (ours) 41.0 63.8 88.3": 2,
			},
		},
		{
			// /PageLabels: physical 1..4 are printed i, 1, 2, 3.
			ref: "papers/2406.09876", path: survey, title: "Sparse Attention for Long Documents: A Short Survey",
			parts: []partSummary{
				{Loc: sources.Location{Path: survey, Page: 1, Label: "i"}},
				{Loc: sources.Location{Path: survey, Page: 2, Label: "1"}},
				{Loc: sources.Location{Path: survey, Page: 3, Label: "2"}},
				{Loc: sources.Location{Path: survey, Page: 4, Label: "3"}},
			},
			quotes: map[string]int{
				"This front page is numbered in roman": 1,
				"the key contribution of that work is that the cost stays linear while every block keeps a view of the whole document, however coarse.": 2,
				"The distance breakdown is the single most informative number for a reader choosing a method":                                           3,
			},
		},
		{
			// The paper folder itself names the main document too.
			ref: "papers/2403.05678", path: "papers/2403.05678", title: "Routing Tokens to Memory Slots for Long-Document Question Answering",
			parts: []partSummary{{Loc: sources.Location{Path: "papers/2403.05678/2403.05678.pdf", Page: 1}}, {Loc: sources.Location{Path: "papers/2403.05678/2403.05678.pdf", Page: 2}}},
			quotes: map[string]int{
				"Two mentions of the same clause, forty pages apart, can then attend to each other directly.": 1,
				"wherever they occur in the document":                                                  1, // hyphenated docu-/ment
				"slot routing is 18% slower per token than strided block attention at the same memory": 2,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			doc, err := openPaper(t, l, tt.ref).Read(context.Background(), tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.title || doc.Pages != len(tt.parts) || doc.Path != tt.parts[0].Loc.Path {
				t.Errorf("Read = {Path %q, Title %q, Pages %d}, want {%q, %q, %d}", doc.Path, doc.Title, doc.Pages, tt.parts[0].Loc.Path, tt.title, len(tt.parts))
			}
			if diff := cmp.Diff(tt.parts, partSummaries(doc.Parts)); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			for q, page := range tt.quotes {
				var found []int
				for _, part := range doc.Parts {
					if len(textnorm.Locate(part.Text, q)) > 0 {
						found = append(found, part.Page)
					}
				}
				if diff := cmp.Diff([]int{page}, found); diff != "" {
					t.Errorf("pages of %q (-want +got):\n%s", q, diff)
				}
			}
		})
	}
}

func TestPaperReadMarkdown(t *testing.T) {
	l := paperLibrary(t, paperSampleRoot(t))
	tests := []struct {
		ref, path string
		wantPath  string
		sections  []string // "level title"
	}{
		{"papers/2401.01234", "papers/2401.01234/NOTES.md", "papers/2401.01234/NOTES.md",
			[]string{"1 Strided Block Attention — reading notes", "2 Summary", "2 What I want to check", "2 Links"}},
		// A paper without a PDF: "" is PAPER.md.
		{"papers/vision/patch-tokens", "", "papers/vision/patch-tokens/PAPER.md",
			[]string{"1 Patch Tokens as Documents: Sparse Attention for Gigapixel Images", "2 1 Introduction", "2 2 Method", "2 3 Results", "2 4 Discussion"}},
	}
	for _, tt := range tests {
		t.Run(tt.wantPath, func(t *testing.T) {
			doc, err := openPaper(t, l, tt.ref).Read(context.Background(), tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Path != tt.wantPath || doc.Pages != 0 || len(doc.Parts) != 1 || doc.Parts[0].Location != (sources.Location{Path: tt.wantPath}) {
				t.Fatalf("Read = {Path %q, Pages %d, %d parts}, want one part of %s", doc.Path, doc.Pages, len(doc.Parts), tt.wantPath)
			}
			var got []string
			for _, s := range doc.Sections {
				got = append(got, fmt.Sprintf("%d %s", s.Level, s.Title))
				line := doc.Parts[0].Text[s.Offset:]
				if !strings.HasPrefix(line, strings.Repeat("#", s.Level)+" "+s.Title) {
					t.Errorf("section %q anchored at %q", s.Title, firstRunes(line, 40))
				}
			}
			if diff := cmp.Diff(tt.sections, got); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPaperReadPaths(t *testing.T) {
	l := paperLibrary(t, paperSampleRoot(t))
	ctx := context.Background()
	tests := []struct {
		ref, path string
		want      error
	}{
		{"papers/2401.01234", "papers/2401.01234/source/layout.json", sources.ErrNotFound},
		{"papers/2401.01234", "papers/2401.01234/assets/figure-1.png", sources.ErrNotFound},
		{"papers/2401.01234", "papers/2401.01234/missing.md", sources.ErrNotFound},
		{"papers/local-window-eval", "papers/local-window-eval/PAPER.md", sources.ErrNotFound},
		{"papers/2401.01234", "papers/2403.05678/NOTES.md", sources.ErrOutside},
		{"papers/2401.01234", "papers/2401.01234x/NOTES.md", sources.ErrOutside},
		{"papers/2401.01234", "notes/ideas.txt", sources.ErrOutside},
		{"papers/2401.01234", "papers/2401.01234/../2403.05678/NOTES.md", sources.ErrOutside},
		{"papers/2401.01234", "../outside.md", sources.ErrOutside},
		{"papers/2401.01234", "/etc/passwd", sources.ErrOutside},
		{"papers/2401.01234", "papers/2401.01234/.hidden", sources.ErrOutside},
		{"papers/vision", "papers/vision/NOTES.md", nil}, // not a paper: Open fails below
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if tt.want == nil {
				if _, err := l.Open(ctx, grant.KindPaper, tt.ref); err == nil {
					t.Errorf("Open(%s) as a paper succeeded", tt.ref)
				}
				return
			}
			doc, err := openPaper(t, l, tt.ref).Read(ctx, tt.path)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Read(%q) = %v, %v; want %v", tt.path, doc, err, tt.want)
			}
			if strings.Contains(err.Error(), l.v.Root()) || strings.Contains(err.Error(), "/etc") {
				t.Errorf("error names a machine path: %v", err)
			}
		})
	}
}

// sectionSummary is what a test checks of a Section: its title, level and
// page, and the text it is anchored at.
type sectionSummary struct {
	Title string
	Level int
	Page  int
	At    string
}

func sectionSummaries(doc *sources.Document) []sectionSummary {
	var out []sectionSummary
	for _, s := range doc.Sections {
		at := ""
		if s.Part >= 0 && s.Part < len(doc.Parts) && s.Offset >= 0 && s.Offset <= len(doc.Parts[s.Part].Text) {
			at = doc.Parts[s.Part].Text[s.Offset:]
			if i := strings.IndexByte(at, '\n'); i >= 0 {
				at = at[:i]
			}
		}
		out = append(out, sectionSummary{Title: s.Title, Level: s.Level, Page: s.Page, At: at})
	}
	return out
}

// headingAt is a section anchored at its own title's line.
func headingAt(title string, level, page int) sectionSummary {
	return sectionSummary{Title: title, Level: level, Page: page, At: title}
}

func TestPaperSections(t *testing.T) {
	l := paperLibrary(t, paperSampleRoot(t))
	tests := []struct {
		name, ref string
		want      []sectionSummary
	}{
		{"layout.json", "papers/2401.01234", []sectionSummary{
			headingAt("Abstract", 1, 1),
			headingAt("1 Introduction", 1, 1),
			headingAt("2 Related Work", 1, 1),
			headingAt("3 Method", 1, 1),
			headingAt("3.1 Block partition", 2, 1),
			headingAt("3.2 Strided global tokens", 2, 2),
			headingAt("4 Experiments", 1, 2),
			headingAt("5 Limitations", 1, 2),
			headingAt("References", 1, 2),
		}},
		{"outline", "papers/2406.09876", []sectionSummary{
			headingAt("1 Scope", 1, 2),
			headingAt("2 Fixed Patterns", 1, 2),
			headingAt("2.1 Local windows", 2, 2),
			headingAt("2.2 Global and random links", 2, 2),
			headingAt("3 Learned Patterns", 1, 2),
			headingAt("4 Evaluation Practice", 1, 3),
			headingAt("5 Open Problems", 1, 3),
			headingAt("References", 1, 4),
		}},
		{"detected headings", "papers/local-window-eval", []sectionSummary{
			headingAt("Abstract", 1, 1),
			headingAt("1 Introduction", 1, 1),
			headingAt("2 Setup", 1, 1),
			headingAt("3 Findings", 1, 1),
			headingAt("4 Recommendation", 1, 2),
			headingAt("References", 1, 2),
		}},
		{"detected headings, two columns", "papers/2403.05678", []sectionSummary{
			headingAt("Abstract", 1, 1),
			headingAt("1 Introduction", 1, 1),
			headingAt("2 Background", 1, 1),
			headingAt("3 Slot Routing", 1, 1),
			headingAt("4 Experiments", 1, 1),
			headingAt("5 Analysis", 1, 2),
			headingAt("6 Conclusion", 1, 2),
			headingAt("References", 1, 2),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := openPaper(t, l, tt.ref).Read(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, sectionSummaries(doc)); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
			for i, s := range doc.Sections {
				if s.Part != s.Page-1 {
					t.Errorf("section %d %q: Part %d, Page %d", i, s.Title, s.Part, s.Page)
				}
			}
		})
	}
}

// TestPaperSectionSources checks the order of the sources of a PDF's
// sections on a made-up text layer: layout.json wins over the outline,
// the outline over detected headings, and those over PAPER.md.
func TestPaperSectionSources(t *testing.T) {
	page1 := "Title\nIntroduction is where we start.\n1 Introduction\nText about things.\n2 Method\nMore text."
	page2 := "continued text\n2.1 Details\nThe details.\n3 Results\nNumbers."
	line := func(text string, size float64, bold bool, start int) pdf.Line {
		return pdf.Line{Text: text, FontSize: size, Bold: bold, Start: start}
	}
	lines := func(text string, heads map[string]bool) []pdf.Line {
		var out []pdf.Line
		off := 0
		for l := range strings.SplitSeq(text, "\n") {
			size := 10.0
			if heads[l] {
				size = 12
			}
			out = append(out, line(l, size, heads[l], off))
			off += len(l) + 1
		}
		return out
	}
	heads := map[string]bool{"1 Introduction": true, "2 Method": true, "2.1 Details": true, "3 Results": true}
	withHeadings := &pdf.Document{Pages: []pdf.Page{
		{Number: 1, Text: page1, Lines: lines(page1, heads)},
		{Number: 2, Text: page2, Lines: lines(page2, heads)},
	}}
	plain := &pdf.Document{Pages: []pdf.Page{
		{Number: 1, Text: page1, Lines: lines(page1, nil)},
		{Number: 2, Text: page2, Lines: lines(page2, nil)},
	}}
	withOutline := &pdf.Document{Pages: plain.Pages, Outline: []pdf.OutlineItem{
		{Title: "Introduction", Page: 1, Level: 0},
		{Title: "Details", Page: 2, Level: 1},
		{Title: "Results", Page: 0, Level: 0}, // unknown destination: found after the previous one
		{Title: "Nowhere", Page: 0, Level: 0}, // not in the text: left out
	}}

	root := t.TempDir()
	writeVaultFile(t, root, "papers/p/NOTES.md", []byte("notes\n"))
	writeVaultFile(t, root, "papers/p/PAPER.md", []byte("# Title\n\n## 2 Method\n\nx\n\n### 2.1 Details\n\ny\n\n## 7 Missing\n\nz\n"))
	p := openPaper(t, paperLibrary(t, root), "papers/p")

	tests := []struct {
		name string
		doc  *pdf.Document
		want []sectionSummary
	}{
		{"outline", withOutline, []sectionSummary{
			// The line that starts with the title wins over the earlier
			// mention in running text, and the number is part of it.
			{Title: "Introduction", Level: 1, Page: 1, At: "1 Introduction"},
			{Title: "Details", Level: 2, Page: 2, At: "2.1 Details"},
			{Title: "Results", Level: 1, Page: 2, At: "3 Results"},
		}},
		{"detected", withHeadings, []sectionSummary{
			headingAt("1 Introduction", 1, 1),
			headingAt("2 Method", 1, 1),
			headingAt("2.1 Details", 2, 2),
			headingAt("3 Results", 1, 2),
		}},
		{"PAPER.md", plain, []sectionSummary{
			{Title: "Title", Level: 1, Page: 1, At: "Title"},
			{Title: "2 Method", Level: 2, Page: 1, At: "2 Method"},
			{Title: "2.1 Details", Level: 3, Page: 2, At: "2.1 Details"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := &sources.Document{Parts: []sources.Part{{Text: tt.doc.Pages[0].Text}, {Text: tt.doc.Pages[1].Text}}}
			doc.Sections = p.pdfSections(context.Background(), tt.doc)
			if diff := cmp.Diff(tt.want, sectionSummaries(doc)); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
		})
	}

	// layout.json wins over everything else.
	writeVaultFile(t, root, "papers/p/source/layout.json", []byte(`{"schemaVersion":3,"regions":[
		{"id":"p2-r01","pageIndex":1,"kind":"header","text":"3 Results","bbox":{"x":0,"y":0,"w":1,"h":1}},
		{"id":"p1-r01","pageIndex":0,"kind":"header","title":"2 Method","bbox":{"x":0,"y":0,"w":1,"h":1}},
		{"id":"p1-r02","pageIndex":0,"kind":"text","text":"More text.","bbox":{"x":0,"y":0,"w":1,"h":1}},
		{"id":"p9-r01","pageIndex":8,"kind":"header","text":"Beyond the last page","bbox":{"x":0,"y":0,"w":1,"h":1}}]}`))
	doc := &sources.Document{Parts: []sources.Part{{Text: page1}, {Text: page2}}}
	doc.Sections = p.pdfSections(context.Background(), withOutline)
	want := []sectionSummary{headingAt("2 Method", 1, 1), headingAt("3 Results", 1, 2)}
	if diff := cmp.Diff(want, sectionSummaries(doc)); diff != "" {
		t.Errorf("layout sections (-want +got):\n%s", diff)
	}
}

func TestNumbering(t *testing.T) {
	tests := []struct {
		title string
		level int
	}{
		{"Abstract", 1},
		{"3 Method", 1},
		{"3.1 Block partition", 2},
		{"3.1. Block partition", 2},
		{"A.2.1 Proofs", 3},
		{"IV. Results", 1},
		{"2024 was a year", 1},
		{"", 1},
	}
	for _, tt := range tests {
		if got := numberingLevel(tt.title); got != tt.level {
			t.Errorf("numberingLevel(%q) = %d, want %d", tt.title, got, tt.level)
		}
	}
}

func TestPaperRegion(t *testing.T) {
	root := paperSampleRoot(t)
	l := paperLibrary(t, root)
	const sba = "papers/2401.01234/2401.01234.pdf"
	const fig1Caption = "Figure 1: Peak attention memory (relative units) as the input grows from 512 to 32,768 tokens. Dense attention grows quadratically; strided block attention grows linearly once the block size is fixed."
	const table1Caption = "Table 1: Results at 4,096 tokens. Memory is peak attention memory relative to the dense encoder."
	const table1 = "Model LegalSum SciLong MedRec Memory\nDense encoder 41.2 63.5 88.1 1.00\nSliding window 39.8 60.9 87.4 0.31\nWindow + random 40.6 62.2 87.9 0.36\nSBA (ours) 41.0 63.8 88.3 0.38"
	fig1Box := sources.Box{X: 0.134, Y: 0.2064, W: 0.732, H: 0.1641}
	tests := []struct {
		id   string
		want sources.Region
	}{
		// The figure region has no text of its own (it is a drawing):
		// its caption region is its text.
		{"figure-1", sources.Region{Location: sources.Location{Path: sba, Page: 2, Region: "figure-1"}, ID: "figure-1", Kind: "figure", Title: fig1Caption, Text: fig1Caption, Box: fig1Box}},
		{"p2-r03", sources.Region{Location: sources.Location{Path: sba, Page: 2, Region: "p2-r03"}, ID: "p2-r03", Kind: "figure", Title: fig1Caption, Text: fig1Caption, Box: fig1Box}},
		{"table-1", sources.Region{Location: sources.Location{Path: sba, Page: 2, Region: "table-1"}, ID: "table-1", Kind: "table", Title: table1Caption, Text: table1 + "\n\n" + table1Caption, Box: sources.Box{X: 0.1176, Y: 0.5436, W: 0.7647, H: 0.0758}}},
		{"p1-r07", sources.Region{Location: sources.Location{Path: sba, Page: 1, Region: "p1-r07"}, ID: "p1-r07", Kind: "text",
			Text: "Most documents that researchers care about are long: contracts, theses, clinical records and the papers in a personal library. A dense self-attention layer compares every token with every other token, so its memory grows with the square of the input length. In practice this forces long documents to be cut into windows that are encoded separately, and whatever links one window to the next is lost.",
			Box:  sources.Box{X: 0.1176, Y: 0.3277, W: 0.7647, H: 0.0682}}},
		{"p1-r14", sources.Region{Location: sources.Location{Path: sba, Page: 1, Region: "p1-r14"}, ID: "p1-r14", Kind: "header", Title: "3.1 Block partition", Text: "3.1 Block partition", Box: sources.Box{X: 0.1176, Y: 0.7872, W: 0.7647, H: 0.0189}}},
	}
	p := openPaper(t, l, "papers/2401.01234")
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := p.Region(context.Background(), tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("Region (-want +got):\n%s", diff)
			}
		})
	}

	for _, id := range []string{"figure-9", "p9-r01", "", "../layout"} {
		if r, err := p.Region(context.Background(), id); !errors.Is(err, sources.ErrNotFound) {
			t.Errorf("Region(%q) = %v, %v; want ErrNotFound", id, r, err)
		}
	}
	// A paper without layout files has the figures and tables its
	// captions give, and no other region.
	survey := openPaper(t, l, "papers/2406.09876")
	got, err := survey.Region(context.Background(), "table-1")
	if err != nil {
		t.Fatal(err)
	}
	const surveyTable = "Table 1: Representative methods, their attention cost for input length n and what they do best.\n\n" +
		"Method Cost Best at\nDense Transformer [1] O(n^2) short inputs, reference quality\nLocal window [3] O(n w) local decisions, clauses\n" +
		"Strided block attention [2] O(n b + n g) document-level summaries\nSlot routing [5] O(n c) questions joining distant passages"
	if got.Kind != "table" || got.Page != 3 || got.Region != "table-1" || got.Text != surveyTable {
		t.Errorf("detected table = %+v", got)
	}
	for _, id := range []string{"figure-2", "p1-r01", "table-1 "} {
		if r, err := survey.Region(context.Background(), id+"x"); !errors.Is(err, sources.ErrNotFound) {
			t.Errorf("Region(%q) on a paper without layout = %v, %v; want ErrNotFound", id+"x", r, err)
		}
	}
}

// TestPaperRegionFromLines checks that a region whose layout entry has no
// text takes the PDF lines inside its box.
func TestPaperRegionFromLines(t *testing.T) {
	root := t.TempDir()
	src := paperSampleRoot(t)
	pdfBytes, err := os.ReadFile(filepath.Join(src, "papers/2401.01234/2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	writeVaultFile(t, root, "papers/p/p.pdf", pdfBytes)
	writeVaultFile(t, root, "papers/p/NOTES.md", []byte("# Notes\n"))
	// Boxes of the table body and of section 5 on page 2, without text.
	writeVaultFile(t, root, "papers/p/source/layout.json", []byte(`{"schemaVersion":3,"regions":[
		{"id":"p2-r08","pageIndex":1,"kind":"table","bbox":{"x":0.1176,"y":0.5436,"w":0.7647,"h":0.0758}},
		{"id":"p2-r11","pageIndex":1,"kind":"text","bbox":{"x":0.1176,"y":0.75,"w":0.7647,"h":0.0682}}]}`))
	writeVaultFile(t, root, "papers/p/source/layout-index.json", []byte(`{"schemaVersion":1,"items":[
		{"id":"table-1","kind":"table","section":"table","page":2,"pageIndex":1,"bbox":{"x":0.1176,"y":0.5436,"w":0.7647,"h":0.0758},"layoutRegionId":"p2-r08"}]}`))
	p := openPaper(t, paperLibrary(t, root), "papers/p")
	tests := []struct{ id, want string }{
		{"table-1", "Model LegalSum SciLong MedRec\nDense encoder 41.2 63.5 88.1\nSliding window 39.8 60.9 87.4\nWindow + random 40.6 62.2 87.9\nSBA (ours) 41.0 63.8 88.3\nMemory\n1.00\n0.31\n0.36\n0.38"},
		{"p2-r11", "Strided global tokens are a blunt instrument: a fact that appears once, far away, is averaged with everything\nelse at the same stride. Documents with many short, unrelated sections, such as meeting minutes, benefit least.\nWe have not tested the method on generation tasks, where the causal mask changes which global tokens are\navailable at each step."},
	}
	for _, tt := range tests {
		r, err := p.Region(context.Background(), tt.id)
		if err != nil {
			t.Fatalf("Region(%s): %v", tt.id, err)
		}
		if diff := cmp.Diff(tt.want, r.Text); diff != "" {
			t.Errorf("Region(%s) text (-want +got):\n%s", tt.id, diff)
		}
		if r.Page != 2 || r.Path != "papers/p/p.pdf" {
			t.Errorf("Region(%s) at %+v", tt.id, r.Location)
		}
	}

	writeVaultFile(t, root, "papers/p/source/layout.json", []byte(`{"regions": [`))
	if _, err := p.Region(context.Background(), "p2-r08"); err == nil || !strings.Contains(err.Error(), "papers/p/source/layout.json") || strings.Contains(err.Error(), root) {
		t.Errorf("Region with a malformed layout.json: %v", err)
	}
}

func TestPaperSearch(t *testing.T) {
	l := paperLibrary(t, paperSampleRoot(t))
	tests := []struct {
		ref, query string
		want       sources.Location // of the best hit
	}{
		{"papers/2401.01234", "strided global tokens coarse summary cost grows linearly", sources.Location{Path: "papers/2401.01234/2401.01234.pdf", Page: 1}},
		{"papers/2401.01234", "remove the gate SciLong accuracy drops", sources.Location{Path: "papers/2401.01234/2401.01234.pdf", Page: 2}},
		{"papers/2401.01234", "seed noise variance", sources.Location{Path: "papers/2401.01234/NOTES.md"}},
		{"papers/2406.09876", "distance breakdown informative number", sources.Location{Path: "papers/2406.09876/2406.09876.pdf", Page: 3, Label: "2"}},
		{"papers/2406.09876", "front page numbered in roman", sources.Location{Path: "papers/2406.09876/2406.09876.pdf", Page: 1, Label: "i"}},
		{"papers/local-window-eval", "window width 512 tokens recovers accuracy quarter cost", sources.Location{Path: "papers/local-window-eval/local-window-eval.PDF", Page: 1}},
		{"papers/vision/patch-tokens", "gigapixel pathology slide patches", sources.Location{Path: "papers/vision/patch-tokens/PAPER.md"}},
		{"papers/2403.05678", "wherever they occur in the document", sources.Location{Path: "papers/2403.05678/2403.05678.pdf", Page: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := openPaper(t, l, tt.ref).Search(context.Background(), sources.Query{Text: tt.query, Limit: 3, ExcerptChars: 200})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 {
				t.Fatal("no hits")
			}
			h := res.Hits[0]
			if diff := cmp.Diff(tt.want, h.Location); diff != "" {
				t.Errorf("best hit location (-want +got):\n%s", diff)
			}
			for _, h := range res.Hits {
				if h.Excerpt == "" || !strings.Contains(h.Text, h.Excerpt) || len([]rune(h.Excerpt)) > 200 {
					t.Errorf("hit %+v: excerpt %q is not a ≤200-character passage of its text", h.Location, h.Excerpt)
				}
				if h.Title == "" {
					t.Errorf("hit %+v has no title", h.Location)
				}
			}
		})
	}
}

// TestPaperSearchPaperMD checks that PAPER.md, text derived from the PDF,
// is searched (section by section when long) only where the PDF does not
// give the text itself.
func TestPaperSearchPaperMD(t *testing.T) {
	src := paperSampleRoot(t)
	body, err := os.ReadFile(filepath.Join(src, "papers/2401.01234/PAPER.md"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(src, "papers/2401.01234/2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeVaultFile(t, root, "papers/with-pdf/with-pdf.pdf", good)
	writeVaultFile(t, root, "papers/with-pdf/PAPER.md", body)
	writeVaultFile(t, root, "papers/no-pdf/PAPER.md", body)
	writeVaultFile(t, root, "papers/broken-pdf/broken-pdf.pdf", good[:len(good)/2])
	writeVaultFile(t, root, "papers/broken-pdf/PAPER.md", body)
	l := paperLibrary(t, root)
	const q = "Strided global tokens are a blunt instrument"
	tests := []struct {
		ref  string
		want []sources.Location
	}{
		{"papers/with-pdf", []sources.Location{{Path: "papers/with-pdf/with-pdf.pdf", Page: 2}}},
		{"papers/no-pdf", []sources.Location{{Path: "papers/no-pdf/PAPER.md", Section: "5 Limitations"}}},
		{"papers/broken-pdf", []sources.Location{{Path: "papers/broken-pdf/PAPER.md", Section: "5 Limitations"}}},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			res, err := openPaper(t, l, tt.ref).Search(context.Background(), sources.Query{Text: q, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			var got []sources.Location
			for _, h := range res.Hits {
				got = append(got, h.Location)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPaperMalformedPDF checks that a damaged PDF is an error for that
// document, while the paper's Markdown is still read and searched.
func TestPaperMalformedPDF(t *testing.T) {
	src := paperSampleRoot(t)
	good, err := os.ReadFile(filepath.Join(src, "papers/2401.01234/2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"truncated", good[:len(good)/3]},
		{"header only", good[:64]},
		{"empty", nil},
		{"not a pdf", []byte("this is not a PDF at all, only some words\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeVaultFile(t, root, "papers/broken/broken.pdf", tt.data)
			writeVaultFile(t, root, "papers/broken/NOTES.md", []byte("# Broken\n\nThe quokka paragraph survives.\n"))
			l := paperLibrary(t, root)
			p := openPaper(t, l, "papers/broken")
			ctx := context.Background()

			_, err := p.Read(ctx, "")
			if err == nil {
				t.Fatal("Read of a damaged PDF succeeded")
			}
			if !errors.Is(err, pdf.ErrMalformed) && !errors.Is(err, pdf.ErrEncrypted) {
				t.Errorf("Read error %v does not wrap the pdf package's error", err)
			}
			if !strings.Contains(err.Error(), "papers/broken/broken.pdf") || strings.Contains(err.Error(), root) {
				t.Errorf("Read error %q must name the vault path only", err)
			}
			// The error is remembered, not re-extracted, and stays the same.
			if _, err2 := p.Read(ctx, ""); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("second Read error %v, want %v", err2, err)
			}

			res, err := p.Search(ctx, sources.Query{Text: "quokka", Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 1 || res.Hits[0].Path != "papers/broken/NOTES.md" {
				t.Errorf("Search hits %+v, want NOTES.md", res.Hits)
			}
			md, err := p.Describe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if md.Pages != 0 || md.Title != "broken" {
				t.Errorf("Describe = %+v, want no pages and the folder name as title", md)
			}
			if _, err := p.Read(ctx, "papers/broken/NOTES.md"); err != nil {
				t.Errorf("Read(NOTES.md): %v", err)
			}
			if _, err := p.Region(ctx, "figure-1"); !errors.Is(err, sources.ErrNotFound) {
				t.Errorf("Region: %v, want ErrNotFound", err)
			}
		})
	}
}

// TestPaperPDFCached checks that the parsed PDF is reused until the file
// changes.
func TestPaperPDFCached(t *testing.T) {
	root := paperSampleRoot(t)
	l := paperLibrary(t, root)
	p := openPaper(t, l, "papers/2401.01234")
	ctx := context.Background()
	a, err := p.pdfDocument(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.pdfDocument(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("second pdfDocument re-extracted an unchanged file")
	}
	// Replace the PDF with another one: the change is seen.
	other, err := os.ReadFile(filepath.Join(root, "papers/2406.09876/2406.09876.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	writeVaultFile(t, root, "papers/2401.01234/2401.01234.pdf", other)
	doc, err := p.Read(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 4 {
		t.Errorf("after replacing the PDF, Pages = %d, want 4", doc.Pages)
	}
	// A new layout.json changes the sections without a new PDF.
	writeVaultFile(t, root, "papers/2401.01234/source/layout.json", []byte(`{"regions":[{"id":"p3-r01","pageIndex":2,"kind":"header","text":"4 Evaluation Practice","bbox":{"x":0,"y":0,"w":0,"h":0}}]}`))
	doc, err = p.Read(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]sectionSummary{headingAt("4 Evaluation Practice", 1, 3)}, sectionSummaries(doc)); diff != "" {
		t.Errorf("sections after a new layout.json (-want +got):\n%s", diff)
	}
	res, err := p.Search(ctx, sources.Query{Text: "front page numbered in roman", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Page != 1 || res.Hits[0].Label != "i" {
		t.Errorf("search after replacing the PDF: %+v", res.Hits)
	}
}

// TestPaperPDFDiskCache checks that extracted text is kept on disk for the
// next Library, and that a cache folder that cannot be used costs nothing
// but speed.
func TestPaperPDFDiskCache(t *testing.T) {
	root := paperSampleRoot(t)
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	read := func(cacheDir string) *sources.Document {
		t.Helper()
		s, err := NewLibrary(v, &LibraryOptions{CacheDir: cacheDir}).Open(ctx, grant.KindPaper, "papers/2406.09876")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := s.Read(ctx, "")
		if err != nil {
			t.Fatalf("Read with cache %q: %v", filepath.Base(cacheDir), err)
		}
		if _, err := s.Search(ctx, sources.Query{Text: "open problems", Limit: 1}); err != nil {
			t.Fatalf("Search with cache %q: %v", filepath.Base(cacheDir), err)
		}
		return doc
	}
	want := read("-")

	cache := t.TempDir()
	if diff := cmp.Diff(want, read(cache)); diff != "" {
		t.Errorf("first read through the cache (-want +got):\n%s", diff)
	}
	entries, err := os.ReadDir(filepath.Join(cache, "pdf"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("nothing cached under pdf/: %v", err)
	}
	if diff := cmp.Diff(want, read(cache)); diff != "" {
		t.Errorf("read from the cache (-want +got):\n%s", diff)
	}

	// A cache "folder" that is a file cannot be created or written.
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, read(blocked)); diff != "" {
		t.Errorf("read with an unusable cache (-want +got):\n%s", diff)
	}
}

func TestPaperConcurrent(t *testing.T) {
	l := paperLibrary(t, paperSampleRoot(t))
	p := openPaper(t, l, "papers/2401.01234")
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 8 {
		wg.Go(func() {
			if _, err := p.Read(ctx, ""); err != nil {
				errs <- err
			}
			if _, err := p.Search(ctx, sources.Query{Text: "block size", Limit: 3}); err != nil {
				errs <- err
			}
			if _, err := p.Region(ctx, "table-1"); err != nil {
				errs <- err
			}
			if _, err := p.Describe(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPaperCorpus runs the paper source over real PDFs: a two-column paper,
// a Chinese document and an image-only scan.
func TestPaperCorpus(t *testing.T) {
	dir := corpus.Dir(t, "pdfs")
	tests := []struct {
		file       string
		pages      int
		titleHas   string
		query      string
		page       int // best hit's page, 0 when the query must find nothing
		noTextPage bool
	}{
		{file: "pwl-mapreduce", pages: 13, titleHas: "MapReduce", query: "Master Data Structures", page: 4},
		{file: "zh-fduthesis", pages: 18, titleHas: "复旦大学", query: "刷新文件名数据库", page: 4},
		{file: "pwl-impossibility-scan", pages: 30, noTextPage: true},
	}
	root := t.TempDir()
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join(dir, tt.file+".pdf"))
		if err != nil {
			t.Fatal(err)
		}
		writeVaultFile(t, root, "papers/"+tt.file+"/"+tt.file+".pdf", data)
		writeVaultFile(t, root, "papers/"+tt.file+"/NOTES.md", []byte("Reading notes.\n"))
	}
	l := paperLibrary(t, root)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ctx := context.Background()
			p := openPaper(t, l, "papers/"+tt.file)
			md, err := p.Describe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if md.Pages != tt.pages || !strings.Contains(md.Title, tt.titleHas) {
				t.Errorf("Describe = {Title %q, Pages %d}, want a title with %q and %d pages", md.Title, md.Pages, tt.titleHas, tt.pages)
			}
			doc, err := p.Read(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Parts) != tt.pages {
				t.Fatalf("%d parts, want %d", len(doc.Parts), tt.pages)
			}
			for _, part := range doc.Parts {
				if part.NoTextLayer != tt.noTextPage || (part.Text == "") != tt.noTextPage {
					t.Errorf("page %d: NoTextLayer %v with %d bytes of text", part.Page, part.NoTextLayer, len(part.Text))
				}
			}
			for _, s := range doc.Sections {
				if s.Part < 0 || s.Part >= len(doc.Parts) || s.Offset < 0 || s.Offset > len(doc.Parts[s.Part].Text) {
					t.Errorf("section %+v is not anchored in the parts", s)
				}
			}
			if tt.query == "" {
				res, err := p.Search(ctx, sources.Query{Text: "reading notes", Limit: 5})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Hits) != 1 || res.Hits[0].Path != "papers/"+tt.file+"/NOTES.md" {
					t.Errorf("a scan's only searchable text is its notes; hits %+v", res.Hits)
				}
				return
			}
			res, err := p.Search(ctx, sources.Query{Text: tt.query, Limit: 3, ExcerptChars: 160})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].Page != tt.page {
				t.Fatalf("Search(%q) best hits %+v, want page %d", tt.query, res.Hits, tt.page)
			}
			if h := res.Hits[0]; !strings.Contains(h.Text, h.Excerpt) || h.Excerpt == "" {
				t.Errorf("excerpt %q is not part of the page text", h.Excerpt)
			}
		})
	}
}

// BenchmarkPaperRead measures Read("") of a three-page paper: "cold" parses
// the PDF each time (a new Library, no cache), "disk" reads the text from
// the on-disk PDF cache (a new Library), "warm" reuses the parsed document.
func BenchmarkPaperRead(b *testing.B) {
	root := b.TempDir()
	if err := samplevault.Extract(root); err != nil {
		b.Fatal(err)
	}
	v, err := catalog.Open(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	open := func() *Paper {
		s, err := NewLibrary(v, &LibraryOptions{CacheDir: "-"}).Open(ctx, grant.KindPaper, "papers/2401.01234")
		if err != nil {
			b.Fatal(err)
		}
		return s.(*Paper)
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			if _, err := open().Read(ctx, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("disk", func(b *testing.B) {
		cache := b.TempDir()
		for b.Loop() {
			s, err := NewLibrary(v, &LibraryOptions{CacheDir: cache}).Open(ctx, grant.KindPaper, "papers/2401.01234")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Read(ctx, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		p := open()
		for b.Loop() {
			if _, err := p.Read(ctx, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzPaperLayout feeds arbitrary layout sidecars to the paper source:
// Read and Region may fail but must not panic.
func FuzzPaperLayout(f *testing.F) {
	f.Add([]byte(`{"regions":[{"id":"p1-r01","pageIndex":0,"kind":"header","text":"Abstract","bbox":{"x":0.1,"y":0.1,"w":0.8,"h":0.05}}]}`), []byte(`{"items":[{"id":"figure-1","page":1,"layoutRegionId":"p1-r01"}]}`), "figure-1")
	f.Add([]byte(`{"regions":[{"id":"x","pageIndex":-5,"kind":"header","title":"","bbox":{"x":-1,"y":2,"w":1e308,"h":-1}}]}`), []byte(`{"items":[{"id":"x","page":99999,"pageIndex":-3}]}`), "x")
	f.Add([]byte(`{"regions":[{"id":"p9","pageIndex":9999999,"kind":"caption","text":"Figure 1"}]}`), []byte(`{"items":[{"id":"figure-1","pageIndex":9999999,"layoutRegionId":"p9"}]}`), "p9")
	f.Add([]byte(`[`), []byte(`null`), "")
	root := f.TempDir()
	if err := samplevault.Extract(root); err != nil {
		f.Fatal(err)
	}
	v, err := catalog.Open(root, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer v.Close()
	s, err := NewLibrary(v, &LibraryOptions{CacheDir: "-"}).Open(context.Background(), grant.KindPaper, "papers/2401.01234")
	if err != nil {
		f.Fatal(err)
	}
	p := s.(*Paper)
	f.Fuzz(func(t *testing.T, layout, index []byte, id string) {
		writeVaultFile(t, root, "papers/2401.01234/source/layout.json", layout)
		writeVaultFile(t, root, "papers/2401.01234/source/layout-index.json", index)
		// Force the sections to be found again even when the size and
		// time of the file happen to repeat.
		p.secMu.Lock()
		p.secDoc = nil
		p.secMu.Unlock()
		doc, err := p.Read(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range doc.Sections {
			if sec.Part < 0 || sec.Part >= len(doc.Parts) || sec.Offset < 0 || sec.Offset > len(doc.Parts[sec.Part].Text) {
				t.Errorf("section %+v outside the parts", sec)
			}
		}
		p.Region(context.Background(), id)
	})
}
