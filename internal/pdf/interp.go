package pdf

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/text/unicode/norm"

	"github.com/researchctx/researchctx/internal/pdf/font"
	"github.com/researchctx/researchctx/internal/pdf/object"
)

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: apply m, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// translated returns the translation by (tx, ty), then m: the same as
// matrix{1, 0, 0, 1, tx, ty}.mul(m), with a third of the work, as every
// shown glyph needs it.
func (m matrix) translated(tx, ty float64) matrix {
	return matrix{m[0], m[1], m[2], m[3], tx*m[0] + ty*m[2] + m[4], tx*m[1] + ty*m[3] + m[5]}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

// glyph is one shown character in display space (points, y up), already
// rotated so that its line runs along +x (see dir).
type glyph struct {
	x, y   float64 // origin on the baseline
	w      float64 // advance along the baseline
	size   float64 // font size in display space
	text   string
	bold   bool
	dir    uint8 // baseline direction in quarter turns counter-clockwise
	seq    int32 // content order
	isWS   bool  // text is white space: a word separator
	fontID int32
}

// gstate is the part of the graphics state text extraction needs.
type gstate struct {
	ctm                      matrix
	font                     *font.Font
	fontID                   int32
	size, tc, tw, th, tl, ts float64
}

// maxStackDepth bounds the graphics state stack. Deeper q operators are
// ignored rather than failing the page: real producers emit unbalanced q.
const maxStackDepth = 256

// minRunBytes is what one content stream or Form XObject run counts at
// least against MaxPageBytes.
const minRunBytes = 512

type formXObject struct {
	content   []byte
	matrix    matrix
	resources types.Dict
	// mayShowText is false when the content has no operator that shows
	// text or runs another XObject: figures drawn as thousands of forms
	// then cost a byte scan, not an interpretation, each.
	mayShowText bool
}

// mayShowText reports whether content may hold Tj, TJ, ', " or Do, the
// operators that lead to text. It errs towards true (a string or comment
// holding them).
func mayShowText(content []byte) bool {
	return bytes.Contains(content, []byte("Tj")) || bytes.Contains(content, []byte("TJ")) ||
		bytes.Contains(content, []byte("Do")) || bytes.IndexByte(content, '\'') >= 0 || bytes.IndexByte(content, '"') >= 0
}

// interp interprets content streams (§8, §9) and collects glyphs.
type interp struct {
	d      *doc
	gs     gstate
	stack  []gstate
	tm     matrix
	tlm    matrix
	glyphs []glyph
	shown  int // glyphs shown, kept or not: what the glyph limits count
	ops    int
	bytes  int64 // content interpreted, Form XObjects counted each time they run
	// maxGlyphs is the most glyphs this page may show (MaxGlyphs, or less
	// when the document's glyph budget is nearly spent); glyphLimit is
	// the limit that sets it.
	maxGlyphs  int
	glyphLimit Limit
	err        error // a limit hit while showing text, ends the page
	codes      []font.Code
	fontIDs    map[*font.Font]int32
	// pageW and pageH are the displayed page's size: glyphs far outside
	// it are dropped (0: no page box, keep every glyph).
	pageW, pageH float64
}

func newInterp(d *doc, base matrix) *interp {
	in := &interp{d: d, gs: gstate{ctm: base, th: 1}, fontIDs: map[*font.Font]int32{}, maxGlyphs: MaxGlyphs, glyphLimit: LimitGlyphs}
	if d.glyphBudget < in.maxGlyphs {
		in.maxGlyphs, in.glyphLimit = d.glyphBudget, LimitDocGlyphs
	}
	return in
}

// operand is a content-stream operand.
type operand struct {
	kind object.TokKind
	num  float64
	val  []byte
	arr  []operand // TJ arrays
}

// run interprets one content stream with the given resources. It stops at
// the first limit hit (a *LimitError) or when the document must stop.
func (in *interp) run(data []byte, res types.Dict, depth int) error {
	// A run costs more than its bytes (a lexer, a font table, the saved
	// state): each counts at least minRunBytes, so that a fan-out of tiny
	// forms meets MaxPageBytes after at most MaxPageBytes/minRunBytes runs.
	in.bytes += max(int64(len(data)), minRunBytes)
	if in.bytes > MaxPageBytes {
		return &LimitError{Limit: LimitPageBytes, Max: MaxPageBytes}
	}
	lx := object.NewLexer(data)
	var args []operand
	// arena holds the elements of the current operator's array operands
	// (TJ arrays), reused from operator to operator.
	var arena []operand
	fonts := map[string]*font.Font{}
	rewinds := maxArrayRewinds
	for {
		t := lx.Next()
		switch t.Kind {
		case object.TokEOF:
			return nil
		case object.TokNum, object.TokName, object.TokString:
			if len(args) >= MaxOperands {
				return &LimitError{Limit: LimitOperands, Max: MaxOperands}
			}
			args = append(args, operand{kind: t.Kind, num: t.Num, val: t.Val})
			continue
		case object.TokArrayOpen, object.TokDictOpen:
			if len(args) >= MaxOperands {
				return &LimitError{Limit: LimitOperands, Max: MaxOperands}
			}
			a, err := readComposite(lx, t.Kind, &arena, &rewinds)
			if err != nil {
				return err
			}
			args = append(args, a)
			continue
		case object.TokArrayClose, object.TokDictClose:
			continue
		}
		in.ops++
		if in.ops > MaxOperators {
			return &LimitError{Limit: LimitOperators, Max: MaxOperators}
		}
		if in.ops&4095 == 0 {
			if err := in.d.stopped(); err != nil {
				return err
			}
		}
		if err := in.op(string(t.Val), args, res, fonts, lx, depth); err != nil {
			return err
		}
		if in.err != nil {
			return in.err
		}
		args = args[:0]
		arena = arena[:0]
		lx.Release()
	}
}

// maxArrayRewinds is how many arrays without their closing bracket one
// content stream may end at their first operator: each costs a scan to
// the end of the stream, so that a stream of unclosed arrays stays linear.
const maxArrayRewinds = 16

// readComposite reads an array or dictionary operand after its opening
// token, without recursion: nesting is counted, up to MaxNesting. Only the
// top-level numbers, names and strings of an array are kept (a TJ array);
// a dictionary, and what is nested deeper, carries nothing the interpreter
// uses. The kept elements are appended to *arena and the operand's arr is
// that tail, so that an operator's arrays allocate nothing once the arena
// has grown.
//
// Operators inside an array are skipped, as pdftotext skips them (the
// text around them is kept), except that a TJ closes the array: its
// closing bracket is missing, and the TJ is the array's operator. An
// array that runs to the end of the stream, or nests too deep, ends before
// its first operator (at most *rewinds times a stream), so that a missing
// bracket does not lose the rest of the page.
func readComposite(lx *object.Lexer, open object.TokKind, arena *[]operand, rewinds *int) (operand, error) {
	start := len(*arena)
	out := func() operand {
		return operand{kind: open, arr: (*arena)[start:len(*arena):len(*arena)]}
	}
	depth := 1
	firstOp, kept := -1, 0 // where the first operator at depth 1 starts, and the elements before it
	for {
		at := lx.Pos
		t := lx.Next()
		switch t.Kind {
		case object.TokEOF:
			if firstOp >= 0 && *rewinds > 0 {
				*rewinds--
				lx.Pos = firstOp
				*arena = (*arena)[:start+kept]
			}
			return out(), nil
		case object.TokArrayOpen, object.TokDictOpen:
			depth++
			if depth > MaxNesting {
				if firstOp >= 0 && *rewinds > 0 {
					// Unclosed arrays one inside the other, as a
					// missing bracket on each line makes them.
					*rewinds--
					lx.Pos = firstOp
					*arena = (*arena)[:start+kept]
					return out(), nil
				}
				return out(), &LimitError{Limit: LimitNesting, Max: MaxNesting}
			}
		case object.TokArrayClose, object.TokDictClose:
			depth--
			if depth == 0 {
				return out(), nil
			}
		case object.TokNum, object.TokString, object.TokName:
			if depth == 1 && open == object.TokArrayOpen {
				if len(*arena)-start >= MaxOperands {
					return out(), &LimitError{Limit: LimitOperands, Max: MaxOperands}
				}
				*arena = append(*arena, operand{kind: t.Kind, num: t.Num, val: t.Val})
			}
		case object.TokOp:
			if depth != 1 || open != object.TokArrayOpen {
				continue
			}
			if string(t.Val) == "TJ" {
				lx.Pos = at
				return out(), nil
			}
			if firstOp < 0 {
				firstOp, kept = at, len(*arena)-start
			}
		}
	}
}

func nums(args []operand, n int) ([]float64, bool) {
	if len(args) < n {
		return nil, false
	}
	var buf [6]float64
	out := buf[:0]
	for _, a := range args[len(args)-n:] {
		if a.kind != object.TokNum {
			return nil, false
		}
		out = append(out, a.num)
	}
	return out, true
}

func (in *interp) op(name string, args []operand, res types.Dict, fonts map[string]*font.Font, lx *object.Lexer, depth int) error {
	gs := &in.gs
	switch name {
	case "q":
		if len(in.stack) < maxStackDepth {
			in.stack = append(in.stack, *gs)
		}
	case "Q":
		if n := len(in.stack); n > 0 {
			*gs = in.stack[n-1]
			in.stack = in.stack[:n-1]
		}
	case "cm":
		if v, ok := nums(args, 6); ok {
			gs.ctm = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}.mul(gs.ctm)
		}
	case "BT":
		in.tm, in.tlm = identity, identity
	case "ET":
	case "Tf":
		if len(args) >= 2 && args[len(args)-2].kind == object.TokName && args[len(args)-1].kind == object.TokNum {
			fname := string(args[len(args)-2].val)
			gs.size = args[len(args)-1].num
			f := fonts[fname]
			if f == nil {
				f = in.d.fontFor(res, fname)
				fonts[fname] = f
			}
			gs.font = f
			id, ok := in.fontIDs[f]
			if !ok {
				id = int32(len(in.fontIDs))
				in.fontIDs[f] = id
			}
			gs.fontID = id
		}
	case "Tc":
		if v, ok := nums(args, 1); ok {
			gs.tc = v[0]
		}
	case "Tw":
		if v, ok := nums(args, 1); ok {
			gs.tw = v[0]
		}
	case "Tz":
		if v, ok := nums(args, 1); ok {
			gs.th = v[0] / 100
		}
	case "TL":
		if v, ok := nums(args, 1); ok {
			gs.tl = v[0]
		}
	case "Ts":
		if v, ok := nums(args, 1); ok {
			gs.ts = v[0]
		}
	case "Td":
		if v, ok := nums(args, 2); ok {
			in.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(in.tlm)
			in.tm = in.tlm
		}
	case "TD":
		if v, ok := nums(args, 2); ok {
			gs.tl = -v[1]
			in.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(in.tlm)
			in.tm = in.tlm
		}
	case "Tm":
		if v, ok := nums(args, 6); ok {
			in.tlm = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}
			in.tm = in.tlm
		}
	case "T*":
		in.nextLine()
	case "Tj":
		if len(args) > 0 && args[len(args)-1].kind == object.TokString {
			in.show(args[len(args)-1].val)
		} else if len(args) > 0 && args[len(args)-1].kind == object.TokArrayOpen {
			in.showArray(args[len(args)-1].arr) // a TJ array shown by Tj
		}
	case "'":
		in.nextLine()
		if len(args) > 0 && args[len(args)-1].kind == object.TokString {
			in.show(args[len(args)-1].val)
		}
	case "\"":
		if len(args) >= 3 && args[len(args)-3].kind == object.TokNum && args[len(args)-2].kind == object.TokNum {
			gs.tw = args[len(args)-3].num
			gs.tc = args[len(args)-2].num
		}
		in.nextLine()
		if len(args) > 0 && args[len(args)-1].kind == object.TokString {
			in.show(args[len(args)-1].val)
		}
	case "TJ":
		// Without its array (a missing opening bracket), the strings and
		// numbers before the TJ are the array's elements.
		elems := args
		if len(args) > 0 && args[len(args)-1].kind == object.TokArrayOpen {
			elems = args[len(args)-1].arr
		} else if slices.ContainsFunc(args, func(a operand) bool { return a.kind == object.TokArrayOpen }) {
			elems = nil // an array, then something else: not a TJ
		}
		in.showArray(elems)
	case "Do":
		if len(args) > 0 && args[len(args)-1].kind == object.TokName {
			return in.doXObject(string(args[len(args)-1].val), res, depth)
		}
	case "BI":
		lx.SkipInline()
	}
	return nil
}

