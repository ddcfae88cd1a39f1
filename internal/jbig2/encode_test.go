package jbig2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/researchctx/researchctx/internal/mq"
)

// This file is a JBIG2 encoder for the tests' data: generic regions
// coded arithmetically (any template, adaptive pixels, typical
// prediction) or with given MMR data, and symbol dictionaries with text
// regions coded arithmetically. Its contexts are formed pixel by pixel as
// the standard's figures draw them, not with the decoder's registers.

// encodeInt codes v, or the out-of-band value, with an arithmetic integer
// context (T.88 A.2 backwards).
func encodeInt(e *mq.Encoder, cx *[512]mq.Context, v int64, oob bool) {
	prev := 1
	put := func(b int) {
		e.Encode(&cx[prev], b)
		if prev < 256 {
			prev = prev<<1 | b
		} else {
			prev = (prev<<1|b)&511 | 256
		}
	}
	bits := func(v int64, n int) {
		for i := n - 1; i >= 0; i-- {
			put(int(v>>uint(i)) & 1)
		}
	}
	if oob {
		put(1)
		put(0)
		bits(0, 2)
		return
	}
	m := v
	if v < 0 {
		put(1)
		m = -v
	} else {
		put(0)
	}
	switch {
	case m < 4:
		put(0)
		bits(m, 2)
	case m < 20:
		bits(0b10, 2)
		bits(m-4, 4)
	case m < 84:
		bits(0b110, 3)
		bits(m-20, 6)
	case m < 340:
		bits(0b1110, 4)
		bits(m-84, 8)
	case m < 4436:
		bits(0b11110, 5)
		bits(m-340, 12)
	default:
		bits(0b11111, 5)
		bits(m-4436, 32)
	}
}

// encodeID codes a symbol ID of n bits (A.3 backwards).
func encodeID(e *mq.Encoder, cx []mq.Context, n, id int) {
	prev := 1
	for i := n - 1; i >= 0; i-- {
		b := id >> uint(i) & 1
		e.Encode(&cx[prev], b)
		prev = prev<<1 | b
	}
}

// templateContext forms the context of pixel x, y of b as T.88 Figures
// 3–6 number the template's pixels.
func templateContext(b *Bitmap, x, y int, p *genericParams) int {
	px := func(dx, dy int) int { return int(b.at(x+dx, y+dy)) }
	a := func(i int) int { return px(p.at[i].dx, p.at[i].dy) }
	var pix []int // from bit 0 up
	switch p.template {
	case 0:
		pix = []int{px(-1, 0), px(-2, 0), px(-3, 0), px(-4, 0), a(0),
			px(2, -1), px(1, -1), px(0, -1), px(-1, -1), px(-2, -1), a(1), a(2),
			px(1, -2), px(0, -2), px(-1, -2), a(3)}
	case 1:
		pix = []int{px(-1, 0), px(-2, 0), px(-3, 0), a(0),
			px(2, -1), px(1, -1), px(0, -1), px(-1, -1), px(-2, -1),
			px(2, -2), px(1, -2), px(0, -2), px(-1, -2)}
	case 2:
		pix = []int{px(-1, 0), px(-2, 0), a(0),
			px(1, -1), px(0, -1), px(-1, -1), px(-2, -1),
			px(1, -2), px(0, -2), px(-1, -2)}
	default:
		pix = []int{px(-1, 0), px(-2, 0), px(-3, 0), px(-4, 0), a(0),
			px(1, -1), px(0, -1), px(-1, -1), px(-2, -1), px(-3, -1)}
	}
	c := 0
	for i, v := range pix {
		c |= v << uint(i)
	}
	return c
}

// encodeGeneric codes b (6.2.5 backwards) with contexts cx.
func encodeGeneric(e *mq.Encoder, cx []mq.Context, b *Bitmap, p *genericParams) {
	ltp := 0
	for y := range b.Height {
		if p.tpgdon {
			same := 1
			for x := range b.Width {
				if b.at(x, y) != b.at(x, y-1) {
					same = 0
					break
				}
			}
			e.Encode(&cx[sltp[p.template]], same^ltp)
			ltp = same
			if same == 1 {
				continue
			}
		}
		for x := range b.Width {
			e.Encode(&cx[templateContext(b, x, y, p)], int(b.at(x, y)))
		}
	}
}

