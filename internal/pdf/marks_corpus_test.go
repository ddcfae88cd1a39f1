package pdf_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/color"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/figure"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// selection is a highlight added over a table's row, two of its rows or
// a formula: its page, its boxes (a quadrilateral each), and pdftotext's
// text of them, box by box.
type selection struct {
	page    int
	kind    string // "row", "rows" or "formula"
	boxes   []pbox
	poppler string
	// size is the font size, in points, of the selection's largest line
	// (its box's height over 1.05): how far down middles moves the boxes.
	size float64
}

// middles is the selection with its boxes moved down by a third of its
// text's size. pdftotext takes a glyph whose baseline lies in a box; a
// glyph's middle (a third of its size over its baseline, where a mark
// takes it) lies in a box when its baseline lies in the box moved down
// so. Its text is what a reader sees the box cover where its edge cuts a
// line: pdftotext takes a line the box covers under its baseline only (a
// neighbouring column's, an accent over a letter) and leaves out one the
// box covers down to just over its baseline. Two moved boxes that
// overlap are cut where a point is as near the one's vertical middle as
// the other's: a mark reads a line in two quadrilaterals in the one
// whose middle is nearest (TestMarkOverlappingQuads), where pdftotext
// would read it in both.
func (s selection) middles() selection {
	m := s
	m.boxes = nil
	for _, b := range s.boxes {
		b.y += s.size / 3
		m.boxes = append(m.boxes, b)
	}
	for i := range m.boxes {
		for k := i + 1; k < len(m.boxes); k++ {
			a, b := &m.boxes[i], &m.boxes[k]
			if math.Min(a.x+a.w, b.x+b.w) <= math.Max(a.x, b.x) || math.Min(a.y+a.h, b.y+b.h) <= math.Max(a.y, b.y) {
				continue
			}
			ma, mb := a.y+a.h/2, b.y+b.h/2
			if ma == mb {
				continue
			}
			if ma > mb {
				a, b, ma, mb = b, a, mb, ma
			}
			// a is over b.
			cut := (ma + mb) / 2
			a.h = math.Min(a.y+a.h, cut) - a.y
			bot := b.y + b.h
			b.y = math.Max(b.y, cut)
			b.h = bot - b.y
		}
	}
	return m
}

// pbox is a box in points from the page's top left.
type pbox struct{ x, y, w, h float64 }

// union is the box of all of a selection's boxes.
func (s selection) union() pbox {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, b := range s.boxes {
		x0, y0 = math.Min(x0, b.x), math.Min(y0, b.y)
		x1, y1 = math.Max(x1, b.x+b.w), math.Max(y1, b.y+b.h)
	}
	return pbox{x0, y0, x1 - x0, y1 - y0}
}

// rect is a box in default user space, on a page of height h.
func (b pbox) rect(h float64) *types.Rectangle {
	return types.NewRectangle(b.x, h-(b.y+b.h), b.x+b.w, h-b.y)
}

// Per file, the most table rows and formulas marked.
const (
	maxRowMarks     = 12
	maxFormulaMarks = 10
)

// pageRows groups lines into rows: lines whose vertical middles are
// within half a line of each other, left to right.
func pageRows(lines []pdf.Line) [][]pdf.Line {
	var own []pdf.Line
	for _, ln := range lines {
		if ln.Annot == "" && ln.Box.W > 0 && ln.Box.H > 0 && strings.TrimSpace(ln.Text) != "" {
			own = append(own, ln)
		}
	}
	sort.SliceStable(own, func(a, b int) bool { return own[a].Box.Y+own[a].Box.H/2 < own[b].Box.Y+own[b].Box.H/2 })
	var rows [][]pdf.Line
	for _, ln := range own {
		mid := ln.Box.Y + ln.Box.H/2
		if n := len(rows); n > 0 {
			last := rows[n-1][0]
			if math.Abs(last.Box.Y+last.Box.H/2-mid) < 0.5*math.Min(last.Box.H, ln.Box.H) {
				rows[n-1] = append(rows[n-1], ln)
				continue
			}
		}
		rows = append(rows, []pdf.Line{ln})
	}
	return rows
}

