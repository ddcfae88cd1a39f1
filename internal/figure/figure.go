// Package figure finds the figures, tables and algorithms of a PDF's text
// layer from their captions ("Figure 3:", "Fig. 3.", "Table 2:", "TABLE
// II.", "Algorithm 1") and the area each belongs to: the lines above a
// figure's caption, below a table's, up to the body text around them.
//
// It reads only the line boxes the text layer has; a figure drawn without
// text is its caption and an empty area.
package figure

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// Kinds of an Item.
const (
	Figure    = "figure"
	Table     = "table"
	Algorithm = "algorithm"
)

// MaxCaption is the longest caption an Item's Caption holds, in
// characters; Text holds the whole caption.
const MaxCaption = 200

// Item is one figure, table or algorithm.
type Item struct {
	ID      string // kind-number: "figure-3", "table-S1"
	Kind    string // Figure, Table or Algorithm
	Number  string // as printed: "3", "S1", "2.1"; a Roman numeral as an Arabic one
	Page    int    // 1-based physical page of the caption
	Caption string // the caption, one line, at most MaxCaption characters
	// Text is the whole caption, one line, followed after a blank line
	// by the text inside the item's area, a table's cells row by row.
	Text string
	Box  pdf.Box // the caption and the area, in page units
	// CaptionBox is the caption's own box.
	CaptionBox pdf.Box
}

// label matches a caption's label at the start of a line: the word, the
// number, and what follows it.
var label = regexp.MustCompile(`^(?:(Supplementary|Supplemental|Extended Data)\s+)?(Figure|FIGURE|Fig\.|FIG\.|Fig|Table|TABLE|Tab\.|TAB\.|Algorithm|ALGORITHM|图|表|算法)\s*([A-Z]\.?\d{1,3}(?:\.\d{1,3})?|\d{1,3}(?:\.\d{1,3})?|[IVXL]{1,6})(?:\s*([:.|—–：]|-\s)|\s+(\S)|\s*$)`)

// leaders marks an entry of a list of figures or tables: dot leaders
// before a page number.
var leaders = regexp.MustCompile(`(?:\.\s?){4,}\s*\d*\s*$|…\s*\d+\s*$`)

// Caption reports whether a line of text starts a caption, and the kind
// and number it gives. A line that mentions an item in running text ("Figure
// 3 shows", "Table 2 and") is not one: the number must be followed by a
// delimiter (":", ".", "|", a dash), by the end of the line, or by a
// capital or a letter of a script without case ("Fig. 1.1 A convolution",
// "Table 1.1 模板").
func Caption(line string) (kind, number string, ok bool) {
	line = strings.TrimSpace(line)
	if !mayStart(line) {
		return "", "", false
	}
	m := label.FindStringSubmatch(line)
	if m == nil || leaders.MatchString(line) {
		return "", "", false
	}
	word, num, delim, next := m[2], m[3], m[4], m[5]
	if delim == "" && next != "" {
		r, _ := utf8.DecodeRuneInString(next)
		cjk := word == "图" || word == "表" || word == "算法"
		if !unicode.IsUpper(r) && !(unicode.IsLetter(r) && (cjk || !unicode.IsLower(r))) {
			return "", "", false
		}
	}
	switch w := strings.ToLower(word); {
	case w == "图" || w[0] == 'f':
		kind = Figure
	case w == "表" || w[0] == 't':
		kind = Table
	default:
		kind = Algorithm
	}
	if roman(num) > 0 {
		if word != strings.ToUpper(word) && kind != Table {
			return "", "", false // "Figure I" is a word, not a number
		}
		num = strconv.Itoa(roman(num))
	}
	if m[1] != "" && !strings.HasPrefix(num, "S") {
		num = "S" + num
	}
	return kind, num, true
}

// mayStart reports whether a line starts with a letter a label starts
// with, sparing the regular expression the lines of running text.
func mayStart(line string) bool {
	r, _ := utf8.DecodeRuneInString(line)
	switch r {
	case 'F', 'T', 'A', 'S', 'E', '图', '表', '算':
		return true
	}
	return false
}

// roman returns the value of a Roman numeral of the letters Caption takes,
// or 0.
func roman(s string) int {
	vals := map[byte]int{'I': 1, 'V': 5, 'X': 10, 'L': 50}
	n := 0
	for i := 0; i < len(s); i++ {
		v, ok := vals[s[i]]
		if !ok {
			return 0
		}
		if i+1 < len(s) && vals[s[i+1]] > v {
			n -= v
		} else {
			n += v
		}
	}
	if n <= 0 || n > 60 {
		return 0
	}
	return n
}

