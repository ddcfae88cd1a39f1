package jpx

import (
	"math"
)

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// ceilShift is ⌈a/2^s⌉ for a ≥ 0.
func ceilShift(a, s int) int { return (a + 1<<s - 1) >> s }

// tile is one tile being decoded.
type tile struct {
	cs             *codestream
	p              *params
	x0, y0, x1, y1 int
	comps          []tileComp
	work           *int64 // the work left to the image
	steps          *int64 // the steps left to the tile's progressions
	charged        int64  // the bytes the tile took from the budget
}

// take charges n bytes of the tile's to the image's budget.
func (tl *tile) take(n int64) error {
	if err := tl.cs.mem.take(n); err != nil {
		return err
	}
	tl.charged += n
	return nil
}

// tileComp is one component of a tile.
type tileComp struct {
	x0, y0, x1, y1 int
	c              *coding
	res            []resolution
	ints           []int32   // coefficients, then samples, of the 5/3 wavelet
	floats         []float32 // the same of the 9/7 wavelet
}

// resolution is one resolution level of a tile-component.
type resolution struct {
	x0, y0, x1, y1 int
	ppx, ppy       int
	pw, ph         int // precincts across and down
	bands          []band
}

// band is one sub-band of a resolution.
type band struct {
	orient         int // 0 LL, 1 HL, 2 LH, 3 HH
	x0, y0, x1, y1 int
	ox, oy         int // where the band's coefficients start in the tile-component's array
	mb             int // magnitude bit-planes
	step           float32
	cbw, cbh       int // code-block size exponents
	precincts      []precinct
}

// precinct is the code-blocks of one band in one precinct.
type precinct struct {
	cw, ch     int
	blocks     []codeBlock
	incl, imsb *tagTree
}

// codeBlock is one code-block and the coded data it has gathered.
type codeBlock struct {
	x0, y0, x1, y1 int
	included       bool
	numbps         int
	lblock         int
	passes         int
	segs           []segment
}

// segment is one codeword segment of a code-block.
type segment struct {
	data      []byte
	passes    int
	maxPasses int
}

