package pdf

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Kinds of a Mark: the researcher's own marks on a page, one per
// annotation subtype that is one (§12.5.6). Link, Widget and Popup
// annotations are not marks.
const (
	MarkHighlight = "highlight" // /Highlight
	MarkUnderline = "underline" // /Underline
	MarkStrikeOut = "strikeout" // /StrikeOut
	MarkSquiggly  = "squiggly"  // /Squiggly
	MarkNote      = "note"      // /Text: a sticky note
	MarkFreeText  = "freetext"  // /FreeText: text typed onto the page
	MarkInk       = "ink"       // /Ink: a freehand drawing
	MarkStamp     = "stamp"     // /Stamp
	MarkCaret     = "caret"     // /Caret: an insertion mark
)

// markKinds maps annotation subtypes to mark kinds.
var markKinds = map[string]string{
	"Highlight": MarkHighlight,
	"Underline": MarkUnderline,
	"StrikeOut": MarkStrikeOut,
	"Squiggly":  MarkSquiggly,
	"Text":      MarkNote,
	"FreeText":  MarkFreeText,
	"Ink":       MarkInk,
	"Stamp":     MarkStamp,
	"Caret":     MarkCaret,
}

// IsMarkKind reports whether kind is one of the Mark kinds.
func IsMarkKind(kind string) bool {
	for _, k := range markKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// textMarkup reports whether a mark kind covers page text (its Text is the
// text under its QuadPoints).
func textMarkup(kind string) bool {
	switch kind {
	case MarkHighlight, MarkUnderline, MarkStrikeOut, MarkSquiggly:
		return true
	}
	return false
}

// Limits on the marks read from a document. A page or document with more
// marks keeps the first ones in /Annots order; a longer text or comment is
// cut, on a character boundary, and ends in "…".
const (
	MaxPageMarks     = 1000   // marks kept per page
	MaxDocumentMarks = 20_000 // marks kept per document
	MaxMarkText      = 4000   // bytes of a mark's marked text
	MaxMarkComment   = 8000   // bytes of a mark's comment, replies included
	maxMarkQuads     = 256    // quadrilaterals read per mark
	maxMarkReplies   = 64     // replies folded into one mark
	// maxMarkTests bounds the glyph-in-quadrilateral tests of one page:
	// past it, a mark keeps its comment but not its text.
	maxMarkTests = 4_000_000
)

// Mark is one of the researcher's marks on a page: a highlight, underline,
// strike-out or squiggly with the page text it covers, or a note, free
// text, ink drawing, stamp or caret with its comment. Its text and comment
// are the file's data, as untrusted as the page's text.
type Mark struct {
	Kind string // one of the Mark kinds
	// Text is the page text under a text-markup mark's QuadPoints (its
	// Rect when it has none): the words whose glyphs the quadrilaterals
	// cover, in reading order, lines joined by spaces (a line-end hyphen
	// of a word split over two lines removed). Empty for other kinds.
	Text string
	// Comment is the mark's own text: /Contents, else its /RC rich text
	// as plain text, else its Popup's /Contents. Replies (annotations
	// /IRT the mark) follow it, one paragraph each, "Author: text".
	Comment string
	Author  string // /T
	Created string // /M, else /CreationDate, as RFC 3339 when it parses, else as written
	Color   string // /C as #rrggbb, "" when unset
	Box     Box    // the mark's /Rect on the displayed page
}

// markParse is what pageMarks knows of one annotation while it reads them.
type markParse struct {
	m      Mark
	nr     int // object number, 0 for a direct annotation
	irt    int // object number of the annotation it replies to
	reply  bool
	away   bool         // a reply to an annotation not on the page
	quads  [][4]float64 // display-space boxes: minX, minY, maxX, maxY
	hidden bool
}

// pageMarks reads the marks of a page whose shown glyphs are glyphs (in
// display space, before layout), at most MaxPageMarks and what is left of
// the document's MaxDocumentMarks. base maps default user space to the
// displayed page, w × h. at says where each mark begins (0–1 of the page,
// origin top-left), for orderMarks; sels are what each text-markup mark
// covers, whose text markTexts reads once the page is laid out.
func (d *doc) pageMarks(pi *pageInfo, base matrix, w, h float64, glyphs []glyph) (out []Mark, at [][2]float64, refs []markRef, sels []markSel) {
	annots := d.array(pi.dict["Annots"])
	if len(annots) == 0 || d.marksLeft() <= 0 {
		return nil, nil, nil, nil
	}
	if len(annots) > maxAnnots*4 {
		annots = annots[:maxAnnots*4]
	}
	var all []markParse
	byNr := map[int]int{}
	for _, a := range annots {
		if d.stopped() != nil {
			return nil, nil, nil, nil
		}
		ad := d.dict(a)
		if ad == nil {
			continue
		}
		kind, ok := markKinds[d.name(ad["Subtype"])]
		if !ok {
			continue
		}
		mp := markParse{nr: objNr(a), irt: objNr(ad["IRT"])}
		if f, _ := d.num(ad["F"]); int(f)&(annotHidden|annotNoView) != 0 {
			mp.hidden = true
		}
		mp.reply = mp.irt > 0 && mp.irt != mp.nr
		mp.m.Kind = kind
		mp.m.Comment = d.markComment(ad)
		mp.m.Author = oneLine(d.capText(ad["T"], 400))
		mp.m.Created = pdfDate(d.capText(ad["M"], 64))
		if mp.m.Created == "" {
			mp.m.Created = pdfDate(d.capText(ad["CreationDate"], 64))
		}
		mp.m.Color = d.markColor(ad["C"])
		rect, haveRect := d.rect(ad["Rect"])
		if haveRect && finiteRect(rect) {
			mp.m.Box = rectBox(rect, base, w, h)
		}
		if textMarkup(kind) {
			mp.quads = d.markQuads(ad["QuadPoints"], base)
			if len(mp.quads) == 0 && haveRect && finiteRect(rect) {
				mp.quads = [][4]float64{displayBox(rect, base)}
			}
		}
		if mp.nr > 0 {
			if _, seen := byNr[mp.nr]; seen {
				continue // the same annotation twice in /Annots
			}
			byNr[mp.nr] = len(all)
		}
		all = append(all, mp)
		if len(all) >= 2*MaxPageMarks {
			break
		}
	}
	// Replies attach to the mark they answer, following /IRT to the first
	// annotation that answers none; a reply whose chain loops is a mark of
	// its own, and one whose chain leaves the page is too until
	// foldReplies finds what it answers on another page.
	root := func(i int) int {
		seen := map[int]bool{}
		for all[i].reply {
			j, ok := byNr[all[i].irt]
			if !ok || seen[j] {
				return -1
			}
			seen[i] = true
			i = j
		}
		return i
	}
	replies := map[int][]int{}
	for i := range all {
		if !all[i].reply {
			continue
		}
		if r := root(i); r >= 0 && r != i {
			replies[r] = append(replies[r], i)
			continue
		}
		all[i].reply = false
		all[i].away = true
	}
	tests := 0
	for i := range all {
		mp := &all[i]
		if mp.reply || mp.hidden {
			continue
		}
		if len(out) >= MaxPageMarks || len(out) >= d.marksLeft() {
			break
		}
		m := mp.m
		var parts []string
		if m.Comment != "" {
			parts = append(parts, m.Comment)
		}
		for k, j := range replies[i] {
			if k >= maxMarkReplies {
				break
			}
			r := all[j].m
			if r.Comment == "" {
				continue
			}
			if r.Author != "" {
				parts = append(parts, r.Author+": "+r.Comment)
			} else {
				parts = append(parts, r.Comment)
			}
		}
		m.Comment = capString(strings.Join(parts, "\n\n"), MaxMarkComment)
		start := [2]float64{m.Box.X + m.Box.W/2, m.Box.Y + m.Box.H/2}
		var sel markSel
		if len(mp.quads) > 0 {
			sel.seqs, tests = coveredGlyphs(glyphs, mp.quads, tests)
			sel.quads = mp.quads
		}
		out = append(out, m)
		at = append(at, start)
		sels = append(sels, sel)
		ref := markRef{}
		for _, j := range append([]int{i}, replies[i]...) {
			if all[j].nr > 0 {
				ref.nrs = append(ref.nrs, all[j].nr)
			}
		}
		if mp.away {
			ref.irt = mp.irt
		}
		refs = append(refs, ref)
	}
	d.markCount += len(out)
	return out, at, refs, sels
}

// markSel is what a text-markup mark covers: its quadrilaterals
// (display-space boxes) and the glyphs (their seq) whose centre lies in
// one of them.
type markSel struct {
	seqs  []int32
	quads [][4]float64
}

// markTexts sets the text of each mark that covers glyphs (sels, as
// pageMarks gave them) from the page's layout (blocks): the covered part
// of each of the page's lines they touch, in the page's reading order
// and each line's own order, so that a highlight over a formula reads its
// sub- and superscripts beside their base, as the page's text has them.
// The parts in one quadrilateral read as its cells (cellLines): a
// table's row left to right where the page reads it column by column, a
// formula whose fonts were drawn one after the other left to right. A
// mark then begins (at) where its first line does.
func markTexts(marks []Mark, at [][2]float64, sels []markSel, blocks [][]*textLine, w, h float64) {
	var lines []*textLine
	for _, b := range blocks {
		lines = append(lines, b...)
	}
	var lineOf map[int32]int
	work := 0 // pairs of pieces compared on the page (cellLines)
	for k, sel := range sels {
		if len(sel.seqs) == 0 {
			continue
		}
		if lineOf == nil {
			lineOf = map[int32]int{}
			for i, l := range lines {
				for _, f := range l.frags {
					for _, g := range f.g {
						lineOf[g.seq] = i
					}
				}
			}
		}
		in := make(map[int32]bool, len(sel.seqs))
		var touched []int
		for _, s := range sel.seqs {
			in[s] = true
			if i, ok := lineOf[s]; ok {
				touched = append(touched, i)
			}
		}
		slices.Sort(touched)
		touched = slices.Compact(touched)
		var parts []*textLine
		for _, i := range touched {
			if part := coveredPart(lines[i], in); part != nil {
				parts = append(parts, part)
			}
		}
		var out []Line
		for _, row := range markRows(parts, sel.quads, &work) {
			text, _, _, _ := lineText(row)
			out = append(out, Line{Text: text, Box: lineBox(row, w, h)})
		}
		marks[k].Text = capString(joinMarkLines(out), MaxMarkText)
		if len(out) > 0 {
			b := out[0].Box
			at[k] = [2]float64{b.X + min(b.W/2, 0.005), b.Y + b.H/2}
		}
	}
}

// maxCellParts bounds the pieces of lines a quadrilateral's text is
// arranged from; past it they read in the page's order.
const maxCellParts = 256

// markRows arranges the covered parts of a mark's lines (in the page's
// order) into the lines its text reads: each part cut at its wide gaps
// (cutWide), the pieces in one quadrilateral as cells (cellLines), in the
// quadrilaterals' order; a piece in none (its glyphs in two, or set
// vertically) after the piece before it. A piece in two quadrilaterals
// that overlap (a row's box reaching over the next row's line) is in the
// one whose vertical middle is nearest its own.
func markRows(parts []*textLine, quads [][4]float64, work *int) []*textLine {
	quadOf := func(p *textLine) int {
		if p.frags[0].dir != 0 {
			return -1
		}
		// The middle of its largest fragment: a piece of a line the
		// layout joined over two baselines keeps the line's.
		f := p.frags[0]
		for _, g := range p.frags {
			if g.size > f.size {
				f = g
			}
		}
		x, y := (p.x0+p.x1)/2, f.y+0.33*f.size
		best, off := -1, math.Inf(1)
		for i, q := range quads {
			if x >= q[0] && x <= q[2] && y >= q[1] && y <= q[3] {
				if d := math.Abs(y - (q[1]+q[3])/2); d < off {
					best, off = i, d
				}
			}
		}
		return best
	}
	type group struct {
		key   int
		parts []*textLine
	}
	// A part is placed piece by piece (cutWide): a line the page's
	// layout joined over cells of two rows set on staggered baselines.
	var pieces []*textLine
	for _, p := range parts {
		if p.frags[0].dir != 0 {
			pieces = append(pieces, p)
			continue
		}
		pieces = append(pieces, cutWide(p)...)
	}
	var groups []*group
	at := map[int]*group{}
	key := -1
	for _, p := range pieces {
		q := quadOf(p)
		if g, ok := at[q]; ok && q >= 0 {
			g.parts = append(g.parts, p)
			continue
		}
		if q >= 0 {
			key = q
		}
		g := &group{key: key, parts: []*textLine{p}}
		at[q] = g
		groups = append(groups, g)
	}
	// The quadrilaterals in their order: a viewer sets them in the
	// order the reader selected, row after row.
	slices.SortStableFunc(groups, func(a, b *group) int { return cmp.Compare(a.key, b.key) })
	var out []*textLine
	for _, g := range groups {
		out = append(out, cellLines(g.parts, work)...)
	}
	return out
}

// cellLines arranges the parts of lines in one quadrilateral as a reader
// selecting them reads them: each part cut at its wide gaps (WideGap)
// into pieces; pieces that overlap horizontally and touch vertically one
// cell (a table's cell set on two lines, a formula drawn font by font);
// a cell on two baselines or more cut at the blanks that run down all
// its lines (cutGutters); the cells in bands top to bottom, left to
// right in a band (a table's row, its cells the page may read column by
// column); a cell's pieces on one baseline one line of their fragments
// (interleave), its lines top to bottom. Past maxCellParts pieces, or once the page's pairs of
// pieces compared (work) reach maxMarkTests, the parts read in the
// page's order.
func cellLines(parts []*textLine, work *int) []*textLine {
	var pieces []*textLine
	stacked := false
	for _, p := range parts {
		for _, c := range cutWide(p) {
			ps := splitStacked(c, work)
			stacked = stacked || len(ps) > 1
			pieces = append(pieces, ps...)
		}
	}
	if len(parts) == 1 && !stacked {
		return parts
	}
	if n := len(pieces); n > maxCellParts || *work+n*n > maxMarkTests {
		return parts
	}
	*work += len(pieces) * len(pieces)
	cells := joinCells(pieces)
	// A cell's lines cut at the blanks that run down all of them: the
	// columns of a row whose cells are set on staggered lines, joined
	// through a gap narrower than WideGap; the cells are then joined
	// again from the pieces cut.
	var cut []*textLine
	recut := false
	for _, c := range cells {
		ps, ok := cutGutters(c.pieces, work)
		recut = recut || ok
		cut = append(cut, ps...)
	}
	if n := len(cut); recut && n <= maxCellParts && *work+n*n <= maxMarkTests {
		*work += n * n
		cells = joinCells(cut)
	}
	// Bands: cells sorted from the top, each joining the band above while
	// it overlaps it vertically.
	slices.SortStableFunc(cells, func(a, b *markCell) int { return cmp.Compare(b.top, a.top) })
	var out []*textLine
	for start := 0; start < len(cells); {
		end, low := start+1, cells[start].bot
		for end < len(cells) && cells[end].top > low {
			low = math.Min(low, cells[end].bot)
			end++
		}
		band := cells[start:end]
		slices.SortStableFunc(band, func(a, b *markCell) int { return cmp.Compare(a.x0, b.x0) })
		for _, c := range band {
			out = append(out, cellRows(c.pieces)...)
		}
		start = end
	}
	return out
}

// markCell is pieces of lines that read as one table cell (cellLines).
type markCell struct {
	pieces       []*textLine
	x0, top, bot float64
}

// joinCells joins pieces that overlap horizontally and touch vertically
// into cells, in the order of their first pieces.
func joinCells(pieces []*textLine) []*markCell {
	top := func(p *textLine) float64 { return p.y + 0.75*p.size }
	bot := func(p *textLine) float64 { return p.y - 0.25*p.size }
	// Union-find.
	up := make([]int, len(pieces))
	for i := range up {
		up[i] = i
	}
	find := func(i int) int {
		for up[i] != i {
			up[i] = up[up[i]]
			i = up[i]
		}
		return i
	}
	for i, a := range pieces {
		for k := i + 1; k < len(pieces); k++ {
			b := pieces[k]
			if math.Min(a.x1, b.x1) <= math.Max(a.x0, b.x0) {
				continue
			}
			gap := math.Max(bot(a), bot(b)) - math.Min(top(a), top(b))
			if gap < 0.6*math.Max(a.size, b.size) {
				up[find(i)] = find(k)
			}
		}
	}
	byRoot := map[int]*markCell{}
	var cells []*markCell
	for i, p := range pieces {
		r := find(i)
		c := byRoot[r]
		if c == nil {
			c = &markCell{x0: p.x0, top: top(p), bot: bot(p)}
			byRoot[r] = c
			cells = append(cells, c)
		}
		c.pieces = append(c.pieces, p)
		c.x0, c.top, c.bot = math.Min(c.x0, p.x0), math.Max(c.top, top(p)), math.Min(c.bot, bot(p))
	}
	return cells
}

// gutterWidth is the narrowest blank, in font sizes, that cutGutters
// cuts a cell at: wider than a word space, as a table's columns are
// set apart, narrower than WideGap.
const gutterWidth = 1.0

// cutGutters cuts a cell's pieces at its gutters: blanks at least
// gutterWidth font sizes wide that run down all of its lines, with
// glyphs of two baselines or more on either side. A table's header whose
// cells are set on two staggered lines ("train" over "steps" beside
// "PPL" over "(dev)") joins its columns into one cell through the lines
// that reach across them; read as one cell its lines would read top to
// bottom, each across all the columns. A cell on one baseline (a line of
// a formula) has no gutter. Its glyphs count against the page's bound
// on pairs compared (work): once it would pass maxMarkTests the cell is
// kept whole. It reports whether it cut any.
func cutGutters(pieces []*textLine, work *int) ([]*textLine, bool) {
	if len(pieces) < 2 {
		return pieces, false
	}
	type span struct{ x0, x1, y float64 }
	var spans []span
	size := 0.0
	for _, p := range pieces {
		for _, f := range p.frags {
			size = math.Max(size, f.size)
			for _, g := range f.g {
				if !g.isWS {
					spans = append(spans, span{g.x, g.x + g.w, f.y})
				}
			}
		}
	}
	if len(spans) < 4 || *work+len(spans) > maxMarkTests {
		return pieces, false
	}
	*work += len(spans)
	// Baselines: the fragments' baselines, grouped where they lie within
	// half a size of the one before.
	ys := make([]float64, len(spans))
	for i, s := range spans {
		ys[i] = s.y
	}
	slices.Sort(ys)
	ys = slices.Compact(ys)
	var bases []float64 // the lowest baseline of each group
	for i, y := range ys {
		if i == 0 || y-ys[i-1] >= 0.5*size {
			bases = append(bases, y)
		}
	}
	if len(bases) < 2 {
		return pieces, false
	}
	baseOf := func(y float64) int {
		i, _ := slices.BinarySearch(bases, y)
		if i == len(bases) || bases[i] > y {
			i--
		}
		return i
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.x0, b.x0) })
	// left[i] is the number of baselines of spans[:i], right[i] of
	// spans[i:].
	left, right := make([]int, len(spans)+1), make([]int, len(spans)+1)
	seen := make([]bool, len(bases))
	for i, s := range spans {
		left[i+1] = left[i]
		if b := baseOf(s.y); !seen[b] {
			seen[b] = true
			left[i+1]++
		}
	}
	clear(seen)
	for i := len(spans) - 1; i >= 0; i-- {
		right[i] = right[i+1]
		if b := baseOf(spans[i].y); !seen[b] {
			seen[b] = true
			right[i]++
		}
	}
	var cuts []float64
	reach := spans[0].x1
	for i := 1; i < len(spans); i++ {
		s := spans[i]
		if s.x0-reach >= gutterWidth*size && left[i] >= 2 && right[i] >= 2 {
			cuts = append(cuts, (reach+s.x0)/2)
		}
		reach = math.Max(reach, s.x1)
	}
	if len(cuts) == 0 {
		return pieces, false
	}
	var out []*textLine
	for _, p := range pieces {
		cols := make([]*textLine, len(cuts)+1)
		for _, f := range p.frags {
			start, col := 0, -1
			for k, g := range f.g {
				c, _ := slices.BinarySearch(cuts, g.x)
				if col >= 0 && c != col {
					cols[col] = appendPiece(cols[col], p, f, f.g[start:k])
					start = k
				}
				col = c
			}
			if col >= 0 {
				cols[col] = appendPiece(cols[col], p, f, f.g[start:])
			}
		}
		for _, c := range cols {
			if c != nil && len(c.frags) > 0 {
				out = append(out, c)
			}
		}
	}
	return out, true
}

