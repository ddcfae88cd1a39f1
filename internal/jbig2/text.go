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

// textRegion decodes a text region segment (7.4.3, 6.4) coded
// arithmetically, without refinement, to its region and bitmap.
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
	if flags&1 != 0 {
		return reg, nil, fmt.Errorf("%w: a Huffman-coded text region", ErrUnsupported)
	}
	if flags&2 != 0 {
		return reg, nil, fmt.Errorf("%w: a text region of refined symbols", ErrUnsupported)
	}
	strips := int64(1) << (flags >> 2 & 3)
	corner := flags >> 4 & 3
	transposed := flags&0x40 != 0
	op := flags >> 7 & 3
	dsOffset := int64(flags >> 10 & 0x1F)
	if dsOffset >= 16 {
		dsOffset -= 32
	}
	numInst := r.u32()
	if r.err != nil {
		return reg, nil, r.err
	}
	if uint64(numInst) > uint64(dc.symbols) {
		return reg, nil, fmt.Errorf("%w: a text region of %d symbol instances", ErrLimit, numInst)
	}
	dc.symbols -= int(numInst)
	syms, _, err := dc.referredSymbols(s)
	if err != nil {
		return reg, nil, err
	}
	if len(syms) == 0 && numInst > 0 {
		return reg, nil, fmt.Errorf("%w: a text region without symbols", ErrMalformed)
	}
	if err := dc.spend(reg.w, reg.h); err != nil {
		return reg, nil, err
	}
	b := newBitmap(reg.w, reg.h)
	if flags&0x200 != 0 {
		b.fill(1)
	}
	codeLen := 0
	for 1<<codeLen < len(syms) {
		codeLen++
	}
	d := mq.NewDecoder(s.data[r.off:])
	var iadt, iafs, iads, iait intDecoder
	iaid := newIDDecoder(codeLen)
	bad := func(what string, v int64) error {
		return fmt.Errorf("%w: %s %d", ErrMalformed, what, v)
	}
	dt, ok := iadt.decode(d)
	if !ok {
		return reg, nil, bad("strip", dt)
	}
	stripT := -dt * strips
	firstS := int64(0)
	for n := uint32(0); n < numInst; {
		dt, ok := iadt.decode(d)
		stripT += dt * strips
		if !ok || stripT < -maxCoord || stripT > maxCoord {
			return reg, nil, bad("strip", stripT)
		}
		var curS int64
		// A strip's instances end with an out-of-band S, its last
		// strip's too.
		for first := true; ; first = false {
			if first {
				dfs, ok := iafs.decode(d)
				firstS += dfs
				if !ok || firstS < -maxCoord || firstS > maxCoord {
					return reg, nil, bad("first symbol at", firstS)
				}
				curS = firstS
			} else {
				ids, ok := iads.decode(d)
				if !ok {
					break
				}
				if n == numInst {
					return reg, nil, fmt.Errorf("%w: more than %d symbol instances", ErrMalformed, numInst)
				}
				curS += ids + dsOffset
				if curS < -maxCoord || curS > maxCoord {
					return reg, nil, bad("symbol at", curS)
				}
			}
			curT := int64(0)
			if strips > 1 {
				curT, ok = iait.decode(d)
				if !ok {
					return reg, nil, bad("symbol strip offset", curT)
				}
			}
			t := stripT + curT
			id := iaid.decode(d)
			if id >= len(syms) {
				return reg, nil, bad("symbol", int64(id))
			}
			sym := syms[id]
			if err := dc.spend(sym.Width, sym.Height); err != nil {
				return reg, nil, err
			}
			wi, hi := int64(sym.Width), int64(sym.Height)
			if !transposed && (corner == cornerTopRight || corner == cornerBottomRight) {
				curS += wi - 1
			}
			if transposed && (corner == cornerBottomLeft || corner == cornerBottomRight) {
				curS += hi - 1
			}
			// The instance's reference corner is at x, y.
			x, y := curS, t
			if transposed {
				x, y = t, curS
			}
			if corner == cornerTopRight || corner == cornerBottomRight {
				x -= wi - 1
			}
			if corner == cornerBottomLeft || corner == cornerBottomRight {
				y -= hi - 1
			}
			b.compose(sym, int(x), int(y), op)
			if !transposed && (corner == cornerTopLeft || corner == cornerBottomLeft) {
				curS += wi - 1
			}
			if transposed && (corner == cornerTopLeft || corner == cornerTopRight) {
				curS += hi - 1
			}
			n++
		}
	}
	return reg, b, nil
}
