package pdf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// Helvetica 12 pt advances, in points: "Hello " is 30.672 wide, "world"
// 28.668.
const marksContent = "BT /F1 12 Tf 72 700 Td (Hello world of marks) Tj 0 -14 Td (second line begins here) Tj 0 -14 Td (an exam-) Tj 0 -14 Td (ple of hyphenation) Tj ET " +
	"BT /F1 12 Tf 330 700 Td (Right column text) Tj 0 -14 Td (goes on in its own) Tj 0 -14 Td (column down the page) Tj 0 -14 Td (to its very end) Tj ET"

func TestPageMarks(t *testing.T) {
	annots := []string{
		// "world": one quadrilateral in Acrobat's order (TL, TR, BL, BR).
		`<< /Type /Annot /Subtype /Highlight /Rect [102 697 132 711] /QuadPoints [102 711 132 711 102 697 132 697] /Contents (my comment) /T (Ada) /M (D:20240102153000+01'00') /C [1 1 0] >>`,
		// Over two lines: "marks" at the end of line 1, "second" at the start of line 2.
		`<< /Type /Annot /Subtype /Underline /Rect [72 683 200 711] /QuadPoints [146 711 180 711 146 697 180 697 72 697 110 697 72 683 110 683] /RC (<body><p>rich &amp; <b>bold</b></p><p>two</p></body>) >>`,
		// No QuadPoints: the Rect covers "Right column".
		`<< /Type /Annot /Subtype /StrikeOut /Rect [329 697 401 711] /CreationDate (D:2023) >>`,
		// A word split by a hyphen over two lines.
		`<< /Type /Annot /Subtype /Squiggly /Rect [72 655 130 683] /QuadPoints [89 683 130 683 89 669 130 669 72 669 89 669 72 655 89 655] >>`,
		`<< /Type /Annot /Subtype /Text /Rect [500 700 520 720] /Contents (a sticky note) /T (Bob) >>`,
		`<< /Type /Annot /Subtype /Link /Rect [72 697 132 711] /A << /S /URI /URI (http://arxiv.org/abs/1) >> >>`,
		`<< /Type /Annot /Subtype /Text /Rect [500 600 520 620] /F 2 /Contents (hidden) >>`,
		`<< /Type /Annot /Subtype /FreeText /Rect [72 100 300 130] /DA (/Helv 10 Tf) /Contents (typed on the page) >>`,
		`<< /Type /Annot /Subtype /Stamp /Rect [400 100 500 150] /Name /Approved >>`,
		`<< /Type /Annot /Subtype /Ink /Rect [400 200 500 250] /InkList [[400 200 450 240 500 210]] /Contents (circled) >>`,
		`<< /Type /Annot /Subtype /Caret /Rect [140 690 146 700] /Contents (insert "the") >>`,
		`<< /Type /Annot /Subtype /Widget /FT /Tx /Rect [72 300 200 320] /V (a field) >>`,
		`<< /Type /Annot /Subtype /Popup /Rect [300 600 400 700] /Contents (an orphan popup) >>`,
	}
	data := simpleDoc([]page{{content: marksContent, annots: strings.Join(annots, " ")}}, "", "", nil)
	d := mustExtract(t, data)
	got := d.Pages[0].Marks
	want := []Mark{
		{Kind: MarkHighlight, Text: "world", Comment: "my comment", Author: "Ada", Created: "2024-01-02T15:30:00+01:00", Color: "#ffff00"},
		{Kind: MarkUnderline, Text: "marks second", Comment: "rich & bold\ntwo"},
		{Kind: MarkSquiggly, Text: "example", Comment: ""},
		{Kind: MarkNote, Comment: "a sticky note", Author: "Bob"},
		{Kind: MarkStrikeOut, Text: "Right column", Created: "2023-01-01T00:00:00Z"},
		{Kind: MarkStamp},
		{Kind: MarkFreeText, Comment: "typed on the page"},
		{Kind: MarkInk, Comment: "circled"},
		{Kind: MarkCaret, Comment: `insert "the"`},
	}
	if len(got) != len(want) {
		t.Errorf("%d marks, want %d (no Link, Widget, Popup or hidden one)", len(got), len(want))
	}
	opts := []cmp.Option{cmpopts.IgnoreFields(Mark{}, "Box")}
	if diff := cmp.Diff(sortedKinds(want), sortedKinds(got), opts...); diff != "" {
		t.Errorf("marks (-want +got):\n%s", diff)
	}
	// The free-text annotation is still page text too.
	if !strings.Contains(d.Pages[0].Text, "typed on the page") {
		t.Errorf("page text lost the free-text annotation: %q", d.Pages[0].Text)
	}
	// Reading order: the left column's marks before the right column's.
	idx := map[string]int{}
	for i, m := range got {
		idx[m.Kind] = i
	}
	if idx[MarkHighlight] > idx[MarkUnderline] || idx[MarkUnderline] > idx[MarkSquiggly] || idx[MarkSquiggly] > idx[MarkStrikeOut] {
		t.Errorf("marks not in reading order: %+v", got)
	}
}