// appendPiece adds to piece l (made on p's line when nil) a fragment of
// f's glyphs gs, as appendFrag does.
func appendPiece(l, p *textLine, f *frag, gs []glyph) *textLine {
	if l == nil {
		l = &textLine{y: p.y, size: p.size, x0: math.Inf(1), x1: math.Inf(-1)}
	}
	n := len(l.frags)
	l.frags = appendFrag(l.frags, f, gs)
	if len(l.frags) > n {
		nf := l.frags[n]
		l.x0, l.x1 = math.Min(l.x0, nf.x0), math.Max(l.x1, nf.x1)
	}
	return l
}

// cutWide cuts a part of a line at its blanks wider than WideGap font
// sizes: the cells of a table's row that the page set on one line.
func cutWide(p *textLine) []*textLine {
	frags := slices.Clone(p.frags)
	slices.SortStableFunc(frags, func(a, b *frag) int { return cmp.Compare(a.x0, b.x0) })
	var out []*textLine
	var cur *textLine
	for _, f := range frags {
		if cur == nil || f.x0-cur.x1 > WideGap*math.Max(f.size, cur.size) {
			cur = &textLine{y: p.y, size: p.size, x0: f.x0, x1: f.x1}
			out = append(out, cur)
		}
		cur.frags = append(cur.frags, f)
		cur.x1 = math.Max(cur.x1, f.x1)
	}
	return out
}

