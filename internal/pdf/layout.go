package pdf

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// Layout turns glyphs into text in four steps:
//
//  1. fragments: glyphs consecutive in content order on one baseline;
//  2. blocks: fragments split into reading-order blocks around a column
//     gutter, when the page has one;
//  3. lines: fragments of a block clustered by baseline, ordered top-down;
//  4. text: glyphs of a line ordered left to right, with a space wherever
//     the gap between glyphs exceeds wordGap of the font size.

// wordGap is the horizontal gap, as a fraction of the font size, above
// which two glyphs belong to different words. TeX's inter-word space is
// about 0.33 em but shrinks well below 0.2 em in tight justified lines;
// kerns and italic corrections inside words stay under 0.1 em, the
// threshold pdftotext uses too.
const wordGap = 0.10

// fragGap is the gap, as a fraction of the font size, that ends a fragment
// even on one baseline: wider than any justified inter-word space, narrower
// than the 10 pt column gutters some journals use.
const fragGap = 0.9

type frag struct {
	g         []glyph
	x0, x1, y float64
	size      float64 // largest glyph size
	chars     int
	dir       uint8
}

type textLine struct {
	frags     []*frag
	x0, x1, y float64
	size      float64
}

// layoutPage returns the page's lines and text.
func layoutPage(glyphs []glyph, w, h float64) ([]Line, string) {
	return blockLines(layoutBlocks(glyphs), w, h)
}

// layoutBlocks lays a page's glyphs out (steps 1 to 3): its blocks in
// reading order, each its lines top-down.
func layoutBlocks(glyphs []glyph) [][]*textLine {
	if len(glyphs) == 0 {
		return nil
	}
	glyphs = dedupeOverprint(glyphs)
	var byDir [4][]glyph
	mixed := false
	for i := range glyphs {
		if glyphs[i].dir != 0 {
			mixed = true
			break
		}
	}
	if mixed {
		// One allocation, split by direction in content order.
		var n [4]int
		for i := range glyphs {
			n[glyphs[i].dir&3]++
		}
		buf := make([]glyph, 0, len(glyphs))
		for dir := range byDir {
			byDir[dir] = buf[len(buf) : len(buf) : len(buf)+n[dir]]
			buf = buf[:len(buf)+n[dir]]
		}
		for _, g := range glyphs {
			byDir[g.dir&3] = append(byDir[g.dir&3], g)
		}
	} else {
		byDir[0] = glyphs
	}
	if len(byDir[3]) > 0 && len(byDir[0]) > 0 {
		byDir[0], byDir[3] = uprightInVertical(byDir[0], byDir[3])
	}
	var blocks [][]*textLine
	if len(byDir[0]) > 0 {
		for _, b := range orderBands(makeFrags(byDir[0])) {
			blocks = append(blocks, makeLines(b))
		}
	}
	for dir := 1; dir < 4; dir++ {
		if len(byDir[dir]) == 0 {
			continue
		}
		if dir == 3 {
			// Vertical writing (and text turned a quarter clockwise): in
			// the turned frame its tiers stand side by side like columns,
			// the upper tier on the left.
			for _, b := range orderBands(makeFrags(byDir[dir])) {
				blocks = append(blocks, makeLines(b))
			}
			continue
		}
		blocks = append(blocks, makeLines(makeFrags(byDir[dir])))
	}
	return blocks
}

// blockLines returns the lines and text of a page's blocks (step 4).
func blockLines(blocks [][]*textLine, w, h float64) ([]Line, string) {
	var sb strings.Builder
	var lines []Line
	for _, b := range blocks {
		gaps := lineGaps(b)
		for i, tl := range b {
			text, bold, size, wide := lineText(tl)
			if strings.TrimSpace(text) == "" {
				continue
			}
			if sb.Len() > 0 {
				if i == 0 || paragraphBreak(b[i-1], tl, gaps) {
					sb.WriteString("\n\n")
				} else {
					sb.WriteString("\n")
				}
			}
			ln := Line{Text: text, Box: lineBox(tl, w, h), FontSize: size, Bold: bold, Start: sb.Len()}
			if len(wide) > 0 && w > 0 && len(tl.frags) > 0 && tl.frags[0].dir == 0 {
				for i := range wide {
					wide[i].X = math.Max(0, math.Min(1, wide[i].X/w))
				}
				ln.Gaps = wide
			}
			lines = append(lines, ln)
			sb.WriteString(text)
		}
	}
	return lines, sb.String()
}