// sortedKinds orders marks by kind, for a comparison that does not depend
// on reading order (checked on its own).
func sortedKinds(ms []Mark) map[string]Mark {
	out := map[string]Mark{}
	for _, m := range ms {
		out[m.Kind] = m
	}
	return out
}

func TestMarkRepliesAndPopups(t *testing.T) {
	b := &pdfbuild.Builder{}
	helv := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	content := b.Stream("", marksContent)
	pagesObj := b.Add("")
	pop := b.Add("")
	parent := b.Add("")
	b.Set(pop, "<< /Type /Annot /Subtype /Popup /Rect [300 600 400 700] /Parent "+ref(parent)+" /Contents (said in the popup) >>")
	b.Set(parent, "<< /Type /Annot /Subtype /Highlight /Rect [102 697 132 711] /QuadPoints [102 711 132 711 102 697 132 697] /Popup "+ref(pop)+" >>")
	reply := b.Add("<< /Type /Annot /Subtype /Text /Rect [102 697 132 711] /IRT " + ref(parent) + " /T (Eve) /Contents (I agree) >>")
	reply2 := b.Add("<< /Type /Annot /Subtype /Text /Rect [102 697 132 711] /IRT " + ref(reply) + " /Contents (me too) >>")
	pg := b.Add("<< /Type /Page /Parent " + ref(pagesObj) + " /MediaBox [0 0 612 792] /Resources << /Font << /F1 " + ref(helv) + " >> >> /Contents " + ref(content) +
		" /Annots [" + ref(reply2) + " " + ref(parent) + " " + ref(pop) + " " + ref(reply) + "] >>")
	b.Set(pagesObj, "<< /Type /Pages /Kids ["+ref(pg)+"] /Count 1 >>")
	root := b.Add("<< /Type /Catalog /Pages " + ref(pagesObj) + " >>")
	d := mustExtract(t, b.Bytes(root, 0))
	want := []Mark{{Kind: MarkHighlight, Text: "world", Comment: "said in the popup\n\nme too\n\nEve: I agree"}}
	if diff := cmp.Diff(want, d.Pages[0].Marks, cmpopts.IgnoreFields(Mark{}, "Box")); diff != "" {
		t.Errorf("marks (-want +got):\n%s", diff)
	}
}

func ref(n int) string { return itoa(n) + " 0 R" }

func TestHostileMarks(t *testing.T) {
	t.Run("100000 on a page", func(t *testing.T) {
		start := time.Now()
		d := mustExtract(t, hostilepdf.ManyMarks(100_000))
		pg := d.Pages[0]
		if pg.Err != nil || !strings.Contains(pg.Text, "marked page text") {
			t.Fatalf("page lost: err %v, text %q", pg.Err, pg.Text)
		}
		if len(pg.Marks) != MaxPageMarks {
			t.Errorf("got %d marks, want the first %d", len(pg.Marks), MaxPageMarks)
		}
		if pg.Marks[0].Text != "marked page text" || pg.Marks[0].Comment != "c0" {
			t.Errorf("first mark %+v", pg.Marks[0])
		}
		t.Logf("%d annotations read in %v", 100_000, time.Since(start))
	})
	t.Run("tangled", func(t *testing.T) {
		d := mustExtract(t, hostilepdf.TangledMarks(10<<20))
		pg := d.Pages[0]
		if pg.Err != nil || !strings.Contains(pg.Text, "marked page text") {
			t.Fatalf("page lost: err %v, text %q", pg.Err, pg.Text)
		}
		comments := map[string]Mark{}
		for _, m := range pg.Marks {
			if len(m.Comment) > MaxMarkComment || len(m.Text) > MaxMarkText {
				t.Errorf("mark over its caps: %d, %d bytes", len(m.Comment), len(m.Text))
			}
			key := m.Comment
			if strings.HasPrefix(key, "xxx") {
				key = "big"
				if !strings.HasSuffix(m.Comment, "…") {
					t.Errorf("a cut comment does not say so")
				}
			}
			comments[key] = m
		}
		// An /IRT loop keeps both notes: the second folds into the
		// first, which answers nothing once its chain is seen to loop.
		for _, c := range []string{"plain", "odd quads", "popup text", "loop a\n\nloop b", "self reply", "big"} {
			if _, ok := comments[c]; !ok {
				t.Errorf("mark %q lost; got %d marks", c, len(pg.Marks))
			}
		}
		if got := comments["plain"].Text; got != "marked page text" {
			t.Errorf("plain highlight text %q", got)
		}
		if got := comments["odd quads"].Text; got != "marked page text" {
			t.Errorf("highlight with odd quads: text %q (its sound quadrilateral covers the line)", got)
		}
		if n := len(pg.Marks); n != 7 {
			t.Errorf("%d marks, want 7 (the duplicated plain highlight once, the looping notes as one)", n)
		}
	})
}