// newTile sets up tile index t: its geometry, bands, precincts and
// code-blocks, within the limits; the tile is returned with an error too,
// for what it charged to the budget.
func newTile(cs *codestream, t int, p *params, work *int64) (*tile, error) {
	tx, ty := t%cs.ntx, t/cs.ntx
	tl := &tile{cs: cs, p: p, work: work}
	tl.x0 = max(cs.tx0+tx*cs.tw, cs.x0)
	tl.y0 = max(cs.ty0+ty*cs.th, cs.y0)
	tl.x1 = min(cs.tx0+(tx+1)*cs.tw, cs.x1)
	tl.y1 = min(cs.ty0+(ty+1)*cs.th, cs.y1)
	if err := tl.take(tl.cost()); err != nil {
		return tl, err
	}
	blocks, precincts := 0, 0
	tl.comps = make([]tileComp, len(cs.comps))
	for ci, comp := range cs.comps {
		tc := &tl.comps[ci]
		tc.c = &p.comps[ci]
		q := &p.quants[ci]
		tc.x0, tc.y0 = ceilDiv(tl.x0, comp.dx), ceilDiv(tl.y0, comp.dy)
		tc.x1, tc.y1 = ceilDiv(tl.x1, comp.dx), ceilDiv(tl.y1, comp.dy)
		nl := tc.c.levels
		tc.res = make([]resolution, nl+1)
		for r := 0; r <= nl; r++ {
			rs := &tc.res[r]
			sh := nl - r
			rs.x0, rs.y0 = ceilShift(tc.x0, sh), ceilShift(tc.y0, sh)
			rs.x1, rs.y1 = ceilShift(tc.x1, sh), ceilShift(tc.y1, sh)
			rs.ppx, rs.ppy = int(tc.c.ppx[r]), int(tc.c.ppy[r])
			if rs.x1 > rs.x0 {
				rs.pw = ceilShift(rs.x1, rs.ppx) - rs.x0>>rs.ppx
			}
			if rs.y1 > rs.y0 {
				rs.ph = ceilShift(rs.y1, rs.ppy) - rs.y0>>rs.ppy
			}
			np := rs.pw * rs.ph
			precincts += np
			if precincts > MaxPrecincts {
				return tl, tooLarge("over %d precincts in a tile", MaxPrecincts)
			}
			orients := []int{0}
			if r > 0 {
				orients = []int{1, 2, 3}
			}
			cbgw, cbgh := rs.ppx, rs.ppy
			if r > 0 {
				cbgw, cbgh = cbgw-1, cbgh-1
			}
			cbw, cbh := min(tc.c.cbw, cbgw), min(tc.c.cbh, cbgh)
			for _, o := range orients {
				b := band{orient: o, cbw: cbw, cbh: cbh}
				nb := nl - r + 1
				if r == 0 {
					nb = nl
					b.x0, b.y0, b.x1, b.y1 = rs.x0, rs.y0, rs.x1, rs.y1
				} else {
					xo, yo := o&1, o>>1
					b.x0 = ceilShift(max(0, tc.x0-xo<<(nb-1)), nb)
					b.y0 = ceilShift(max(0, tc.y0-yo<<(nb-1)), nb)
					b.x1 = ceilShift(max(0, tc.x1-xo<<(nb-1)), nb)
					b.y1 = ceilShift(max(0, tc.y1-yo<<(nb-1)), nb)
					if xo == 1 {
						b.ox = tc.res[r-1].x1 - tc.res[r-1].x0
					}
					if yo == 1 {
						b.oy = tc.res[r-1].y1 - tc.res[r-1].y0
					}
				}
				// Quantisation.
				bi := 0
				if r > 0 {
					bi = 3*(r-1) + o
				}
				var exp, mant int
				switch q.style {
				case 1:
					exp = q.exp[0] - nl + nb
					if r == 0 {
						exp = q.exp[0]
					}
					mant = q.mant[0]
				default:
					if bi >= len(q.exp) {
						return tl, malformed("no step size for sub-band %d", bi)
					}
					exp, mant = q.exp[bi], q.mant[bi]
				}
				b.mb = q.guard + exp - 1
				if b.mb < 0 {
					b.mb = 0
				}
				if b.mb+p.roi[ci] > 29 {
					return tl, unsupported("%d bit-planes in a sub-band", b.mb+p.roi[ci])
				}
				gain := [4]int{0, 1, 1, 2}[o]
				rb := comp.depth + gain
				b.step = float32((1 + float64(mant)/2048) * math.Pow(2, float64(rb-exp)))
				// Precincts and their code-blocks.
				b.precincts = make([]precinct, np)
				px0, py0 := rs.x0>>rs.ppx<<cbgw, rs.y0>>rs.ppy<<cbgh
				if r > 0 {
					px0, py0 = rs.x0>>rs.ppx<<(rs.ppx-1), rs.y0>>rs.ppy<<(rs.ppy-1)
				}
				for pi := range b.precincts {
					pr := &b.precincts[pi]
					cx0 := px0 + (pi%rs.pw)<<cbgw
					cy0 := py0 + (pi/rs.pw)<<cbgh
					cx1, cy1 := cx0+1<<cbgw, cy0+1<<cbgh
					cx0, cy0 = max(cx0, b.x0), max(cy0, b.y0)
					cx1, cy1 = min(cx1, b.x1), min(cy1, b.y1)
					if cx0 >= cx1 || cy0 >= cy1 {
						continue
					}
					bx0, by0 := cx0>>cbw<<cbw, cy0>>cbh<<cbh
					pr.cw = (ceilShift(cx1, cbw)<<cbw - bx0) >> cbw
					pr.ch = (ceilShift(cy1, cbh)<<cbh - by0) >> cbh
					blocks += pr.cw * pr.ch
					if blocks > MaxCodeBlocks {
						return tl, tooLarge("over %d code-blocks in a tile", MaxCodeBlocks)
					}
					pr.blocks = make([]codeBlock, pr.cw*pr.ch)
					for i := range pr.blocks {
						cb := &pr.blocks[i]
						cb.x0 = max(bx0+(i%pr.cw)<<cbw, cx0)
						cb.y0 = max(by0+(i/pr.cw)<<cbh, cy0)
						cb.x1 = min(bx0+(i%pr.cw+1)<<cbw, cx1)
						cb.y1 = min(by0+(i/pr.cw+1)<<cbh, cy1)
						cb.lblock = 3
					}
					pr.incl = newTagTree(pr.cw, pr.ch)
					pr.imsb = newTagTree(pr.cw, pr.ch)
				}
				rs.bands = append(rs.bands, b)
			}
		}
	}
	return tl, nil
}