// showArray shows the strings of a TJ array, moving by its numbers.
func (in *interp) showArray(elems []operand) {
	gs := &in.gs
	for _, e := range elems {
		switch e.kind {
		case object.TokString:
			in.show(e.val)
		case object.TokNum:
			adv := -e.num / 1000 * gs.size
			if gs.font != nil && gs.font.Vertical() {
				in.tm = in.tm.translated(0, adv)
			} else {
				in.tm = in.tm.translated(adv*gs.th, 0)
			}
		}
	}
}

func (in *interp) nextLine() {
	in.tlm = matrix{1, 0, 0, 1, 0, -in.gs.tl}.mul(in.tlm)
	in.tm = in.tlm
}

// show emits the glyphs of a shown string and advances the text matrix.
func (in *interp) show(s []byte) {
	gs := &in.gs
	f := gs.font
	if f == nil || len(s) == 0 {
		return
	}
	in.codes = f.Decode(s, in.codes[:0])
	for _, c := range in.codes {
		var tx, ty float64
		if f.Vertical() {
			// Vertical fonts advance by the default vertical metric, 1 em down.
			ty = -gs.size - gs.tc
			if c.Space {
				ty -= gs.tw
			}
		} else {
			tx = (c.Width*gs.size + gs.tc) * gs.th
			if c.Space {
				tx += gs.tw * gs.th
			}
		}
		if c.Text != "" {
			if in.shown >= in.maxGlyphs {
				max := MaxGlyphs
				if in.glyphLimit == LimitDocGlyphs {
					max = MaxDocumentGlyphs
				}
				in.err = &LimitError{Limit: in.glyphLimit, Max: int64(max)}
				return
			}
			in.shown++
			in.emit(c, tx, ty)
		}
		in.tm = in.tm.translated(tx, ty)
	}
}