// stream writes segments in the embedded organisation.
type stream struct {
	bytes.Buffer
	next uint32 // the next segment's number
}

// segment writes a segment of page association page and returns its
// number.
func (st *stream) segment(typ int, page uint32, referred []uint32, data []byte) uint32 {
	n := st.next
	st.next++
	var h []byte
	h = binary.BigEndian.AppendUint32(h, n)
	flags := byte(typ)
	if page > 255 {
		flags |= 0x40
	}
	h = append(h, flags, byte(len(referred)<<5))
	for _, r := range referred {
		switch {
		case n <= 256:
			h = append(h, byte(r))
		case n <= 65536:
			h = binary.BigEndian.AppendUint16(h, uint16(r))
		default:
			h = binary.BigEndian.AppendUint32(h, r)
		}
	}
	if page > 255 {
		h = binary.BigEndian.AppendUint32(h, page)
	} else {
		h = append(h, byte(page))
	}
	h = binary.BigEndian.AppendUint32(h, uint32(len(data)))
	st.Write(h)
	st.Write(data)
	return n
}

func u32s(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.BigEndian.AppendUint32(b, x)
	}
	return b
}

// pageInfoData is a page information segment's data: a striped page of
// unknown height when h is 0xFFFFFFFF.
func pageInfoData(w, h uint32, defPixel int, stripe int) []byte {
	b := u32s(w, h, 0, 0)
	b = append(b, byte(defPixel<<2|1)) // eventually lossless
	s := uint16(0)
	if stripe > 0 {
		s = 0x8000 | uint16(stripe)
	}
	return binary.BigEndian.AppendUint16(b, s)
}

func regionData(w, h, x, y, op int) []byte {
	return append(u32s(uint32(w), uint32(h), uint32(x), uint32(y)), byte(op))
}

// genericData is a generic region segment's data coding b at x, y
// arithmetically, or with the MMR data mmr if not nil.
func genericData(b *Bitmap, x, y, op int, p genericParams, mmr []byte) []byte {
	d := regionData(b.Width, b.Height, x, y, op)
	if mmr != nil {
		return append(append(d, 1), mmr...)
	}
	flags := byte(p.template << 1)
	if p.tpgdon {
		flags |= 8
	}
	d = append(d, flags)
	for _, a := range p.at[:atCount[p.template]] {
		d = append(d, byte(int8(a.dx)), byte(int8(a.dy)))
	}
	e := mq.NewEncoder()
	encodeGeneric(e, genericContexts(p.template), b, &p)
	return append(d, e.Flush()...)
}

// instance is a symbol placed in a text region: its top left corner.
type instance struct {
	id   int
	x, y int
}

// symbols cuts b into its 8-connected components' bounding boxes, the
// same boxes one symbol, and returns the symbols and where they go.
func symbols(b *Bitmap) ([]*Bitmap, []instance) {
	seen := make([]bool, b.Width*b.Height)
	index := map[string]int{}
	var syms []*Bitmap
	var inst []instance
	var stack []int
	for y0 := range b.Height {
		for x0 := range b.Width {
			if b.at(x0, y0) == 0 || seen[y0*b.Width+x0] {
				continue
			}
			minX, minY, maxX, maxY := x0, y0, x0, y0
			stack = append(stack[:0], y0*b.Width+x0)
			seen[y0*b.Width+x0] = true
			for len(stack) > 0 {
				i := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				x, y := i%b.Width, i/b.Width
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						nx, ny := x+dx, y+dy
						if b.at(nx, ny) == 1 && !seen[ny*b.Width+nx] {
							seen[ny*b.Width+nx] = true
							stack = append(stack, ny*b.Width+nx)
						}
					}
				}
			}
			s := newBitmap(maxX-minX+1, maxY-minY+1)
			for y := minY; y <= maxY; y++ {
				for x := minX; x <= maxX; x++ {
					if b.at(x, y) == 1 {
						s.set(x-minX, y-minY)
					}
				}
			}
			key := fmt.Sprint(s.Width, s.Height, string(s.Data))
			id, ok := index[key]
			if !ok {
				id = len(syms)
				index[key] = id
				syms = append(syms, s)
			}
			inst = append(inst, instance{id, minX, minY})
		}
	}
	return syms, inst
}