// cost is what setting up and decoding the tile allocates, at most: each
// tile-component's coefficients (all held until the tile is stored), its
// precincts and its code-blocks, counted from the geometry alone, before
// anything is allocated for them. The code-blocks of a band are those of
// its code-block grid, which the precincts' edges follow: at most two
// more across and down than the band's size holds.
func (tl *tile) cost() int64 {
	n := int64(0)
	for ci, comp := range tl.cs.comps {
		c := &tl.p.comps[ci]
		x0, y0 := ceilDiv(tl.x0, comp.dx), ceilDiv(tl.y0, comp.dy)
		x1, y1 := ceilDiv(tl.x1, comp.dx), ceilDiv(tl.y1, comp.dy)
		n += coefficientCost*int64(max(0, x1-x0))*int64(max(0, y1-y0)) + waveletCost*int64(max(0, x1-x0)+max(0, y1-y0))
		for r := 0; r <= c.levels; r++ {
			sh := c.levels - r
			rx0, ry0, rx1, ry1 := ceilShift(x0, sh), ceilShift(y0, sh), ceilShift(x1, sh), ceilShift(y1, sh)
			if rx1 <= rx0 || ry1 <= ry0 {
				continue
			}
			ppx, ppy := int(c.ppx[r]), int(c.ppy[r])
			pw := int64(ceilShift(rx1, ppx) - rx0>>ppx)
			ph := int64(ceilShift(ry1, ppy) - ry0>>ppy)
			bands, bw, bh := int64(1), int64(rx1-rx0), int64(ry1-ry0)
			cbw, cbh := min(c.cbw, ppx), min(c.cbh, ppy)
			if r > 0 {
				bands, bw, bh = 3, bw/2+1, bh/2+1
				cbw, cbh = min(c.cbw, ppx-1), min(c.cbh, ppy-1)
			}
			n += bands * pw * ph * precinctCost
			n += bands * (bw>>cbw + 2) * (bh>>cbh + 2) * codeBlockCost
		}
	}
	return n
}

// tagTree is a tag tree (T.800 B.10.2) of w×h leaves.
type tagTree struct {
	w, h   []int // of each level, leaves first
	off    []int
	value  []int32
	low    []int32
	levels int
}

func newTagTree(w, h int) *tagTree {
	t := &tagTree{}
	n := 0
	for {
		t.w = append(t.w, w)
		t.h = append(t.h, h)
		t.off = append(t.off, n)
		n += w * h
		if w <= 1 && h <= 1 {
			break
		}
		w, h = (w+1)/2, (h+1)/2
	}
	t.levels = len(t.w)
	t.value = make([]int32, n)
	t.low = make([]int32, n)
	for i := range t.value {
		t.value[i] = math.MaxInt32
	}
	return t
}

// decode reads whether leaf (x, y)'s value is below threshold, reading
// what it needs of its value.
func (t *tagTree) decode(br *bitReader, x, y int, threshold int32) bool {
	var path [32]int
	for k := 0; k < t.levels; k++ {
		path[k] = t.off[k] + (y>>k)*t.w[k] + x>>k
	}
	var low int32
	for k := t.levels - 1; k >= 0; k-- {
		n := path[k]
		if low > t.low[n] {
			t.low[n] = low
		} else {
			low = t.low[n]
		}
		for low < threshold && low < t.value[n] {
			if br.bit() == 1 {
				t.value[n] = low
			} else {
				low++
			}
		}
		t.low[n] = low
	}
	return t.value[path[0]] < threshold
}

// bitReader reads packet header bits (T.800 B.10.1): after a 0xFF byte
// the next holds 7 bits.
type bitReader struct {
	b    []byte
	pos  int
	buf  byte
	ct   int
	over bool // read past the end
}

func (r *bitReader) bit() int {
	if r.ct == 0 {
		ct := 8
		if r.buf == 0xFF {
			ct = 7
		}
		if r.pos >= len(r.b) {
			r.over = true
			r.buf = 0
		} else {
			r.buf = r.b[r.pos]
		}
		r.pos++
		r.ct = ct
	}
	r.ct--
	return int(r.buf>>r.ct) & 1
}

func (r *bitReader) bits(n int) int {
	v := 0
	for range n {
		v = v<<1 | r.bit()
	}
	return v
}

// align ends the header: a byte after 0xFF is skipped too.
func (r *bitReader) align() {
	if r.buf == 0xFF {
		r.pos++
		r.buf = 0
	}
	r.ct = 0
}
