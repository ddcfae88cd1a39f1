package pdf

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// word lays out s as glyphs of one size from x on baseline y, each advance
// w, and returns them with the x after the last one.
func word(s string, x, y, size, w float64) ([]glyph, float64) {
	var gs []glyph
	for _, r := range s {
		gs = append(gs, glyph{x: x, y: y, w: w, size: size, text: string(r)})
		x += w
	}
	return gs, x
}

func TestLayoutWords(t *testing.T) {
	var latex []glyph
	// The LaTeX logo: a smaller A raised and kerned back over the L.
	l, _ := word("L", 100, 700, 10, 6)
	a := glyph{x: 101.5, y: 702.2, w: 5, size: 7, text: "A"}
	tex, _ := word("TEX", 107.5, 700, 10, 6)
	latex = append(append(append(latex, l...), a), tex...)

	var foot []glyph
	mark := glyph{x: 100, y: 704, w: 3.5, size: 7, text: "3"}
	we, _ := word("We", 103.5, 700, 10, 6)
	foot = append(append(foot, mark), we...)

	// "a" with a superscript l above a subscript i, then "+ b".
	scripts := []glyph{
		{x: 100, y: 700, w: 5, size: 10, text: "a"},
		{x: 105.2, y: 703.6, w: 2.5, size: 7, text: "l"},
		{x: 105.2, y: 697.4, w: 2.5, size: 7, text: "i"},
		{x: 110.5, y: 700, w: 6, size: 10, text: "+"},
		{x: 119, y: 700, w: 5, size: 10, text: "b"},
	}

	var errs []glyph
	// Small print: the second r of "error" starts 1.4 pt after the first.
	x := 100.0
	for _, r := range "error" {
		errs = append(errs, glyph{x: x, y: 700, w: 1.4, size: 2.5, text: string(r)})
		x += 1.4
	}
	var bold []glyph
	// Faked bold: every glyph drawn twice, 0.3 pt apart.
	x = 100
	for _, r := range "bold" {
		bold = append(bold, glyph{x: x, y: 700, w: 5, size: 10, text: string(r)},
			glyph{x: x + 0.3, y: 700, w: 5, size: 10, text: string(r)})
		x += 5
	}
	for _, tc := range []struct {
		name string
		gs   []glyph
		want string
	}{
		{"raised letter kerned back", latex, "LATEX"},
		{"footnote mark before a word", foot, "3 We"},
		{"double letter in small print", errs, "error"},
		{"subscript below a superscript", scripts, "ali + b"},
		{"overprinted bold", bold, "bold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := layoutPage(tc.gs, 612, 792)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

// On the last page of pami-lsvm a results table spans the page above a
// two-column reference list, so the page as a whole has no gutter; the
// references must still be read column by column: [1]…[11], then [12]….
func TestLayoutColumnsBelowWideTable(t *testing.T) {
	path := filepath.Join(corpus.Dir(t, "pdfs"), "pami-lsvm.pdf")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var page *Page
	for i := range d.Pages {
		if strings.Contains(d.Pages[i].Text, "[12]") && strings.Contains(d.Pages[i].Text, "[1] Y. Amit") {
			page = &d.Pages[i]
		}
	}
	if page == nil {
		t.Fatal("no page with references [1] and [12]")
	}
	last := -1
	for n := 1; n <= 20; n++ {
		i := strings.Index(page.Text, fmt.Sprintf("[%d] ", n))
		if i < 0 {
			t.Fatalf("reference [%d] not found", n)
		}
		if i < last {
			t.Errorf("reference [%d] comes before [%d]", n, n-1)
		}
		if j := strings.LastIndexByte(page.Text[:i], '\n'); n > 1 && strings.Contains(page.Text[j+1:i], "[") {
			t.Errorf("reference [%d] shares a line with another: %q", n, page.Text[j+1:i+10])
		}
		last = i
	}
}

// A mirrored glyph, the reversed E of the XeTeX logo, stays in its word.
func TestMirroredGlyph(t *testing.T) {
	data := simpleDoc([]page{{content: `BT /F1 12 Tf 1 0 0 1 72 700 Tm (X) Tj -1 0 0 1 88.5 700 Tm (E) Tj 1 0 0 1 88.5 700 Tm (TeX) Tj ET`}}, "", "", nil)
	d := mustExtract(t, data)
	if diff := cmp.Diff("XETeX", d.Pages[0].Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// A page cut into more than maxBands (64) bands is kept whole: each band's
// gutter search costs up to the page width, so scattered glyphs on a
// hostile page must not multiply it.
func TestOrderBandsBounded(t *testing.T) {
	var frags []*frag
	band := func(y float64, pairs int) {
		for i := 0; i < pairs; i++ {
			yy := y - 12*float64(i)
			frags = append(frags, &frag{x0: 60, x1: 280, y: yy, size: 10, chars: 40},
				&frag{x0: 320, x1: 540, y: yy, size: 10, chars: 40})
		}
		// full-width lines above, which hide the gutter of the page as a
		// whole, a band of their own
		for i := 0; i < 3; i++ {
			frags = append(frags, &frag{x0: 60, x1: 540, y: y + 60 - 12*float64(i), size: 10, chars: 90})
		}
	}
	for b := 0; b < 3; b++ {
		band(5000-150*float64(b), 4)
	}
	if got := len(orderBands(frags)); got != 9 {
		t.Fatalf("3 sections of a full-width band over two columns: %d blocks, want 9", got)
	}
	frags = nil
	for b := 0; b < 40; b++ {
		band(100000-150*float64(b), 4)
	}
	if got := len(orderBands(frags)); got != 1 {
		t.Errorf("80 bands: %d blocks, want the page whole", got)
	}
}

// Text flipped upside down by the matrix (not turned) keeps the direction
// of its advance: it reads forwards.
func TestFlippedText(t *testing.T) {
	data := simpleDoc([]page{{content: `BT /F1 12 Tf 1 0 0 -1 72 700 Tm (flipped) Tj ET`}}, "", "", nil)
	d := mustExtract(t, data)
	if diff := cmp.Diff("flipped", d.Pages[0].Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// A single-column page whose justified lines open wide spaces that line up
// on two lines (a reference entry set in a narrow measure) has no gutter
// there: the lines read whole, not as two columns of two lines.
func TestLayoutAlignedWideSpaces(t *testing.T) {
	var gs []glyph
	seq := int32(0)
	put := func(x, y float64, s string) {
		for _, r := range s {
			gs = append(gs, glyph{x: x, y: y, w: 5, size: 10, text: string(r), seq: seq, isWS: r == ' '})
			x += 5
			seq++
		}
	}
	y := 700.0
	for i := 0; i < 8; i++ {
		put(72, y, fmt.Sprintf("Line %d of a paragraph that runs the whole width of the text block here.", i))
		y -= 12
	}
	// Justified as TeX sets it: words placed one by one, no space
	// glyphs, the spaces stretched wider than a fragment's gap.
	words := func(y float64, ws ...string) {
		x := 72.0
		for _, w := range ws {
			put(x, y, w)
			x += 5*float64(len(w)) + 10
		}
	}
	words(y, "Thomas", "A.", "Whitfield", "and", "Rebecca", "J.", "Moore.", "Budgeted", "context", "windows")
	y -= 12
	words(y, "for", "tool-using", "agents.", "Artificial", "Intelligence,", "330:104077,", "2024.", "doi:")
	y -= 12
	put(72, y, "10.1016/j.artint.2024.104077.")
	y -= 12
	for i := 8; i < 12; i++ {
		put(72, y, fmt.Sprintf("Line %d of a paragraph that runs the whole width of the text block here.", i))
		y -= 12
	}
	_, text := layoutPage(gs, 612, 792)
	want := "Thomas A. Whitfield and Rebecca J. Moore. Budgeted context windows\nfor tool-using agents. Artificial Intelligence, 330:104077, 2024. doi:\n10.1016/j.artint.2024.104077."
	if !strings.Contains(text, want) {
		t.Errorf("the entry's lines are not read whole:\n%s", text)
	}
}

// line lays out s evenly from x0 to x1 on baseline y in 9 pt type.
func line(s string, x0, x1, y float64) []glyph {
	gs, _ := word(s, x0, y, 9, (x1-x0)/float64(len(s)))
	return gs
}

// Two-column bibliographies whose gutter is hard to see: a natbib list's
// first lines hang into the column separation up to where the left
// column's lines end, and an alpha list's labels stand apart from their
// entries, a white strip inside the right column, below a title centred
// over the gutter; or lines of the left column run over their measure
// across the gutter. Each way the left column is read before the right
// one, and each label with its entry.
func TestLayoutBibliographyColumns(t *testing.T) {
	const rows = 14
	var natbib, alpha []glyph
	var natWant, alphaWant []string
	for col, x := range []float64{72, 300.645} {
		for i := range rows {
			y := 760 - 11*float64(i)
			s := fmt.Sprintf("entry %c%02d of the list goes on", 'a'+col, i)
			x0 := x + 10 // a continuation line, indented
			if i%3 == 0 {
				x0 = x // an entry's first line, hanging
				s = fmt.Sprintf("Author %c%02d and Other, Title", 'a'+col, i)
			}
			natbib = append(natbib, line(s, x0, x+228.6, y)...)
			natWant = append(natWant, s)
		}
	}
	alpha = append(alpha, line("A Test Paper on Citations", 214, 396, 790)...)
	alpha = append(alpha, line("Test Author with a longer line", 240, 370, 778)...)
	alpha = append(alpha, line("30 November 2026", 258, 352, 766)...)
	alphaWant = []string{"A Test Paper on Citations", "Test Author with a longer line", "30 November 2026"}
	for i := range rows {
		s := fmt.Sprintf("left column line %02d runs on", i)
		alpha = append(alpha, line(s, 72, 297, 740-11*float64(i))...)
		alphaWant = append(alphaWant, s)
	}
	for i := range rows {
		y := 740 - 11*float64(i)
		s := fmt.Sprintf("entry text %02d runs to the edge", i)
		want := s
		if i%3 == 0 {
			label := fmt.Sprintf("[Ab%02d]", i)
			alpha = append(alpha, line(label, 307, 335, y)...)
			want = label + " " + s
		}
		alpha = append(alpha, line(s, 352, 539, y)...)
		alphaWant = append(alphaWant, want)
	}
	// amsart: a title over the gutter and two lines of the left column run
	// over their measure across it, one up to the right column's text.
	var over, overWant []string
	var overrun []glyph
	overrun = append(overrun, line("A TEST PAPER ON CITATIONS", 250, 360, 790)...)
	over = append(over, "A TEST PAPER ON CITATIONS")
	for i := range rows {
		s, x1 := fmt.Sprintf("left column line %02d runs on", i), 301.0
		switch i {
		case 4:
			s, x1 = fmt.Sprintf("left column line %02d runs overfull", i), 310.4
		case 8:
			s, x1 = fmt.Sprintf("left column line %02d runs overfull", i), 314
		}
		overrun = append(overrun, line(s, 126, x1, 740-11*float64(i))...)
		over = append(over, s)
	}
	for i := range 4 { // the body's last lines, above the references
		s := fmt.Sprintf("body text line %02d of the right column", i)
		overrun = append(overrun, line(s, 311, 486, 740-11*float64(i))...)
		overWant = append(overWant, s)
	}
	for i := range rows - 4 {
		y := 740 - 11*float64(i+4)
		s := fmt.Sprintf("entry text %02d runs on", i)
		want := s
		if i%3 == 0 {
			label := fmt.Sprintf("[Ab%02d]", i)
			overrun = append(overrun, line(label, 311, 335, y)...)
			want = label + " " + s
		}
		overrun = append(overrun, line(s, 345, 486, y)...)
		overWant = append(overWant, want)
	}
	for _, tc := range []struct {
		name string
		gs   []glyph
		want []string
	}{
		{"natbib first lines hang to the other column", natbib, natWant},
		{"lines run over their measure across the gutter", overrun, append(over, overWant...)},
		{"alpha labels below a centred title", alpha, alphaWant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, text := layoutPage(tc.gs, 612, 842)
			var got []string
			for _, l := range strings.Split(text, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					got = append(got, l)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}