// symbolDictData codes syms as a symbol dictionary (6.5 backwards) of
// template template, all exported, in height classes; order gives the
// symbols' places in the dictionary, by their index in syms.
func symbolDictData(syms []*Bitmap, template int) (data []byte, order []int) {
	order = make([]int, len(syms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if syms[a].Height != syms[b].Height {
			return syms[a].Height - syms[b].Height
		}
		return syms[a].Width - syms[b].Width
	})
	p := genericParams{template: template, at: nominalAT[template]}
	flags := uint16(template) << 10
	d := binary.BigEndian.AppendUint16(nil, flags)
	for _, a := range p.at[:atCount[template]] {
		d = append(d, byte(int8(a.dx)), byte(int8(a.dy)))
	}
	d = append(d, u32s(uint32(len(syms)), uint32(len(syms)))...)
	e := mq.NewEncoder()
	cx := genericContexts(template)
	var iadh, iadw, iaex [512]mq.Context
	height := 0
	for i := 0; i < len(order); {
		h := syms[order[i]].Height
		encodeInt(e, &iadh, int64(h-height), false)
		height = h
		width := 0
		for ; i < len(order) && syms[order[i]].Height == h; i++ {
			s := syms[order[i]]
			encodeInt(e, &iadw, int64(s.Width-width), false)
			width = s.Width
			encodeGeneric(e, cx, s, &p)
		}
		encodeInt(e, &iadw, 0, true)
	}
	encodeInt(e, &iaex, 0, false)
	encodeInt(e, &iaex, int64(len(syms)), false)
	return append(d, e.Flush()...), order
}

// textRegionData codes a w×h text region at 0, 0 of the instances of
// symbols numbered by id, in strips of 1<<logStrips rows, their top left
// corners the reference.
func textRegionData(w, h int, syms []*Bitmap, inst []instance, logStrips int) []byte {
	strips := 1 << logStrips
	inst = slices.Clone(inst)
	slices.SortStableFunc(inst, func(a, b instance) int {
		if sa, sb := a.y/strips, b.y/strips; sa != sb {
			return sa - sb
		}
		return a.x - b.x
	})
	d := regionData(w, h, 0, 0, opOR)
	flags := uint16(logStrips<<2 | cornerTopLeft<<4)
	d = binary.BigEndian.AppendUint16(d, flags)
	d = append(d, u32s(uint32(len(inst)))...)
	codeLen := 0
	for 1<<codeLen < len(syms) {
		codeLen++
	}
	e := mq.NewEncoder()
	var iadt, iafs, iads, iait [512]mq.Context
	iaid := make([]mq.Context, 1<<codeLen)
	encodeInt(e, &iadt, 0, false)
	stripT, firstS := 0, 0
	for i := 0; i < len(inst); {
		st := inst[i].y / strips * strips
		encodeInt(e, &iadt, int64((st-stripT)/strips), false)
		stripT = st
		curS := 0
		for first := true; i < len(inst) && inst[i].y/strips*strips == st; first = false {
			in := inst[i]
			if first {
				encodeInt(e, &iafs, int64(in.x-firstS), false)
				firstS = in.x
			} else {
				encodeInt(e, &iads, int64(in.x-curS), false)
			}
			if strips > 1 {
				encodeInt(e, &iait, int64(in.y-st), false)
			}
			encodeID(e, iaid, codeLen, in.id)
			curS = in.x + syms[in.id].Width - 1
			i++
		}
		encodeInt(e, &iads, 0, true)
	}
	return append(d, e.Flush()...)
}