// uprightInVertical moves the short horizontal runs set upright inside
// a column of vertical writing (tate-chū-yoko: "12" in "平成12年") into
// that column, as one glyph at their place, so that they read in the
// column rather than among the page's horizontal lines. Vertical glyphs
// are in their turned frame: x runs down the column, y is its centre line.
func uprightInVertical(horiz, vert []glyph) ([]glyph, []glyph) {
	// Vertical glyphs by their column's centre line, in 4 pt buckets.
	cols := map[int][]int{}
	for i, v := range vert {
		if !v.isWS {
			k := int(math.Floor(v.y / 4))
			cols[k] = append(cols[k], i)
		}
	}
	for _, c := range cols {
		slices.SortFunc(c, func(a, b int) int { return cmp.Compare(vert[a].x, vert[b].x) })
	}
	var keep []glyph
	moved := false
	for i := 0; i < len(horiz); {
		// A run: glyphs in content order on one baseline, tight together.
		j, x1 := i+1, horiz[i].x+horiz[i].w
		for j < len(horiz) && j-i < 5 {
			g := &horiz[j]
			if math.Abs(g.y-horiz[i].y) > 0.2*g.size || g.x < x1-0.3*g.size || g.x > x1+0.3*g.size {
				break
			}
			x1 = g.x + g.w
			j++
		}
		run := horiz[i:j]
		if g, ok := uprightRun(run, x1, vert, cols); ok {
			vert = append(vert, g)
			moved = true
		} else {
			keep = append(keep, run...)
		}
		i = j
	}
	if !moved {
		return horiz, vert
	}
	slices.SortStableFunc(vert, func(a, b glyph) int { return int(a.seq) - int(b.seq) })
	return keep, vert
}

// uprightRun returns a run of at most four horizontal glyphs as one glyph
// of the vertical column it is centred in and lies along, if there is one.
func uprightRun(run []glyph, x1 float64, vert []glyph, cols map[int][]int) (glyph, bool) {
	if len(run) > 4 || run[0].isWS {
		return glyph{}, false
	}
	x0, size := run[0].x, run[0].size
	cx := (x0 + x1) / 2
	top := run[0].y + 0.8*size // the run's top edge on the page
	var text strings.Builder
	for _, g := range run {
		text.WriteString(g.text)
	}
	for k := int(math.Floor(cx/4)) - 2; k <= int(math.Floor(cx/4))+2; k++ {
		c := cols[k]
		// The glyphs of the column next to the run: from the first that
		// ends near the run's top, a few down the column.
		from, _ := slices.BinarySearchFunc(c, -top-2*size, func(i int, x float64) int { return cmp.Compare(vert[i].x, x) })
		for _, i := range c[from:min(len(c), from+6)] {
			v := &vert[i]
			// Centred on the column, no wider than it, and touching a
			// glyph of it from above or below.
			if math.Abs(v.y-cx) > 0.25*v.size || x1-x0 > 1.3*v.size || size > 1.2*v.size {
				continue
			}
			if d := -top - v.x; d < -1.2*v.size || d > v.w+0.3*v.size {
				continue
			}
			return glyph{x: -top, y: v.y, w: 0.9 * size, size: v.size, text: text.String(), dir: 3, seq: run[0].seq, fontID: run[0].fontID}, true
		}
	}
	return glyph{}, false
}

// dedupeOverprint drops glyphs drawn again at (nearly) the same place, as
// producers do to fake bold or shadow text. Glyphs are sorted by position
// so that each is compared only with its near neighbours.
func dedupeOverprint(gs []glyph) []glyph {
	// Each glyph's place is packed into one integer (direction, rounded
	// y, x in 1/16 pt, then its index), so that sorting compares integers:
	// comparing rounded floats was most of a page's layout time.
	if len(gs) >= 1<<keyIndexBits { // more than MaxGlyphs: not from a page
		return gs
	}
	keys := make([]uint64, 0, len(gs))
	for i := range gs {
		if g := &gs[i]; !g.isWS {
			keys = append(keys, overprintKey(g, i))
		}
	}
	slices.Sort(keys)
	var drop []bool
	for k, a := range keys {
		i := int(a & (1<<keyIndexBits - 1))
		g := &gs[i]
		for n, b := range keys[k+1:] {
			if n >= 16 { // bounds the work on hostile pages stacking glyphs
				break
			}
			j := int(b & (1<<keyIndexBits - 1))
			h := &gs[j]
			if b>>keyLineShift != a>>keyLineShift || h.x-g.x > 1.5 {
				break
			}
			// Half an advance at most: in small print (figure labels) the
			// next letter of a double letter ("rr") can start within 1.5 pt.
			if h.text == g.text && math.Abs(h.y-g.y) < 1.5 && h.x-g.x < 0.5*math.Max(g.w, 0.1*g.size) {
				if drop == nil {
					drop = make([]bool, len(gs))
				}
				drop[max(i, j)] = true // keep the first drawn
			}
		}
	}
	if drop == nil {
		return gs
	}
	out := gs[:0]
	for i := range gs {
		if !drop[i] {
			out = append(out, gs[i])
		}
	}
	return out
}

