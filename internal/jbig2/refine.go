package jbig2

import (
	"fmt"

	"github.com/researchctx/researchctx/internal/mq"
)

// refineParams are the parameters of the generic refinement region
// decoding procedure (T.88 6.3.2).
type refineParams struct {
	template int   // GRTEMPLATE, 0 or 1
	tpgron   bool  // typical prediction
	at       [2]at // GRAT: the first on the decoded bitmap, the second on the reference
	ref      *Bitmap
	dx, dy   int // the reference's offset
}

// nominalRefineAT are template 0's adaptive pixels' nominal places.
var nominalRefineAT = [2]at{{-1, -1}, {-1, -1}}

// refineContexts returns the contexts of a refinement template.
func refineContexts(template int) []mq.Context {
	return make([]mq.Context, 1<<[2]int{13, 10}[template])
}

// refineContext forms the context of pixel x, y of b (T.88 Figures 12,
// 13), from b and the reference.
func refineContext(b *Bitmap, x, y int, p *refineParams) uint32 {
	r := p.ref
	rx, ry := x-p.dx, y-p.dy
	if p.template == 0 {
		return b.at(x-1, y) | b.at(x+1, y-1)<<1 | b.at(x, y-1)<<2 |
			b.at(x+p.at[0].dx, y+p.at[0].dy)<<3 |
			r.at(rx+1, ry+1)<<4 | r.at(rx, ry+1)<<5 | r.at(rx-1, ry+1)<<6 |
			r.at(rx+1, ry)<<7 | r.at(rx, ry)<<8 | r.at(rx-1, ry)<<9 |
			r.at(rx+1, ry-1)<<10 | r.at(rx, ry-1)<<11 |
			r.at(rx+p.at[1].dx, ry+p.at[1].dy)<<12
	}
	return b.at(x-1, y) | b.at(x+1, y-1)<<1 | b.at(x, y-1)<<2 | b.at(x-1, y-1)<<3 |
		r.at(rx+1, ry+1)<<4 | r.at(rx, ry+1)<<5 |
		r.at(rx+1, ry)<<6 | r.at(rx, ry)<<7 | r.at(rx-1, ry)<<8 |
		r.at(rx, ry-1)<<9
}

// refineSLTP is the context of refinement's typical prediction.
var refineSLTP = [2]int{0x0100, 0x0040}

// decodeRefine decodes a w×h bitmap refining p.ref (6.3.5) with contexts
// cx, from d.
func decodeRefine(d *mq.Decoder, cx []mq.Context, w, h int, p *refineParams) *Bitmap {
	b := newBitmap(w, h)
	ltp := 0
	for y := range h {
		if p.tpgron {
			ltp ^= d.Decode(&cx[refineSLTP[p.template]])
		}
		for x := range w {
			if ltp == 1 {
				// Typical prediction: a pixel whose reference neighbours
				// are all one colour is that colour (TPGRPIX).
				rx, ry := x-p.dx, y-p.dy
				v := p.ref.at(rx, ry)
				same := true
				for yy := ry - 1; yy <= ry+1 && same; yy++ {
					for xx := rx - 1; xx <= rx+1; xx++ {
						if p.ref.at(xx, yy) != v {
							same = false
							break
						}
					}
				}
				if same {
					if v != 0 {
						b.set(x, y)
					}
					continue
				}
			}
			if d.Decode(&cx[refineContext(b, x, y, p)]) != 0 {
				b.set(x, y)
			}
		}
	}
	return b
}

// readRefineAT reads template 0's adaptive pixels.
func readRefineAT(r *reader, template int) ([2]at, error) {
	if template != 0 {
		return [2]at{}, nil
	}
	a := [2]at{{r.i8(), r.i8()}, {r.i8(), r.i8()}}
	if r.err != nil {
		return a, r.err
	}
	if a[0].dy > 0 || a[0].dy == 0 && a[0].dx >= 0 {
		return a, fmt.Errorf("%w: a refinement adaptive pixel at %d, %d", ErrMalformed, a[0].dx, a[0].dy)
	}
	return a, nil
}

// intermediate is an intermediate region's result, kept for the
// refinement regions that refer to it.
type intermediate struct {
	reg region
	b   *Bitmap
}

// refinementRegion decodes a generic refinement region segment (7.4.7):
// it refines the intermediate region it refers to, or else the page
// under it.
func (dc *decoder) refinementRegion(s *segment) (region, *Bitmap, error) {
	r := &reader{b: s.data}
	reg, err := regionInfo(r, dc.maxPixels)
	if err != nil {
		return reg, nil, err
	}
	flags := r.u8()
	p := refineParams{template: flags & 1, tpgron: flags&2 != 0}
	if p.at, err = readRefineAT(r, p.template); err != nil {
		return reg, nil, err
	}
	if r.err != nil {
		return reg, nil, r.err
	}
	switch len(s.referred) {
	case 0:
		if dc.page == nil {
			return reg, nil, fmt.Errorf("%w: a refinement before the page information", ErrMalformed)
		}
		if dc.unknownH {
			if reg.y+reg.h > dc.page.Height {
				return reg, nil, fmt.Errorf("%w: a region below the page's largest height", ErrMalformed)
			}
			if err := dc.grow(reg.y + reg.h); err != nil {
				return reg, nil, err
			}
		}
		if err := dc.bitmap(reg.w, reg.h); err != nil {
			return reg, nil, err
		}
		p.ref = newBitmap(reg.w, reg.h)
		p.ref.compose(dc.page, -reg.x, -reg.y, opREPLACE)
	case 1:
		v, ok := dc.results[s.referred[0]].(*intermediate)
		if !ok {
			return reg, nil, fmt.Errorf("%w: a refinement of segment %d, not an intermediate region", ErrMalformed, s.referred[0])
		}
		p.ref = v.b
		// The reference is used up.
		delete(dc.results, s.referred[0])
	default:
		return reg, nil, fmt.Errorf("%w: a refinement of %d regions", ErrMalformed, len(s.referred))
	}
	if err := dc.spend(reg.w, reg.h); err != nil {
		return reg, nil, err
	}
	if err := dc.contexts(1 << 13); err != nil {
		return reg, nil, err
	}
	d := mq.NewDecoder(s.data[r.off:])
	return reg, decodeRefine(d, refineContexts(p.template), reg.w, reg.h, &p), nil
}