// readPBM reads a binary PBM.
func readPBM(t testing.TB, data []byte) *Bitmap {
	t.Helper()
	var fields []string
	i := 0
	for len(fields) < 3 && i < len(data) {
		for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t') {
			i++
		}
		if i < len(data) && data[i] == '#' {
			for i < len(data) && data[i] != '\n' {
				i++
			}
			continue
		}
		j := i
		for j < len(data) && data[j] != ' ' && data[j] != '\n' && data[j] != '\r' && data[j] != '\t' {
			j++
		}
		fields = append(fields, string(data[i:j]))
		i = j
	}
	i++
	if len(fields) != 3 || fields[0] != "P4" {
		t.Fatalf("not a binary PBM")
	}
	w, _ := strconv.Atoi(fields[1])
	h, _ := strconv.Atoi(fields[2])
	b := newBitmap(w, h)
	if len(data)-i < len(b.Data) {
		t.Fatalf("a PBM of %dx%d with %d bytes", w, h, len(data)-i)
	}
	copy(b.Data, data[i:])
	b.clearPadding()
	return b
}

// pbm writes b as a binary PBM.
func pbm(b *Bitmap) []byte {
	return append([]byte(fmt.Sprintf("P4\n%d %d\n", b.Width, b.Height)), b.Data...)
}

func (b *Bitmap) clearPadding() {
	if pad := b.Stride*8 - b.Width; pad > 0 {
		for y := range b.Height {
			b.Data[y*b.Stride+b.Stride-1] &^= 1<<uint(pad) - 1
		}
	}
}

// crop returns the w×h part of b at x, y.
func crop(b *Bitmap, x, y, w, h int) *Bitmap {
	c := newBitmap(w, h)
	for yy := range h {
		for xx := range w {
			if b.at(x+xx, y+yy) == 1 {
				c.set(xx, yy)
			}
		}
	}
	return c
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// refinementContext forms the context of pixel x, y of b refining ref
// (T.88 Figures 12 and 13), the reference's pixel at x-dx, y-dy.
func refinementContext(b *Bitmap, x, y int, p *refineParams) int {
	px := func(dx, dy int) int { return int(b.at(x+dx, y+dy)) }
	rp := func(dx, dy int) int { return int(p.ref.at(x-p.dx+dx, y-p.dy+dy)) }
	var pix []int // from bit 0 up
	if p.template == 0 {
		pix = []int{px(-1, 0), px(1, -1), px(0, -1), px(p.at[0].dx, p.at[0].dy),
			rp(1, 1), rp(0, 1), rp(-1, 1), rp(1, 0), rp(0, 0), rp(-1, 0), rp(1, -1), rp(0, -1),
			rp(p.at[1].dx, p.at[1].dy)}
	} else {
		pix = []int{px(-1, 0), px(1, -1), px(0, -1), px(-1, -1),
			rp(1, 1), rp(0, 1), rp(1, 0), rp(0, 0), rp(-1, 0), rp(0, -1)}
	}
	c := 0
	for i, v := range pix {
		c |= v << uint(i)
	}
	return c
}

// encodeRefine codes b refining p.ref (6.3.5 backwards) with contexts cx.
func encodeRefine(e *mq.Encoder, cx []mq.Context, b *Bitmap, p *refineParams) {
	// uniform is the colour of a pixel's 3×3 reference neighbourhood, -1
	// if it has both.
	uniform := func(x, y int) int {
		v := p.ref.at(x-p.dx, y-p.dy)
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if p.ref.at(x-p.dx+dx, y-p.dy+dy) != v {
					return -1
				}
			}
		}
		return int(v)
	}
	ltp := 0
	for y := range b.Height {
		typical := 0
		if p.tpgron {
			typical = 1
			for x := range b.Width {
				if u := uniform(x, y); u >= 0 && u != int(b.at(x, y)) {
					typical = 0
					break
				}
			}
			e.Encode(&cx[refineSLTP[p.template]], typical^ltp)
			ltp = typical
		}
		for x := range b.Width {
			if typical == 1 && uniform(x, y) >= 0 {
				continue
			}
			e.Encode(&cx[refinementContext(b, x, y, p)], int(b.at(x, y)))
		}
	}
}

