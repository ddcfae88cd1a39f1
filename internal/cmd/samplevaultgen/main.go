// Command gen renders the sample vault's PDFs (and the layout sidecars and
// PAPER.md that are derived from them) from the plain-text paper sources in
// ../src. It writes PDF 1.7 by hand with the standard 14 fonts, so no
// external tool is needed and the output is byte-for-byte reproducible.
//
// Usage (from samplevault): go run ../internal/cmd/samplevaultgen -src src -out vault
//
// Source format, one directive or paragraph line at a time:
//
//	@out PATH            PDF path under the vault root (required)
//	@layout DIR          write DIR/layout.json and DIR/layout-index.json
//	@papermd PATH        write a derived PAPER.md
//	@columns 1|2         body columns (the title block always spans the page)
//	@info-title TEXT     Info dictionary Title ("-" for none)
//	@info-author TEXT    Info dictionary Author
//	@date YYYYMMDD       Info CreationDate
//	@labels LIST         printed page labels, e.g. "r1,D1": roman from page 1, then decimal
//	@outline             bookmarks from the section headings
//	@title / @authors / @affil TEXT
//	@abstract            the next paragraph is the abstract
//	# HEADING            a section heading ("3.1 Foo" nests under "3 Bar" in the outline)
//	@figure N | HEIGHT | CAPTION
//	@table N | CAPTION   followed by rows "a | b | c" and @endtable
//	@newpage             continue on a new page
//	@references          the following paragraphs are references (hanging indent)
//	@mark KIND | WORDS | COMMENT | DATE
//	                     a reader's mark saved as a PDF annotation: KIND highlight or
//	                     underline over the first printed line holding WORDS, or note
//	                     (a sticky note) with WORDS a page number; DATE is YYYYMMDDHHmm
//
// Paragraphs are runs of non-empty lines. A "~" inside a word marks where the
// line breaker may hyphenate it; it is never printed otherwise.
package main

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/font"
	"golang.org/x/text/encoding/charmap"
)

const (
	pageW, pageH = 612.0, 792.0
	marginX      = 72.0
	marginTop    = 72.0
	marginBottom = 72.0
	gutter       = 24.0

	bodySize    = 10.5
	bodyLeading = 13.5
)

// Font resource names and their base fonts.
var fonts = []struct{ res, base string }{
	{"F1", "Times-Roman"},
	{"F2", "Times-Bold"},
	{"F3", "Times-Italic"},
	{"F4", "Helvetica"},
	{"F5", "Helvetica-Bold"},
}

func fontRes(base string) string {
	for _, f := range fonts {
		if f.base == base {
			return f.res
		}
	}
	log.Fatalf("unknown font %s", base)
	return ""
}

func winAnsi(s string) []byte {
	b, err := charmap.Windows1252.NewEncoder().Bytes([]byte(s))
	if err != nil {
		log.Fatalf("text %q is not WinAnsi: %v", s, err)
	}
	return b
}

func textWidth(s, base string, size float64) float64 {
	var w int
	for _, c := range winAnsi(s) {
		cw, err := font.CharWidth(base, rune(c))
		if err != nil {
			log.Fatal(err)
		}
		w += cw
	}
	return float64(w) * size / 1000
}

