package jbig2

import (
	"bytes"
	"fmt"
	"io"

	"golang.org/x/image/ccitt"

	"github.com/researchctx/researchctx/internal/mq"
)

// genericParams are the parameters of the generic region decoding
// procedure (T.88 6.2.2) that arithmetic coding uses.
type genericParams struct {
	template int   // GBTEMPLATE, 0–3
	tpgdon   bool  // typical prediction
	at       [4]at // adaptive template pixels, as many as the template has
}

// at is an adaptive template pixel's offset from the pixel decoded.
type at struct{ dx, dy int }

// atCount is the number of adaptive pixels of each template.
var atCount = [4]int{4, 1, 1, 1}

// nominalAT are the adaptive pixels' nominal places.
var nominalAT = [4][4]at{
	{{3, -1}, {-3, -1}, {2, -2}, {-2, -2}},
	{{3, -1}},
	{{2, -1}},
	{{2, -1}},
}

// sltp is the context of typical prediction's pseudo-pixel (6.2.5.7).
var sltp = [4]int{0x9B25, 0x0795, 0x00E5, 0x0195}

// genericContexts returns the contexts of a template.
func genericContexts(template int) []mq.Context {
	return make([]mq.Context, 1<<[4]int{16, 13, 10, 10}[template])
}

// lookahead is how far right of the decoded pixel the registers of the two
// rows above read.
const lookahead = 8

// decodeGeneric decodes a w×h bitmap by arithmetic coding (6.2.5) with
// contexts cx, from d.
func decodeGeneric(d *mq.Decoder, cx []mq.Context, w, h int, p *genericParams) *Bitmap {
	b := newBitmap(w, h)
	n := atCount[p.template]
	// Where each adaptive pixel is read: from a register (the row above,
	// two above, or the decoded pixels left on this row) shifted by sh,
	// or from the bitmap; and its bit in the context.
	var reg [4]int
	var sh, pos [4]uint
	for i := range n {
		a := p.at[i]
		switch {
		case (a.dy == -1 || a.dy == -2) && a.dx >= lookahead-31 && a.dx <= lookahead:
			reg[i], sh[i] = -a.dy, uint(lookahead-a.dx)
		case a.dy == 0 && a.dx >= -32 && a.dx <= -1:
			reg[i], sh[i] = 0, uint(-a.dx-1)
		default:
			reg[i] = 3
		}
		pos[i] = [4][4]uint{{4, 10, 11, 15}, {3}, {2}, {4}}[p.template][i]
	}
	nominal0 := p.template == 0 && p.at == nominalAT[0]
	ltp := 0
	for y := range h {
		if p.tpgdon {
			ltp ^= d.Decode(&cx[sltp[p.template]])
			if ltp == 1 {
				if y > 0 {
					copy(b.Data[y*b.Stride:(y+1)*b.Stride], b.Data[(y-1)*b.Stride:y*b.Stride])
				}
				continue
			}
		}
		var r0, r1, r2 uint32
		row1, row2 := []byte(nil), []byte(nil)
		if y >= 1 {
			row1 = b.Data[(y-1)*b.Stride : y*b.Stride]
		}
		if y >= 2 {
			row2 = b.Data[(y-2)*b.Stride : (y-1)*b.Stride]
		}
		for x := 0; x <= lookahead; x++ {
			r1 = r1<<1 | pixel(row1, x, w)
			r2 = r2<<1 | pixel(row2, x, w)
		}
		row := b.Data[y*b.Stride : (y+1)*b.Stride]
		for x := range w {
			var c uint32
			if nominal0 {
				// The nominal adaptive pixels are in the registers' runs.
				c = r0&0xF | (r1>>(lookahead-3)&0x7F)<<4 | (r2>>(lookahead-2)&0x1F)<<11
			} else {
				switch p.template {
				case 0:
					c = r0&0xF | (r1>>(lookahead-2)&0x1F)<<5 | (r2>>(lookahead-1)&7)<<12
				case 1:
					c = r0&7 | (r1>>(lookahead-2)&0x1F)<<4 | (r2>>(lookahead-2)&0xF)<<9
				case 2:
					c = r0&3 | (r1>>(lookahead-1)&0xF)<<3 | (r2>>(lookahead-1)&7)<<7
				default:
					c = r0&0xF | (r1>>(lookahead-1)&0x1F)<<5
				}
				for i := range n {
					var v uint32
					switch reg[i] {
					case 0:
						v = r0 >> sh[i]
					case 1:
						v = r1 >> sh[i]
					case 2:
						v = r2 >> sh[i]
					default:
						v = b.at(x+p.at[i].dx, y+p.at[i].dy)
					}
					c |= (v & 1) << pos[i]
				}
			}
			v := d.Decode(&cx[c])
			if v != 0 {
				row[x>>3] |= 0x80 >> uint(x&7)
			}
			r0 = r0<<1 | uint32(v)
			r1 = r1<<1 | pixel(row1, x+lookahead+1, w)
			r2 = r2<<1 | pixel(row2, x+lookahead+1, w)
		}
	}
	return b
}