// splitStacked cuts a piece of a line whose fragments stack — two that
// overlap horizontally by half the narrower one, their baselines half
// the larger size apart or more: a fraction the page's layout joined
// into one line — into a piece per stacked fragment, on its own
// baseline, and runs of the fragments between them; cellLines then reads
// the fraction's lines top to bottom as one cell. A piece with no
// stacked fragments is kept whole: a script beside its base stays on
// its line. So is one of more than maxCellParts fragments, or once the
// page's pairs compared (work) would pass maxMarkTests.
func splitStacked(p *textLine, work *int) []*textLine {
	fs := p.frags // left to right (cutWide)
	n := len(fs)
	if n < 2 || n > maxCellParts || *work+n*n > maxMarkTests {
		return []*textLine{p}
	}
	*work += n * n
	stacked := make([]bool, len(fs))
	found := false
	for i, a := range fs {
		for k := i + 1; k < len(fs); k++ {
			b := fs[k]
			over := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
			if over > 0.5*math.Min(a.x1-a.x0, b.x1-b.x0) && math.Abs(a.y-b.y) >= 0.5*math.Max(a.size, b.size) {
				stacked[i], stacked[k], found = true, true, true
			}
		}
	}
	if !found {
		return []*textLine{p}
	}
	var out []*textLine
	var run *textLine
	for i, f := range fs {
		if stacked[i] {
			out = append(out, &textLine{frags: []*frag{f}, y: f.y, size: f.size, x0: f.x0, x1: f.x1})
			run = nil
			continue
		}
		if run == nil {
			run = &textLine{y: p.y, size: p.size, x0: f.x0, x1: f.x1}
			out = append(out, run)
		}
		run.frags = append(run.frags, f)
		run.x1 = math.Max(run.x1, f.x1)
	}
	return out
}