func (in *interp) emit(c font.Code, tx, ty float64) {
	gs := &in.gs
	m := in.tm.mul(gs.ctm)
	x0, y0 := m.apply(0, gs.ts)
	var x1, y1 float64
	var bx, by float64 // baseline direction
	if gs.font.Vertical() {
		x1, y1 = m.apply(0, gs.ts+ty)
		bx, by = x1-x0, y1-y0
	} else {
		// The glyph's own width, without character or word spacing: some
		// producers set a large Tc and place every glyph with Tm.
		adv := c.Width * gs.size * gs.th
		x1, y1 = m.apply(adv, gs.ts)
		bx, by = m[0], m[1]
		if m[0]*m[3]-m[1]*m[2] < 0 && m[3] > math.Abs(m[2]) {
			// An upright glyph mirrored left to right (the reversed E of
			// the XeTeX logo) reads along its line as its neighbours do:
			// the direction follows the glyph's up vector, not its advance.
			// (Text flipped upside down keeps its advance.)
			bx, by = m[3], -m[2]
		}
		if gs.size*gs.th < 0 {
			// A negative size (or scale) turns the glyphs half round:
			// the text runs the other way along the matrix's x axis.
			bx, by = -bx, -by
		}
	}
	size := math.Abs(gs.size) * hypot(m[2], m[3]) * gs.font.SizeScale()
	if gs.font.Vertical() {
		size = math.Abs(gs.size) * hypot(m[0], m[1])
	}
	if size < 0.1 || math.IsNaN(size) || math.IsInf(size, 0) || math.IsNaN(x0+y0+x1+y1) {
		return
	}
	if in.pageW > 0 && in.pageH > 0 {
		// A glyph more than an em outside the page box is not shown
		// (producers park hidden text there); viewers and pdftotext drop it.
		cx, cy := (x0+x1)/2, (y0+y1)/2
		if cx < -size || cy < -size || cx > in.pageW+size || cy > in.pageH+size {
			return
		}
	}
	dir := uint8(0)
	if by != 0 || bx < 0 { // else upright text (by = 0), the usual case, without Atan2
		a := math.Atan2(by, bx)
		dir = uint8(int(math.Round(a/(math.Pi/2))+4) % 4)
	}
	x0, y0 = rotateQ(x0, y0, dir)
	x1, _ = rotateQ(x1, y1, dir)
	if x1 < x0 {
		x0, x1 = x1, x0
	}
	text := c.Text
	ws := true
	for i := 0; i < len(text); i++ {
		if ch := text[i]; ch > ' ' || ch >= 0x80 {
			ws = false
			break
		}
	}
	if !ws {
		text = cleanText(text)
		if text == "" {
			return
		}
	}
	in.glyphs = append(in.glyphs, glyph{
		x: x0, y: y0, w: x1 - x0, size: size, text: text, bold: gs.font.Bold(),
		dir: dir, seq: int32(len(in.glyphs)), isWS: ws, fontID: gs.fontID,
	})
}