func pdfString(s string) string {
	var b strings.Builder
	b.WriteByte('(')
	for _, c := range winAnsi(s) {
		switch {
		case c == '(' || c == ')' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 32 || c > 126:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(')')
	return b.String()
}

func num(f float64) string {
	s := strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

// ---- source parsing ----

type block struct {
	kind   string // title, authors, affil, abstract, heading, para, figure, table, newpage, ref
	text   string
	height float64
	number string
	rows   [][]string
}

type doc struct {
	out, layoutDir, paperMD string
	columns                 int
	infoTitle, infoAuthor   string
	date                    string
	labels                  []string
	outline                 bool
	blocks                  []block
	marks                   []markDirective
}

// markDirective is one @mark directive.
type markDirective struct {
	kind, words, comment, date string
}

func parse(path string) (*doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := &doc{columns: 1, date: "20240101"}
	var para []string
	nextKind := "para"
	inRefs := false
	var table *block
	flush := func() {
		if len(para) == 0 {
			return
		}
		k := nextKind
		if inRefs {
			k = "ref"
		}
		d.blocks = append(d.blocks, block{kind: k, text: strings.Join(para, " ")})
		para = nil
		nextKind = "para"
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if table != nil {
			if line == "@endtable" {
				d.blocks = append(d.blocks, *table)
				table = nil
				continue
			}
			if line == "" {
				continue
			}
			var cells []string
			for _, c := range strings.Split(line, "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			table.rows = append(table.rows, cells)
			continue
		}
		if line == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, "# ") {
			flush()
			d.blocks = append(d.blocks, block{kind: "heading", text: strings.TrimSpace(line[2:])})
			continue
		}
		if !strings.HasPrefix(line, "@") {
			para = append(para, line)
			continue
		}
		flush()
		key, val, _ := strings.Cut(line, " ")
		val = strings.TrimSpace(val)
		switch key {
		case "@out":
			d.out = val
		case "@layout":
			d.layoutDir = val
		case "@papermd":
			d.paperMD = val
		case "@columns":
			d.columns, _ = strconv.Atoi(val)
		case "@info-title":
			d.infoTitle = val
		case "@info-author":
			d.infoAuthor = val
		case "@date":
			d.date = val
		case "@labels":
			d.labels = strings.Split(val, ",")
		case "@outline":
			d.outline = true
		case "@title", "@authors", "@affil":
			d.blocks = append(d.blocks, block{kind: key[1:], text: val})
		case "@abstract":
			nextKind = "abstract"
		case "@figure":
			p := strings.SplitN(val, "|", 3)
			h, _ := strconv.ParseFloat(strings.TrimSpace(p[1]), 64)
			d.blocks = append(d.blocks, block{kind: "figure", number: strings.TrimSpace(p[0]), height: h, text: strings.TrimSpace(p[2])})
		case "@table":
			p := strings.SplitN(val, "|", 2)
			table = &block{kind: "table", number: strings.TrimSpace(p[0]), text: strings.TrimSpace(p[1])}
		case "@newpage":
			d.blocks = append(d.blocks, block{kind: "newpage"})
		case "@mark":
			p := strings.Split(val, "|")
			if len(p) != 4 {
				return nil, fmt.Errorf("%s: @mark needs KIND | WORDS | COMMENT | DATE", path)
			}
			d.marks = append(d.marks, markDirective{strings.TrimSpace(p[0]), strings.TrimSpace(p[1]), strings.TrimSpace(p[2]), strings.TrimSpace(p[3])})
		case "@references":
			inRefs = true
			d.blocks = append(d.blocks, block{kind: "heading", text: "References"})
		default:
			return nil, fmt.Errorf("%s: unknown directive %s", path, key)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if d.out == "" {
		return nil, fmt.Errorf("%s: no @out", path)
	}
	return d, nil
}

// ---- layout ----

// bbox is a box in 0–1 page units, origin at the top-left corner.
type bbox struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

type region struct {
	ID        string `json:"id"`
	PageIndex int    `json:"pageIndex"`
	Kind      string `json:"kind"`
	Title     string `json:"title,omitempty"`
	Text      string `json:"text,omitempty"`
	BBox      bbox   `json:"bbox"`
}

type indexItem struct {
	ID             string `json:"id"`
	Kind           string `json:"kind"`
	Section        string `json:"section"`
	Page           int    `json:"page"`
	PageIndex      int    `json:"pageIndex"`
	BBox           bbox   `json:"bbox"`
	Title          string `json:"title,omitempty"`
	LayoutRegionID string `json:"layoutRegionId"`
}

type outlineItem struct {
	title    string
	page     int
	y        float64
	children []outlineItem
}

type page struct {
	tw      float64 // current word spacing (Tw)
	ops     bytes.Buffer
	regions []region
	runs    []run
}

// run is one line of text shown on a page.
type run struct {
	x, baseline, size, tw float64
	base, s               string
}

type layouter struct {
	d       *doc
	pages   []*page
	col     int
	colTop  float64 // top y of the columns on the current page
	y       float64 // current top of free space
	outline []outlineItem
	// open text region
	reg      *region
	regWords []string
	regTop   float64
	regBot   float64
	regX     [2]float64
}

func (l *layouter) cur() *page { return l.pages[len(l.pages)-1] }

func (l *layouter) colGeom() (x, w float64) {
	full := pageW - 2*marginX
	if l.d.columns == 1 {
		return marginX, full
	}
	w = (full - gutter) / 2
	return marginX + float64(l.col)*(w+gutter), w
}

func (l *layouter) newPage() {
	l.closeRegion()
	l.pages = append(l.pages, &page{})
	l.col = 0
	l.colTop = pageH - marginTop
	l.y = l.colTop
}

func (l *layouter) advance() {
	l.closeRegion()
	if l.d.columns == 2 && l.col == 0 {
		l.col = 1
		l.y = l.colTop
		return
	}
	l.newPage()
}

// ensure makes room for h points in the current column.
func (l *layouter) ensure(h float64) {
	if l.y-h < marginBottom {
		l.advance()
	}
}

func (l *layouter) text(x, baseline float64, base string, size float64, s string, tw float64) {
	p := l.cur()
	o := &p.ops
	fmt.Fprintf(o, "BT /%s %s Tf ", fontRes(base), num(size))
	// Word spacing is text state and survives ET, so reset it explicitly.
	if tw != p.tw {
		fmt.Fprintf(o, "%s Tw ", num(tw))
		p.tw = tw
	}
	fmt.Fprintf(o, "%s %s Td %s Tj ET\n", num(x), num(baseline), pdfString(s))
	p.runs = append(p.runs, run{x, baseline, size, tw, base, s})
}

func norm(b bbox) bbox {
	return bbox{
		X: math.Round(b.X/pageW*10000) / 10000,
		Y: math.Round((pageH-b.Y)/pageH*10000) / 10000,
		W: math.Round(b.W/pageW*10000) / 10000,
		H: math.Round(b.H/pageH*10000) / 10000,
	}
}

// addRegion records a region whose top-left corner is (x, top) in PDF space.
func (l *layouter) addRegion(kind, title, text string, x, top, w, h float64) *region {
	p := l.cur()
	r := region{
		ID:        fmt.Sprintf("p%d-r%02d", len(l.pages), len(p.regions)+1),
		PageIndex: len(l.pages) - 1,
		Kind:      kind,
		Title:     title,
		Text:      text,
		BBox:      norm(bbox{x, top, w, h}),
	}
	p.regions = append(p.regions, r)
	return &p.regions[len(p.regions)-1]
}

func (l *layouter) closeRegion() {
	if l.reg == nil {
		return
	}
	l.addRegion(l.reg.Kind, "", strings.Join(l.regWords, " "), l.regX[0], l.regTop, l.regX[1], l.regTop-l.regBot)
	l.reg, l.regWords = nil, nil
}

type line struct {
	words []string // as printed (may end with a hyphenated fragment)
	orig  []string // the source words that start on this line (for region text)
	width float64
}

// breakLines splits text into lines no wider than w (the first line may be
// narrower or wider by indent).
func breakLines(text, base string, size, w, firstIndent, restIndent float64) []line {
	var lines []line
	var cur line
	space := textWidth(" ", base, size)
	avail := func() float64 {
		if len(lines) == 0 {
			return w - firstIndent
		}
		return w - restIndent
	}
	push := func() {
		lines = append(lines, cur)
		cur = line{}
	}
	for _, word := range strings.Fields(text) {
		plain := strings.ReplaceAll(word, "~", "")
		ww := textWidth(plain, base, size)
		extra := ww
		if len(cur.words) > 0 {
			extra += space
		}
		if cur.width+extra <= avail() {
			cur.words = append(cur.words, plain)
			cur.orig = append(cur.orig, plain)
			cur.width += extra
			continue
		}
		// Try hyphenating at the last marked point that fits.
		parts := strings.Split(word, "~")
		split := false
		for i := len(parts) - 1; i >= 1 && len(cur.words) > 0; i-- {
			head := strings.Join(parts[:i], "") + "-"
			hw := space + textWidth(head, base, size)
			if cur.width+hw <= avail() {
				cur.words = append(cur.words, head)
				cur.orig = append(cur.orig, plain)
				cur.width += hw
				push()
				tail := strings.Join(parts[i:], "")
				cur.words = []string{tail}
				cur.width = textWidth(tail, base, size)
				split = true
				break
			}
		}
		if split {
			continue
		}
		if len(cur.words) > 0 {
			push()
		}
		cur.words = []string{plain}
		cur.orig = []string{plain}
		cur.width = ww
	}
	if len(cur.words) > 0 {
		push()
	}
	return lines
}

// flow sets a paragraph into the columns, justified, opening text regions.
func (l *layouter) flow(kind, text, base string, size, leading, firstIndent, restIndent float64, justify bool) {
	_, w := l.colGeom()
	lines := breakLines(text, base, size, w, firstIndent, restIndent)
	space := textWidth(" ", base, size)
	for i, ln := range lines {
		if l.y-leading < marginBottom {
			l.advance()
		}
		x, w := l.colGeom()
		if l.reg == nil {
			l.reg = &region{Kind: kind}
			l.regTop = l.y
			l.regX = [2]float64{x, w}
		}
		baseline := l.y - size*0.9
		indent := restIndent
		if i == 0 {
			indent = firstIndent
		}
		tw := 0.0
		if justify && i < len(lines)-1 && len(ln.words) > 1 {
			tw = (w - indent - ln.width) / float64(len(ln.words)-1)
			if tw > space*4 {
				tw = 0
			}
		}
		l.text(x+indent, baseline, base, size, strings.Join(ln.words, " "), tw)
		l.regWords = append(l.regWords, ln.orig...)
		l.y -= leading
		l.regBot = l.y
	}
	l.closeRegion()
}

func (l *layouter) centered(kind, text, base string, size, leading float64) {
	w := pageW - 2*marginX
	lines := breakLines(text, base, size, w, 0, 0)
	top := l.y
	for _, ln := range lines {
		s := strings.Join(ln.words, " ")
		x := (pageW - textWidth(s, base, size)) / 2
		l.text(x, l.y-size*0.9, base, size, s, 0)
		l.y -= leading
	}
	l.addRegion(kind, "", text, marginX, top, w, top-l.y)
}

func (l *layouter) heading(text string) {
	size, leading := 12.0, 15.0
	if l.d.columns == 2 {
		size, leading = 11, 14
	}
	// Keep the heading with at least two body lines.
	l.y -= 6
	l.ensure(leading + 2*bodyLeading)
	x, w := l.colGeom()
	l.text(x, l.y-size*0.9, "Times-Bold", size, text, 0)
	l.addRegion("header", text, text, x, l.y, w, leading)
	l.record(text)
	l.y -= leading + 2
}

func (l *layouter) record(text string) {
	if !l.d.outline {
		return
	}
	it := outlineItem{title: text, page: len(l.pages) - 1, y: l.y + 4}
	num, _, _ := strings.Cut(text, " ")
	if strings.Contains(num, ".") && len(l.outline) > 0 {
		last := &l.outline[len(l.outline)-1]
		last.children = append(last.children, it)
		return
	}
	l.outline = append(l.outline, it)
}

func (l *layouter) figure(b block) (items []indexItem) {
	_, w := l.colGeom()
	capLines := breakLines(b.text, "Helvetica", 9, w, 0, 0)
	need := b.height + 8 + float64(len(capLines))*11 + 8
	l.y -= 4
	l.ensure(need)
	x, w := l.colGeom()
	o := &l.cur().ops
	top := l.y
	// Frame and a small bar chart inside, so the figure is a drawing, not text.
	fmt.Fprintf(o, "q 0.6 w 0.2 G %s %s %s %s re S\n", num(x+10), num(top-b.height), num(w-20), num(b.height))
	bars := []float64{0.35, 0.55, 0.5, 0.8, 0.65, 0.9}
	bw := (w - 40) / float64(len(bars)) * 0.6
	for i, f := range bars {
		bx := x + 20 + float64(i)*(w-40)/float64(len(bars))
		g := 0.3 + 0.1*float64(i%3)
		fmt.Fprintf(o, "%s g %s %s %s %s re f\n", num(g), num(bx), num(top-b.height+8), num(bw), num((b.height-16)*f))
	}
	fmt.Fprintf(o, "Q\n")
	fig := *l.addRegion("figure", b.text, "", x+10, top, w-20, b.height)
	l.y = top - b.height - 8
	capTop := l.y
	for _, ln := range capLines {
		l.text(x, l.y-9*0.9, "Helvetica", 9, strings.Join(ln.words, " "), 0)
		l.y -= 11
	}
	l.addRegion("caption", "", b.text, x, capTop, w, capTop-l.y)
	l.y -= 8
	return []indexItem{{
		ID: "figure-" + b.number, Kind: "figure", Section: "figure",
		Page: len(l.pages), PageIndex: len(l.pages) - 1,
		BBox: fig.BBox, Title: b.text, LayoutRegionID: fig.ID,
	}}
}

func (l *layouter) table(b block) []indexItem {
	_, w := l.colGeom()
	capLines := breakLines(b.text, "Helvetica", 9, w, 0, 0)
	rowH := 12.0
	need := float64(len(capLines))*11 + 6 + float64(len(b.rows))*rowH + 10
	l.y -= 4
	l.ensure(need)
	x, w := l.colGeom()
	capTop := l.y
	for _, ln := range capLines {
		l.text(x, l.y-9*0.9, "Helvetica", 9, strings.Join(ln.words, " "), 0)
		l.y -= 11
	}
	l.addRegion("caption", "", b.text, x, capTop, w, capTop-l.y)
	l.y -= 4
	top := l.y
	ncol := len(b.rows[0])
	// The first column is as wide as its longest cell; the rest share what is left.
	firstW := 0.0
	for _, row := range b.rows {
		firstW = max(firstW, textWidth(row[0], "Helvetica-Bold", 8.5)+10)
	}
	restW := (w - firstW) / float64(ncol-1)
	o := &l.cur().ops
	fmt.Fprintf(o, "q 0.8 w 0 G %s %s m %s %s l S Q\n", num(x), num(top), num(x+w), num(top))
	var cells []string
	for ri, row := range b.rows {
		base := "Helvetica"
		if ri == 0 {
			base = "Helvetica-Bold"
		}
		for ci, c := range row {
			cx := x + 2
			if ci > 0 {
				cx = x + firstW + float64(ci-1)*restW + 2
			}
			l.text(cx, l.y-rowH+3, base, 8.5, c, 0)
		}
		cells = append(cells, strings.Join(row, " "))
		l.y -= rowH
		if ri == 0 {
			fmt.Fprintf(o, "q 0.4 w 0 G %s %s m %s %s l S Q\n", num(x), num(l.y), num(x+w), num(l.y))
		}
	}
	fmt.Fprintf(o, "q 0.8 w 0 G %s %s m %s %s l S Q\n", num(x), num(l.y), num(x+w), num(l.y))
	t := *l.addRegion("table", b.text, strings.Join(cells, "\n"), x, top, w, top-l.y)
	l.y -= 10
	return []indexItem{{
		ID: "table-" + b.number, Kind: "table", Section: "table",
		Page: len(l.pages), PageIndex: len(l.pages) - 1,
		BBox: t.BBox, Title: b.text, LayoutRegionID: t.ID,
	}}
}

func (l *layouter) run() []indexItem {
	var items []indexItem
	l.newPage()
	for _, b := range l.d.blocks {
		switch b.kind {
		case "title":
			l.y -= 10
			l.centered("title", b.text, "Times-Bold", 17, 21)
			l.y -= 6
		case "authors":
			l.centered("text", b.text, "Times-Roman", 11, 14)
		case "affil":
			l.centered("text", b.text, "Times-Italic", 10, 13)
			l.y -= 10
		case "abstract":
			// The abstract spans the page even in two-column papers.
			cols := l.d.columns
			l.d.columns = 1
			l.ensure(40)
			x, w := l.colGeom()
			l.text(x+30, l.y-11*0.9, "Times-Bold", 11, "Abstract", 0)
			l.addRegion("header", "Abstract", "Abstract", x+30, l.y, w-60, 14)
			l.y -= 16
			l.flowNarrow(b.text, x+30, w-60)
			l.y -= 12
			l.d.columns = cols
			l.colTop = l.y
		case "heading":
			l.heading(b.text)
		case "para":
			l.flow("text", b.text, "Times-Roman", bodySize, bodyLeading, 12, 0, true)
			l.y -= 3
		case "ref":
			l.flow("reference", b.text, "Times-Roman", 9.5, 12, 0, 14, false)
			l.y -= 2
		case "figure":
			items = append(items, l.figure(b)...)
		case "table":
			items = append(items, l.table(b)...)
		case "newpage":
			l.newPage()
		}
	}
	l.closeRegion()
	return items
}

// flowNarrow sets the abstract as an indented full-width block.
func (l *layouter) flowNarrow(text string, x, w float64) {
	size := 10.0
	lines := breakLines(text, "Times-Roman", size, w, 0, 0)
	space := textWidth(" ", "Times-Roman", size)
	top := l.y
	for i, ln := range lines {
		tw := 0.0
		if i < len(lines)-1 && len(ln.words) > 1 {
			tw = (w - ln.width) / float64(len(ln.words)-1)
			if tw > space*4 {
				tw = 0
			}
		}
		l.text(x, l.y-size*0.9, "Times-Roman", size, strings.Join(ln.words, " "), tw)
		l.y -= 12.5
	}
	l.addRegion("abstract", "", text, x, top, w, top-l.y)
}

// ---- PDF writing ----

type writer struct {
	buf     bytes.Buffer
	offsets []int // object number - 1 → offset
}

func (w *writer) reserve() int {
	w.offsets = append(w.offsets, 0)
	return len(w.offsets)
}

func (w *writer) obj(n int, body string) {
	w.offsets[n-1] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", n, body)
}

func (w *writer) stream(n int, data []byte) {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write(data)
	zw.Close()
	w.offsets[n-1] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n", n, z.Len())
	w.buf.Write(z.Bytes())
	w.buf.WriteString("\nendstream\nendobj\n")
}

func toRoman(n int) string {
	vals := []int{10, 9, 5, 4, 1}
	syms := []string{"x", "ix", "v", "iv", "i"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}

// widths lists the glyph widths of codes 32–255. PDF 1.5 deprecated
// leaving them out for the standard 14 fonts, and strict validators ask for
// them.
func widths(base string) string {
	var ws []string
	for c := 32; c <= 255; c++ {
		w, err := font.CharWidth(base, rune(c))
		if err != nil {
			log.Fatal(err)
		}
		ws = append(ws, strconv.Itoa(w))
	}
	return strings.Join(ws, " ")
}

// descriptor writes a font descriptor for a non-embedded standard font
// from its AFM metrics; strict validators require one next to /Widths.
func descriptor(base string) string {
	bb, err := font.BoundingBox(base)
	if err != nil {
		log.Fatal(err)
	}
	flags, angle, capHeight, stemV := 32, 0.0, 662, 84 // nonsymbolic
	if strings.HasPrefix(base, "Times") {
		flags |= 2 // serif
	} else {
		capHeight = 718
	}
	if strings.Contains(base, "Bold") {
		stemV = 140
	}
	if strings.Contains(base, "Italic") {
		flags |= 64
		angle = -15.5
	}
	return fmt.Sprintf("<< /Type /FontDescriptor /FontName /%s /Flags %d /FontBBox [%s %s %s %s] /ItalicAngle %s /Ascent %s /Descent %s /CapHeight %d /StemV %d >>",
		base, flags, num(bb.LL.X), num(bb.LL.Y), num(bb.UR.X), num(bb.UR.Y), num(angle), num(bb.UR.Y), num(bb.LL.Y), capHeight, stemV)
}

// printedLabels returns each page's printed label for the footer and the
// /PageLabels number tree entries.
func printedLabels(spec []string, n int) ([]string, string) {
	labels := make([]string, n)
	if len(spec) == 0 {
		for i := range labels {
			labels[i] = strconv.Itoa(i + 1)
		}
		return labels, ""
	}
	var nums strings.Builder
	style := "D"
	count := 0
	for i := range labels {
		if i < len(spec) {
			style = spec[i][:1]
			count, _ = strconv.Atoi(spec[i][1:])
			s := "/D"
			if style == "r" {
				s = "/r"
			}
			fmt.Fprintf(&nums, "%d << /S %s /St %d >> ", i, s, count)
		}
		if style == "r" {
			labels[i] = toRoman(count)
		} else {
			labels[i] = strconv.Itoa(count)
		}
		count++
	}
	return labels, "<< /Nums [ " + nums.String() + "] >>"
}

func render(d *doc) ([]byte, []region, []indexItem, *layouter) {
	l := &layouter{d: d}
	items := l.run()
	labels, pageLabels := printedLabels(d.labels, len(l.pages))
	for i, p := range l.pages {
		s := labels[i]
		fmt.Fprintf(&p.ops, "BT /F1 9 Tf %s 40 Td %s Tj ET\n", num((pageW-textWidth(s, "Times-Roman", 9))/2), pdfString(s))
	}

	w := &writer{}
	catalog := w.reserve()
	pages := w.reserve()
	fontObj := map[string]int{}
	for _, f := range fonts {
		n := w.reserve()
		fd := w.reserve()
		fontObj[f.res] = n
		w.obj(n, fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255 /Widths [%s] /FontDescriptor %d 0 R >>", f.base, widths(f.base), fd))
		w.obj(fd, descriptor(f.base))
	}
	var fr strings.Builder
	for _, f := range fonts {
		fmt.Fprintf(&fr, "/%s %d 0 R ", f.res, fontObj[f.res])
	}
	pageObjs := make([]int, len(l.pages))
	for i := range l.pages {
		pageObjs[i] = w.reserve()
	}
	annots := writeMarks(w, d.marks, l.pages, pageObjs)
	var kids []string
	for i, p := range l.pages {
		c := w.reserve()
		w.stream(c, p.ops.Bytes())
		w.obj(pageObjs[i], fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %s %s] /Resources << /Font << %s>> /ProcSet [/PDF /Text] >> /Contents %d 0 R%s >>",
			pages, num(pageW), num(pageH), fr.String(), c, annots[i]))
		kids = append(kids, fmt.Sprintf("%d 0 R", pageObjs[i]))
	}
	w.obj(pages, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(l.pages)))

	cat := fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R", pages)
	if pageLabels != "" {
		cat += " /PageLabels " + pageLabels
	}
	if d.outline && len(l.outline) > 0 {
		root := w.reserve()
		first, last, count := writeOutline(w, root, l.outline, pageObjs)
		w.obj(root, fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>", first, last, count))
		cat += fmt.Sprintf(" /Outlines %d 0 R /PageMode /UseOutlines", root)
	}
	cat += " >>"
	w.obj(catalog, cat)

	info := w.reserve()
	var ib strings.Builder
	ib.WriteString("<< ")
	if d.infoTitle != "" && d.infoTitle != "-" {
		fmt.Fprintf(&ib, "/Title %s ", pdfString(d.infoTitle))
	}
	if d.infoAuthor != "" {
		fmt.Fprintf(&ib, "/Author %s ", pdfString(d.infoAuthor))
	}
	fmt.Fprintf(&ib, "/Creator (researchctx samplevault gen) /Producer (researchctx samplevault gen) /CreationDate (D:%s120000+00'00') >>", d.date)
	w.obj(info, ib.String())

	body := w.buf.Bytes()
	sum := md5.Sum(body)
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	hdr := out.Len()
	out.Write(body)
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(w.offsets)+1)
	for _, off := range w.offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off+hdr)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R /ID [<%x> <%x>] >>\nstartxref\n%d\n%%%%EOF\n",
		len(w.offsets)+1, catalog, info, sum, sum, xref)

	var regions []region
	for _, p := range l.pages {
		regions = append(regions, p.regions...)
	}
	return out.Bytes(), regions, items, l
}

// writeMarks writes the annotations of the @mark directives, as a viewer
// saves a reader's marks, and returns each page's /Annots entry ("" for a
// page without).
func writeMarks(w *writer, marks []markDirective, pages []*page, pageObjs []int) []string {
	lists := make([][]string, len(pages))
	for _, m := range marks {
		pi := -1
		var rect [4]float64
		switch m.kind {
		case "note":
			n, err := strconv.Atoi(m.words)
			if err != nil || n < 1 || n > len(pages) {
				log.Fatalf("@mark note: page %q", m.words)
			}
			pi, rect = n-1, [4]float64{pageW - 60, pageH - 80, pageW - 40, pageH - 60}
		case "highlight", "underline":
		found:
			for i, p := range pages {
				for _, r := range p.runs {
					k := strings.Index(r.s, m.words)
					if k < 0 {
						continue
					}
					x0 := r.x + textWidth(r.s[:k], r.base, r.size) + r.tw*float64(strings.Count(r.s[:k], " "))
					x1 := x0 + textWidth(m.words, r.base, r.size) + r.tw*float64(strings.Count(m.words, " "))
					pi, rect = i, [4]float64{x0, r.baseline - 0.25*r.size, x1, r.baseline + 0.85*r.size}
					break found
				}
			}
			if pi < 0 {
				log.Fatalf("@mark %s: no line holds %q", m.kind, m.words)
			}
		default:
			log.Fatalf("@mark: unknown kind %q", m.kind)
		}
		n := w.reserve()
		r := fmt.Sprintf("[%s %s %s %s]", num(rect[0]), num(rect[1]), num(rect[2]), num(rect[3]))
		date := fmt.Sprintf("(D:%s00+00'00')", m.date)
		switch m.kind {
		case "note":
			w.obj(n, fmt.Sprintf("<< /Type /Annot /Subtype /Text /Rect %s /P %d 0 R /Contents %s /T (Mira Okafor) /M %s /C [1 0.8 0] /Name /Comment >>", r, pageObjs[pi], pdfString(m.comment), date))
		default:
			sub := map[string]string{"highlight": "Highlight", "underline": "Underline"}[m.kind]
			q := fmt.Sprintf("[%s %s %s %s %s %s %s %s]", num(rect[0]), num(rect[3]), num(rect[2]), num(rect[3]), num(rect[0]), num(rect[1]), num(rect[2]), num(rect[1]))
			w.obj(n, fmt.Sprintf("<< /Type /Annot /Subtype /%s /Rect %s /QuadPoints %s /P %d 0 R /Contents %s /T (Mira Okafor) /M %s /C [1 1 0] >>", sub, r, q, pageObjs[pi], pdfString(m.comment), date))
		}
		lists[pi] = append(lists[pi], fmt.Sprintf("%d 0 R", n))
	}
	out := make([]string, len(pages))
	for i, l := range lists {
		if len(l) > 0 {
			out[i] = " /Annots [" + strings.Join(l, " ") + "]"
		}
	}
	return out
}

// writeOutline writes sibling items (and their children) and returns the
// first and last object numbers and the count of visible descendants.
func writeOutline(w *writer, parent int, items []outlineItem, pageObjs []int) (first, last, count int) {
	objs := make([]int, len(items))
	for i := range items {
		objs[i] = w.reserve()
	}
	for i, it := range items {
		s := fmt.Sprintf("<< /Title %s /Parent %d 0 R /Dest [%d 0 R /XYZ %s %s null]", pdfString(it.title), parent, pageObjs[it.page], num(marginX), num(it.y))
		if i > 0 {
			s += fmt.Sprintf(" /Prev %d 0 R", objs[i-1])
		}
		if i < len(items)-1 {
			s += fmt.Sprintf(" /Next %d 0 R", objs[i+1])
		}
		if len(it.children) > 0 {
			f, l, c := writeOutline(w, objs[i], it.children, pageObjs)
			s += fmt.Sprintf(" /First %d 0 R /Last %d 0 R /Count %d", f, l, c)
			count += c
		}
		s += " >>"
		w.obj(objs[i], s)
		count++
	}
	return objs[0], objs[len(objs)-1], count
}

// ---- derived files ----

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func paperMD(d *doc) string {
	var b strings.Builder
	for _, bl := range d.blocks {
		t := strings.ReplaceAll(bl.text, "~", "")
		switch bl.kind {
		case "title":
			fmt.Fprintf(&b, "# %s\n\n", t)
		case "authors", "affil":
			fmt.Fprintf(&b, "%s\n\n", t)
		case "abstract":
			fmt.Fprintf(&b, "## Abstract\n\n%s\n\n", t)
		case "heading":
			fmt.Fprintf(&b, "## %s\n\n", t)
		case "para":
			fmt.Fprintf(&b, "%s\n\n", t)
		case "ref":
			fmt.Fprintf(&b, "- %s\n", t)
		case "figure":
			fmt.Fprintf(&b, "> %s\n\n", t)
		case "table":
			fmt.Fprintf(&b, "%s\n\n", t)
			for i, r := range bl.rows {
				fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
				if i == 0 {
					fmt.Fprintf(&b, "|%s\n", strings.Repeat(" --- |", len(r)))
				}
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// writePNG writes a tiny grey bar chart: the vault's binary files, which
// text search must skip.
func writePNG(path string, w, h int, bars []int) error {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetGray(x, y, color.Gray{Y: 255})
		}
	}
	bw := w / len(bars)
	for i, bh := range bars {
		for x := i*bw + 1; x < (i+1)*bw-1; x++ {
			for y := h - bh; y < h; y++ {
				img.SetGray(x, y, color.Gray{Y: uint8(60 + 30*(i%3))})
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

var fingerprintRE = regexp.MustCompile(`"fingerprint": "sha256:[0-9a-f]*"`)

// refreshFingerprint keeps the hand-written reference sidecar beside a PDF
// pointing at the PDF's current SHA-256, if there is such a sidecar.
func refreshFingerprint(pdfPath string, pdf []byte) error {
	side := filepath.Join(filepath.Dir(pdfPath), "source", "agentero-cite.json")
	b, err := os.ReadFile(side)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	fp := fmt.Sprintf(`"fingerprint": "sha256:%x"`, sha256.Sum256(pdf))
	return os.WriteFile(side, fingerprintRE.ReplaceAll(b, []byte(fp)), 0o644)
}

func main() {
	src := flag.String("src", "src", "folder of paper sources (*.txt)")
	out := flag.String("out", "vault", "vault root to write into")
	flag.Parse()
	log.SetFlags(0)
	files, err := filepath.Glob(filepath.Join(*src, "*.txt"))
	if err != nil {
		log.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		d, err := parse(f)
		if err != nil {
			log.Fatal(err)
		}
		pdf, regions, items, l := render(d)
		dst := filepath.Join(*out, filepath.FromSlash(d.out))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(dst, pdf, 0o644); err != nil {
			log.Fatal(err)
		}
		if err := refreshFingerprint(dst, pdf); err != nil {
			log.Fatal(err)
		}
		if d.layoutDir != "" {
			dir := filepath.Join(*out, filepath.FromSlash(d.layoutDir))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				log.Fatal(err)
			}
			if err := writeJSON(filepath.Join(dir, "layout.json"), map[string]any{
				"schemaVersion": 3, "pageCount": len(l.pages),
				"pageSize": map[string]float64{"width": pageW, "height": pageH},
				"regions":  regions,
			}); err != nil {
				log.Fatal(err)
			}
			if err := writeJSON(filepath.Join(dir, "layout-index.json"), map[string]any{
				"schemaVersion": 1, "items": items,
			}); err != nil {
				log.Fatal(err)
			}
		}
		if d.paperMD != "" {
			if err := os.WriteFile(filepath.Join(*out, filepath.FromSlash(d.paperMD)), []byte(paperMD(d)), 0o644); err != nil {
				log.Fatal(err)
			}
		}
		fmt.Printf("%s: %d pages, %d bytes\n", d.out, len(l.pages), len(pdf))
	}
	for _, p := range []struct {
		path string
		w, h int
		bars []int
	}{
		{"papers/2401.01234/assets/figure-1.png", 48, 32, []int{8, 14, 13, 22, 18, 26}},
		{"notes/archive/whiteboard.png", 32, 24, []int{5, 12, 20, 9}},
	} {
		if err := writePNG(filepath.Join(*out, filepath.FromSlash(p.path)), p.w, p.h, p.bars); err != nil {
			log.Fatal(err)
		}
	}
}
