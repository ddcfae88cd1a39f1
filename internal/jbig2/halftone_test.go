package jbig2

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/researchctx/researchctx/internal/mq"
)

// halftoneStream is a page of c's size holding c as a halftone region:
// the patterns are the 16 bitmaps of 2×2 pixels, so each 2×2 block of c
// is one of them; the grid starts two cells left of and above the
// region, the cells off it skipped.
func halftoneStream(c *Bitmap, template int) []byte {
	const pw = 2
	n := 16
	coll := newBitmap(n*pw, pw)
	for v := range n {
		for b := range 4 {
			if v>>uint(b)&1 != 0 {
				coll.set(v*pw+b%2, b/2)
			}
		}
	}
	pd := []byte{byte(template << 1), pw, pw}
	pd = append(pd, u32s(uint32(n-1))...)
	pp := genericParams{template: template, at: patternAT(template, pw)}
	e := mq.NewEncoder()
	encodeGeneric(e, genericContexts(template), coll, &pp)
	pd = append(pd, e.Flush()...)

	gw, gh := (c.Width+pw-1)/pw+2, (c.Height+pw-1)/pw+2
	gray := make([][]int, gh)
	for m := range gh {
		gray[m] = make([]int, gw)
		for k := range gw {
			x, y := (k-2)*pw, (m-2)*pw
			v := 0
			for b := range 4 {
				v |= int(c.at(x+b%2, y+b/2)) << uint(b)
			}
			gray[m][k] = v
		}
	}
	d := regionData(c.Width, c.Height, 0, 0, opOR)
	d = append(d, byte(template<<1|8|opOR<<4))
	off := int32(-2 * pw * 256)
	d = append(d, u32s(uint32(gw), uint32(gh), uint32(off), uint32(off))...)
	d = binary.BigEndian.AppendUint16(d, pw*256)
	d = binary.BigEndian.AppendUint16(d, 0)
	// Skipped: the cells whose pattern is off the region.
	skip := func(k, m int) bool {
		x, y := (k-2)*pw, (m-2)*pw
		return x+pw <= 0 || x >= c.Width || y+pw <= 0 || y >= c.Height
	}
	gp := genericParams{template: template, at: nominalAT[template]}
	e = mq.NewEncoder()
	cx := genericContexts(template)
	const bpp = 4
	for j := bpp - 1; j >= 0; j-- {
		plane := newBitmap(gw, gh)
		for m := range gh {
			for k := range gw {
				g := gray[m][k]
				bit := g >> uint(j) & 1
				if j < bpp-1 {
					bit ^= g >> uint(j+1) & 1
				}
				if bit != 0 && !skip(k, m) {
					plane.set(k, m)
				}
			}
		}
		for m := range gh {
			for k := range gw {
				if !skip(k, m) {
					e.Encode(&cx[templateContext(plane, k, m, &gp)], int(plane.at(k, m)))
				}
			}
		}
	}
	d = append(d, e.Flush()...)
	st := &stream{}
	st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
	ref := st.segment(typePatternDict, 1, nil, pd)
	st.segment(typeImmediateHalftone, 1, []uint32{ref}, d)
	return st.Bytes()
}

// TestHalftoneTemplates: halftone regions of templates 0 and 1 decode
// like jbig2dec; those of templates 2 and 3, whose adaptive pixels
// decoders read differently, are refused.
func TestHalftoneTemplates(t *testing.T) {
	c := readPBM(t, readFile(t, "testdata/crop.pbm"))
	for _, template := range []int{2, 3} {
		if _, err := Decode(halftoneStream(c, template), nil, 1<<20, testBytes); !errors.Is(err, ErrUnsupported) {
			t.Errorf("template %d: %v", template, err)
		}
	}
	for template := range 2 {
		data := halftoneStream(c, template)
		got, err := Decode(data, nil, 1<<20, testBytes)
		if err != nil {
			t.Fatal(err)
		}
		if d := differ(got, c); d != "" {
			t.Errorf("template %d: decoded: %s", template, d)
		}
		if d := differ(jbig2dec(t, data, nil), c); d != "" {
			t.Errorf("template %d: jbig2dec: %s", template, d)
		}
	}
}