// cellRows returns a cell's pieces as lines top to bottom: the pieces
// whose baseline bands overlap by half the smaller size one line of their
// fragments (interleave).
func cellRows(pieces []*textLine) []*textLine {
	slices.SortStableFunc(pieces, func(a, b *textLine) int { return cmp.Compare(b.y, a.y) })
	var rows [][]*textLine
	for _, p := range pieces {
		if n := len(rows); n > 0 {
			a := rows[n-1][0]
			hi := math.Min(a.y+0.75*a.size, p.y+0.75*p.size)
			lo := math.Max(a.y-0.25*a.size, p.y-0.25*p.size)
			if hi-lo >= 0.5*math.Min(a.size, p.size) {
				rows[n-1] = append(rows[n-1], p)
				continue
			}
		}
		rows = append(rows, []*textLine{p})
	}
	out := make([]*textLine, 0, len(rows))
	for _, r := range rows {
		if len(r) == 1 {
			out = append(out, r[0])
			continue
		}
		base := r[0]
		for _, p := range r {
			if p.size > base.size {
				base = p
			}
		}
		merged := &textLine{frags: interleave(r), y: base.y, size: base.size, x0: math.Inf(1), x1: math.Inf(-1)}
		for _, f := range merged.frags {
			merged.x0, merged.x1 = math.Min(merged.x0, f.x0), math.Max(merged.x1, f.x1)
		}
		out = append(out, merged)
	}
	return out
}