// hypot is math.Hypot with the usual unrotated case, one side zero, first.
func hypot(p, q float64) float64 {
	switch {
	case p == 0:
		return math.Abs(q)
	case q == 0:
		return math.Abs(p)
	}
	return math.Hypot(p, q)
}

// rotateQ turns a point by -dir quarter turns, so that text whose baseline
// points in direction dir runs along +x.
func rotateQ(x, y float64, dir uint8) (float64, float64) {
	switch dir {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}

// cleanText drops control characters, expands ligatures and turns
// presentation forms into the characters they present.
func cleanText(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7F || r == 0xFFFD || (r >= 0xFB00 && r <= 0xFB06) || r == 0xAD || verticalForm(r) || rtlForm(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r == 0xAD:
			out = append(out, '-')
		case r < 0x20 || r == 0x7F || r == 0xFFFD:
		case r >= 0xFB00 && r <= 0xFB06:
			out = append(out, []rune(font.Ligature(r))...)
		case verticalForm(r):
			out = append(out, []rune(norm.NFKC.String(string(r)))...)
		case rtlForm(r):
			// A vowel mark's isolated form is a space and the mark: the
			// space would split its word.
			out = append(out, []rune(strings.TrimLeft(norm.NFKC.String(string(r)), " "))...)
		default:
			out = append(out, r)
		}
	}
	return string(out)
}

