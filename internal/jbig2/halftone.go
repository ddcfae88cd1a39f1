package jbig2

import (
	"fmt"

	"github.com/researchctx/researchctx/internal/mq"
)

// patternDict is a decoded pattern dictionary: its patterns, all of one
// size.
type patternDict struct {
	patterns []*Bitmap
}

// maxPatterns bounds the patterns of a dictionary.
const maxPatterns = 1 << 16

// patternAT are the adaptive pixels of a pattern dictionary's collective
// bitmap (6.7.5) of patterns w pixels wide, for templates 0 and 1. (Of
// templates 2 and 3, decoders read the pixels differently, and neither is
// decoded.)
func patternAT(template, w int) [4]at {
	if template == 0 {
		return [4]at{{-w, 0}, {-3, -1}, {2, -2}, {-2, -2}}
	}
	return nominalAT[template]
}

// patternDictionary decodes a pattern dictionary segment (7.4.4, 6.7)
// coded arithmetically, of template 0 or 1.
func (dc *decoder) patternDictionary(s *segment) (*patternDict, error) {
	r := &reader{b: s.data}
	flags := r.u8()
	pw, ph := r.u8(), r.u8()
	grayMax := r.u32()
	if r.err != nil {
		return nil, r.err
	}
	if flags&1 != 0 {
		return nil, fmt.Errorf("%w: an MMR-coded pattern dictionary", ErrUnsupported)
	}
	if flags>>1&3 > 1 {
		return nil, fmt.Errorf("%w: a pattern dictionary of template %d", ErrUnsupported, flags>>1&3)
	}
	if pw == 0 || ph == 0 || grayMax >= maxPatterns {
		return nil, fmt.Errorf("%w: a pattern dictionary of %d patterns of %d×%d pixels", ErrMalformed, uint64(grayMax)+1, pw, ph)
	}
	n := int(grayMax) + 1
	w := n * pw
	if int64(w)*int64(ph) > int64(dc.maxPixels) {
		return nil, fmt.Errorf("%w: a pattern dictionary of %d×%d pixels", ErrLimit, w, ph)
	}
	if err := dc.spend(w, ph); err != nil {
		return nil, err
	}
	// The patterns are copies of the collective bitmap's parts.
	if err := dc.alloc(int64(n) * (int64((pw+7)/8)*int64(ph) + bitmapCost)); err != nil {
		return nil, err
	}
	if err := dc.contexts(1 << 16); err != nil {
		return nil, err
	}
	p := genericParams{template: flags >> 1 & 3, at: patternAT(flags>>1&3, pw)}
	coll := decodeGeneric(mq.NewDecoder(s.data[r.off:]), genericContexts(p.template), w, ph, &p)
	pd := &patternDict{}
	for i := range n {
		pd.patterns = append(pd.patterns, coll.sub(i*pw, 0, pw, ph))
	}
	return pd, nil
}