// The bits of an overprint sort key, from the top: direction (2), rounded
// y downwards (20), x in 1/16 pt (24), index on the page (18).
const (
	keyIndexBits = 18
	keyXBits     = 24
	keyYBits     = 20
	keyLineShift = keyIndexBits + keyXBits // what is left: direction and y
)

// A page's glyphs are indexed in keyIndexBits (this fails to compile
// otherwise).
const _ = uint(1<<keyIndexBits - MaxGlyphs)

func overprintKey(g *glyph, i int) uint64 {
	// Places off the clamped range share a key's bits and only lose
	// the order among themselves: pairs are still checked on exact places.
	const ymax, xmax = 1<<(keyYBits-1) - 1, 1<<(keyXBits-1) - 1
	// y descending, as content usually runs down the page: the keys
	// come nearly sorted, which the sort is fast on.
	y := uint64(ymax - int64(min(max(math.Round(g.y), -ymax), ymax)))
	x := uint64(int64(min(max(math.Floor(g.x*16), -xmax), xmax)) + xmax)
	// Masked, so that not even a NaN place (which int64 turns into any
	// value) reaches another field.
	y &= 1<<keyYBits - 1
	x &= 1<<keyXBits - 1
	return uint64(g.dir&3)<<(keyLineShift+keyYBits) | y<<keyLineShift | x<<keyIndexBits | uint64(i)
}

// makeFrags splits glyphs, in content order, into same-baseline runs.
func makeFrags(gs []glyph) []*frag {
	var out []*frag
	var cur *frag
	for i := range gs {
		g := &gs[i]
		if cur != nil {
			s := math.Min(g.size, cur.size)
			end := cur.x1
			if math.Abs(g.y-cur.y) > 0.35*s || g.x < end-0.6*math.Max(g.size, cur.size) || g.x > end+fragGap*math.Max(g.size, cur.size) {
				cur = nil
			}
		}
		if cur == nil {
			if g.isWS {
				continue
			}
			cur = &frag{g: gs[i:i:i], x0: g.x, x1: g.x + g.w, y: g.y, size: g.size, dir: g.dir}
			out = append(out, cur)
		}
		cur.g = gs[i-len(cur.g) : i+1 : i+1] // fragments are runs of gs: no copying
		if !g.isWS {
			cur.x0 = math.Min(cur.x0, g.x)
			cur.x1 = math.Max(cur.x1, g.x+g.w)
			cur.chars++
			if g.size > cur.size {
				cur.size = g.size
			}
		}
	}
	return out
}

// bandGap is the baseline distance, in font sizes, that separates two
// bands of a page: more than a blank line, as between a full-width table
// or figure and the text below it.
const bandGap = 2.2

// maxBands bounds the bands a page is cut into.
const maxBands = 64

// orderBands orders a page's fragments in blocks. When the page as a whole
// has no column gutter — a full-width table or figure covers it — the page
// is cut into bands at blank horizontal strips and each band is ordered on
// its own, so that two columns below a wide table still read column by
// column.
func orderBands(frags []*frag) [][]*frag {
	blocks := orderBlocks(frags)
	if len(blocks) > 1 || len(frags) < 16 {
		return blocks
	}
	sorted := append([]*frag(nil), frags...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].y > sorted[j].y })
	gap := func(i int) bool {
		a, b := sorted[i-1], sorted[i]
		return a.y-b.y > bandGap*math.Max(a.size, b.size)
	}
	n := 0
	for i := 1; i < len(sorted); i++ {
		if gap(i) {
			n++
		}
	}
	if n == 0 || n >= maxBands {
		// One band: the page as it was. Very many bands are no page of
		// sections but scattered glyphs (a hostile page); each band's
		// gutter search costs up to the page width.
		return blocks
	}
	var out [][]*frag
	start := 0
	for i := 1; i <= len(sorted); i++ {
		if i < len(sorted) && !gap(i) {
			continue
		}
		band := sorted[start:i]
		bb := orderBlocks(band)
		if len(bb) > 4 || slices.ContainsFunc(bb, fewLines) {
			// More than one column pair with full-width text around it, or
			// a "column" of a line or two: a chance gutter in running text
			// and inline math, not columns.
			bb = [][]*frag{band}
		}
		out = append(out, bb...)
		start = i
	}
	return out
}

// fewLines reports a block whose fragments lie on fewer than three
// baselines (a sub- or superscript counts as one of them).
func fewLines(b []*frag) bool { return baselines(b, 3) < 3 }

