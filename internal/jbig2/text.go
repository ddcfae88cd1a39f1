package jbig2

import (
	"fmt"

	"github.com/researchctx/researchctx/internal/mq"
)

// Reference corners of a text region's symbol instances (7.4.3.1.1).
const (
	cornerBottomLeft = iota
	cornerTopLeft
	cornerBottomRight
	cornerTopRight
)

// textParams are the parameters of the text region decoding procedure
// (6.4.2) with arithmetic coding.
type textParams struct {
	w, h       int
	numInst    uint32
	strips     int64
	corner     int
	transposed bool
	op         int
	defPixel   int
	dsOffset   int64
	refine     bool
	rtemplate  int
	rat        [2]at
	syms       []*Bitmap
}

// textCoders are the contexts of the text region decoding procedure,
// which a symbol dictionary's aggregates share.
type textCoders struct {
	iadt, iafs, iads, iait, iari, iardw, iardh, iardx, iardy intDecoder
	iaid                                                     *idDecoder
	grcx                                                     []mq.Context

	// Huffman coding, when hb is set: the tables, and the bits of a
	// symbol's T within its strip.
	hb                             *bitReader
	fsT, dsT, dtT, idT             *huffTable
	rdwT, rdhT, rdxT, rdyT, rsizeT *huffTable
	logStrips                      int
	err                            error // of the Huffman data, once it fails
}

// integer decodes an integer arithmetically with a, or with table t.
func (c *textCoders) integer(d *mq.Decoder, a *intDecoder, t *huffTable) (int64, bool) {
	if c.hb == nil {
		return a.decode(d)
	}
	v, ok, err := c.hb.decode(t)
	if err != nil {
		c.err = err
	}
	return v, ok && err == nil
}

// curT decodes a symbol's T within its strip.
func (c *textCoders) curT(d *mq.Decoder) (int64, bool) {
	if c.hb == nil {
		return c.iait.decode(d)
	}
	v, err := c.hb.bits(c.logStrips)
	if err != nil {
		c.err = err
	}
	return v, err == nil
}

// refined decodes whether an instance is refined: a bit with Huffman
// coding.
func (c *textCoders) refined(d *mq.Decoder) int64 {
	if c.hb == nil {
		v, _ := c.iari.decode(d)
		return v
	}
	v, err := c.hb.bits(1)
	if err != nil {
		c.err = err
	}
	return v
}

// id decodes a symbol ID.
func (c *textCoders) id(d *mq.Decoder) int {
	if c.hb == nil {
		return c.iaid.decode(d)
	}
	v, ok, err := c.hb.decode(c.idT)
	if err != nil || !ok {
		c.err = fmt.Errorf("%w: a symbol ID", ErrMalformed)
		return -1
	}
	return int(v)
}

func newTextCoders(codeLen, rtemplate int) *textCoders {
	return &textCoders{iaid: newIDDecoder(codeLen), grcx: refineContexts(rtemplate)}
}

// textCoders charges the contexts of newTextCoders for n symbols to the
// byte budget.
func (dc *decoder) textCoders(n int) error {
	return dc.contexts(1<<symbolCodeLen(n) + 1<<13 + 9*512)
}

// symbolCodeLen is the bits of a symbol ID among n symbols.
func symbolCodeLen(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}

// textRegion decodes a text region segment (7.4.3) coded arithmetically
// to its region and bitmap.
func (dc *decoder) textRegion(s *segment) (region, *Bitmap, error) {
	r := &reader{b: s.data}
	reg, err := regionInfo(r, dc.maxPixels)
	if err != nil {
		return reg, nil, err
	}
	flags := r.u16()
	if r.err != nil {
		return reg, nil, r.err
	}
	huff := flags&1 != 0
	huffFlags := 0
	if huff {
		huffFlags = r.u16()
	}
	p := textParams{
		w: reg.w, h: reg.h,
		strips:     int64(1) << (flags >> 2 & 3),
		corner:     flags >> 4 & 3,
		transposed: flags&0x40 != 0,
		op:         flags >> 7 & 3,
		defPixel:   flags >> 9 & 1,
		dsOffset:   int64(flags >> 10 & 0x1F),
		refine:     flags&2 != 0,
		rtemplate:  flags >> 15,
	}
	if p.dsOffset >= 16 {
		p.dsOffset -= 32
	}
	if p.refine {
		if p.rat, err = readRefineAT(r, p.rtemplate); err != nil {
			return reg, nil, err
		}
	}
	p.numInst = r.u32()
	if r.err != nil {
		return reg, nil, r.err
	}
	if p.syms, _, err = dc.referredSymbols(s); err != nil {
		return reg, nil, err
	}
	if err := dc.spend(reg.w, reg.h); err != nil {
		return reg, nil, err
	}
	if err := dc.textCoders(len(p.syms)); err != nil {
		return reg, nil, err
	}
	if huff {
		// The symbols' code lengths and their table.
		if err := dc.transient(int64(len(p.syms)) * (huffLineCost + 8)); err != nil {
			return reg, nil, err
		}
		c, err := dc.huffmanTextCoders(s, s.data[r.off:], huffFlags, &p)
		if err != nil {
			return reg, nil, err
		}
		b, err := dc.decodeText(nil, &p, c)
		return reg, b, err
	}
	d := mq.NewDecoder(s.data[r.off:])
	b, err := dc.decodeText(d, &p, newTextCoders(symbolCodeLen(len(p.syms)), p.rtemplate))
	return reg, b, err
}