// interleave returns the fragments of parts of lines on one row, each cut
// where a glyph of another part lies between two of its glyphs: a
// formula drawn font by font reads as two fragments each spanning the
// other's glyphs, which read apart would be its letters sorted by font.
func interleave(parts []*textLine) []*frag {
	type at struct {
		x    float64
		part int
	}
	var xs []at
	for i, p := range parts {
		for _, f := range p.frags {
			for _, g := range f.g {
				if !g.isWS {
					xs = append(xs, at{g.x, i})
				}
			}
		}
	}
	slices.SortFunc(xs, func(a, b at) int { return cmp.Compare(a.x, b.x) })
	// foreign reports a glyph of another part than i strictly between x0
	// and x1.
	foreign := func(i int, x0, x1 float64) bool {
		k, _ := slices.BinarySearchFunc(xs, x0, func(a at, x float64) int { return cmp.Compare(a.x, x) })
		for ; k < len(xs) && xs[k].x < x1; k++ {
			if xs[k].x > x0 && xs[k].part != i {
				return true
			}
		}
		return false
	}
	var out []*frag
	for i, p := range parts {
		for _, f := range p.frags {
			start, last := 0, -1
			for k, g := range f.g {
				if g.isWS {
					continue
				}
				if last >= 0 && foreign(i, f.g[last].x, g.x) {
					out = appendFrag(out, f, f.g[start:k])
					start = k
				}
				last = k
			}
			out = appendFrag(out, f, f.g[start:])
		}
	}
	return out
}