// orderBlocks finds a column gutter — a vertical white strip in the middle
// 30–70 % of the text's horizontal extent that left and right columns of
// text flank — and returns the fragments in reading order: full-width
// sections as they come top-down, and each two-column section as its left
// column followed by its right column.
func orderBlocks(frags []*frag) [][]*frag {
	if len(frags) < 8 {
		return [][]*frag{frags}
	}
	g, ok := findGutter(frags, math.Inf(-1), math.Inf(1), false)
	if !ok {
		return [][]*frag{frags}
	}
	oLo, oHi, across, ok := columnsAt(frags, g)
	if !ok || g.second && (!textColumns(frags, g.x, oLo, oHi) || !overrunsOnly(frags, g.x, oLo, oHi)) {
		return [][]*frag{frags}
	}
	// The strip is searched over the whole band, so text above or below
	// the columns counts against the gutter: a title block centred over
	// it can leave a white strip inside one column — between an alpha
	// list's labels and its entries — less covered. When the strip found
	// is crossed only above or below the columns, it is searched again
	// over the baselines of both columns, taking of the white strips
	// there the one nearest the middle, if it is another strip and
	// divides columns of text too (not the columns of a table or of a
	// figure's panels).
	if g.cover > 0 && across == 0 {
		if g2, ok := findGutter(frags, oLo, oHi, true); ok && g2.cover == 0 && math.Abs(g2.x-g.x) > float64(g.width+g2.width)/2+1 {
			if lo, hi, _, ok := columnsAt(frags, g2); ok && textColumns(frags, g2.x, lo, hi) {
				g = g2
			}
		}
	}
	gx := g.x
	side := func(f *frag) int {
		s := sideOf(f, gx)
		if s == 0 && g.second {
			// A line run over its measure across the gutter (overrunsOnly)
			// is read with its column.
			if gx-f.x0 > f.x1-gx {
				return -1
			}
			return 1
		}
		return s
	}
	sorted := append([]*frag(nil), frags...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].y > sorted[j].y })
	var blocks [][]*frag
	var left, right, span []*frag
	flushCols := func() {
		if len(left) > 0 {
			blocks = append(blocks, left)
		}
		if len(right) > 0 {
			blocks = append(blocks, right)
		}
		left, right = nil, nil
	}
	for _, f := range sorted {
		switch side(f) {
		case 0:
			flushCols()
			span = append(span, f)
		case -1:
			if len(span) > 0 {
				blocks = append(blocks, span)
				span = nil
			}
			left = append(left, f)
		case 1:
			if len(span) > 0 {
				blocks = append(blocks, span)
				span = nil
			}
			right = append(right, f)
		}
	}
	flushCols()
	if len(span) > 0 {
		blocks = append(blocks, span)
	}
	return blocks
}

// sideOf places a fragment left (-1) or right (1) of a gutter at gx, or
// across it (0). The gutter is the middle of a strip of whole points
// (findGutter), so a fragment that reaches half a point into it, as
// near as the strip can tell, still keeps to its side: a natbib list's
// first lines hang into the gutter up to the other column's line ends.
func sideOf(f *frag, gx float64) int {
	switch {
	case f.x1 <= gx+0.5:
		return -1
	case f.x0 >= gx-0.5:
		return 1
	}
	return 0
}

// columnsAt reports whether a gutter divides two columns standing side
// by side, each with lines of its own and few fragments across the gutter
// between them, the baselines where both columns have text and how many
// fragments on them cross the gutter.
func columnsAt(frags []*frag, g gutter) (oLo, oHi float64, ns int, ok bool) {
	gx := g.x
	lminY, lmaxY, rminY, rmaxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, f := range frags {
		switch sideOf(f, gx) {
		case -1:
			lminY, lmaxY = math.Min(lminY, f.y), math.Max(lmaxY, f.y)
		case 1:
			rminY, rmaxY = math.Min(rminY, f.y), math.Max(rmaxY, f.y)
		}
	}
	oLo, oHi = math.Max(lminY, rminY), math.Min(lmaxY, rmaxY)
	if oHi <= oLo {
		return 0, 0, 0, false
	}
	var lf, rf []*frag
	for _, f := range frags {
		if f.y < oLo || f.y > oHi {
			continue
		}
		switch sideOf(f, gx) {
		case -1:
			lf = append(lf, f)
		case 1:
			rf = append(rf, f)
		default:
			ns++
		}
	}
	// Each column has lines of its own: a line or two of justified text
	// whose wide spaces happen to line up is no gutter.
	if len(lf) < 3 || len(rf) < 3 || fewLines(lf) || fewLines(rf) || float64(ns) > 0.3*float64(min(len(lf), len(rf))) {
		return 0, 0, 0, false
	}
	// A strip a point wide is a gutter between columns of text, not a
	// chance gap in a display equation or a table: each column has a
	// dozen lines of its own.
	if g.width < 2 && (baselines(lf, narrowLines) < narrowLines || baselines(rf, narrowLines) < narrowLines) {
		return 0, 0, 0, false
	}
	return oLo, oHi, ns, true
}