// rowBox is the union of a row's line boxes.
func rowBox(row []pdf.Line) pdf.Box {
	x0, y0, x1, y1 := 1.0, 1.0, 0.0, 0.0
	for _, ln := range row {
		x0, y0 = math.Min(x0, ln.Box.X), math.Min(y0, ln.Box.Y)
		x1, y1 = math.Max(x1, ln.Box.X+ln.Box.W), math.Max(y1, ln.Box.Y+ln.Box.H)
	}
	return pdf.Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

func inside(b, area pdf.Box) bool {
	cx, cy := b.X+b.W/2, b.Y+b.H/2
	return cx >= area.X && cx <= area.X+area.W && cy >= area.Y && cy <= area.Y+area.H
}

// tableRows returns the rows of each of a page's tables (figure.Find's
// items of the page, the caption left out) that hold two cells or more.
func tableRows(pg pdf.Page, items []figure.Item) [][][]pdf.Line {
	var out [][][]pdf.Line
	for _, it := range items {
		if it.Kind != figure.Table || it.Page != pg.Number {
			continue
		}
		var in []pdf.Line
		for _, ln := range pg.Lines {
			if inside(ln.Box, it.Box) && !inside(ln.Box, it.CaptionBox) {
				in = append(in, ln)
			}
		}
		var rows [][]pdf.Line
		for _, r := range pageRows(in) {
			cells := len(r)
			for _, ln := range r {
				cells += len(ln.Gaps)
			}
			if cells >= 2 {
				rows = append(rows, r)
			}
		}
		out = append(out, rows)
	}
	return out
}

// formulaRow reports a displayed formula: one line, or one and its
// number, holding "=", a few words, and set narrower than the text.
func formulaRow(row []pdf.Line) bool {
	if len(row) > 2 || !strings.Contains(row[0].Text, "=") {
		return false
	}
	letters := 0
	for _, r := range row[0].Text {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	f := strings.Fields(row[0].Text)
	return len(f) >= 2 && len(f) <= 14 && row[0].Box.W < 0.55 && letters >= 2 && letters < 60
}

// spaced reports whether a row stands apart from the rows above and under
// it by at least a third of its height: a formula's box taken with its
// scripts catches no other line.
func spaced(rows [][]pdf.Line, i int) bool {
	b := rowBox(rows[i])
	if i > 0 {
		if p := rowBox(rows[i-1]); b.Y-(p.Y+p.H) < 0.35*b.H {
			return false
		}
	}
	if i+1 < len(rows) {
		if n := rowBox(rows[i+1]); n.Y-(b.Y+b.H) < 0.35*b.H {
			return false
		}
	}
	return true
}

// newSelection is a highlight over boxes of a page (0–1, top left), each
// a point larger on every side, as a viewer draws it.
func newSelection(pg pdf.Page, kind string, bs ...pdf.Box) selection {
	s := selection{page: pg.Number, kind: kind}
	for _, b := range bs {
		s.boxes = append(s.boxes, pbox{b.X*pg.Width - 1, b.Y*pg.Height - 1, b.W*pg.Width + 2, b.H*pg.Height + 2})
	}
	return s
}

// textSize is the font size, in points, of the largest of rows' lines:
// a line's box is 1.05 sizes high.
func textSize(pg pdf.Page, rows ...[]pdf.Line) float64 {
	h := 0.0
	for _, r := range rows {
		for _, ln := range r {
			h = math.Max(h, ln.Box.H*pg.Height)
		}
	}
	return h / 1.05
}

// selections picks the table rows and displayed formulas of a document to
// mark, spread over it, with pdftotext's text of each.
func selections(t *testing.T, bin, path string, data []byte, doc *pdf.Document) []selection {
	items := figure.Find(doc)
	var rows, pairs, formulas []selection
	for _, pg := range doc.Pages {
		if pg.Err != nil || pg.Width <= 0 || pg.Height <= 0 {
			continue
		}
		for _, table := range tableRows(pg, items) {
			for i, r := range table {
				s := newSelection(pg, "row", rowBox(r))
				s.size = textSize(pg, r)
				rows = append(rows, s)
				if i+1 < len(table) {
					s := newSelection(pg, "rows", rowBox(r), rowBox(table[i+1]))
					s.size = textSize(pg, r, table[i+1])
					pairs = append(pairs, s)
				}
			}
		}
		rs := pageRows(pg.Lines)
		for i, r := range rs {
			if !formulaRow(r) || !spaced(rs, i) {
				continue
			}
			// The formula's scripts: three tenths of its height over and
			// under it.
			b := rowBox(r)
			b.Y -= 0.3 * b.H
			b.H *= 1.6
			s := newSelection(pg, "formula", b)
			s.size = textSize(pg, r)
			formulas = append(formulas, s)
		}
	}
	var out []selection
	sels := slices.Concat(spread(rows, maxRowMarks), spread(pairs, maxRowMarks/2), spread(formulas, maxFormulaMarks))
	texts, oks := popplerTexts(t, bin, path, data, sels)
	for i, s := range sels {
		if s.poppler = texts[i]; oks[i] && len(alnum(s.poppler)) >= 4 {
			out = append(out, s)
		}
	}
	return out
}

// popplerTexts returns popplerText of each of sels. pdftotext's crop of a
// box is its reading of the page with the box for a media box: that is
// how it crops (poppler's displayPageSlice). So one pdftotext process
// reads all the boxes of a file, as the pages of a copy of it with one
// page per box appended (boxPages), where a process per box spent most
// of its time starting and reading the file. Whether pdftotext reports
// errors reading a page is a property of the page, not of the box it
// crops: it is asked once per page (pageErrors). A file whose copy
// pdftotext reports errors on, or a box on a rotated page, is read box
// by box.
func popplerTexts(t *testing.T, bin, path string, data []byte, sels []selection) ([]string, []bool) {
	t.Helper()
	var boxes []pageBox
	for _, s := range sels {
		for _, b := range s.boxes {
			boxes = append(boxes, pageBox{s.page, b})
		}
	}
	texts, ok := boxPagesText(t, bin, path, data, boxes)
	clean := map[int]bool{}
	out, oks := make([]string, len(sels)), make([]bool, len(sels))
	for i, s := range sels {
		if !ok {
			out[i], oks[i] = popplerText(t, bin, path, s)
			continue
		}
		out[i] = strings.Join(texts[:len(s.boxes)], "\n")
		texts = texts[len(s.boxes):]
		if _, asked := clean[s.page]; !asked {
			clean[s.page] = !pageErrors(t, bin, path, s.page)
		}
		oks[i] = clean[s.page]
	}
	return out, oks
}

// pageErrors reports whether pdftotext reports errors reading a page of
// the file at path, as popplerBox does of any box of the page: it reads
// the whole page whatever it crops. The crop here is one point, to lay
// out next to nothing.
func pageErrors(t *testing.T, bin, path string, page int) bool {
	t.Helper()
	_, ok := popplerBox(t, bin, path, page, pbox{0, 0, 1, 1})
	return !ok
}

// boxPagesText returns pdftotext's text of each box, read in one process
// (popplerTexts), and false when that cannot give what a process per box
// gives: pdftotext reports errors reading the copy, pdfcpu cannot read
// the file, or a box lies on a rotated page.
func boxPagesText(t *testing.T, bin, path string, data []byte, boxes []pageBox) ([]string, bool) {
	t.Helper()
	if len(boxes) == 0 {
		return nil, true
	}
	copied, ok := boxPages(data, boxes)
	if !ok {
		return nil, false
	}
	f := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(f, copied, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-enc", "UTF-8", f, "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", filepath.Base(path), err)
	}
	if stderr.Len() > 0 {
		return nil, false
	}
	pages := strings.Split(string(out), "\f")
	if len(pages) != len(boxes)+1 {
		t.Fatalf("pdftotext %s: %d pages of boxes, want %d", filepath.Base(path), len(pages)-1, len(boxes))
	}
	texts := make([]string, len(boxes))
	for i := range texts {
		texts[i] = strings.TrimSpace(pages[i])
	}
	return texts, true
}

// boxPages returns data with an incremental update whose catalog lists
// one page per box: the box's page with the box for its media box (the
// box pdftotext -x -y -W -H crops, in points from the media box's top
// left, rounded as popplerBox rounds it), its resources and contents the
// same objects. It returns false when pdfcpu cannot read a page, or a
// box lies on a rotated page (whose crop turns with it).
func boxPages(data []byte, boxes []pageBox) ([]byte, bool) {
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	ctx, err := api.ReadContext(bytes.NewReader(data), conf)
	if err != nil || ctx.Encrypt != nil || ctx.EnsurePageCount() != nil {
		return nil, false
	}
	catalog, err := ctx.Catalog()
	if err != nil {
		return nil, false
	}
	prev := bytes.LastIndex(data, []byte("startxref"))
	if prev < 0 {
		return nil, false
	}
	var prevXRef int
	if _, err := fmt.Sscan(string(data[prev+len("startxref"):min(len(data), prev+40)]), &prevXRef); err != nil {
		return nil, false
	}
	out := bytes.NewBuffer(bytes.Clone(data))
	out.WriteString("\n")
	next := *ctx.Size
	pagesNr := next
	offsets := map[int]int{}
	var kids []string
	n := func(v float64) float64 { return math.Round(v) }
	for _, pb := range boxes {
		d, _, inh, err := ctx.PageDict(pb.page, false)
		if err != nil || inh.MediaBox == nil || inh.Rotate%360 != 0 {
			return nil, false
		}
		// The page as it is (its annotations, which pdftotext draws, and
		// whatever else it reads of it), but for its place and boxes.
		mb, b := inh.MediaBox, pb.box
		page := d.Clone().(types.Dict)
		page["Parent"] = *types.NewIndirectRef(pagesNr, 0)
		page["MediaBox"] = types.NewNumberArray(mb.LL.X+n(b.x), mb.UR.Y-n(b.y)-n(b.h), mb.LL.X+n(b.x)+n(b.w), mb.UR.Y-n(b.y))
		delete(page, "CropBox")
		if _, ok := page.Find("Resources"); !ok && inh.Resources != nil {
			page["Resources"] = inh.Resources // inherited
		}
		next++
		offsets[next] = out.Len()
		fmt.Fprintf(out, "%d 0 obj\n%s\nendobj\n", next, page.PDFString())
		kids = append(kids, fmt.Sprintf("%d 0 R", next))
	}
	offsets[pagesNr] = out.Len()
	fmt.Fprintf(out, "%d 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", pagesNr, strings.Join(kids, " "), len(kids))
	cat := catalog.Clone().(types.Dict)
	cat["Pages"] = *types.NewIndirectRef(pagesNr, 0)
	next++
	offsets[next] = out.Len()
	fmt.Fprintf(out, "%d 0 obj\n%s\nendobj\n", next, cat.PDFString())
	xref := out.Len()
	fmt.Fprintf(out, "xref\n%d %d\n", pagesNr, next-pagesNr+1)
	for nr := pagesNr; nr <= next; nr++ {
		fmt.Fprintf(out, "%010d 00000 n\r\n", offsets[nr])
	}
	fmt.Fprintf(out, "trailer\n<< /Size %d /Root %d 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", next+1, next, prevXRef, xref)
	return out.Bytes(), true
}

// pageBox is a box of a page.
type pageBox struct {
	page int
	box  pbox
}

// popplerText returns pdftotext's text of a selection's boxes, box by
// box, and false when pdftotext reports errors reading its page.
func popplerText(t *testing.T, bin, path string, s selection) (string, bool) {
	t.Helper()
	var texts []string
	ok := true
	for _, b := range s.boxes {
		text, read := popplerBox(t, bin, path, s.page, b)
		texts, ok = append(texts, text), ok && read
	}
	return strings.Join(texts, "\n"), ok
}

// spread keeps at most n of ss, evenly spaced.
func spread(ss []selection, n int) []selection {
	if len(ss) <= n {
		return ss
	}
	out := make([]selection, 0, n)
	for i := range n {
		out = append(out, ss[i*len(ss)/n])
	}
	return out
}

// popplerBox returns pdftotext's text of a box of a page, and false when
// pdftotext reports errors reading the page (a font it cannot read, a
// missing language pack): its text of the box is no reference.
func popplerBox(t *testing.T, bin, path string, page int, b pbox) (string, bool) {
	t.Helper()
	p := strconv.Itoa(page)
	n := func(v float64) string { return strconv.Itoa(int(math.Round(v))) }
	cmd := exec.Command(bin, "-f", p, "-l", p, "-x", n(b.x), "-y", n(b.y), "-W", n(b.w), "-H", n(b.h), "-enc", "UTF-8", path, "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", filepath.Base(path), err)
	}
	return strings.TrimSpace(strings.ReplaceAll(string(out), "\f", "")), stderr.Len() == 0
}

// alnum is the letters and digits of s, folded (textnorm.Fold): what a
// selection's text and pdftotext's share whatever spaces each puts
// between a formula's base and its scripts.
func alnum(s string) []rune {
	var out []rune
	for _, r := range textnorm.Fold(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			out = append(out, r)
		}
	}
	return out
}

