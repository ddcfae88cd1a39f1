package jpx

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Space is an image's colour space, as its JP2 header tells it.
type Space int

// Colour spaces.
const (
	SpaceUnknown Space = iota // a bare codestream, or an ICC profile
	SpaceGray
	SpaceRGB
	SpaceYCC
	SpaceCMYK
)

// Image is a decoded image: its components' samples.
type Image struct {
	Width, Height int // of the image area on the reference grid
	X0, Y0        int // where the image area starts on the reference grid
	Components    []Component
	Space         Space
}

// At is component c's sample at (x, y) of the image area: the sample
// whose area holds it on the reference grid.
func (im *Image) At(c, x, y int) uint16 {
	cp := &im.Components[c]
	cx := (x+im.X0)/cp.Dx - ceilDiv(im.X0, cp.Dx)
	cy := (y+im.Y0)/cp.Dy - ceilDiv(im.Y0, cp.Dy)
	cx, cy = max(0, min(cp.Width-1, cx)), max(0, min(cp.Height-1, cy))
	return cp.Pix[cy*cp.Width+cx]
}

// Component is one component's samples, row by row.
type Component struct {
	Width, Height int
	Dx, Dy        int // its sub-sampling on the reference grid
	Depth         int // bits per sample
	Signed        bool
	// Pix are the samples; a signed component's are offset by
	// 2^(Depth-1), so that all are 0 to 2^Depth-1.
	Pix []uint16
}

// Decode decodes a JP2 file or a JPEG 2000 codestream, of at most
// maxPixels pixels, allocating at most about maxBytes bytes: the image
// returned, and the largest tile's working memory beside it. An image
// over maxBytes fails with ErrMemory before the allocation that would
// pass it.
func Decode(data []byte, maxPixels, maxBytes int64) (img *Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, malformed("internal failure: %v", p)
		}
	}()
	space := SpaceUnknown
	cdata := data
	if len(data) >= 12 && bytes.Equal(data[:12], []byte{0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A}) {
		cdata, space, err = boxes(data)
		if err != nil {
			return nil, err
		}
	}
	cs, err := parse(cdata, maxPixels)
	if err != nil {
		return nil, err
	}
	cs.mem = &budget{left: maxBytes, max: maxBytes}
	img = &Image{Width: cs.x1 - cs.x0, Height: cs.y1 - cs.y0, X0: cs.x0, Y0: cs.y0, Space: space}
	samples := int64(0)
	for _, c := range cs.comps {
		w := ceilDiv(cs.x1, c.dx) - ceilDiv(cs.x0, c.dx)
		h := ceilDiv(cs.y1, c.dy) - ceilDiv(cs.y0, c.dy)
		samples += int64(w * h)
		img.Components = append(img.Components, Component{Width: w, Height: h, Dx: c.dx, Dy: c.dy, Depth: c.depth, Signed: c.signed})
	}
	if err := cs.mem.take(sampleCost * samples); err != nil {
		return nil, err
	}

	// Beside them, at least the first tile's coefficients: an image
	// whose tiles cannot be decoded within the budget fails before its
	// samples are allocated.
	tx1, ty1 := min(cs.tx0+cs.tw, cs.x1), min(cs.ty0+cs.th, cs.y1)
	first := int64(0)
	for _, c := range cs.comps {
		first += coefficientCost * int64(ceilDiv(tx1, c.dx)-ceilDiv(cs.x0, c.dx)) * int64(ceilDiv(ty1, c.dy)-ceilDiv(cs.y0, c.dy))
	}
	if err := cs.mem.check(first); err != nil {
		return nil, err
	}
	for i := range img.Components {
		c := &img.Components[i]
		c.Pix = make([]uint16, c.Width*c.Height)
	}
	work := WorkPerSample*samples + 1<<20
	dec := &t1{}
	for _, t := range cs.order {
		if err := cs.decodeTile(t, img, dec, &work); err != nil {
			return nil, err
		}
	}
	return img, nil
}