// textColumns reports whether both sides of a gutter at gx, on baselines
// yLo..yHi, are columns of running text: a dozen lines or more, most of
// them with a run of words across most of the column's width, where a
// table's cells and a figure's labels are short.
func textColumns(frags []*frag, gx, yLo, yHi float64) bool {
	for _, s := range []int{-1, 1} {
		var fs []*frag
		for _, f := range frags {
			if f.y >= yLo && f.y <= yHi && sideOf(f, gx) == s {
				fs = append(fs, f)
			}
		}
		lines := makeLines(fs)
		x0, x1 := math.Inf(1), math.Inf(-1)
		for _, l := range lines {
			x0, x1 = math.Min(x0, l.x0), math.Max(x1, l.x1)
		}
		long := 0
		for _, l := range lines {
			if slices.ContainsFunc(l.frags, func(f *frag) bool { return f.x1-f.x0 >= 0.6*(x1-x0) }) {
				long++
			}
		}
		if len(lines) < narrowLines || 2*long < len(lines) {
			return false
		}
	}
	return true
}

// overrunsOnly reports whether every fragment that crosses a gutter at
// gx on baselines yLo..yHi lies nine tenths on one side of it: a column's
// line run over its measure, not text set across the gutter.
func overrunsOnly(frags []*frag, gx, yLo, yHi float64) bool {
	for _, f := range frags {
		if f.y < yLo || f.y > yHi || sideOf(f, gx) != 0 {
			continue
		}
		if w := 0.9 * (f.x1 - f.x0); gx-f.x0 < w && f.x1-gx < w {
			return false
		}
	}
	return true
}

// narrowLines is how many lines each column has beside a gutter one point
// wide (columnsAt) or one found on a second search (textColumns).
const narrowLines = 12

// baselines counts the distinct baselines of fragments, up to n (a sub- or
// superscript counts as one of them).
func baselines(b []*frag, n int) int {
	var ys []float64
	for _, f := range b {
		if !slices.ContainsFunc(ys, func(y float64) bool { return math.Abs(y-f.y) < 0.5*f.size }) {
			ys = append(ys, f.y)
			if len(ys) >= n {
				break
			}
		}
	}
	return len(ys)
}

// gutter is a white vertical strip between columns: its middle x, its
// width in whole points and how many fragments cross it.
type gutter struct {
	x            float64
	width, cover int
	second       bool // not the least covered strip, which is too narrow
}

// findGutter finds the least covered vertical strip in the middle 30–70 %
// of the horizontal extent of the fragments on baselines yLo..yHi and
// returns its middle. Of strips equally covered it takes the widest, or
// with centre the one nearest the middle of the extent. A strip is at
// least 2 pt wide, or 1 pt when no fragment crosses it: the gutter of
// two columns where one's lines end where the other's begin, as a natbib
// list's first lines hang into the column separation.
func findGutter(frags []*frag, yLo, yHi float64, centre bool) (gutter, bool) {
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, f := range frags {
		if f.y < yLo || f.y > yHi {
			continue
		}
		xmin = math.Min(xmin, f.x0)
		xmax = math.Max(xmax, f.x1)
	}
	ext := xmax - xmin
	if !(ext >= 100 && ext <= 1e5) {
		return gutter{}, false
	}
	base := int(math.Floor(xmin))
	n := int(math.Ceil(xmax)) - base + 2
	cover := make([]int, n+1)
	for _, f := range frags {
		if f.y < yLo || f.y > yHi {
			continue
		}
		a := int(math.Ceil(f.x0)) - base
		b := int(math.Floor(f.x1)) - base
		if b > a {
			cover[a]++
			cover[b]--
		}
	}
	for i := 1; i < len(cover); i++ {
		cover[i] += cover[i-1]
	}
	lo := int(xmin+0.3*ext) - base
	hi := int(xmin+0.7*ext) - base
	mid := xmin + 0.5*ext - float64(base)
	wide := func(c, l int) bool { return l >= 2 || c == 0 && l >= 1 }
	// The least covered strip, and the least covered of the wide ones.
	var least, wideLeast struct{ start, n, cover int }
	least.cover, wideLeast.cover = math.MaxInt, math.MaxInt
	better := func(cur struct{ start, n, cover int }, i, n, c int) bool {
		switch {
		case cur.n == 0 || c < cur.cover:
			return true
		case c > cur.cover:
			return false
		case centre:
			return math.Abs(float64(i)+float64(n)/2-mid) < math.Abs(float64(cur.start)+float64(cur.n)/2-mid)
		}
		return n > cur.n
	}
	for i := lo; i <= hi; {
		c := cover[i]
		j := i
		for j <= hi && cover[j] == c {
			j++
		}
		if better(least, i, j-i, c) && (!centre || wide(c, j-i) || least.n == 0 || c < least.cover) {
			least.start, least.n, least.cover = i, j-i, c
		}
		if wide(c, j-i) && better(wideLeast, i, j-i, c) {
			wideLeast.start, wideLeast.n, wideLeast.cover = i, j-i, c
		}
		i = j
	}
	g := gutter{x: float64(base+least.start) + float64(least.n)/2, width: least.n, cover: least.cover}
	if !wide(least.cover, least.n) {
		if wideLeast.n == 0 || wideLeast.cover > least.cover+2 || wideLeast.start+wideLeast.n < least.start || least.start+least.n < wideLeast.start {
			return gutter{}, false
		}
		// A sliver less covered than any wide strip beside it: a line or
		// two run over their measure (a long word, a URL) across the
		// gutter. The wide strip is a gutter only between columns of
		// text (orderBlocks).
		g = gutter{x: float64(base+wideLeast.start) + float64(wideLeast.n)/2, width: wideLeast.n, cover: wideLeast.cover, second: true}
	}
	return g, true
}