// agreement is how alike two texts read: twice the longest common
// subsequence of their letters and digits over their lengths; glyphs
// sorted by height, or cells out of order, share a short one.
func agreement(a, b string) float64 {
	x, y := alnum(a), alnum(b)
	if len(x)+len(y) == 0 {
		return 1
	}
	prev, cur := make([]int, len(y)+1), make([]int, len(y)+1)
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			switch {
			case x[i-1] == y[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return 2 * float64(prev[len(y)]) / float64(len(x)+len(y))
}

// selName is the comment of the k-th selection's highlight, by which it
// is found again.
func selName(k int) string { return "selection " + strconv.Itoa(k) }

// minAgreement is the agreement with pdftotext's text of its box a mark's
// text must have to count as read right.
const minAgreement = 0.9

// markScore sums a set of marks: those added, those read back with the
// text pdftotext gives their box, and those read back with another text;
// of these, middles are those read with the text pdftotext gives their
// boxes moved down by a third of their text's size (selection.middles):
// the glyphs whose middles the boxes cover.
type markScore struct{ added, right, wrong, middles int }

func (s markScore) recall() float64 { return float64(s.right) / float64(max(1, s.added)) }
func (s markScore) false_() float64 {
	return float64(s.wrong) / float64(max(1, s.right+s.wrong))
}

// byMiddles is the score with the marks that read the glyphs whose
// middles their boxes cover counted right.
func (s markScore) byMiddles() markScore {
	return markScore{added: s.added, right: s.right + s.middles, wrong: s.wrong - s.middles}
}

func (s *markScore) add(o markScore) {
	s.added, s.right, s.wrong, s.middles = s.added+o.added, s.right+o.right, s.wrong+o.wrong, s.middles+o.middles
}

func (s markScore) String() string {
	m := s.byMiddles()
	return fmt.Sprintf("%d marks, recall %.3f, false %.3f (by glyph middles %.3f, %.3f)", s.added, s.recall(), s.false_(), m.recall(), m.false_())
}

// TestCorpusMarksRowsAndFormulas: where poppler's pdftotext is installed,
// a highlight over a table's row or a displayed formula of a corpus PDF
// (added with pdfcpu's annotation API to a copy, as a viewer saves it)
// reads as pdftotext reads the highlight's box: cells left to right, a
// formula's sub- and superscripts beside their base, not its glyphs
// sorted by height. The files at an odd place in name order are held
// out; docs/benchmarks.md reports the figures.
func TestCorpusMarksRowsAndFormulas(t *testing.T) {
	dir := corpus.Dir(t, "pdfs")
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	sort.Strings(paths)
	// By split (held out or not), then kind.
	scores := map[bool]map[string]*markScore{}
	for _, h := range []bool{false, true} {
		scores[h] = map[string]*markScore{"row": {}, "rows": {}, "formula": {}}
	}
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	for i, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			continue // the image-only scan
		}
		sels := selections(t, bin, path, data, doc)
		if len(sels) == 0 {
			continue
		}
		ann := map[int][]model.AnnotationRenderer{}
		yellow := color.SimpleColor{R: 1, G: 1, B: 0}
		for k, s := range sels {
			h := doc.Pages[s.page-1].Height
			var q types.QuadPoints
			for _, b := range s.boxes {
				q = append(q, *types.NewQuadLiteralForRect(b.rect(h)))
			}
			ann[s.page] = append(ann[s.page], model.NewTextMarkupAnnotation(model.AnnHighLight, *s.union().rect(h), 0, selName(k), fmt.Sprintf("m%d", k), "", 0, &yellow, 0, 0, 0, "Reader", nil, nil, "", "", q))
		}
		f, err := os.Create(filepath.Join(t.TempDir(), filepath.Base(path)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
		err = api.AddAnnotationsMapAsIncrement(f, ann, conf)
		f.Close()
		if err != nil {
			t.Logf("%s: pdfcpu cannot annotate it: %v", filepath.Base(path), err)
			continue
		}
		marked, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		got, err := pdf.Extract(context.Background(), bytes.NewReader(marked), int64(len(marked)), nil)
		if err != nil {
			t.Fatalf("%s annotated: %v", filepath.Base(path), err)
		}
		for j, s := range sels {
			sc := scores[i%2 == 1][s.kind]
			sc.added++
			// The mark of this selection: its comment names it.
			var m *pdf.Mark
			pg := got.Pages[s.page-1]
			for k := range pg.Marks {
				if pg.Marks[k].Comment == selName(j) {
					m = &pg.Marks[k]
				}
			}
			if m == nil {
				continue
			}
			if a := agreement(m.Text, s.poppler); a >= minAgreement {
				sc.right++
			} else {
				sc.wrong++
				mid, ok := popplerText(t, bin, path, s.middles())
				am := agreement(m.Text, mid)
				if ok && am >= minAgreement {
					sc.middles++
				}
				if testing.Verbose() {
					t.Logf("%s p%d %s: agreement %.2f (by glyph middles %.2f)\n  pdftotext: %q\n  middles:   %q\n  mark:      %q", filepath.Base(path), s.page, s.kind, a, am, s.poppler, mid, m.Text)
				}
			}
		}
	}
	for _, h := range []bool{false, true} {
		name := "rules written on"
		if h {
			name = "held out"
		}
		t.Logf("%s: table rows %v; two rows %v; formulas %v", name, scores[h]["row"], scores[h]["rows"], scores[h]["formula"])
	}
	all := markScore{}
	for _, sc := range scores[true] {
		all.add(*sc)
	}
	t.Logf("held out, all: %v", all)
	row := *scores[true]["row"]
	for _, c := range []struct {
		name      string
		s         markScore
		rec, fals float64
	}{
		{"table rows", row, minRowRecall, maxRowFalse},
		{"all", all, minMarkRecall, maxMarkFalse},
		{"all, by glyph middles", all.byMiddles(), minMiddlesRecall, maxMiddlesFalse},
	} {
		if c.s.recall() < c.rec || c.s.false_() > c.fals {
			t.Errorf("held out, %s: recall %.3f, false %.3f; want recall ≥ %.2f, false ≤ %.2f", c.name, c.s.recall(), c.s.false_(), c.rec, c.fals)
		}
	}
}

// The held-out gates of TestCorpusMarksRowsAndFormulas. Measured: a
// table's row recall 0.981, false 0.019 (the former code, which laid the
// covered glyphs out on their own, 0.952 and 0.048); all, rows, two rows
// and formulas, 0.971 and 0.029 (0.945 and 0.055), and 0.990 and 0.010
// counting right the marks that read the glyphs whose middles their
// boxes cover (0.975 and 0.025 before a cell's lines were cut at their
// gutters and overlapping boxes cut apart in that count). Each gate
// leaves about one mark of slack.
const (
	minRowRecall  = 0.97
	maxRowFalse   = 0.03
	minMarkRecall = 0.965
	maxMarkFalse  = 0.035
	// Counting right the marks that read the glyphs whose middles their
	// boxes cover (selection.middles).
	minMiddlesRecall = 0.985
	maxMiddlesFalse  = 0.015
)