// boxes reads a JP2 file's boxes: its codestream and colour space.
func boxes(b []byte) ([]byte, Space, error) {
	space := SpaceUnknown
	var cstream []byte
	var walk func(b []byte, depth int) error
	walk = func(b []byte, depth int) error {
		for len(b) >= 8 {
			n := int64(binary.BigEndian.Uint32(b))
			typ := string(b[4:8])
			hl := int64(8)
			switch n {
			case 0:
				n = int64(len(b))
			case 1:
				if len(b) < 16 {
					return malformed("a cut box")
				}
				n = int64(binary.BigEndian.Uint64(b[8:]))
				hl = 16
			}
			if n < hl || n > int64(len(b)) {
				if typ == "jp2c" && n >= hl {
					// A cut file: decode what there is.
					n = int64(len(b))
				} else {
					return malformed("a box %q of %d bytes", typ, n)
				}
			}
			body := b[hl:n]
			switch typ {
			case "jp2h":
				if depth == 0 {
					if err := walk(body, 1); err != nil {
						return err
					}
				}
			case "colr":
				if len(body) >= 7 && body[0] == 1 && space == SpaceUnknown {
					switch binary.BigEndian.Uint32(body[3:]) {
					case 16:
						space = SpaceRGB
					case 17:
						space = SpaceGray
					case 18:
						space = SpaceYCC
					case 12:
						space = SpaceCMYK
					}
				}
			case "pclr":
				return unsupported("a palette image")
			case "jp2c":
				if cstream == nil && depth == 0 {
					cstream = body
				}
			}
			b = b[n:]
		}
		return nil
	}
	if err := walk(b, 0); err != nil {
		return nil, 0, err
	}
	if cstream == nil {
		return nil, 0, malformed("a JP2 file without a codestream")
	}
	return cstream, space, nil
}

// decodeTile decodes tile t into img.
func (cs *codestream) decodeTile(t int, img *Image, dec *t1, work *int64) error {
	tp := cs.tiles[t]
	p := cs.main.clone()
	for _, m := range tp.header {
		if m.code == mPOC {
			p.pocs = nil
			break
		}
	}
	if err := cs.apply(p, tp.header, false); err != nil {
		return err
	}
	if err := cs.apply(p, tp.pocs, false); err != nil {
		return err
	}
	rev := p.comps[0].reversible
	for _, c := range p.comps {
		if c.reversible != rev && p.mct {
			return unsupported("a component transform over mixed wavelets")
		}
	}
	tl, err := newTile(cs, t, p, work)
	// What the tile took is garbage once it is stored.
	defer func() { cs.mem.left += tl.charged }()
	if err != nil {
		return err
	}
	s := &stream{data: join(tp.data)}
	switch {
	case len(tp.ppt) > 0:
		s.hdr = join(tp.ppt)
	case cs.havePPM:
		s.hdr = join(tp.ppm)
	}
	if err := tl.packets(s); err != nil {
		return err
	}
	for ci := range tl.comps {
		if err := tl.decodeComp(ci, dec); err != nil {
			return err
		}
	}
	tl.store(img)
	return nil
}

func join(parts [][]byte) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	return bytes.Join(parts, nil)
}

// decodeComp decodes the code-blocks of component ci and runs the
// inverse wavelet transform.
func (tl *tile) decodeComp(ci int, dec *t1) error {
	tc := &tl.comps[ci]
	w, h := tc.x1-tc.x0, tc.y1-tc.y0
	if w <= 0 || h <= 0 {
		return nil
	}
	rev := tc.c.reversible
	if rev {
		tc.ints = make([]int32, w*h)
	} else {
		tc.floats = make([]float32, w*h)
	}
	for r := range tc.res {
		rs := &tc.res[r]
		for bi := range rs.bands {
			b := &rs.bands[bi]
			for pi := range b.precincts {
				pr := &b.precincts[pi]
				for i := range pr.blocks {
					cb := &pr.blocks[i]
					if cb.passes == 0 {
						continue
					}
					*tl.work -= int64(cb.passes) * int64((cb.x1-cb.x0)*(cb.y1-cb.y0))
					if *tl.work < 0 {
						return tooLarge("more coding passes than the image's size warrants")
					}
					tl.decodeBlock(dec, tc, ci, cb, b)
				}
			}
		}
	}
	for r := 1; r < len(tc.res); r++ {
		rs, lo := &tc.res[r], &tc.res[r-1]
		if rev {
			idwt2(tc.ints, w, rs.x1-rs.x0, rs.y1-rs.y0, lo.x1-lo.x0, lo.y1-lo.y0, rs.x0&1, rs.y0&1, lift53, liftRows53)
		} else {
			idwt2(tc.floats, w, rs.x1-rs.x0, rs.y1-rs.y0, lo.x1-lo.x0, lo.y1-lo.y0, rs.x0&1, rs.y0&1, lift97, liftRows97)
		}
	}
	return nil
}