// makeLines clusters fragments into lines by baseline, top to bottom.
func makeLines(frags []*frag) []*textLine {
	sorted := append([]*frag(nil), frags...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].y > sorted[j].y })
	var lines []*textLine
	for _, f := range sorted {
		var best *textLine
		bestD := math.Inf(1)
		for k := len(lines) - 1; k >= 0 && k >= len(lines)-64; k-- {
			l := lines[k]
			if l.y-f.y > 2*math.Max(l.size, f.size) {
				break
			}
			d := math.Abs(l.y - f.y)
			// Vertical overlap of the two text bands, relative to the smaller.
			top := math.Min(l.y+0.75*l.size, f.y+0.75*f.size)
			bot := math.Max(l.y-0.25*l.size, f.y-0.25*f.size)
			ov := (top - bot) / math.Min(l.size, f.size)
			if ov < 0.5 || d >= bestD {
				continue
			}
			if overlapsX(l, f) {
				continue
			}
			best, bestD = l, d
		}
		if best == nil {
			lines = append(lines, &textLine{frags: []*frag{f}, x0: f.x0, x1: f.x1, y: f.y, size: f.size})
			continue
		}
		best.frags = append(best.frags, f)
		best.x0 = math.Min(best.x0, f.x0)
		best.x1 = math.Max(best.x1, f.x1)
		if f.chars > 0 && f.size > best.size*1.2 {
			// A larger fragment sets the line's baseline (sub/superscripts don't).
			best.y = f.y
		}
		best.size = math.Max(best.size, f.size)
	}
	sort.SliceStable(lines, func(i, j int) bool {
		if math.Abs(lines[i].y-lines[j].y) < 0.2*math.Min(lines[i].size, lines[j].size) {
			return lines[i].x0 < lines[j].x0
		}
		return lines[i].y > lines[j].y
	})
	return lines
}

func overlapsX(l *textLine, f *frag) bool {
	if len(l.frags) > 64 {
		return false // bounds the work on hostile pages; real lines have few fragments
	}
	for _, o := range l.frags {
		if raisedInto(o, f) || raisedInto(f, o) || scripts(l, o, f) {
			continue
		}
		ov := math.Min(o.x1, f.x1) - math.Max(o.x0, f.x0)
		if ov > 0.3*math.Min(o.size, f.size) && ov > 0.5*math.Min(o.x1-o.x0, f.x1-f.x0) {
			return true
		}
	}
	return false
}

// raisedInto reports a short fragment set smaller and raised above a
// fragment of its line, kerned back over it, as in the LaTeX logo: it
// belongs to that line although the two overlap horizontally.
func raisedInto(small, base *frag) bool {
	return small.chars <= 2 && small.size <= 0.85*base.size && small.y-base.y > 0.1*base.size &&
		small.y-base.y < 0.5*base.size
}

// scripts reports a subscript and a superscript set one above the other
// on a line of larger type ("a" with "l" above and "i" below): short
// fragments, both smaller than the line, whose baselines differ.
func scripts(l *textLine, a, b *frag) bool {
	return a.chars <= 3 && b.chars <= 3 && a.size <= 0.85*l.size && b.size <= 0.85*l.size &&
		math.Abs(a.y-b.y) > 0.3*math.Min(a.size, b.size)
}

// WideGap is the blank, in font sizes, that Line.Gaps records: wider
// than any word space. Lines made of recognised words (OCR) record their
// gaps by the same measure.
const WideGap = 1.5