// rtlForm reports the presentation forms of Hebrew and Arabic (U+FB1D–
// FDFF, U+FE70–FEFC): shaped letters (initial, medial, final, isolated),
// the lam-alef and other ligatures, which fonts and producers without a
// shaping-aware ToUnicode map to; the text is the letters themselves, in
// logical order (NFKC), so that a search for a word finds it.
func rtlForm(r rune) bool {
	return (r >= 0xFB1D && r <= 0xFDFF) || (r >= 0xFE70 && r <= 0xFEFC)
}

// verticalForm reports the presentation forms of punctuation for vertical
// writing (︒ for 。, ︵ for （), which fonts for vertical text map to;
// the text is the punctuation itself.
func verticalForm(r rune) bool {
	return (r >= 0xFE10 && r <= 0xFE19) || (r >= 0xFE30 && r <= 0xFE4F)
}

// fontFor loads (once per document) the font named in a resource dictionary.
func (d *doc) fontFor(res types.Dict, name string) *font.Font {
	fd := d.dict(res["Font"])
	if fd == nil {
		return nil
	}
	ref := fd[name]
	nr := objNr(ref)
	if nr > 0 {
		if f, ok := d.fonts[nr]; ok {
			return f
		}
	}
	dict := d.dict(ref)
	if dict == nil {
		return nil
	}
	f := font.Load(fontObjects{d}, dict)
	if nr > 0 {
		d.fonts[nr] = f
	}
	return f
}

// fontObjects is the document as font.Load reads it.
type fontObjects struct{ d *doc }

func (o fontObjects) Resolve(x types.Object) types.Object { return o.d.resolve(x) }
func (o fontObjects) Text(x types.Object) string          { return o.d.text(x) }

func (o fontObjects) Stream(sd types.StreamDict) []byte {
	b, _ := o.d.streamBytes(sd)
	return b
}

func (o fontObjects) StreamPrefix(sd types.StreamDict, n int64) []byte {
	return o.d.streamPrefix(sd, n)
}

// doXObject runs a Form XObject (§8.10); images and others are skipped.
func (in *interp) doXObject(name string, res types.Dict, depth int) error {
	xd := in.d.dict(res["XObject"])
	if xd == nil {
		return nil
	}
	ref := xd[name]
	nr := objNr(ref)
	fx, ok := in.d.forms[nr]
	if !ok || nr == 0 {
		sd, isStream := in.d.resolve(ref).(types.StreamDict)
		if !isStream || in.d.name(sd.Dict["Subtype"]) != "Form" {
			if nr > 0 {
				in.d.forms[nr] = nil
			}
			return nil
		}
		fx = &formXObject{matrix: identity, resources: in.d.dict(sd.Dict["Resources"])}
		if m := in.d.array(sd.Dict["Matrix"]); len(m) == 6 {
			for i := range m {
				fx.matrix[i], _ = in.d.num(m[i])
			}
		}
		content, err := in.d.streamBytes(sd)
		if err != nil {
			return err
		}
		fx.content = content
		fx.mayShowText = mayShowText(content)
		if nr > 0 {
			in.d.forms[nr] = fx
		}
	}
	if fx == nil || len(fx.content) == 0 {
		return nil
	}
	if depth >= MaxFormDepth {
		return &LimitError{Limit: LimitForms, Max: MaxFormDepth}
	}
	if !fx.mayShowText {
		// Counted as a run is, so that the page's limit holds.
		in.bytes += max(int64(len(fx.content)), minRunBytes)
		if in.bytes > MaxPageBytes {
			return &LimitError{Limit: LimitPageBytes, Max: MaxPageBytes}
		}
		return nil
	}
	r := fx.resources
	if r == nil {
		r = res
	}
	saved, savedTm, savedTlm, savedStack := in.gs, in.tm, in.tlm, len(in.stack)
	in.gs.ctm = fx.matrix.mul(in.gs.ctm)
	err := in.run(fx.content, r, depth+1)
	in.gs, in.tm, in.tlm = saved, savedTm, savedTlm
	if len(in.stack) > savedStack {
		in.stack = in.stack[:savedStack]
	}
	return err
}