// appendFrag appends to out a fragment of f's glyphs gs, unless it has no
// glyph but white space.
func appendFrag(out []*frag, f *frag, gs []glyph) []*frag {
	nf := &frag{g: gs, x0: math.Inf(1), x1: math.Inf(-1), y: f.y, size: f.size, dir: f.dir}
	for _, g := range gs {
		if !g.isWS {
			nf.x0, nf.x1 = math.Min(nf.x0, g.x), math.Max(nf.x1, g.x+g.w)
			nf.chars++
		}
	}
	if nf.chars == 0 {
		return out
	}
	return append(out, nf)
}

// coveredPart is the part of a line made of the glyphs in in, its
// fragments cut to them, or nil when it has none of them.
func coveredPart(l *textLine, in map[int32]bool) *textLine {
	part := &textLine{y: l.y, size: l.size, x0: math.Inf(1), x1: math.Inf(-1)}
	for _, f := range l.frags {
		var gs []glyph
		for _, g := range f.g {
			if in[g.seq] {
				gs = append(gs, g)
			}
		}
		part.frags = appendFrag(part.frags, f, gs)
	}
	if len(part.frags) == 0 {
		return nil
	}
	for _, f := range part.frags {
		part.x0, part.x1 = math.Min(part.x0, f.x0), math.Max(part.x1, f.x1)
	}
	return part
}

// markRef is what foldReplies knows of a page's mark: the object numbers
// of its annotation and of the replies folded into it (none for direct
// ones) and, for a reply to an annotation on another page, that
// annotation's.
type markRef struct {
	nrs []int
	irt int
}