// ID returns the id of an item of a kind and number: "figure-3".
func ID(kind, number string) string { return kind + "-" + number }

// Find returns the items of a document in page order; an item whose
// number was already found (a list of figures, a repeated caption) is
// left out.
func Find(doc *pdf.Document) []Item {
	lay := docLayout(doc)
	var out []Item
	seen := map[string]bool{}
	for i := range doc.Pages {
		its, _ := page(&doc.Pages[i], lay)
		for _, it := range its {
			if seen[it.ID] {
				continue
			}
			seen[it.ID] = true
			out = append(out, it)
		}
	}
	return out
}

// Page returns the items whose captions are on one page, read without
// the rest of its document: its body size is the page's, and a table's
// rows are taken below its caption, else above it.
func Page(pg *pdf.Page) []Item {
	its, _ := page(pg, layout{})
	return its
}

// layout is what a document's pages share: the size of its body text,
// the side of their captions its tables take their rows from (+1 below,
// -1 above, 0 below else above), and its running heads and feet (the
// letters of a line set at a page's top or bottom margin on several
// pages), which no item's area takes.
type layout struct {
	body    float64
	side    int
	running map[string]bool
}

// margin is the share of a page's height, at its top and its bottom, in
// which a running head or foot is set.
const margin = 0.1

// docLayout reads a document's layout. A document sets its table
// captions one way, above their tables or under them: the tables whose
// rows lie clearly on one side of their caption vote for the side every
// table takes its rows from.
func docLayout(doc *pdf.Document) layout {
	count := map[float64]int{}
	seen := map[string]int{}
	for i := range doc.Pages {
		onPage := map[string]bool{}
		for _, ln := range ownLines(&doc.Pages[i]) {
			count[math.Round(ln.FontSize*2)/2] += len(ln.Text)
			if k := runningKey(ln); k != "" && !onPage[k] {
				onPage[k] = true
				seen[k]++
			}
		}
	}
	lay := layout{running: map[string]bool{}}
	bestN := 0
	for s, n := range count {
		if n > bestN || n == bestN && s < lay.body {
			lay.body, bestN = s, n
		}
	}
	for k, n := range seen {
		if n >= 3 || n >= 2 && len(doc.Pages) <= 4 {
			lay.running[k] = true
		}
	}
	vote := 0
	for i := range doc.Pages {
		_, v := page(&doc.Pages[i], lay)
		vote += v
	}
	if vote < 0 {
		lay.side = -1
	}
	return lay
}