// halftoneRegion decodes a halftone region segment (7.4.5, 6.6) coded
// arithmetically, of template 0 or 1, to its region and bitmap.
func (dc *decoder) halftoneRegion(s *segment) (region, *Bitmap, error) {
	r := &reader{b: s.data}
	reg, err := regionInfo(r, dc.maxPixels)
	if err != nil {
		return reg, nil, err
	}
	flags := r.u8()
	gw, gh := r.u32(), r.u32()
	gx, gy := int64(int32(r.u32())), int64(int32(r.u32()))
	rx, ry := int64(r.u16()), int64(r.u16())
	if r.err != nil {
		return reg, nil, r.err
	}
	if flags&1 != 0 {
		return reg, nil, fmt.Errorf("%w: an MMR-coded halftone region", ErrUnsupported)
	}
	if len(s.referred) != 1 {
		return reg, nil, fmt.Errorf("%w: a halftone region of %d pattern dictionaries", ErrMalformed, len(s.referred))
	}
	pd, ok := dc.results[s.referred[0]].(*patternDict)
	if !ok {
		return reg, nil, fmt.Errorf("%w: a halftone region without its patterns", ErrMalformed)
	}
	template := flags >> 1 & 3
	if template > 1 {
		return reg, nil, fmt.Errorf("%w: a halftone region of template %d", ErrUnsupported, template)
	}
	skip := flags&8 != 0
	op := flags >> 4 & 7
	if op > opREPLACE {
		return reg, nil, fmt.Errorf("%w: combination operator %d", ErrMalformed, op)
	}
	if uint64(gw)*uint64(gh) > uint64(dc.maxPixels) {
		return reg, nil, fmt.Errorf("%w: a halftone grid of %d×%d", ErrLimit, gw, gh)
	}
	bpp := symbolCodeLen(len(pd.patterns))
	if err := dc.spend(reg.w, reg.h); err != nil {
		return reg, nil, err
	}
	for range bpp {
		if err := dc.spend(int(gw), int(gh)); err != nil {
			return reg, nil, err
		}
	}
	// Each cell draws a pattern.
	if err := dc.spend(int(gw)*int(gh), pd.patterns[0].Width*pd.patterns[0].Height); err != nil {
		return reg, nil, err
	}
	if skip {
		if err := dc.bitmap(int(gw), int(gh)); err != nil {
			return reg, nil, err
		}
	}
	if err := dc.contexts(1 << 16); err != nil {
		return reg, nil, err
	}
	b := newBitmap(reg.w, reg.h)
	if flags&0x80 != 0 {
		b.fill(1)
	}
	pw, ph := int64(pd.patterns[0].Width), int64(pd.patterns[0].Height)
	// The grid cells' places (6.6.5.2).
	place := func(m, n int64) (int64, int64) {
		return (gx + m*ry + n*rx) >> 8, (gy + m*rx - n*ry) >> 8
	}
	var skipped *Bitmap
	if skip {
		skipped = newBitmap(int(gw), int(gh))
		for m := range int64(gh) {
			for n := range int64(gw) {
				x, y := place(m, n)
				if x+pw <= 0 || x >= int64(reg.w) || y+ph <= 0 || y >= int64(reg.h) {
					skipped.set(int(n), int(m))
				}
			}
		}
	}
	// The gray-scale image (C.5): bit planes from the most significant,
	// each after the first the XOR of its coded plane and the one above.
	d := mq.NewDecoder(s.data[r.off:])
	cx := genericContexts(template)
	p := genericParams{template: template, at: nominalAT[template]}
	planes := make([]*Bitmap, bpp)
	for j := bpp - 1; j >= 0; j-- {
		planes[j] = decodeGenericSkip(d, cx, int(gw), int(gh), &p, skipped)
		if j < bpp-1 {
			for i := range planes[j].Data {
				planes[j].Data[i] ^= planes[j+1].Data[i]
			}
		}
	}
	for m := range int64(gh) {
		for n := range int64(gw) {
			v := 0
			for j := range bpp {
				v |= int(planes[j].at(int(n), int(m))) << uint(j)
			}
			if v >= len(pd.patterns) {
				return reg, nil, fmt.Errorf("%w: pattern %d of %d", ErrMalformed, v, len(pd.patterns))
			}
			x, y := place(m, n)
			if x > -maxCoord && x < maxCoord && y > -maxCoord && y < maxCoord {
				b.compose(pd.patterns[v], int(x), int(y), op)
			}
		}
	}
	return reg, b, nil
}

// decodeGenericSkip is decodeGeneric, the pixels set in skip (if not nil)
// not coded and 0.
func decodeGenericSkip(d *mq.Decoder, cx []mq.Context, w, h int, p *genericParams, skip *Bitmap) *Bitmap {
	if skip == nil {
		return decodeGeneric(d, cx, w, h, p)
	}
	b := newBitmap(w, h)
	for y := range h {
		for x := range w {
			if skip.at(x, y) != 0 {
				continue
			}
			if d.Decode(&cx[genericContext(b, x, y, p)]) != 0 {
				b.set(x, y)
			}
		}
	}
	return b
}

// genericContext forms the context of pixel x, y of b pixel by pixel.
func genericContext(b *Bitmap, x, y int, p *genericParams) uint32 {
	px := func(dx, dy int) uint32 { return b.at(x+dx, y+dy) }
	a := func(i int) uint32 { return px(p.at[i].dx, p.at[i].dy) }
	switch p.template {
	case 0:
		return px(-1, 0) | px(-2, 0)<<1 | px(-3, 0)<<2 | px(-4, 0)<<3 | a(0)<<4 |
			px(2, -1)<<5 | px(1, -1)<<6 | px(0, -1)<<7 | px(-1, -1)<<8 | px(-2, -1)<<9 | a(1)<<10 | a(2)<<11 |
			px(1, -2)<<12 | px(0, -2)<<13 | px(-1, -2)<<14 | a(3)<<15
	case 1:
		return px(-1, 0) | px(-2, 0)<<1 | px(-3, 0)<<2 | a(0)<<3 |
			px(2, -1)<<4 | px(1, -1)<<5 | px(0, -1)<<6 | px(-1, -1)<<7 | px(-2, -1)<<8 |
			px(2, -2)<<9 | px(1, -2)<<10 | px(0, -2)<<11 | px(-1, -2)<<12
	case 2:
		return px(-1, 0) | px(-2, 0)<<1 | a(0)<<2 |
			px(1, -1)<<3 | px(0, -1)<<4 | px(-1, -1)<<5 | px(-2, -1)<<6 |
			px(1, -2)<<7 | px(0, -2)<<8 | px(-1, -2)<<9
	default:
		return px(-1, 0) | px(-2, 0)<<1 | px(-3, 0)<<2 | px(-4, 0)<<3 | a(0)<<4 |
			px(1, -1)<<5 | px(0, -1)<<6 | px(-1, -1)<<7 | px(-2, -1)<<8 | px(-3, -1)<<9
	}
}