// perturb is b with about one pixel in every n flipped near its ink.
func perturb(b *Bitmap, n int, seed uint64) *Bitmap {
	c := crop(b, 0, 0, b.Width, b.Height)
	rng := rand.New(rand.NewPCG(seed, 5))
	for y := range b.Height {
		for x := range b.Width {
			if b.at(x, y)|b.at(x+1, y)|b.at(x, y+1) != 0 && rng.IntN(n) == 0 {
				c.Data[y*c.Stride+x>>3] ^= 0x80 >> uint(x&7)
			}
		}
	}
	return c
}

// refinementData is a generic refinement region segment's data coding b
// at x, y refining p.ref.
func refinementData(b *Bitmap, x, y, op int, p refineParams) []byte {
	d := regionData(b.Width, b.Height, x, y, op)
	flags := byte(p.template)
	if p.tpgron {
		flags |= 2
	}
	d = append(d, flags)
	if p.template == 0 {
		for _, a := range p.at {
			d = append(d, byte(int8(a.dx)), byte(int8(a.dy)))
		}
	}
	e := mq.NewEncoder()
	encodeRefine(e, refineContexts(p.template), b, &p)
	return append(d, e.Flush()...)
}

// textCoder holds a text region's encoding contexts, which a symbol
// dictionary's aggregates share.
type textCoder struct {
	iadt, iafs, iads, iait, iari, iardw, iardh, iardx, iardy [512]mq.Context
	codeLen                                                  int
	iaid, grcx                                               []mq.Context
}

func newTextCoder(codeLen, rtemplate int) *textCoder {
	return &textCoder{codeLen: codeLen, iaid: make([]mq.Context, 1<<codeLen), grcx: refineContexts(rtemplate)}
}

// refinedInstance is a text instance refined from its symbol to target.
type refinedInstance struct {
	instance
	target *Bitmap // nil: the symbol as it is
}

// encodeText codes instances of syms (6.4.5 backwards) in strips of
// 1<<logStrips rows, top left corners the reference; with refine, each
// instance says whether it is refined, and to what (rtemplate 0 with its
// nominal adaptive pixels, or 1).
func encodeText(e *mq.Encoder, c *textCoder, syms []*Bitmap, inst []refinedInstance, logStrips int, refine bool, rtemplate int) {
	strips := 1 << logStrips
	inst = slices.Clone(inst)
	slices.SortStableFunc(inst, func(a, b refinedInstance) int {
		if sa, sb := a.y/strips, b.y/strips; sa != sb {
			return sa - sb
		}
		return a.x - b.x
	})
	encodeInt(e, &c.iadt, 0, false)
	stripT, firstS := 0, 0
	for i := 0; i < len(inst); {
		st := inst[i].y / strips * strips
		encodeInt(e, &c.iadt, int64((st-stripT)/strips), false)
		stripT = st
		curS := 0
		for first := true; i < len(inst) && inst[i].y/strips*strips == st; first = false {
			in := inst[i]
			if first {
				encodeInt(e, &c.iafs, int64(in.x-firstS), false)
				firstS = in.x
			} else {
				encodeInt(e, &c.iads, int64(in.x-curS), false)
			}
			if strips > 1 {
				encodeInt(e, &c.iait, int64(in.y-st), false)
			}
			encodeID(e, c.iaid, c.codeLen, in.id)
			w := syms[in.id].Width
			if refine {
				r := 0
				if in.target != nil {
					r = 1
				}
				encodeInt(e, &c.iari, int64(r), false)
				if in.target != nil {
					s := syms[in.id]
					rdw, rdh := in.target.Width-s.Width, in.target.Height-s.Height
					rdx, rdy := 1, -1
					encodeInt(e, &c.iardw, int64(rdw), false)
					encodeInt(e, &c.iardh, int64(rdh), false)
					encodeInt(e, &c.iardx, int64(rdx), false)
					encodeInt(e, &c.iardy, int64(rdy), false)
					rp := refineParams{template: rtemplate, at: nominalRefineAT, ref: s, dx: rdw>>1 + rdx, dy: rdh>>1 + rdy}
					encodeRefine(e, c.grcx, in.target, &rp)
					w = in.target.Width
				}
			}
			curS = in.x + w - 1
			i++
		}
		encodeInt(e, &c.iads, 0, true)
	}
}