// huffmanTextCoders reads the Huffman tables of a text region (7.4.3.1.2,
// 7.4.3.1.7): those its flags select and the symbol ID codes at the start
// of data.
func (dc *decoder) huffmanTextCoders(s *segment, data []byte, flags int, p *textParams) (*textCoders, error) {
	tp := &tablePicker{user: dc.referredTables(s)}
	c := &textCoders{hb: &bitReader{b: data}, logStrips: symbolCodeLen(int(p.strips))}
	var err error
	if c.fsT, err = tp.pick(flags&3, []int{6, 7, 0}, "first S"); err != nil {
		return nil, err
	}
	if c.dsT, err = tp.pick(flags>>2&3, []int{8, 9, 10}, "S"); err != nil {
		return nil, err
	}
	if c.dtT, err = tp.pick(flags>>4&3, []int{11, 12, 13}, "T"); err != nil {
		return nil, err
	}
	if p.refine {
		// The refinement's tables, taken only when used.
		for i, t := range []**huffTable{&c.rdwT, &c.rdhT, &c.rdxT, &c.rdyT} {
			if *t, err = tp.pick(flags>>(6+2*i)&3, []int{14, 15, 0}, "refinements"); err != nil {
				return nil, err
			}
		}
		if c.rsizeT, err = tp.pick(flags>>14&1, []int{1}, "refinement sizes"); err != nil {
			return nil, err
		}
	}
	c.grcx = refineContexts(p.rtemplate)
	// The run codes' lengths, then the symbols' code lengths in them.
	var run []huffLine
	for i := range 35 {
		n, err := c.hb.bits(4)
		if err != nil {
			return nil, err
		}
		run = append(run, huffLine{int(n), 0, int64(i), 0})
	}
	runT, err := newHuffTable(run)
	if err != nil {
		return nil, err
	}
	lens := make([]int, 0, min(len(p.syms), 4096))
	for len(lens) < len(p.syms) {
		rc, ok, err := c.hb.decode(runT)
		if err != nil || !ok {
			return nil, fmt.Errorf("%w: the symbol ID codes", ErrMalformed)
		}
		n, v := int64(1), int(rc)
		var bits int64
		switch rc {
		case 32:
			if len(lens) == 0 {
				return nil, fmt.Errorf("%w: a symbol ID code length repeated first", ErrMalformed)
			}
			bits, err = c.hb.bits(2)
			n, v = 3+bits, lens[len(lens)-1]
		case 33:
			bits, err = c.hb.bits(3)
			n, v = 3+bits, 0
		case 34:
			bits, err = c.hb.bits(7)
			n, v = 11+bits, 0
		}
		if err != nil || n > int64(len(p.syms)-len(lens)) {
			return nil, fmt.Errorf("%w: the symbol ID codes", ErrMalformed)
		}
		for range n {
			lens = append(lens, v)
		}
	}
	c.hb.align()
	ids := make([]huffLine, len(lens))
	for i, n := range lens {
		ids[i] = huffLine{n, 0, int64(i), 0}
	}
	if c.idT, err = newHuffTable(ids); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeText is the text region decoding procedure (6.4.5) with
// arithmetic coding.
func (dc *decoder) decodeText(d *mq.Decoder, p *textParams, c *textCoders) (*Bitmap, error) {
	if uint64(p.numInst) > uint64(dc.symbols) {
		return nil, fmt.Errorf("%w: a text region of %d symbol instances", ErrLimit, p.numInst)
	}
	dc.symbols -= int(p.numInst)
	if len(p.syms) == 0 && p.numInst > 0 {
		return nil, fmt.Errorf("%w: a text region without symbols", ErrMalformed)
	}
	b := newBitmap(p.w, p.h)
	if p.defPixel != 0 {
		b.fill(1)
	}
	bad := func(what string, v int64) error {
		return fmt.Errorf("%w: %s %d", ErrMalformed, what, v)
	}
	dt, ok := c.integer(d, &c.iadt, c.dtT)
	if !ok {
		return nil, bad("strip", dt)
	}
	stripT := -dt * p.strips
	firstS := int64(0)
	for n := uint32(0); n < p.numInst; {
		dt, ok := c.integer(d, &c.iadt, c.dtT)
		stripT += dt * p.strips
		if !ok || stripT < -maxCoord || stripT > maxCoord {
			return nil, bad("strip", stripT)
		}
		var curS int64
		// A strip's instances end with an out-of-band S, its last
		// strip's too.
		for first := true; ; first = false {
			if first {
				dfs, ok := c.integer(d, &c.iafs, c.fsT)
				firstS += dfs
				if !ok || firstS < -maxCoord || firstS > maxCoord {
					return nil, bad("first symbol at", firstS)
				}
				curS = firstS
			} else {
				ids, ok := c.integer(d, &c.iads, c.dsT)
				if c.err != nil {
					return nil, c.err
				}
				if !ok {
					break
				}
				if n == p.numInst {
					return nil, fmt.Errorf("%w: more than %d symbol instances", ErrMalformed, p.numInst)
				}
				curS += ids + p.dsOffset
				if curS < -maxCoord || curS > maxCoord {
					return nil, bad("symbol at", curS)
				}
			}
			curT := int64(0)
			if p.strips > 1 {
				curT, ok = c.curT(d)
				if !ok {
					return nil, bad("symbol strip offset", curT)
				}
			}
			t := stripT + curT
			id := c.id(d)
			if c.err != nil {
				return nil, c.err
			}
			if id < 0 || id >= len(p.syms) {
				return nil, bad("symbol", int64(id))
			}
			sym := p.syms[id]
			if p.refine {
				if ri := c.refined(d); c.err != nil {
					return nil, c.err
				} else if ri != 0 {
					var err error
					if sym, err = dc.refineInstance(d, c, sym, p); err != nil {
						return nil, err
					}
				}
			}
			if err := dc.spend(sym.Width, sym.Height); err != nil {
				return nil, err
			}
			wi, hi := int64(sym.Width), int64(sym.Height)
			if !p.transposed && (p.corner == cornerTopRight || p.corner == cornerBottomRight) {
				curS += wi - 1
			}
			if p.transposed && (p.corner == cornerBottomLeft || p.corner == cornerBottomRight) {
				curS += hi - 1
			}
			// The instance's reference corner is at x, y.
			x, y := curS, t
			if p.transposed {
				x, y = t, curS
			}
			if p.corner == cornerTopRight || p.corner == cornerBottomRight {
				x -= wi - 1
			}
			if p.corner == cornerBottomLeft || p.corner == cornerBottomRight {
				y -= hi - 1
			}
			if x > -maxCoord && x < maxCoord && y > -maxCoord && y < maxCoord {
				b.compose(sym, int(x), int(y), p.op)
			}
			if !p.transposed && (p.corner == cornerTopLeft || p.corner == cornerBottomLeft) {
				curS += wi - 1
			}
			if p.transposed && (p.corner == cornerTopLeft || p.corner == cornerTopRight) {
				curS += hi - 1
			}
			n++
		}
	}
	return b, nil
}

// refineInstance decodes a refined symbol instance (6.4.11.3): the
// symbol's size changes and its bitmap is refined.
func (dc *decoder) refineInstance(d *mq.Decoder, c *textCoders, sym *Bitmap, p *textParams) (*Bitmap, error) {
	rdw, ok1 := c.integer(d, &c.iardw, c.rdwT)
	rdh, ok2 := c.integer(d, &c.iardh, c.rdhT)
	rdx, ok3 := c.integer(d, &c.iardx, c.rdxT)
	rdy, ok4 := c.integer(d, &c.iardy, c.rdyT)
	if c.err != nil {
		return nil, c.err
	}
	w, h := int64(sym.Width)+rdw, int64(sym.Height)+rdh
	if !ok1 || !ok2 || !ok3 || !ok4 || w < 0 || h < 0 || w*h > int64(dc.maxPixels) ||
		rdx < -maxCoord || rdx > maxCoord || rdy < -maxCoord || rdy > maxCoord {
		return nil, fmt.Errorf("%w: a refined symbol of %d×%d pixels", ErrMalformed, w, h)
	}
	if err := dc.spend(int(w), int(h)); err != nil {
		return nil, err
	}
	rp := refineParams{
		template: p.rtemplate, at: p.rat, ref: sym,
		dx: int(rdw>>1 + rdx), dy: int(rdh>>1 + rdy),
	}
	if c.hb == nil {
		return decodeRefine(d, c.grcx, int(w), int(h), &rp), nil
	}
	// With Huffman coding, the refinement is coded arithmetically in the
	// next whole bytes, as many as its size says.
	size, ok, err := c.hb.decode(c.rsizeT)
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: a refinement's size", ErrMalformed)
	}
	c.hb.align()
	at := c.hb.byteOffset()
	if size < 0 || size > int64(len(c.hb.b)-at) {
		return nil, fmt.Errorf("%w: a refinement of %d bytes with %d left", ErrMalformed, size, len(c.hb.b)-at)
	}
	c.hb.off += int(size) * 8
	return decodeRefine(mq.NewDecoder(c.hb.b[at:at+int(size)]), c.grcx, int(w), int(h), &rp), nil
}
