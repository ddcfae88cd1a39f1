package jpx

import (
	"encoding/binary"
	"fmt"
)

// Markers of the codestream (T.800 Annex A).
const (
	mSOC = 0xFF4F
	mSOT = 0xFF90
	mSOD = 0xFF93
	mEOC = 0xFFD9
	mSIZ = 0xFF51
	mCOD = 0xFF52
	mCOC = 0xFF53
	mRGN = 0xFF5E
	mQCD = 0xFF5C
	mQCC = 0xFF5D
	mPOC = 0xFF5F
	mTLM = 0xFF55
	mPLM = 0xFF57
	mPLT = 0xFF58
	mPPM = 0xFF60
	mPPT = 0xFF61
	mSOP = 0xFF91
	mEPH = 0xFF92
	mCRG = 0xFF63
	mCOM = 0xFF64
	mCAP = 0xFF50
)

// Progression orders.
const (
	orderLRCP = iota
	orderRLCP
	orderRPCL
	orderPCRL
	orderCPRL
)

// Code-block style flags (T.800 Table A.19).
const (
	styleBypass    = 0x01
	styleReset     = 0x02
	styleTermAll   = 0x04
	styleVCausal   = 0x08
	stylePredTerm  = 0x10
	styleSegSymbol = 0x20
)

// component is one component's SIZ parameters.
type component struct {
	depth  int
	signed bool
	dx, dy int
}

// coding is one component's COD or COC parameters.
type coding struct {
	levels     int
	cbw, cbh   int // code-block width and height exponents
	style      byte
	reversible bool
	ppx, ppy   [MaxLevels + 1]uint8
}

// quant is one component's QCD or QCC parameters.
type quant struct {
	style int // 0 none, 1 scalar derived, 2 scalar expounded
	guard int
	exp   []int
	mant  []int
}

// progression is one POC entry (or the COD's whole progression).
type progression struct {
	rs, cs, lye, re, ce int
	order               int
}

// params are the coding parameters in force for a tile.
type params struct {
	sop, eph bool
	order    int
	layers   int
	mct      bool
	comps    []coding
	quants   []quant
	roi      []int
	pocs     []progression
}

func (p *params) clone() *params {
	q := *p
	q.comps = append([]coding(nil), p.comps...)
	q.quants = append([]quant(nil), p.quants...)
	q.roi = append([]int(nil), p.roi...)
	q.pocs = append([]progression(nil), p.pocs...)
	return &q
}

// codestream is a parsed codestream: its main header and its tiles'
// tile-parts, not yet decoded.
type codestream struct {
	x0, y0, x1, y1   int
	tx0, ty0, tw, th int
	ntx, nty         int
	comps            []component
	main             *params
	ppm              []byte // the packet headers of the PPM segments, concatenated
	havePPM          bool
	tiles            map[int]*tileParts
	order            []int   // tile indices in the order first seen
	mem              *budget // the bytes the image may still take
}

// tileParts is what the tile-parts of one tile hold.
type tileParts struct {
	header []marker // the first tile-part's header segments
	pocs   []marker // POC segments of later tile-parts
	data   [][]byte
	ppt    [][]byte
	ppm    [][]byte
	parts  int
}

// marker is one marker segment: its code and its body (after the length).
type marker struct {
	code uint16
	body []byte
}

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, a...)...)
}

func unsupported(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, a...)...)
}

func tooLarge(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrTooLarge}, a...)...)
}

// reader reads big-endian fields of a marker segment body.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) u8() int {
	if len(r.b) < 1 {
		r.err = true
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return int(v)
}

func (r *reader) u16() int {
	if len(r.b) < 2 {
		r.err = true
		r.b = nil
		return 0
	}
	v := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return int(v)
}