// lineText joins a line's glyphs left to right and reports whether most
// characters are bold, the most common glyph size, and the line's wide
// gaps (X in display space; none when the text is reordered).
func lineText(l *textLine) (string, bool, float64, []Gap) {
	frags := l.frags
	slices.SortStableFunc(frags, func(a, b *frag) int { return cmp.Compare(a.x0, b.x0) })
	total := 0
	for _, f := range frags {
		total += len(f.g)
	}
	gs := make([]*glyph, 0, total)
	for _, f := range frags {
		for i := range f.g {
			gs = append(gs, &f.g[i])
		}
	}
	texts := make([]string, len(gs))
	for i, g := range gs {
		texts[i] = g.text
	}
	composed := combineAccents(gs, texts)
	boldN, n := 0, 0
	// Glyphs per font size; a line has few sizes, so a list beats a map.
	type sizeCount struct {
		size float64
		n    int
	}
	var sizesBuf [4]sizeCount
	sizes := sizesBuf[:0]
	rtl := false
	// walk emits the line's pieces, glyph texts and word spaces, left to
	// right; stats counts the glyphs on the first walk only.
	var gaps []Gap
	var sb strings.Builder
	walk := func(emit func(string), stats bool) {
		end := math.Inf(-1)
		var prev *glyph
		pendingSpace := false
		for i, g := range gs {
			if g.isWS {
				pendingSpace = true
				continue
			}
			if texts[i] == "" {
				continue
			}
			if prev != nil {
				gap := g.x - end
				ref := math.Max(prev.size, g.size)
				if pendingSpace || gap > wordGap*ref || footnoteMark(prev, g) {
					emit(" ")
					if stats && gap > WideGap*ref && len(gaps) < MaxGaps {
						gaps = append(gaps, Gap{At: sb.Len(), X: g.x})
					}
				}
			}
			pendingSpace = false
			emit(texts[i])
			if end < g.x+g.w || prev == nil {
				end = g.x + g.w
			}
			prev = g
			if !stats {
				continue
			}
			rtl = rtl || mayBeRTL(texts[i])
			c := utf8.RuneCountInString(g.text)
			n += c
			if g.bold {
				boldN += c
			}
			sz := math.Round(g.size*2) / 2
			if k := slices.IndexFunc(sizes, func(e sizeCount) bool { return e.size == sz }); k >= 0 {
				sizes[k].n += c
			} else {
				sizes = append(sizes, sizeCount{sz, c})
			}
		}
	}
	walk(func(p string) { sb.WriteString(p) }, true)
	out := sb.String()
	if rtl || composed {
		gaps = nil // byte offsets that reordering or composition moves
	}
	if rtl {
		var parts []string
		walk(func(p string) { parts = append(parts, p) }, false)
		out = strings.Join(logicalOrder(parts), "")
	}
	best, bestN := 0.0, -1
	for _, e := range sizes {
		if e.n > bestN || (e.n == bestN && e.size > best) {
			best, bestN = e.size, e.n
		}
	}
	if composed {
		out = norm.NFC.String(out)
	}
	return out, n > 0 && boldN*2 > n, best, gaps
}

// MaxGaps bounds the gaps recorded for one line (Line.Gaps).
const MaxGaps = 32

// footnoteMark reports a raised, smaller digit (a footnote or affiliation
// mark) followed by a letter of the line's own size: set tight against the
// next word as it is printed, it is still not part of that word ("³We").
func footnoteMark(prev, g *glyph) bool {
	if g.size < 1.2*prev.size || prev.y-g.y < 0.2*g.size {
		return false
	}
	r, _ := utf8.DecodeRuneInString(prev.text)
	n, _ := utf8.DecodeRuneInString(g.text)
	return r >= '0' && r <= '9' && unicode.IsLetter(n)
}

// spacingAccents maps spacing diacritics, which TeX and others draw as
// separate glyphs over a letter, to combining marks.
var spacingAccents = map[string]string{
	"´": "\u0301", "`": "\u0300", "ˆ": "\u0302", "^": "\u0302", "˜": "\u0303", "~": "\u0303",
	"¯": "\u0304", "˘": "\u0306", "˙": "\u0307", "¨": "\u0308", "˚": "\u030A", "˝": "\u030B",
	"ˇ": "\u030C", "¸": "\u0327", "˛": "\u0328",
}

// combineAccents attaches an accent glyph to the letter it overlaps,
// rewriting texts so the letter carries a combining mark and the accent
// itself is empty. It reports whether anything was combined.
func combineAccents(gs []*glyph, texts []string) bool {
	done := false
	for i, g := range gs {
		if t := g.text; t == "" || t[0] < 0x80 && t[0] != '`' && t[0] != '^' && t[0] != '~' {
			continue // no spacing accent: spares the map lookup
		}
		mark, ok := spacingAccents[g.text]
		if !ok {
			continue
		}
		c := g.x + g.w/2
		over := func(j int) bool {
			if j < 0 || j >= len(gs) || gs[j].isWS || texts[j] == "" || spacingAccents[gs[j].text] != "" {
				return false
			}
			h := gs[j]
			return c > h.x-0.05*h.size && c < h.x+h.w+0.05*h.size && math.Abs(h.y-g.y) < 1.2*h.size
		}
		switch {
		case over(i + 1):
			texts[i+1] += mark
		case over(i - 1):
			texts[i-1] += mark
		default:
			continue
		}
		texts[i] = ""
		done = true
	}
	return done
}