// runningKey returns the key a line set in a page's margin is counted
// by, its letters (a running head's page number aside); a line of no
// letters (a page number) keys as "#"; "" is a line out of the margins.
func runningKey(ln pdf.Line) string {
	if ln.Box.Y > margin && ln.Box.Y+ln.Box.H < 1-margin {
		return ""
	}
	var b strings.Builder
	for _, r := range ln.Text {
		if unicode.IsLetter(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	if b.Len() == 0 {
		return "#"
	}
	return b.String()
}

// page returns the items whose captions are on pg and its vote for the
// side of their captions tables take their rows from: the page's tables
// whose rows lie more below their captions (+1 each) or above them (-1
// each).
func page(pg *pdf.Page, lay layout) ([]Item, int) {
	lines := ownLines(pg)
	if len(lines) == 0 {
		return nil, 0
	}
	lines = splitSideBySide(pg, lines)
	body := lay.body
	if body == 0 {
		body = bodySize(lines)
	}
	// The lines no item's area takes: every caption's (a caption wrapped
	// over lines is another item's whole), and the running heads and
	// feet.
	stop := map[pdf.Box]bool{}
	for i := 0; i < len(lines); i++ {
		if k := runningKey(lines[i]); k != "" && (k == "#" || lay.running[k]) {
			stop[lines[i].Box] = true
		}
		if _, _, ok := Caption(lines[i].Text); ok && (strongDelimiter(lines[i].Text) || startsBlock(pg, lines, i)) {
			end := captionEnd(pg, lines, i)
			for _, ln := range lines[i:end] {
				stop[ln.Box] = true
			}
			i = end - 1
		}
	}
	var out []Item
	// A table's rows on either side of its caption, counted for the vote
	// once the figures' areas are known: a figure's axis labels under a
	// table's caption are no rows of it.
	type sides struct{ down, up []pdf.Line }
	var tables []sides
	figArea := map[pdf.Box]bool{}
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		kind, num, ok := Caption(ln.Text)
		if !ok || !strongDelimiter(ln.Text) && !startsBlock(pg, lines, i) {
			continue
		}
		end := captionEnd(pg, lines, i)
		capLines := lines[i:end]
		text := joinCaption(capLines)
		if b := beside(lines, i); strings.TrimSpace(dropLabel(text)) == "" && end-i == 1 && b >= 0 {
			// "Table 1.4" alone, its text set on its right.
			capLines = append([]pdf.Line{ln}, lines[b:captionEnd(pg, lines, b)]...)
			text = joinCaption(capLines)
		} else if strings.TrimSpace(dropLabel(text)) == "" && end < len(lines) && end-i == 1 {
			// "TABLE I" alone: the caption is the next block.
			end = captionEnd(pg, lines, end)
			capLines = lines[i:end]
			text = joinCaption(capLines)
		}
		text = oneLine(text)
		capBox := union(capLines)
		it := Item{ID: ID(kind, num), Kind: kind, Number: num, Page: pg.Number, CaptionBox: capBox}
		it.Caption = clip(text, MaxCaption)
		area, areaLines, down, up := region(lines, i, end, capBox, kind, body, lay.side, stop)
		switch kind {
		case Table:
			tables = append(tables, sides{down, up})
		case Figure:
			for _, ln := range areaLines {
				figArea[ln.Box] = true
			}
		}
		it.Box = unionBox(capBox, area)
		it.Text = text
		if len(areaLines) > 0 {
			it.Text += "\n\n" + cells(areaLines)
		}
		out = append(out, it)
		i = end - 1
	}
	vote := 0
	for _, t := range tables {
		rd, ru := tableRows(t.down, figArea), tableRows(t.up, figArea)
		switch {
		case rd >= 2*ru+2:
			vote++
		case ru >= 2*rd+2:
			vote--
		}
	}
	return out, vote
}

// beside returns the index of the line that continues line i on its
// baseline, starting within three ems of its end, or -1.
func beside(lines []pdf.Line, i int) int {
	a := lines[i].Box
	for k, ln := range lines {
		b := ln.Box
		if k != i && math.Abs(b.Y+b.H-(a.Y+a.H)) < 0.3*a.H && b.X >= a.X+a.W-0.002 && b.X < a.X+a.W+3*a.H {
			if _, _, ok := Caption(ln.Text); !ok {
				return k
			}
		}
	}
	return -1
}

// ownLines are the page's own lines, not an annotation's, that have a box.
func ownLines(pg *pdf.Page) []pdf.Line {
	var out []pdf.Line
	for _, ln := range pg.Lines {
		if ln.Annot == "" && ln.Box.W > 0 && ln.Box.H > 0 && strings.TrimSpace(ln.Text) != "" {
			out = append(out, ln)
		}
	}
	return out
}

// bodySize is the font size of most of the page's characters.
func bodySize(lines []pdf.Line) float64 {
	count := map[float64]int{}
	best, bestN := 0.0, 0
	for _, ln := range lines {
		s := math.Round(ln.FontSize*2) / 2
		count[s] += len(ln.Text)
		if count[s] > bestN {
			best, bestN = s, count[s]
		}
	}
	return best
}

// strongDelimiter reports a label followed by a colon or a bar ("Figure
// 3:", "Figure 3 |"), which running text does not write.
func strongDelimiter(line string) bool {
	m := label.FindStringSubmatch(strings.TrimSpace(line))
	return m != nil && (m[4] == ":" || m[4] == "：" || m[4] == "|")
}

// startsBlock reports whether line i begins a block: the first line of a
// paragraph, or apart from the line before it (a gap, another size, another
// column), or after a line that ends a sentence. "…as in\nFig. 4. First"
// is running text.
func startsBlock(pg *pdf.Page, lines []pdf.Line, i int) bool {
	ln := lines[i]
	if ln.Start <= 0 || ln.Start >= 2 && ln.Start <= len(pg.Text) && pg.Text[ln.Start-2:ln.Start] == "\n\n" {
		return true
	}
	if i == 0 {
		return true
	}
	prev := lines[i-1]
	if math.Abs(prev.FontSize-ln.FontSize) > 0.6 || ln.Bold != prev.Bold {
		return true
	}
	if gap := ln.Box.Y - (prev.Box.Y + prev.Box.H); gap > 0.6*ln.Box.H || gap < -2*ln.Box.H {
		return true
	}
	if !overlapX(prev.Box, ln.Box) {
		return true
	}
	t := strings.TrimSpace(prev.Text)
	return strings.HasSuffix(t, ".") || strings.HasSuffix(t, ":")
}

// captionEnd returns the index after the last line of the caption that
// starts at line i: the lines that follow in the same paragraph, column
// and size.
func captionEnd(pg *pdf.Page, lines []pdf.Line, i int) int {
	const maxLines = 14
	j := i + 1
	for ; j < len(lines) && j-i < maxLines; j++ {
		a, b := lines[j-1], lines[j]
		if math.Abs(a.FontSize-b.FontSize) > 0.6 || !overlapX(a.Box, b.Box) {
			break
		}
		if gap := b.Box.Y - (a.Box.Y + a.Box.H); gap > 0.6*b.Box.H || gap < -0.5*b.Box.H {
			break
		}
		if _, _, ok := Caption(b.Text); ok {
			break
		}
		if kind, _, _ := Caption(lines[i].Text); kind == Algorithm && algorithmLine(b.Text) {
			break // the algorithm's body starts under its caption
		}
		first := lines[i].Box
		left := math.Abs(b.Box.X-first.X) < 0.015
		centred := math.Abs(b.Box.X+b.Box.W/2-(first.X+first.W/2)) < 0.015
		// A hanging indent (JMLR's "Figure 1: Effect of…" with the next
		// lines set under "Effect"): the second line indented and ending
		// where the first does, the lines after it under the second;
		// running text all, without a table header's wide gaps.
		hanging := len(b.Gaps) == 0 && (j == i+1 && b.Box.X > first.X && b.Box.X < first.X+first.W/3 && math.Abs(b.Box.X+b.Box.W-(first.X+first.W)) < 0.015 ||
			j > i+1 && math.Abs(b.Box.X-a.Box.X) < 0.015 && a.Box.X > first.X)
		if !left && !centred && !hanging {
			break // a table's header under a one-line caption
		}
		if j-1 > i && a.Box.W < 0.75*first.W && !runsOn(a.Text) {
			break // the line before ended the paragraph
		}
	}
	return j
}

// runsOn reports whether a line of a caption ends where no paragraph
// ends: with a hyphen, a comma, or a symbol that joins what follows
// ("AnB+", "&", "/").
func runsOn(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && strings.ContainsAny(t[len(t)-1:], "-,+&/")
}

// region returns the item's area beside its caption (lines i to end) and
// the lines in it (got): above a figure's or an algorithm's caption,
// below a table's, or above it when nothing is below or when its document
// sets its tables' rows above their captions (side -1); over the
// caption's column, up to the nearest line of body text, a caption's line
// or a running head (stop). For a table it returns the lines below and
// above its caption too, which the document's vote counts.
func region(lines []pdf.Line, i, end int, capBox pdf.Box, kind string, body float64, side int, stop map[pdf.Box]bool) (box pdf.Box, got, down, up []pdf.Line) {
	x0, x1 := column(lines, capBox)
	inCol := func(b pdf.Box) bool {
		c := b.X + b.W/2
		return c >= x0 && c <= x1
	}
	var others []pdf.Line
	for k, ln := range lines {
		if (k < i || k >= end) && inCol(ln.Box) {
			others = append(others, ln)
		}
	}
	below := func() []pdf.Line {
		var cand []pdf.Line
		for _, ln := range others {
			if ln.Box.Y >= capBox.Y+capBox.H-0.002 {
				cand = append(cand, ln)
			}
		}
		sort.SliceStable(cand, func(a, b int) bool { return cand[a].Box.Y < cand[b].Box.Y })
		return takeUntilBody(cand, x0, x1, body, capBox.Y+capBox.H, +1, kind, stop)
	}
	above := func() []pdf.Line {
		var cand []pdf.Line
		for _, ln := range others {
			if ln.Box.Y+ln.Box.H <= capBox.Y+0.002 {
				cand = append(cand, ln)
			}
		}
		sort.SliceStable(cand, func(a, b int) bool { return cand[a].Box.Y+cand[a].Box.H > cand[b].Box.Y+cand[b].Box.H })
		got := takeUntilBody(cand, x0, x1, body, capBox.Y, -1, kind, stop)
		slices.Reverse(got)
		return got
	}
	switch kind {
	case Table:
		down, up = below(), above()
		got = down
		if len(got) == 0 || side < 0 && len(up) > 0 {
			got = up
		}
	case Algorithm:
		// A ruled algorithm's caption heads its body; a floating one's
		// may sit under it.
		got = below()
		if !slices.ContainsFunc(got, func(ln pdf.Line) bool { return algorithmLine(ln.Text) }) {
			if up := above(); len(up) > 0 {
				got = up
			}
		}
	default:
		got = above()
	}
	if len(got) > 0 {
		box = union(got)
		box.X, box.W = math.Min(box.X, x0), math.Max(box.X+box.W, x1)-math.Min(box.X, x0)
	}
	return box, got, down, up
}

// tableRows counts the lines of an area that read as a table's row, out
// of a figure's area (skip): with a wide gap between cells, or two
// numbers.
func tableRows(lines []pdf.Line, skip map[pdf.Box]bool) int {
	n := 0
	for _, ln := range lines {
		if skip[ln.Box] {
			continue
		}
		nums := 0
		for _, w := range strings.Fields(ln.Text) {
			if w[0] >= '0' && w[0] <= '9' {
				nums++
			}
		}
		if len(ln.Gaps) > 0 || nums >= 2 {
			n++
		}
	}
	return n
}

// takeUntilBody takes lines from cand (ordered away from the caption) up
// to the first line of body text, the first caption or line in stop, or
// a gap of more than a fifth of the page; a table's rows up to a gap of
// more than maxRowGap of their lines' height too. A line of body text in
// one column of two ends an area that spans both (x0 to x1). In an
// algorithm's area a line that reads as a step of pseudocode is no body
// text, however long.
func takeUntilBody(cand []pdf.Line, x0, x1, body, from float64, dir int, kind string, stop map[pdf.Box]bool) []pdf.Line {
	algo := kind == Algorithm
	width, mid := x1-x0, (x0+x1)/2
	isProse := func(ln pdf.Line) bool {
		if prose(ln, width, body) {
			return true
		}
		half := ln.Box.X+ln.Box.W <= mid+0.01 || ln.Box.X >= mid-0.01
		return half && prose(ln, width/2, body)
	}
	var out []pdf.Line
	edge := from
	for k, ln := range cand {
		var gap float64
		if dir > 0 {
			gap = ln.Box.Y - edge
		} else {
			gap = edge - (ln.Box.Y + ln.Box.H)
		}
		if gap > 0.2 {
			break
		}
		if n := len(out); kind == Table && n > 0 && gap > maxRowGap*math.Max(ln.Box.H, out[n-1].Box.H) {
			break
		}
		if _, _, ok := Caption(ln.Text); ok || stop[ln.Box] {
			break
		}
		if isProse(ln) && !(algo && (algorithmLine(ln.Text) || stepRow(ln, cand))) {
			break
		}
		if dir < 0 && k+1 < len(cand) && !(algo && algorithmLine(cand[k+1].Text)) && endsParagraph(ln, cand[k+1], width, body) {
			break // the short last line of a paragraph above a figure
		}
		out = append(out, ln)
		if dir > 0 {
			edge = math.Max(edge, ln.Box.Y+ln.Box.H)
		} else {
			edge = math.Min(edge, ln.Box.Y)
		}
	}
	return out
}

// maxRowGap is the widest gap between a table's rows, in the height of
// their lines: a table sets its rows close, rules and headers included,
// and the float a gap apart from the body text around it.
const maxRowGap = 2.5

// algorithmStep matches the start of a line of an algorithm's body: a
// numbered step ("3:", "12 "), or a keyword of pseudocode.
var algorithmStep = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\d{1,3}:?\s|(?:Input|Output|Require|Ensure|Data|Result|Parameters?)\s*:|(?:for|foreach|while|if|else|end|return|repeat|until|function|procedure)\b)`)
})

// algorithmLine reports a line that reads as a step of an algorithm's
// body rather than as prose: a numbered step, a keyword, an assignment
// arrow or a comment.
func algorithmLine(text string) bool {
	text = strings.TrimSpace(text)
	return algorithmStep().MatchString(text) || strings.Contains(text, "←") || strings.Contains(text, " // ") || strings.HasPrefix(text, "// ")
}

// stepRow reports whether ln sits on the row of a step of pseudocode in
// lines: a step whose number or subscript the text layer set apart
// ("11: In Ninf" and "BN, replace the transform y = … with") is one line
// to a reader, and none of it body text.
func stepRow(ln pdf.Line, lines []pdf.Line) bool {
	for _, o := range lines {
		top, bottom := math.Max(ln.Box.Y, o.Box.Y), math.Min(ln.Box.Y+ln.Box.H, o.Box.Y+o.Box.H)
		if bottom-top > 0.5*math.Min(ln.Box.H, o.Box.H) && o.Box != ln.Box && algorithmLine(o.Text) {
			return true
		}
	}
	return false
}

// endsParagraph reports a line that ends the paragraph of prose above it:
// the body's size, just under a line of prose, flush with its left edge.
func endsParagraph(ln, above pdf.Line, width, body float64) bool {
	gap := ln.Box.Y - (above.Box.Y + above.Box.H)
	return prose(above, width, body) && math.Abs(ln.FontSize-above.FontSize) <= 0.6 &&
		gap < 0.6*ln.Box.H && math.Abs(ln.Box.X-above.Box.X) < 0.01
}

// prose reports a line of body text: the body's size, most of the
// column's width, and words rather than numbers.
func prose(ln pdf.Line, width, body float64) bool {
	if body > 0 && math.Abs(ln.FontSize-body) > 0.6 {
		return false
	}
	if ln.Box.W < 0.7*width {
		return false
	}
	words := strings.Fields(ln.Text)
	if len(words) < 7 {
		return false
	}
	letters, digits := 0, 0
	for _, r := range ln.Text {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	return digits*5 < letters
}

// column returns the horizontal extent of the caption's column: the
// page's text block on the caption's side when the caption sits in one
// column of two, else the text block's full width.
func column(lines []pdf.Line, capBox pdf.Box) (float64, float64) {
	lo, hi := 1.0, 0.0
	for _, ln := range lines {
		lo, hi = math.Min(lo, ln.Box.X), math.Max(hi, ln.Box.X+ln.Box.W)
	}
	mid := (lo + hi) / 2
	switch {
	case capBox.X+capBox.W <= mid+0.02:
		return lo, mid
	case capBox.X >= mid-0.02:
		return mid, hi
	}
	return lo, hi
}

// cells joins the lines of an area row by row: lines whose vertical
// middles are within half a line of each other are one row, left to right,
// their cells separated by " | ".
func cells(lines []pdf.Line) string {
	ls := slices.Clone(lines)
	sort.SliceStable(ls, func(a, b int) bool { return ls[a].Box.Y < ls[b].Box.Y })
	var rows [][]pdf.Line
	for _, ln := range ls {
		mid := ln.Box.Y + ln.Box.H/2
		if n := len(rows); n > 0 {
			last := rows[n-1][0]
			if math.Abs(last.Box.Y+last.Box.H/2-mid) < 0.5*math.Max(last.Box.H, ln.Box.H) {
				rows[n-1] = append(rows[n-1], ln)
				continue
			}
		}
		rows = append(rows, []pdf.Line{ln})
	}
	out := make([]string, len(rows))
	for i, row := range rows {
		sort.SliceStable(row, func(a, b int) bool { return row[a].Box.X < row[b].Box.X })
		out[i] = strings.Join(texts(row), " | ")
	}
	return strings.Join(out, "\n")
}

func texts(lines []pdf.Line) []string {
	out := make([]string, len(lines))
	for i, ln := range lines {
		out[i] = strings.TrimSpace(ln.Text)
	}
	return out
}

// dropLabel returns a caption's text after its label.
func dropLabel(s string) string {
	s = strings.TrimSpace(s)
	m := label.FindStringSubmatchIndex(s)
	if m == nil {
		return s
	}
	end := m[1]
	if m[10] >= 0 { // the capital that followed belongs to the text
		end = m[10]
	}
	return s[end:]
}

// joinCaption joins a caption's lines as a reader reads them
// (textnorm.JoinLine): a word hyphenated over a line end ("perfor-"
// "mances") whole, as the page's text is read for search, a compound
// broken at its own hyphen ("ResNet-" "50") with it, other lines with a
// space.
func joinCaption(lines []pdf.Line) string {
	s := ""
	for _, t := range texts(lines) {
		s = textnorm.JoinLine(s, t)
	}
	return s
}

// oneLine folds a caption's line ends and runs of spaces into single
// spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	return strings.TrimRight(string(r), " ") + "…"
}

func overlapX(a, b pdf.Box) bool {
	return math.Min(a.X+a.W, b.X+b.W) > math.Max(a.X, b.X)
}

func union(lines []pdf.Line) pdf.Box {
	var b pdf.Box
	for i, ln := range lines {
		if i == 0 {
			b = ln.Box
			continue
		}
		b = unionBox(b, ln.Box)
	}
	return b
}

func unionBox(a, b pdf.Box) pdf.Box {
	if b.W <= 0 || b.H <= 0 {
		return a
	}
	if a.W <= 0 || a.H <= 0 {
		return b
	}
	x0, y0 := math.Min(a.X, b.X), math.Min(a.Y, b.Y)
	x1, y1 := math.Max(a.X+a.W, b.X+b.W), math.Max(a.Y+a.H, b.Y+b.H)
	return pdf.Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// Span is a caption in a page's text: bytes Start to End, the item's ID.
type Span struct {
	Start, End int
	ID         string
}

// Spans returns what may be captions in a page's text (lines joined by
// "\n", paragraphs by "\n\n", as the pdf package gives them): a line that
// starts like a caption, up to the end of its paragraph or the start of
// the next caption, whichever comes first. Without the line
// boxes Find reads it cannot tell every caption from running text that
// wraps before "Fig. 4."; a caller checks a span against Find's items.
func Spans(text string) []Span {
	var out []Span
	start := 0
	for start < len(text) {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		ln := text[start:end]
		if kind, num, ok := Caption(ln); ok {
			stop := strings.Index(text[start:], "\n\n")
			if stop < 0 {
				stop = len(text)
			} else {
				stop += start
			}
			if n := len(out); n > 0 && out[n-1].End > start {
				// The caption before ends where this one starts: a
				// figure's caption never runs on into the next one's.
				out[n-1].End = out[n-1].Start + len(strings.TrimRight(text[out[n-1].Start:start], "\n"))
			}
			out = append(out, Span{Start: start, End: stop, ID: ID(kind, num)})
		}
		start = end + 1
	}
	return out
}

// splitSideBySide splits the lines where two captions stand side by side
// (two figure panels, two tables, each captioned under or over itself):
// the text layer reads them as one line, "Figure 2: Left …   Figure 3:
// Right …". A line that starts with a caption and holds, after a wide
// gap (pdf.Line.Gaps), a second label with the same word and delimiter
// and another number is cut at that gap; the caption's next lines, and
// the lines of the items' areas up to the body text, are cut at their gap
// nearest the second caption's left edge. The left pieces of a caption
// come before its right pieces, so that each caption reads on.
func splitSideBySide(pg *pdf.Page, lines []pdf.Line) []pdf.Line {
	var out []pdf.Line
	var pairs []sidePair
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		g := secondLabel(ln)
		if g < 0 {
			out = append(out, ln)
			continue
		}
		em := ln.FontSize / pageWidth(pg)
		left, right := cut(ln, g, em)
		x2 := right.Box.X
		lefts, rights := []pdf.Line{left}, []pdf.Line{right}
		// The caption's next lines: the same size and left edge, close
		// under it, with a gap near the second caption's edge.
		j := i + 1
		for ; j < len(lines) && j-i < 14; j++ {
			a, b := lines[j-1], lines[j]
			if math.Abs(a.FontSize-b.FontSize) > 0.6 || math.Abs(b.Box.X-ln.Box.X) > 0.015 {
				break
			}
			if gap := b.Box.Y - (a.Box.Y + a.Box.H); gap > 0.6*b.Box.H || gap < -0.5*b.Box.H {
				break
			}
			if _, _, ok := Caption(b.Text); ok {
				break
			}
			k := nearestGap(b, x2, 3*em)
			if k < 0 {
				break
			}
			l, r := cut(b, k, em)
			lefts, rights = append(lefts, l), append(rights, r)
		}
		out = append(append(out, lefts...), rights...)
		if len(pairs) < maxSidePairs {
			pairs = append(pairs, sidePair{left, right})
		}
		i = j - 1
	}
	if len(pairs) == 0 {
		return out
	}
	return splitAreas(pg, out, pairs)
}

// maxSidePairs bounds the side-by-side captions of a page whose areas
// are cut (each costs a pass over the page's lines).
const maxSidePairs = 16

// sidePair is two captions side by side: the pieces of one line.
type sidePair struct{ left, right pdf.Line }

// splitAreas cuts the lines of the areas beside side-by-side captions
// (panel labels above figure captions, rows below table captions) that
// span both halves, at their gap nearest the right caption's left edge.
func splitAreas(pg *pdf.Page, lines []pdf.Line, pairs []sidePair) []pdf.Line {
	body := bodySize(lines)
	var out []pdf.Line
	kinds := make([]string, len(pairs))
	for i, p := range pairs {
		kinds[i], _, _ = Caption(p.left.Text)
	}
	for _, ln := range lines {
		k := -1
		if len(ln.Gaps) == 0 || prose(ln, ln.Box.W, body) {
			out = append(out, ln)
			continue
		}
		if _, _, ok := Caption(ln.Text); ok {
			out = append(out, ln)
			continue
		}
		for i, p := range pairs {
			x2 := p.right.Box.X
			if ln.Box.X >= x2 || ln.Box.X+ln.Box.W <= x2 {
				continue
			}
			var gap float64
			if kinds[i] == Table {
				gap = ln.Box.Y - (p.left.Box.Y + p.left.Box.H)
			} else {
				gap = p.left.Box.Y - (ln.Box.Y + ln.Box.H)
			}
			if gap < -0.002 || gap > 0.2 {
				continue
			}
			if k = nearestGap(ln, x2, 0.1); k >= 0 {
				break
			}
		}
		if k < 0 {
			out = append(out, ln)
			continue
		}
		l, r := cut(ln, k, ln.FontSize/pageWidth(pg))
		out = append(out, l, r)
	}
	return out
}

func pageWidth(pg *pdf.Page) float64 {
	if pg.Width > 0 {
		return pg.Width
	}
	return 612
}

// secondLabel returns the index in ln.Gaps of the gap before a second
// caption label, after a first one that starts the line with the same
// word and delimiter and another number, or -1.
func secondLabel(ln pdf.Line) int {
	if len(ln.Gaps) == 0 {
		return -1
	}
	kind, num, ok := Caption(ln.Text)
	if !ok {
		return -1
	}
	m := label.FindStringSubmatch(strings.TrimSpace(ln.Text))
	for g, gap := range ln.Gaps {
		if gap.At <= 0 || gap.At >= len(ln.Text) {
			continue
		}
		rest := ln.Text[gap.At:]
		kind2, num2, ok := Caption(rest)
		if !ok || kind2 == kind && num2 == num {
			continue
		}
		if m2 := label.FindStringSubmatch(rest); m2 != nil && m2[4] == m[4] && m2[2] == m[2] {
			return g
		}
	}
	return -1
}

// nearestGap returns the index in ln.Gaps of the gap nearest x, within
// tol, or -1.
func nearestGap(ln pdf.Line, x, tol float64) int {
	best, bestD := -1, tol
	for g, gap := range ln.Gaps {
		if d := math.Abs(gap.X - x); d <= bestD && gap.At > 0 && gap.At < len(ln.Text) {
			best, bestD = g, d
		}
	}
	return best
}

// cut splits a line at its gap g into a left and a right piece. The right
// piece starts at the gap's edge; the left one's width is estimated from
// its characters (em in page units), ending half an em short of the gap
// at most.
func cut(ln pdf.Line, g int, em float64) (pdf.Line, pdf.Line) {
	gap := ln.Gaps[g]
	l, r := ln, ln
	l.Text, r.Text = strings.TrimRight(ln.Text[:gap.At], " "), ln.Text[gap.At:]
	l.Gaps = ln.Gaps[:g:g]
	r.Gaps = nil
	for _, h := range ln.Gaps[g+1:] {
		r.Gaps = append(r.Gaps, pdf.Gap{At: h.At - gap.At, X: h.X})
	}
	x1 := ln.Box.X + ln.Box.W
	rx := math.Min(math.Max(gap.X, ln.Box.X), x1)
	l.Box.W = math.Max(math.Min(em*textWidth(l.Text), rx-em/2-ln.Box.X), 0.001)
	r.Box.X, r.Box.W = rx, x1-rx
	r.Start = ln.Start + gap.At
	return l, r
}

// textWidth estimates the width of a text in ems: half an em a
// character, a full em for a wide (CJK) one.
func textWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
			unicode.Is(unicode.Hangul, r) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF {
			w++
		} else {
			w += 0.5
		}
	}
	return w
}
