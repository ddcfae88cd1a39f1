package vault

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/figure"
	"github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/pdf"
)

// sideBySideTSV is tesseract's TSV of a US Letter page scanned at 144 dpi
// (2 pixels a point): two figure captions of two lines side by side, 9
// points high, a wide blank between them, over eight lines of body text
// across the page, 10 points high. Each character is 10 pixels wide, and
// so is each word space.
func sideBySideTSV() string {
	var b strings.Builder
	b.WriteString("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n")
	b.WriteString("1\t1\t0\t0\t0\t0\t0\t0\t1224\t1584\t-1\t\n")
	line := 0
	// words writes one line of words from x at y, h pixels high; a word
	// "|" moves x to the next value of jumps instead.
	words := func(block, y, h int, text string, x int, jumps ...int) {
		line++
		n := 0
		for _, w := range strings.Fields(text) {
			if w == "|" {
				x, jumps = jumps[0], jumps[1:]
				continue
			}
			n++
			fmt.Fprintf(&b, "5\t1\t%d\t1\t%d\t%d\t%d\t%d\t%d\t%d\t95\t%s\n", block, line, n, x, y, 10*len(w), h, w)
			x += 10*len(w) + 10
		}
	}
	words(1, 384, 18, "Figure 2: Training loss of the small | Figure 3: Validation accuracy of the", 144, 640)
	words(1, 406, 18, "model over thirty epochs. | large model over thirty epochs.", 144, 640)
	for i := range 8 {
		words(2, 460+24*i, 20, "The body text of the paper runs over the whole width of the page from one margin", 144)
	}
	return b.String()
}

// TestOCRLineGaps: a recognised line records its wide blanks as a text
// layer's line does (the byte offset and page x of the word after each),
// so that two captions side by side on a scanned page are two items.
func TestOCRLineGaps(t *testing.T) {
	res, err := ocr.ParseTSV([]byte(sideBySideTSV()))
	if err != nil {
		t.Fatal(err)
	}
	lines := ocrLines(res, 612, 792)
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10", len(lines))
	}
	first := "Figure 2: Training loss of the small "
	wantGaps := [][]pdf.Gap{
		{{At: len(first), X: 640.0 / 1224}},
		{{At: len("model over thirty epochs. "), X: 640.0 / 1224}},
	}
	for i, ln := range lines {
		var want []pdf.Gap
		if i < len(wantGaps) {
			want = wantGaps[i]
		}
		if diff := cmp.Diff(want, ln.Gaps); diff != "" {
			t.Errorf("line %d %q: gaps (-want +got):\n%s", i, ln.Text, diff)
		}
		if ln.FontSize < 8.99 || ln.FontSize > 10.01 {
			t.Errorf("line %d: font size %g, want the words' height, 9 or 10 points", i, ln.FontSize)
		}
		if res.Text[ln.Start:ln.Start+len(ln.Text)] != ln.Text {
			t.Errorf("line %d: Start %d does not hold %q", i, ln.Start, ln.Text)
		}
	}
	pg := &pdf.Page{Number: 1, Width: 612, Height: 792, Text: res.Text, Lines: lines}
	want := []string{
		"figure-2 Figure 2: Training loss of the small model over thirty epochs.",
		"figure-3 Figure 3: Validation accuracy of the large model over thirty epochs.",
	}
	if diff := cmp.Diff(want, briefItems(figure.Page(pg))); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// briefItems gives each item's id and caption.
func briefItems(items []figure.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID+" "+it.Caption)
	}
	return out
}

// TestOCRSideBySideTesseract renders the figure package's side-by-side
// page (two figure captions on one line, then two table captions) at 200
// dpi and reads it with the real program: the recognised lines are cut
// at their gaps into four items, as the text layer's are.
func TestOCRSideBySideTesseract(t *testing.T) {
	for _, p := range []string{"tesseract", "pdftoppm"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI installs it)", p)
			}
			t.Skipf("%s is not installed", p)
		}
	}
	// The fixture's Helvetica is not embedded: pdftoppm draws it with the
	// font the system substitutes, and tesseract's words depend on it (with
	// DejaVu Sans it reads "arge" for "large"). CI installs URW's clones.
	if b, err := exec.Command("fc-match", "Helvetica").Output(); err != nil || !strings.Contains(string(b), "Nimbus") {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Helvetica is not drawn with URW's Nimbus Sans (fc-match: %q, %v): CI installs fonts-urw-base35", b, err)
		}
		t.Skipf("Helvetica is not drawn with URW's Nimbus Sans (fc-match: %q): install fonts-urw-base35", b)
	}
	// A generous deadline: the page runs below everything else, and on a
	// loaded machine takes minutes; what is checked is what it reads.
	eng, err := ocr.NewTesseract(context.Background(), "tesseract", []string{"eng"}, 10*time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "p")
	src := filepath.Join("..", "..", "internal", "figure", "testdata", "side-by-side.pdf")
	if b, err := exec.Command("pdftoppm", "-r", "200", "-gray", "-singlefile", src, out).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, b)
	}
	data, err := os.ReadFile(out + ".pgm")
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Recognize(context.Background(), ocr.Image{Data: data, Format: ocr.PNM})
	if err != nil {
		t.Fatal(err)
	}
	pg := &pdf.Page{Number: 1, Width: 612, Height: 792, Text: res.Text, Lines: ocrLines(res, 612, 792)}
	want := []string{
		"figure-2 Figure 2: Training loss of the small model over thirty epochs.",
		"figure-3 Figure 3: Validation accuracy of the large model over thirty epochs.",
		"table-1 Table 1: Error rates of the small model.",
		"table-2 Table 2: Error rates of the large model.",
	}
	if diff := cmp.Diff(want, briefItems(figure.Page(pg))); diff != "" {
		t.Errorf("items (-want +got):\n%s\ntext:\n%s", diff, res.Text)
	}
}