// pixel is pixel x of a row of w pixels, 0 outside it or without a row.
func pixel(row []byte, x, w int) uint32 {
	if x >= w || row == nil {
		return 0
	}
	return uint32(row[x>>3]>>(7-uint(x&7))) & 1
}

// decodeMMR decodes a w×h bitmap coded in MMR, which is CCITT Group 4
// (6.2.6), black 1.
func decodeMMR(data []byte, w, h int) (*Bitmap, error) {
	b := newBitmap(w, h)
	if w == 0 || h == 0 {
		return b, nil
	}
	r := ccitt.NewReader(bytes.NewReader(data), ccitt.MSB, ccitt.Group4, w, h, &ccitt.Options{Invert: true})
	if _, err := io.ReadFull(r, b.Data); err != nil {
		return nil, fmt.Errorf("%w: MMR data: %v", ErrMalformed, err)
	}
	return b, nil
}

// genericRegion decodes a generic region segment's data (7.4.6) to its
// region and bitmap.
func (dc *decoder) genericRegion(s *segment) (region, *Bitmap, error) {
	data := s.data
	if s.rows {
		// The region's height is its row count, after its coded data.
		n := len(data) - 4
		data = append(append(append([]byte(nil), data[:4]...), data[n:]...), data[8:n]...)
	}
	r := &reader{b: data}
	reg, err := regionInfo(r, dc.maxPixels)
	if err != nil {
		return reg, nil, err
	}
	flags := r.u8()
	if flags&0x10 != 0 {
		return reg, nil, fmt.Errorf("%w: the extended template", ErrUnsupported)
	}
	if err := dc.spend(reg.w, reg.h); err != nil {
		return reg, nil, err
	}
	if flags&1 != 0 {
		b, err := decodeMMR(data[r.off:], reg.w, reg.h)
		return reg, b, err
	}
	p := genericParams{template: flags >> 1 & 3, tpgdon: flags&8 != 0}
	if err := readAT(r, p.at[:atCount[p.template]]); err != nil {
		return reg, nil, err
	}
	if err := dc.contexts(1 << 16); err != nil {
		return reg, nil, err
	}
	d := mq.NewDecoder(data[r.off:])
	return reg, decodeGeneric(d, genericContexts(p.template), reg.w, reg.h, &p), nil
}

// readAT reads adaptive pixels' offsets.
func readAT(r *reader, ats []at) error {
	for i := range ats {
		ats[i] = at{r.i8(), r.i8()}
	}
	if r.err != nil {
		return r.err
	}
	for _, a := range ats {
		if a.dy > 0 || a.dy == 0 && a.dx >= 0 {
			return fmt.Errorf("%w: an adaptive pixel at %d, %d", ErrMalformed, a.dx, a.dy)
		}
	}
	return nil
}