// foldReplies folds into the mark it answers each reply whose /IRT is on
// another page (refs are the pages' markRefs, in the order of their
// marks), following /IRT across pages to the first annotation that
// answers none, as pageMarks does within a page: its comment follows the
// mark's, "Author: text". A reply whose chain loops or ends on no mark
// stays a mark of its own.
func foldReplies(pages []Page, refs [][]markRef) {
	type at struct{ page, mark int }
	byNr := map[int]at{}
	away := false
	for p, rs := range refs {
		for i, r := range rs {
			for _, nr := range r.nrs {
				if _, seen := byNr[nr]; !seen {
					byNr[nr] = at{p, i}
				}
			}
			away = away || r.irt > 0
		}
	}
	if !away {
		return
	}
	// The root of every mark, found once along each chain: a document of
	// long reply chains costs time linear in its marks.
	type found struct {
		to at
		ok bool
	}
	roots := map[at]found{}
	root := func(a at) (at, bool) {
		var path []at
		onPath := map[at]bool{}
		res := found{}
		for {
			if r, ok := roots[a]; ok {
				res = r
				break
			}
			if refs[a.page][a.mark].irt == 0 {
				res = found{a, true}
				break
			}
			path = append(path, a)
			onPath[a] = true
			next, ok := byNr[refs[a.page][a.mark].irt]
			if !ok || onPath[next] {
				break // no mark answered, or a loop
			}
			a = next
		}
		for _, p := range path {
			roots[p] = res
		}
		return res.to, res.ok
	}
	gone := map[at]bool{}
	replies := map[at]int{}
	for p, rs := range refs {
		for i, r := range rs {
			if r.irt == 0 {
				continue
			}
			a := at{p, i}
			to, ok := root(a)
			if !ok || to == a {
				continue
			}
			gone[a] = true
			if replies[to] >= maxMarkReplies {
				continue
			}
			replies[to]++
			m, parent := pages[p].Marks[i], &pages[to.page].Marks[to.mark]
			if m.Comment == "" {
				continue
			}
			c := m.Comment
			if m.Author != "" {
				c = m.Author + ": " + c
			}
			if parent.Comment != "" {
				c = parent.Comment + "\n\n" + c
			}
			parent.Comment = capString(c, MaxMarkComment)
		}
	}
	for p := range pages {
		if len(refs[p]) == 0 {
			continue
		}
		kept := pages[p].Marks[:0]
		for i, m := range pages[p].Marks {
			if !gone[at{p, i}] {
				kept = append(kept, m)
			}
		}
		if len(kept) == 0 {
			kept = nil
		}
		pages[p].Marks = kept
	}
}

// marksLeft is how many more marks the document may keep.
func (d *doc) marksLeft() int { return MaxDocumentMarks - d.markCount }

// orderMarks sorts a page's marks (and their refs) into reading order: by the position in
// lines (the page's laid-out text) of the first line holding where they
// begin (at, as pageMarks gave it), then left to right; marks on no line
// come after, top to bottom.
func orderMarks(marks []Mark, at [][2]float64, refs []markRef, lines []Line) {
	if len(marks) < 2 {
		return
	}
	type keyed struct {
		m     Mark
		at    [2]float64
		ref   markRef
		order int
	}
	ks := make([]keyed, len(marks))
	for i := range marks {
		ks[i] = keyed{marks[i], at[i], refs[i], len(lines)}
		cx, cy := at[i][0], at[i][1]
		for k, l := range lines {
			if l.Annot == "" && cx >= l.Box.X && cx <= l.Box.X+l.Box.W && cy >= l.Box.Y && cy <= l.Box.Y+l.Box.H {
				ks[i].order = k
				break
			}
		}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if a.order != b.order {
			return a.order - b.order
		}
		if a.order == len(lines) && a.at[1] != b.at[1] {
			return cmp.Compare(a.at[1], b.at[1])
		}
		return cmp.Compare(a.at[0], b.at[0])
	})
	for i := range ks {
		marks[i], refs[i] = ks[i].m, ks[i].ref
	}
}

// coveredGlyphs returns the glyphs (their seq) whose centre lies in one
// of quads, and the page's test count after it; past maxMarkTests it
// gives none.
func coveredGlyphs(glyphs []glyph, quads [][4]float64, tests int) ([]int32, int) {
	u := quads[0]
	for _, q := range quads[1:] {
		u = [4]float64{min(u[0], q[0]), min(u[1], q[1]), max(u[2], q[2]), max(u[3], q[3])}
	}
	var sel []int32
	for _, g := range glyphs {
		if tests >= maxMarkTests {
			return nil, tests
		}
		tests++
		x, y := glyphCentre(g)
		if x < u[0] || x > u[2] || y < u[1] || y > u[3] {
			continue
		}
		for _, q := range quads {
			tests++
			if x >= q[0] && x <= q[2] && y >= q[1] && y <= q[3] {
				sel = append(sel, g.seq)
				break
			}
		}
	}
	return sel, tests
}

// glyphCentre is about the middle of a glyph's box: half its advance along
// the baseline, a third of its size above it.
func glyphCentre(g glyph) (float64, float64) {
	up := g.size * 0.33
	switch g.dir & 3 {
	case 1:
		return g.x - up, g.y + g.w/2
	case 2:
		return g.x - g.w/2, g.y - up
	case 3:
		return g.x + up, g.y - g.w/2
	}
	return g.x + g.w/2, g.y + up
}

// markQuads reads /QuadPoints as display-space boxes, leaving out any
// quadrilateral with a coordinate that is not a finite number within
// ±1e6 points.
func (d *doc) markQuads(o types.Object, base matrix) [][4]float64 {
	a := d.array(o)
	var out [][4]float64
	for i := 0; i+8 <= len(a) && len(out) < maxMarkQuads; i += 8 {
		var pts [8]float64
		ok := true
		for k := range pts {
			v, isNum := d.num(a[i+k])
			if !isNum || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
				ok = false
				break
			}
			pts[k] = v
		}
		if !ok {
			continue
		}
		b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for k := 0; k < 8; k += 2 {
			x, y := base.apply(pts[k], pts[k+1])
			b = [4]float64{min(b[0], x), min(b[1], y), max(b[2], x), max(b[3], y)}
		}
		out = append(out, b)
	}
	return out
}