func TestPDFDate(t *testing.T) {
	for in, want := range map[string]string{
		"D:20240102153000+01'00'": "2024-01-02T15:30:00+01:00",
		"D:20240102153000Z":       "2024-01-02T15:30:00Z",
		"20240102":                "2024-01-02T00:00:00Z",
		"D:199912312359-05'30":    "1999-12-31T23:59:00-05:30",
		"yesterday":               "yesterday",
		"":                        "",
	} {
		if got := pdfDate(in); got != want {
			t.Errorf("pdfDate(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMarkReplyOnAnotherPage: a reply (/IRT) on another page than the mark
// it answers folds into that mark, through a chain of replies too; one
// whose /IRT names no mark, or whose chain loops, stays a mark of its own.
func TestMarkReplyOnAnotherPage(t *testing.T) {
	b := &pdfbuild.Builder{}
	helv := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	content1 := b.Stream("", marksContent)
	content2 := b.Stream("", marksContent)
	pagesObj := b.Add("")
	parent := b.Add("<< /Type /Annot /Subtype /Highlight /Rect [102 697 132 711] /QuadPoints [102 711 132 711 102 697 132 697] /Contents (my comment) >>")
	reply := b.Add("<< /Type /Annot /Subtype /Text /Rect [500 700 520 720] /IRT " + ref(parent) + " /T (Eve) /Contents (I agree) >>")
	reply2 := b.Add("")
	reply3 := b.Add("<< /Type /Annot /Subtype /Text /Rect [500 600 520 620] /IRT " + ref(reply2) + " /Contents (and on page one) >>")
	b.Set(reply2, "<< /Type /Annot /Subtype /Text /Rect [500 650 520 670] /IRT "+ref(reply)+" /T (Bob) /Contents (me too) >>")
	orphan := b.Add("<< /Type /Annot /Subtype /Text /Rect [500 500 520 520] /IRT " + ref(helv) + " /Contents (answers no mark) >>")
	// Two replies answering each other from page to page: a loop.
	loopA, loopB := b.Add(""), b.Add("")
	b.Set(loopA, "<< /Type /Annot /Subtype /Text /Rect [500 400 520 420] /IRT "+ref(loopB)+" /Contents (loop a) >>")
	b.Set(loopB, "<< /Type /Annot /Subtype /Text /Rect [500 400 520 420] /IRT "+ref(loopA)+" /Contents (loop b) >>")
	res := " /MediaBox [0 0 612 792] /Resources << /Font << /F1 " + ref(helv) + " >> >> /Contents "
	pg1 := b.Add("<< /Type /Page /Parent " + ref(pagesObj) + res + ref(content1) + " /Annots [" + ref(parent) + " " + ref(reply3) + " " + ref(loopA) + "] >>")
	pg2 := b.Add("<< /Type /Page /Parent " + ref(pagesObj) + res + ref(content2) + " /Annots [" + ref(reply) + " " + ref(reply2) + " " + ref(orphan) + " " + ref(loopB) + "] >>")
	b.Set(pagesObj, "<< /Type /Pages /Kids ["+ref(pg1)+" "+ref(pg2)+"] /Count 2 >>")
	root := b.Add("<< /Type /Catalog /Pages " + ref(pagesObj) + " >>")
	d := mustExtract(t, b.Bytes(root, 0))
	opts := cmpopts.IgnoreFields(Mark{}, "Box")
	want1 := []Mark{{Kind: MarkHighlight, Text: "world", Comment: "my comment\n\nand on page one\n\nEve: I agree\n\nBob: me too"}, {Kind: MarkNote, Comment: "loop a"}}
	if diff := cmp.Diff(want1, d.Pages[0].Marks, opts); diff != "" {
		t.Errorf("page 1 marks (-want +got):\n%s", diff)
	}
	want2 := []Mark{{Kind: MarkNote, Comment: "answers no mark"}, {Kind: MarkNote, Comment: "loop b"}}
	if diff := cmp.Diff(want2, d.Pages[1].Marks, opts); diff != "" {
		t.Errorf("page 2 marks (-want +got):\n%s", diff)
	}
}

// TestMarkRowsAndFormulas: a highlight over a table's rows reads each
// row's cells left to right, row by row, where the page reads the table
// column by column; one over a formula drawn in two passes (its letters,
// then its operators between them) reads it left to right, not the
// letters then the operators; a superscript stays beside its base. Each
// in the order pdftotext reads the highlight's box ("x -a / b*c").
func TestMarkRowsAndFormulas(t *testing.T) {
	var c strings.Builder
	// A table of three columns, ten rows, its cells far apart.
	c.WriteString("BT /F1 10 Tf ")
	for r := range 10 {
		y := 700 - 14*r
		for k, x := range []int{72, 250, 430} {
			fmt.Fprintf(&c, "1 0 0 1 %d %d Tm (%c%d cell) Tj ", x, y, 'A'+k, r)
		}
	}
	c.WriteString("ET ")
	// x - a / b * c: the letters, 18 pt apart (one fragment), then the
	// operators between them.
	c.WriteString("BT /F1 14 Tf ")
	for i, s := range []string{"x", "a", "b", "c"} {
		fmt.Fprintf(&c, "1 0 0 1 %d 400 Tm (%s) Tj ", 100+18*i, s)
	}
	for i, s := range []string{"-", "/", "*"} {
		fmt.Fprintf(&c, "1 0 0 1 %g 400 Tm (%s) Tj ", []float64{110.5, 129, 146.3}[i], s)
	}
	// E = mc², the 2 smaller and raised.
	c.WriteString("1 0 0 1 100 300 Tm (E = mc) Tj /F1 8 Tf 5 Ts (2) Tj 0 Ts /F1 12 Tf ( + 1) Tj ET")
	quad := func(x0, y0, x1, y1 int) string {
		return fmt.Sprintf("%d %d %d %d %d %d %d %d ", x0, y1, x1, y1, x0, y0, x1, y0)
	}
	hl := func(rect, quads string) string {
		return "<< /Type /Annot /Subtype /Highlight /Rect [" + rect + "] /QuadPoints [" + quads + "] >>"
	}
	annots := []string{
		// Rows 2 and 3, a quadrilateral each, as a viewer draws them.
		hl("70 669 520 684", quad(70, 670, 520, 684)+quad(70, 656, 520, 670)),
		hl("96 394 160 414", quad(96, 394, 160, 414)),
		hl("96 294 180 316", quad(96, 294, 180, 316)),
	}
	data := simpleDoc([]page{{content: c.String(), annots: strings.Join(annots, " ")}}, "", "", nil)
	pg := mustExtract(t, data).Pages[0]
	if strings.Index(pg.Text, "C2 cell") < strings.Index(pg.Text, "A3 cell") {
		t.Fatalf("the page reads the table row by row; the test wants its third column read apart:\n%s", pg.Text)
	}
	var got []string
	for _, m := range pg.Marks {
		got = append(got, m.Text)
	}
	want := []string{"A2 cell B2 cell C2 cell A3 cell B3 cell C3 cell", "x - a / b * c", "E = mc2 + 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("marked texts (-want +got):\n%s", diff)
	}
}

// TestMarkEdgeCutsLine: a highlight whose edges cut lines takes the
// glyphs whose middles it covers (a third of their size over their
// baseline), as a reader sees it cover them: not a line it covers under
// its baseline only, and a line it covers down to just over its
// baseline. pdftotext takes a glyph by its baseline, the other way round
// for both; the box moved down by a third of the text's size reads as
// the mark (where pdftotext is installed), as
// TestCorpusMarksRowsAndFormulas counts such marks apart.
func TestMarkEdgeCutsLine(t *testing.T) {
	// Helvetica 12 pt, baselines at 700 and 686: the box, 688–701, holds
	// the upper line's baseline and the lower line's middle (690).
	content := "BT /F1 12 Tf 72 700 Td (upper line text) Tj 0 -14 Td (lower line text) Tj ET"
	annot := "<< /Type /Annot /Subtype /Highlight /Rect [70 688 300 701] /QuadPoints [70 701 300 701 70 688 300 688] >>"
	data := simpleDoc([]page{{content: content, annots: annot}}, "", "", nil)
	pg := mustExtract(t, data).Pages[0]
	if len(pg.Marks) != 1 || pg.Marks[0].Text != "lower line text" {
		t.Fatalf("marks %+v, want one reading %q", pg.Marks, "lower line text")
	}
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed")
	}
	path := filepath.Join(t.TempDir(), "edge.pdf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The box from the page's top left (792 points high), then moved
	// down by 4 points.
	for _, c := range []struct{ y, want string }{{"91", "upper line text"}, {"95", "lower line text"}} {
		out, err := exec.Command(bin, "-x", "70", "-y", c.y, "-W", "230", "-H", "13", path, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext: %v", err)
		}
		if got := strings.TrimSpace(strings.ReplaceAll(string(out), "\f", "")); got != c.want {
			t.Errorf("pdftotext of the box from %s pt: %q, want %q", c.y, got, c.want)
		}
	}
}

// TestMarkOverlappingQuads: a highlight over two rows of a table whose
// quadrilaterals overlap (a row's box reaches down over the next row's
// first line where one of its cells is set on two lines around the row's
// middle) reads each line in the row whose quadrilateral's middle it is
// nearest: the second row's first cell after the first row, not inside
// it.
func TestMarkOverlappingQuads(t *testing.T) {
	// Helvetica 10 pt. Row 1: A1 at 697, its cell B1 on two lines, 704
	// and 690; row 2: A2 at 686, B2 at 676. A2's middle (689.3) lies in
	// both quadrilaterals, B1's second line's (693.3) too.
	var c strings.Builder
	c.WriteString("BT /F1 10 Tf ")
	for _, l := range []struct {
		x, y int
		s    string
	}{{72, 697, "A1 cell"}, {200, 704, "B1 top"}, {200, 690, "B1 low"}, {72, 686, "A2 cell"}, {200, 676, "B2 cell"}} {
		fmt.Fprintf(&c, "1 0 0 1 %d %d Tm (%s) Tj ", l.x, l.y, l.s)
	}
	c.WriteString("ET")
	annot := "<< /Type /Annot /Subtype /Highlight /Rect [70 672 300 712] /QuadPoints [70 712 300 712 70 686 300 686 70 694 300 694 70 672 300 672] >>"
	data := simpleDoc([]page{{content: c.String(), annots: annot}}, "", "", nil)
	pg := mustExtract(t, data).Pages[0]
	want := "A1 cell B1 top B1 low A2 cell B2 cell"
	if len(pg.Marks) != 1 || pg.Marks[0].Text != want {
		t.Errorf("marks %+v, want one reading %q", pg.Marks, want)
	}
}

// TestMarkStackedFraction: a highlight over a formula whose fraction the
// page's layout joins into one line ("dxd" for d over dx) reads the
// fraction's lines top to bottom in its place; scripts stacked over and
// under a base read after it, the upper first. (pdftotext reads the
// fraction's box otherwise: the numerator and what follows it on a line
// over the rest.)
func TestMarkStackedFraction(t *testing.T) {
	for _, c := range []struct{ name, content, page, want string }{
		{
			"fraction", "BT /F1 12 Tf 1 0 0 1 100 400 Tm (y =) Tj /F1 9 Tf 1 0 0 1 125 404 Tm (d) Tj 1 0 0 1 122 396 Tm (dx) Tj /F1 12 Tf 1 0 0 1 138 400 Tm (f\\(x\\) + 1) Tj ET",
			"y = dxd f(x) + 1", "y = d dx f(x) + 1",
		},
		{
			"scripts", "BT /F1 12 Tf 1 0 0 1 100 400 Tm (y = x) Tj /F1 8 Tf 1 0 0 1 130 396 Tm (i) Tj 1 0 0 1 130 405 Tm (2) Tj /F1 12 Tf 1 0 0 1 138 400 Tm (+ 1) Tj ET",
			"y = x 2i + 1", "y = x 2 i + 1",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			annot := "<< /Type /Annot /Subtype /Highlight /Rect [96 388 190 420] /QuadPoints [96 420 190 420 96 388 190 388] >>"
			pg := mustExtract(t, simpleDoc([]page{{content: c.content, annots: annot}}, "", "", nil)).Pages[0]
			if pg.Text != c.page {
				t.Fatalf("page text %q, want %q: the test wants the layout to join the lines", pg.Text, c.page)
			}
			if len(pg.Marks) != 1 || pg.Marks[0].Text != c.want {
				t.Errorf("marks %+v, want one reading %q", pg.Marks, c.want)
			}
		})
	}
}

// TestMarkStaggeredHeader: a highlight over a table's header whose cells
// are set on staggered lines — one-line cells on the row's baseline,
// two-line cells half a line over and under it, their columns a little
// more than a font size apart — reads each cell's lines together, column
// by column, where the page's layout joins each line across the columns.
// A cell's two lines with a blank under a font size running down both
// (words 0.8 size apart, one over the other) read as one cell. The box
// covers the lower lines down to just over their baselines, so that
// pdftotext takes them only when the box is moved down by a third of the
// text's size (TestMarkEdgeCutsLine); that box it reads as the mark
// (where pdftotext is installed).
func TestMarkStaggeredHeader(t *testing.T) {
	type word struct {
		x int
		y float64
		s string
	}
	// Helvetica 10 pt: the row at 700, the two-line cells at 705.5 and
	// 694.1.
	for _, c := range []struct {
		name, line, want string // line: the upper line as the page reads it
		words            []word
	}{
		{
			// The columns 13 pt apart (under WideGap).
			"columns", "train PPL BLEU\n", "N depth train steps PPL (dev) BLEU (dev)",
			[]word{
				{72, 700, "N"}, {92, 700, "depth"},
				{150, 705.5, "train"}, {187, 705.5, "PPL"}, {223, 705.5, "BLEU"},
				{150, 694.1, "steps"}, {187, 694.1, "(dev)"}, {223, 694.1, "(dev)"},
			},
		},
		{
			// "mean" is 25 pt wide, "all" 10: the blank down both
			// lines is 8 pt.
			"one cell", "mean of\n", "N depth mean of all runs",
			[]word{
				{72, 700, "N"}, {92, 700, "depth"},
				{150, 705.5, "mean"}, {183, 705.5, "of"},
				{150, 694.1, "all"}, {183, 694.1, "runs"},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("BT /F1 10 Tf ")
			for _, w := range c.words {
				fmt.Fprintf(&b, "1 0 0 1 %d %g Tm (%s) Tj ", w.x, w.y, w.s)
			}
			b.WriteString("ET")
			annot := "<< /Type /Annot /Subtype /Highlight /Rect [70 696.5 260 709] /QuadPoints [70 709 260 709 70 696.5 260 696.5] >>"
			data := simpleDoc([]page{{content: b.String(), annots: annot}}, "", "", nil)
			pg := mustExtract(t, data).Pages[0]
			if !strings.Contains(pg.Text, c.line) {
				t.Fatalf("page text %q: the test wants the layout to join the upper line as %q", pg.Text, c.line)
			}
			if len(pg.Marks) != 1 || pg.Marks[0].Text != c.want {
				t.Errorf("marks %+v, want one reading %q", pg.Marks, c.want)
			}
			bin, err := exec.LookPath("pdftotext")
			if err != nil {
				t.Skip("pdftotext is not installed")
			}
			path := filepath.Join(t.TempDir(), "header.pdf")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			// The box from the page's top left (792 points high),
			// moved down by a third of 10 pt.
			out, err := exec.Command(bin, "-x", "70", "-y", "86", "-W", "190", "-H", "13", path, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			if got := strings.Join(strings.Fields(string(out)), " "); got != c.want {
				t.Errorf("pdftotext of the box moved down: %q, want %q", got, c.want)
			}
		})
	}
}