// lineGaps returns the usual baseline distance between consecutive lines.
func lineGaps(b []*textLine) float64 {
	var ds []float64
	for i := 1; i < len(b); i++ {
		if d := b[i-1].y - b[i].y; d > 0.5*b[i].size {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return 0
	}
	sort.Float64s(ds)
	// A low quantile: headings and figure gaps only widen the spacing.
	return ds[len(ds)*2/5]
}

// paragraphBreak reports a blank line between two lines: a gap clearly
// larger than the block's usual line spacing, or a change of font size.
func paragraphBreak(a, b *textLine, median float64) bool {
	d := a.y - b.y
	if d < 0 {
		return true
	}
	if median > 0 && d > 1.45*median && d > 1.2*b.size {
		return true
	}
	if median == 0 && d > 1.8*b.size {
		return true
	}
	r := a.size / b.size
	return r > 1.25 || r < 0.8
}

// lineBox returns the line's normalised box with origin top-left.
func lineBox(l *textLine, w, h float64) Box {
	dir := uint8(0)
	if len(l.frags) > 0 {
		dir = l.frags[0].dir
	}
	x0, x1 := l.x0, l.x1
	y0, y1 := l.y-0.25*l.size, l.y+0.8*l.size
	inv := (4 - dir) % 4
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range [4][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := rotateQ(p[0], p[1], inv)
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		minY, maxY = math.Min(minY, y), math.Max(maxY, y)
	}
	clamp := func(v float64) float64 { return math.Max(0, math.Min(1, v)) }
	if w <= 0 || h <= 0 {
		return Box{}
	}
	bx := clamp(minX / w)
	by := clamp((h - maxY) / h)
	return Box{X: bx, Y: by, W: clamp(maxX/w) - bx, H: clamp((h-minY)/h) - by}
}

// logicalOrder turns a line's pieces (glyph texts and spaces), which are in
// visual order, left to right, into reading order when the line holds
// right-to-left script (Hebrew, Arabic), as pdftotext does: a line mostly
// right-to-left is reversed, and the left-to-right runs in it (Latin
// words, numbers) are put back in order; in a line mostly left-to-right
// only the right-to-left runs are reversed. A glyph's own text (a lam-alef
// ligature's two letters) is already in logical order and stays as it is.
func logicalOrder(parts []string) []string {
	if !slices.ContainsFunc(parts, mayBeRTL) {
		return parts
	}
	rtl, ltr := 0, 0
	for _, p := range parts {
		switch strongClass(p) {
		case -1:
			rtl++
		case 1:
			ltr++
		}
	}
	if rtl == 0 {
		return parts
	}
	if rtl >= ltr {
		slices.Reverse(parts)
		reverseRuns(parts, strongClass)
	} else {
		reverseRuns(parts, func(p string) int { return -strongClass(p) })
	}
	return parts
}

// strongClass is -1 for a piece starting with a right-to-left letter, 1
// for a left-to-right letter or a digit, 0 for spaces and punctuation.
func strongClass(p string) int {
	for _, r := range p {
		props, _ := bidi.LookupRune(r)
		switch props.Class() {
		case bidi.R, bidi.AL:
			return -1
		case bidi.L, bidi.EN, bidi.AN:
			return 1
		case bidi.NSM:
			continue
		}
		return 0
	}
	return 0
}

// reverseRuns reverses in place each maximal run of pieces of class 1,
// with the neutral pieces (class 0) between them.
func reverseRuns(parts []string, class func(string) int) {
	for i := 0; i < len(parts); {
		if class(parts[i]) != 1 {
			i++
			continue
		}
		end := i
		for j := i + 1; j < len(parts); j++ {
			c := class(parts[j])
			if c == -1 {
				break
			}
			if c == 1 {
				end = j
			}
		}
		slices.Reverse(parts[i : end+1])
		i = end + 1
	}
}

// mayBeRTL reports whether a piece starts in a block of right-to-left
// scripts (Hebrew, Arabic, Syriac, Thaana, NKo and their presentation
// forms, the historic ones of the supplementary plane), so that most
// lines, CJK ones included, are passed over without a bidi look-up.
func mayBeRTL(p string) bool {
	if p == "" || p[0] < 0xD6 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(p)
	return (r >= 0x0590 && r <= 0x08FF) || (r >= 0xFB1D && r <= 0xFDFF) || (r >= 0xFE70 && r <= 0xFEFF) ||
		(r >= 0x10800 && r <= 0x10FFF) || (r >= 0x1E800 && r <= 0x1EFFF)
}