// symbolSpec is a new symbol of a dictionary of refined and aggregated
// symbols: a refinement of the known symbol ref, or an aggregate of known
// symbols, its bitmap b. A known symbol is one of the dictionary's input
// symbols or, from numIn on, the specs themselves.
type symbolSpec struct {
	b   *Bitmap
	ref int
	agg []instance // the aggregate's instances, if not a refinement
}

// refAggDictData codes specs as a symbol dictionary of refined and
// aggregated symbols (6.5.8.2 backwards), rtemplate 0 with nominal
// adaptive pixels, over numIn input symbols known; all the new symbols are
// exported. order gives the specs' places among the new symbols.
func refAggDictData(in []*Bitmap, specs []symbolSpec) (data []byte, order []int) {
	numIn := len(in)
	order = make([]int, len(specs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if specs[a].b.Height != specs[b].b.Height {
			return specs[a].b.Height - specs[b].b.Height
		}
		return specs[a].b.Width - specs[b].b.Width
	})
	place := make([]int, len(specs))
	for i, s := range order {
		place[s] = i
	}
	known := func(k int) int {
		if k < numIn {
			return k
		}
		return numIn + place[k-numIn]
	}
	knownSyms := slices.Clone(in)
	for _, s := range order {
		knownSyms = append(knownSyms, specs[s].b)
	}
	flags := uint16(2) // SDREFAGG, template 0, refinement template 0
	d := binary.BigEndian.AppendUint16(nil, flags)
	for _, a := range nominalAT[0] {
		d = append(d, byte(int8(a.dx)), byte(int8(a.dy)))
	}
	for _, a := range nominalRefineAT {
		d = append(d, byte(int8(a.dx)), byte(int8(a.dy)))
	}
	d = append(d, u32s(uint32(len(specs)), uint32(len(specs)))...)
	e := mq.NewEncoder()
	var iadh, iadw, iaex, iaai [512]mq.Context
	codeLen := 0
	for 1<<codeLen < numIn+len(specs) {
		codeLen++
	}
	tc := newTextCoder(codeLen, 0)
	height := 0
	for i := 0; i < len(order); {
		h := specs[order[i]].b.Height
		encodeInt(e, &iadh, int64(h-height), false)
		height = h
		width := 0
		for ; i < len(order) && specs[order[i]].b.Height == h; i++ {
			sp := specs[order[i]]
			encodeInt(e, &iadw, int64(sp.b.Width-width), false)
			width = sp.b.Width
			if sp.agg == nil {
				encodeInt(e, &iaai, 1, false)
				id := known(sp.ref)
				encodeID(e, tc.iaid, codeLen, id)
				encodeInt(e, &tc.iardx, 0, false)
				encodeInt(e, &tc.iardy, 0, false)
				rp := refineParams{template: 0, at: nominalRefineAT, ref: knownSyms[id]}
				encodeRefine(e, tc.grcx, sp.b, &rp)
				continue
			}
			encodeInt(e, &iaai, int64(len(sp.agg)), false)
			var inst []refinedInstance
			for _, a := range sp.agg {
				inst = append(inst, refinedInstance{instance{known(a.id), a.x, a.y}, nil})
			}
			encodeText(e, tc, knownSyms, inst, 0, true, 0)
		}
		encodeInt(e, &iadw, 0, true)
	}
	encodeInt(e, &iaex, int64(numIn), false)
	encodeInt(e, &iaex, int64(len(specs)), false)
	return append(d, e.Flush()...), order
}