func (r *reader) u32() int64 {
	if len(r.b) < 4 {
		r.err = true
		r.b = nil
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return int64(v)
}

// parse reads a codestream's main header and splits its tile-parts,
// checking its size against maxPixels before anything is allocated for it.
func parse(b []byte, maxPixels int64) (*codestream, error) {
	if len(b) < 4 || binary.BigEndian.Uint16(b) != mSOC {
		return nil, malformed("no SOC marker")
	}
	pos := 2
	cs := &codestream{tiles: map[int]*tileParts{}}
	next := func() (marker, error) {
		if pos+4 > len(b) {
			return marker{}, malformed("the header is cut short")
		}
		code := binary.BigEndian.Uint16(b[pos:])
		if code>>8 != 0xFF {
			return marker{}, malformed("no marker at offset %d", pos)
		}
		n := int(binary.BigEndian.Uint16(b[pos+2:]))
		if n < 2 || pos+2+n > len(b) {
			return marker{}, malformed("marker %04X of length %d past the end", code, n)
		}
		m := marker{code: code, body: b[pos+4 : pos+2+n]}
		pos += 2 + n
		return m, nil
	}
	m, err := next()
	if err != nil {
		return nil, err
	}
	if m.code != mSIZ {
		return nil, malformed("no SIZ marker after SOC")
	}
	if err := cs.siz(m.body, maxPixels); err != nil {
		return nil, err
	}
	nc := len(cs.comps)
	cs.main = &params{comps: make([]coding, nc), quants: make([]quant, nc), roi: make([]int, nc)}
	var hdr []marker
	haveCOD, haveQCD := false, false
	for {
		if pos+2 > len(b) {
			return nil, malformed("the main header is cut short")
		}
		if binary.BigEndian.Uint16(b[pos:]) == mSOT {
			break
		}
		m, err := next()
		if err != nil {
			return nil, err
		}
		if part2(m.code) {
			return nil, unsupported("the Part 2 marker %04X", m.code)
		}
		switch m.code {
		case mCOD:
			haveCOD = true
		case mQCD:
			haveQCD = true
		case mPPM:
			if len(m.body) < 1 {
				return nil, malformed("an empty PPM segment")
			}
			// Zppm, then Nppm and Ippm repeated; a tile-part's headers
			// may run on into the next segment.
			cs.ppm = append(cs.ppm, m.body[1:]...)
			cs.havePPM = true
			continue
		}
		hdr = append(hdr, m)
	}
	if !haveCOD || !haveQCD {
		return nil, malformed("the main header has no COD or QCD")
	}
	if err := cs.apply(cs.main, hdr, true); err != nil {
		return nil, err
	}
	// Tile-parts.
	for pos+2 <= len(b) {
		code := binary.BigEndian.Uint16(b[pos:])
		if code == mEOC {
			break
		}
		if code != mSOT {
			return nil, malformed("no SOT marker at offset %d", pos)
		}
		start := pos
		m, err := next()
		if err != nil {
			return nil, err
		}
		r := &reader{b: m.body}
		isot := r.u16()
		psot := r.u32()
		r.u8() // TPsot
		r.u8() // TNsot
		if r.err {
			return nil, malformed("a short SOT segment")
		}
		if isot >= cs.ntx*cs.nty {
			return nil, malformed("tile %d of %d", isot, cs.ntx*cs.nty)
		}
		end := len(b)
		if psot != 0 {
			if int64(start)+psot > int64(len(b)) {
				// A cut file: keep what there is.
				psot = 0
			} else {
				end = start + int(psot)
			}
		}
		if psot != 0 && psot < 14 {
			return nil, malformed("a tile-part of %d bytes", psot)
		}
		tp := cs.tiles[isot]
		if tp == nil {
			tp = &tileParts{}
			cs.tiles[isot] = tp
			cs.order = append(cs.order, isot)
		}
		first := tp.parts == 0
		tp.parts++
		if tp.parts > 255 {
			return nil, malformed("tile %d has over 255 tile-parts", isot)
		}
		for {
			if pos+2 > end {
				return nil, malformed("tile %d: the tile-part header is cut short", isot)
			}
			if binary.BigEndian.Uint16(b[pos:]) == mSOD {
				pos += 2
				break
			}
			m, err := next()
			if err != nil {
				return nil, err
			}
			if pos > end {
				return nil, malformed("tile %d: a marker past its tile-part", isot)
			}
			if part2(m.code) {
				return nil, unsupported("the Part 2 marker %04X", m.code)
			}
			switch m.code {
			case mPPT:
				if len(m.body) < 1 {
					return nil, malformed("an empty PPT segment")
				}
				tp.ppt = append(tp.ppt, m.body[1:])
			case mPOC:
				if first {
					tp.header = append(tp.header, m)
				} else {
					tp.pocs = append(tp.pocs, m)
				}
			case mCOD, mCOC, mQCD, mQCC, mRGN:
				if !first {
					return nil, malformed("tile %d: a coding marker in a later tile-part", isot)
				}
				tp.header = append(tp.header, m)
			}
		}
		if cs.havePPM {
			// Nppm, then the packet headers of this tile-part.
			if len(cs.ppm) < 4 {
				return nil, malformed("tile %d: PPM segments without its packet headers", isot)
			}
			n := int64(binary.BigEndian.Uint32(cs.ppm))
			if n > int64(len(cs.ppm)-4) {
				return nil, malformed("tile %d: PPM packet headers past the end", isot)
			}
			tp.ppm = append(tp.ppm, cs.ppm[4:4+n])
			cs.ppm = cs.ppm[4+n:]
		}
		tp.data = append(tp.data, b[pos:end])
		pos = end
		if psot == 0 {
			break
		}
	}
	if len(cs.order) == 0 {
		return nil, malformed("no tile")
	}
	return cs, nil
}

// part2 reports whether code is a marker of the Part 2 extensions
// (T.801): arbitrary decompositions and wavelets, multiple component
// transforms, non-linear point transforms.
func part2(code uint16) bool { return code >= 0xFF70 && code <= 0xFF7F }

// siz reads the SIZ segment.
func (cs *codestream) siz(body []byte, maxPixels int64) error {
	r := &reader{b: body}
	r.u16() // Rsiz
	x1, y1, x0, y0 := r.u32(), r.u32(), r.u32(), r.u32()
	tw, th, tx0, ty0 := r.u32(), r.u32(), r.u32(), r.u32()
	nc := r.u16()
	if r.err {
		return malformed("a short SIZ segment")
	}
	if x0 >= x1 || y0 >= y1 || tw == 0 || th == 0 || tx0 > x0 || ty0 > y0 || tx0+tw <= x0 || ty0+th <= y0 {
		return malformed("an image of %d..%d×%d..%d in tiles of %d×%d at %d,%d", x0, x1, y0, y1, tw, th, tx0, ty0)
	}
	w, h := x1-x0, y1-y0
	if w*h > maxPixels || w > 1<<24 || h > 1<<24 {
		return fmt.Errorf("%w: an image of %d×%d pixels, over %d", ErrTooManyPixels, w, h, maxPixels)
	}
	ntx := (x1 - tx0 + tw - 1) / tw
	nty := (y1 - ty0 + th - 1) / th
	if ntx*nty > MaxTiles {
		return tooLarge("%d tiles, over %d", ntx*nty, MaxTiles)
	}
	if nc == 0 {
		return malformed("an image without components")
	}
	if nc > MaxComponents {
		return unsupported("%d components, over %d", nc, MaxComponents)
	}
	cs.x0, cs.y0, cs.x1, cs.y1 = int(x0), int(y0), int(x1), int(y1)
	cs.tx0, cs.ty0, cs.tw, cs.th = int(tx0), int(ty0), int(tw), int(th)
	cs.ntx, cs.nty = int(ntx), int(nty)
	for range nc {
		s, dx, dy := r.u8(), r.u8(), r.u8()
		if r.err {
			return malformed("a short SIZ segment")
		}
		if dx == 0 || dy == 0 {
			return malformed("a component sub-sampled by 0")
		}
		c := component{depth: s&0x7F + 1, signed: s&0x80 != 0, dx: dx, dy: dy}
		if c.depth > 16 {
			return unsupported("components of %d bits", c.depth)
		}
		cs.comps = append(cs.comps, c)
	}
	return nil
}

// apply sets the parameters of the marker segments hdr on p, in the order
// of precedence: COD, then COC; QCD, then QCC.
func (cs *codestream) apply(p *params, hdr []marker, main bool) error {
	nc := len(cs.comps)
	compIndex := func(r *reader) int {
		if nc < 257 {
			return r.u8()
		}
		return r.u16()
	}
	for _, pass := range []uint16{mCOD, mCOC, mQCD, mQCC, mRGN, mPOC} {
		for _, m := range hdr {
			if m.code != pass {
				continue
			}
			r := &reader{b: m.body}
			switch m.code {
			case mCOD:
				scod := r.u8()
				order, layers, mct := r.u8(), r.u16(), r.u8()
				var c coding
				if err := readCoding(r, scod, &c); err != nil {
					return err
				}
				if r.err {
					return malformed("a short COD segment")
				}
				if order > orderCPRL {
					return malformed("progression order %d", order)
				}
				if layers == 0 {
					return malformed("no quality layers")
				}
				if layers > MaxLayers {
					return tooLarge("%d quality layers, over %d", layers, MaxLayers)
				}
				if mct > 1 {
					return unsupported("multiple component transform %d", mct)
				}
				p.sop, p.eph = scod&2 != 0, scod&4 != 0
				p.order, p.layers, p.mct = order, layers, mct == 1
				for i := range p.comps {
					p.comps[i] = c
				}
			case mCOC:
				i := compIndex(r)
				scoc := r.u8()
				if r.err || i >= nc {
					return malformed("a COC segment of component %d", i)
				}
				if err := readCoding(r, scoc, &p.comps[i]); err != nil {
					return err
				}
				if r.err {
					return malformed("a short COC segment")
				}
			case mQCD:
				q, err := readQuant(r)
				if err != nil {
					return err
				}
				for i := range p.quants {
					p.quants[i] = q
				}
			case mQCC:
				i := compIndex(r)
				if r.err || i >= nc {
					return malformed("a QCC segment of component %d", i)
				}
				q, err := readQuant(r)
				if err != nil {
					return err
				}
				p.quants[i] = q
			case mRGN:
				i := compIndex(r)
				srgn, shift := r.u8(), r.u8()
				if r.err || i >= nc {
					return malformed("an RGN segment of component %d", i)
				}
				if srgn != 0 {
					return unsupported("region of interest style %d", srgn)
				}
				if shift > 30 {
					return unsupported("a region of interest shift of %d", shift)
				}
				p.roi[i] = shift
			case mPOC:
				pocs, err := readPOC(m.body, nc)
				if err != nil {
					return err
				}
				p.pocs = append(p.pocs, pocs...)
			}
		}
	}
	return nil
}

// readCoding reads SPcod or SPcoc into c; style is Scod or Scoc, whose
// bit 0 says precinct sizes follow.
func readCoding(r *reader, style int, c *coding) error {
	c.levels = r.u8()
	xcb, ycb := r.u8()+2, r.u8()+2
	c.style = byte(r.u8())
	t := r.u8()
	if r.err {
		return malformed("a short coding segment")
	}
	if c.levels > MaxLevels {
		return tooLarge("%d decomposition levels, over %d", c.levels, MaxLevels)
	}
	if xcb > 10 || ycb > 10 || xcb+ycb > 12 {
		return malformed("code-blocks of 2^%d×2^%d", xcb, ycb)
	}
	if c.style&^0x3F != 0 {
		return unsupported("code-block style %#x", c.style)
	}
	switch t {
	case 0:
		c.reversible = false
	case 1:
		c.reversible = true
	default:
		return unsupported("wavelet transform %d", t)
	}
	c.cbw, c.cbh = xcb, ycb
	for i := 0; i <= c.levels; i++ {
		c.ppx[i], c.ppy[i] = 15, 15
		if style&1 != 0 {
			v := r.u8()
			c.ppx[i], c.ppy[i] = uint8(v&15), uint8(v>>4)
			if i > 0 && (c.ppx[i] == 0 || c.ppy[i] == 0) {
				return malformed("precincts of 2^0 at resolution %d", i)
			}
		}
	}
	return nil
}

// readQuant reads Sqcd and SPqcd (or the same of a QCC).
func readQuant(r *reader) (quant, error) {
	s := r.u8()
	if r.err {
		return quant{}, malformed("a short quantisation segment")
	}
	q := quant{style: s & 0x1F, guard: s >> 5}
	switch q.style {
	case 0:
		for len(r.b) > 0 {
			q.exp = append(q.exp, r.u8()>>3)
			q.mant = append(q.mant, 0)
		}
	case 1, 2:
		for len(r.b) >= 2 {
			v := r.u16()
			q.exp = append(q.exp, v>>11)
			q.mant = append(q.mant, v&0x7FF)
		}
	default:
		return quant{}, unsupported("quantisation style %d", q.style)
	}
	if len(q.exp) == 0 {
		return quant{}, malformed("quantisation without step sizes")
	}
	return q, nil
}

// readPOC reads the progression order changes of a POC segment.
func readPOC(body []byte, nc int) ([]progression, error) {
	n := 7
	if nc >= 257 {
		n = 9
	}
	if len(body)%n != 0 || len(body) == 0 {
		return nil, malformed("a POC segment of %d bytes", len(body))
	}
	var out []progression
	r := &reader{b: body}
	for len(r.b) > 0 {
		var p progression
		p.rs = r.u8()
		if nc < 257 {
			p.cs = r.u8()
		} else {
			p.cs = r.u16()
		}
		p.lye = r.u16()
		p.re = r.u8()
		if nc < 257 {
			p.ce = r.u8()
		} else {
			p.ce = r.u16()
		}
		if p.ce == 0 {
			p.ce = 256
		}
		p.order = r.u8()
		if p.order > orderCPRL {
			return nil, malformed("progression order %d", p.order)
		}
		out = append(out, p)
	}
	return out, nil
}