// decodeBlock decodes code-block cb of band b of component ci with d and
// writes its coefficients, dequantised, into the tile-component.
func (tl *tile) decodeBlock(d *t1, tc *tileComp, ci int, cb *codeBlock, b *band) {
	roi := tl.p.roi[ci]
	w := tc.x1 - tc.x0
	cw, ch := cb.x1-cb.x0, cb.y1-cb.y0
	d.decodeBlock(cb, b.orient, tc.c.style, roi)
	cb.segs = nil
	if roi > 0 {
		thresh := int32(1) << (roi + 1)
		for k, v := range d.data {
			m := v
			if m < 0 {
				m = -m
			}
			if m >= thresh {
				m >>= roi
				if v < 0 {
					m = -m
				}
				d.data[k] = m
			}
		}
	}
	base := (b.oy+cb.y0-b.y0)*w + b.ox + cb.x0 - b.x0
	half := b.step / 2
	for y := range ch {
		src := d.data[y*cw : (y+1)*cw]
		o := base + y*w
		if tc.c.reversible {
			dst := tc.ints[o : o+cw]
			for x, v := range src {
				dst[x] = v / 2
			}
		} else {
			dst := tc.floats[o : o+cw]
			for x, v := range src {
				dst[x] = float32(v) * half
			}
		}
	}
}

// store applies the inverse component transform and the DC level shift
// and writes the tile's samples into img.
func (tl *tile) store(img *Image) {
	cs := tl.cs
	if tl.p.mct && len(tl.comps) >= 3 && sameSize(tl.comps[:3]) {
		a, b, c := &tl.comps[0], &tl.comps[1], &tl.comps[2]
		if a.c.reversible {
			for i := range a.ints {
				y0, y1, y2 := a.ints[i], b.ints[i], c.ints[i]
				g := y0 - (y1+y2)>>2
				a.ints[i], b.ints[i], c.ints[i] = y2+g, g, y1+g
			}
		} else {
			for i := range a.floats {
				y, cb, cr := a.floats[i], b.floats[i], c.floats[i]
				a.floats[i] = y + 1.402*cr
				b.floats[i] = y - 0.34413*cb - 0.71414*cr
				c.floats[i] = y + 1.772*cb
			}
		}
	}
	for ci := range tl.comps {
		tc := &tl.comps[ci]
		comp := cs.comps[ci]
		out := &img.Components[ci]
		w := tc.x1 - tc.x0
		ox, oy := tc.x0-ceilDiv(cs.x0, comp.dx), tc.y0-ceilDiv(cs.y0, comp.dy)
		shift := int32(1) << (comp.depth - 1)
		lo, hi := int32(0), int32(1)<<comp.depth-1
		add := shift
		if comp.signed {
			lo, hi, add = -shift, shift-1, 0
		}
		for y := 0; y < tc.y1-tc.y0; y++ {
			row := out.Pix[(oy+y)*out.Width+ox:]
			for x := range w {
				var v int32
				if tc.ints != nil {
					v = tc.ints[y*w+x]
				} else if tc.floats != nil {
					v = int32(math.RoundToEven(float64(tc.floats[y*w+x])))
				}
				v = max(lo, min(hi, v+add))
				if comp.signed {
					v += shift
				}
				row[x] = uint16(v)
			}
		}
		tc.ints, tc.floats = nil, nil
	}
}

func sameSize(c []tileComp) bool {
	for _, x := range c[1:] {
		if x.x0 != c[0].x0 || x.x1 != c[0].x1 || x.y0 != c[0].y0 || x.y1 != c[0].y1 {
			return false
		}
	}
	return true
}