// displayBox is a rectangle of default user space in display space, as
// minX, minY, maxX, maxY.
func displayBox(r [4]float64, base matrix) [4]float64 {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range [4][2]float64{{r[0], r[1]}, {r[2], r[1]}, {r[0], r[3]}, {r[2], r[3]}} {
		x, y := base.apply(p[0], p[1])
		b = [4]float64{min(b[0], x), min(b[1], y), max(b[2], x), max(b[3], y)}
	}
	return b
}

func finiteRect(r [4]float64) bool {
	for _, v := range r {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
			return false
		}
	}
	return true
}

// joinMarkLines joins the lines of marked text with spaces; a word split
// over two lines by a hyphen is joined whole.
func joinMarkLines(lines []Line) string {
	var sb strings.Builder
	for _, l := range lines {
		t := strings.Join(strings.Fields(l.Text), " ")
		if t == "" {
			continue
		}
		s := sb.String()
		switch {
		case sb.Len() == 0:
		case strings.HasSuffix(s, "-") && len(s) > 1 && isLetterBefore(s) && startsLower(t):
			sb.Reset()
			sb.WriteString(s[:len(s)-1])
		default:
			sb.WriteByte(' ')
		}
		sb.WriteString(t)
	}
	return sb.String()
}

func isLetterBefore(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:len(s)-1])
	return unicode.IsLetter(r)
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// markComment is an annotation's comment: /Contents, else /RC as plain
// text, else its Popup's /Contents.
func (d *doc) markComment(ad types.Dict) string {
	if c := textBlock(d.capText(ad["Contents"], MaxMarkComment)); c != "" {
		return c
	}
	if c := textBlock(richText(d.capText(ad["RC"], 4*MaxMarkComment))); c != "" {
		return capString(c, MaxMarkComment)
	}
	if pop := d.dict(ad["Popup"]); pop != nil {
		return textBlock(d.capText(pop["Contents"], MaxMarkComment))
	}
	return ""
}

// capText decodes a text string of at most max bytes (cut before
// decoding, so that a huge string costs no more than max).
func (d *doc) capText(o types.Object, max int) string {
	b := d.rawString(o)
	cut := false
	if len(b) > 2*max+2 {
		b, cut = b[:2*max+2], true
	}
	s := decodeTextString(b)
	if cut || len(s) > max {
		return capString(s, max)
	}
	return s
}

// capString cuts s to at most n bytes on a character boundary, ending in
// "…" when cut.
func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return truncateUTF8(s, n-len("…")) + "…"
}

var (
	rcBreak = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)<\s*(br|/p|/div|/li)\b[^>]*>`) })
	rcTag   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })
)

// richText is /RC rich text (XHTML, §12.7.4.3) as plain text.
func richText(s string) string {
	if s == "" {
		return ""
	}
	s = rcBreak().ReplaceAllString(s, "\n")
	s = rcTag().ReplaceAllString(s, "")
	return html.UnescapeString(s)
}

// textBlock trims a comment and normalises its line ends, keeping its
// paragraphs; control characters other than newlines and tabs are dropped.
func textBlock(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.TrimRightFunc(l, unicode.IsSpace))
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// oneLine is s on one line, its white space collapsed.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// markColor is /C as #rrggbb: gray, RGB or CMYK components in 0–1.
func (d *doc) markColor(o types.Object) string {
	a := d.array(o)
	var c []float64
	for _, e := range a {
		v, ok := d.num(e)
		if !ok || math.IsNaN(v) {
			return ""
		}
		c = append(c, max(0, min(1, v)))
	}
	var r, g, b float64
	switch len(c) {
	case 1:
		r, g, b = c[0], c[0], c[0]
	case 3:
		r, g, b = c[0], c[1], c[2]
	case 4:
		k := 1 - c[3]
		r, g, b = (1-c[0])*k, (1-c[1])*k, (1-c[2])*k
	default:
		return ""
	}
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(r*255)), int(math.Round(g*255)), int(math.Round(b*255)))
}

var pdfDateRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(Z|[+-]\d{2}'?\d{0,2}'?)?`)
})

// pdfDate is a PDF date (§7.9.4, "D:YYYYMMDDHHmmSSOHH'mm'") as RFC 3339,
// or the text as written (on one line) when it is not one.
func pdfDate(s string) string {
	s = oneLine(s)
	m := pdfDateRE().FindStringSubmatch(s)
	if m == nil {
		return s
	}
	part := func(i int, def string) string {
		if m[i] == "" {
			return def
		}
		return m[i]
	}
	out := fmt.Sprintf("%s-%s-%sT%s:%s:%s", m[1], part(2, "01"), part(3, "01"), part(4, "00"), part(5, "00"), part(6, "00"))
	switch z := strings.ReplaceAll(m[7], "'", ""); {
	case z == "" || z == "Z":
		out += "Z"
	case len(z) == 3:
		out += z + ":00"
	case len(z) == 5:
		out += z[:3] + ":" + z[3:]
	default:
		out += "Z"
	}
	return out
}
