package jpx

import "encoding/binary"

// stream is where a tile's packets are read: the packet data, and the
// packet headers when they are elsewhere (PPM, PPT).
type stream struct {
	data   []byte
	pos    int
	hdr    []byte // nil: the headers are in data
	hdrPos int
	cut    bool // the data ended inside a packet
}

// maxPasses is how many passes segment k of a code-block of style holds.
func maxPasses(style byte, k int) int {
	switch {
	case style&styleTermAll != 0:
		return 1
	case style&styleBypass != 0:
		if k == 0 {
			return 10
		}
		if k%2 == 1 {
			return 2
		}
		return 1
	}
	return 1 << 30
}

// pending is a codeword segment's part a packet brings.
type pending struct {
	cb  *codeBlock
	seg int
	n   int
}

// packet reads the packet of layer l, resolution r, component c,
// precinct p.
func (t *tile) packet(s *stream, l, r, c, p int) error {
	rs := &t.comps[c].res[r]
	style := t.comps[c].c.style
	if t.p.sop && s.pos+6 <= len(s.data) && binary.BigEndian.Uint16(s.data[s.pos:]) == mSOP {
		s.pos += 6
	}
	br := &bitReader{b: s.data, pos: s.pos}
	if s.hdr != nil {
		br = &bitReader{b: s.hdr, pos: s.hdrPos}
	}
	var pend []pending
	if br.bit() == 1 {
		for bi := range rs.bands {
			b := &rs.bands[bi]
			if p >= len(b.precincts) {
				continue
			}
			pr := &b.precincts[p]
			for i := range pr.blocks {
				cb := &pr.blocks[i]
				var in bool
				if !cb.included {
					in = pr.incl.decode(br, i%pr.cw, i/pr.cw, int32(l+1))
				} else {
					in = br.bit() == 1
				}
				if !in {
					continue
				}
				if !cb.included {
					z := int32(0)
					for !pr.imsb.decode(br, i%pr.cw, i/pr.cw, z+1) {
						z++
						if z > 64 || br.over {
							return malformed("a code-block of %d zero bit-planes", z)
						}
					}
					cb.numbps = b.mb - int(z)
					if cb.numbps < 0 {
						return malformed("a code-block of %d zero bit-planes in %d", z, b.mb)
					}
					cb.included = true
				}
				n := passCount(br)
				for br.bit() == 1 {
					cb.lblock++
					if cb.lblock > 32 {
						return malformed("a code-block length of over 32 bits")
					}
				}
				if cb.passes+n > 3*(cb.numbps+t.p.roi[c])+1 {
					return malformed("%d coding passes in %d bit-planes", cb.passes+n, cb.numbps)
				}
				for n > 0 {
					k := len(cb.segs) - 1
					if k < 0 || cb.segs[k].passes == cb.segs[k].maxPasses {
						// A few bits of header each: charged, as a
						// codestream's data may declare millions.
						if err := t.take(segmentCost); err != nil {
							return err
						}
						cb.segs = append(cb.segs, segment{maxPasses: maxPasses(style, k+1)})
						k++
					}
					sg := &cb.segs[k]
					take := min(n, sg.maxPasses-sg.passes)
					nbits := cb.lblock + log2(take)
					length := br.bits(nbits)
					sg.passes += take
					cb.passes += take
					n -= take
					pend = append(pend, pending{cb: cb, seg: k, n: length})
				}
				if br.over {
					break
				}
			}
		}
	}
	br.align()
	if br.over {
		s.cut = true
		return nil
	}
	pos := br.pos
	hb := s.data
	if s.hdr != nil {
		hb = s.hdr
	}
	if t.p.eph && pos+2 <= len(hb) && binary.BigEndian.Uint16(hb[pos:]) == mEPH {
		pos += 2
	}
	if s.hdr != nil {
		s.hdrPos = pos
	} else {
		s.pos = pos
	}
	for _, pd := range pend {
		n := pd.n
		if s.pos+n > len(s.data) {
			n = len(s.data) - s.pos
			s.cut = true
		}
		if err := t.take(int64(n)); err != nil {
			return err
		}
		sg := &pd.cb.segs[pd.seg]
		sg.data = append(sg.data, s.data[s.pos:s.pos+n]...)
		s.pos += n
	}
	return nil
}

// passCount reads the number of coding passes (T.800 Table B.4).
func passCount(br *bitReader) int {
	if br.bit() == 0 {
		return 1
	}
	if br.bit() == 0 {
		return 2
	}
	if v := br.bits(2); v != 3 {
		return 3 + v
	}
	if v := br.bits(5); v != 31 {
		return 6 + v
	}
	return 37 + br.bits(7)
}

func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}

// packets reads the tile's packets in its progression order (or its
// progression order changes), until the data ends.
func (t *tile) packets(s *stream) error {
	nc := len(t.comps)
	maxRes := 0
	for _, tc := range t.comps {
		maxRes = max(maxRes, len(tc.res))
	}
	done := make([][][]int32, nc) // layers read of each precinct
	for c := range done {
		done[c] = make([][]int32, len(t.comps[c].res))
		for r := range done[c] {
			rs := &t.comps[c].res[r]
			done[c][r] = make([]int32, rs.pw*rs.ph)
		}
	}
	// The steps of the progressions (packets visited, positions tried)
	// are bounded: a real packet takes a byte at least, and a hostile
	// progression order change may repeat the whole tile.
	steps := int64(1<<24) + 4*int64(len(s.data)+len(s.hdr))
	t.steps = &steps
	vols := t.p.pocs
	if len(vols) == 0 {
		vols = []progression{{rs: 0, cs: 0, lye: t.p.layers, re: maxRes, ce: nc, order: t.p.order}}
	}
	for _, v := range vols {
		v.lye = min(v.lye, t.p.layers)
		v.re = min(v.re, maxRes)
		v.ce = min(v.ce, nc)
		visit := func(l, r, c, p int) (bool, error) {
			if steps--; steps < 0 {
				return true, tooLarge("over %d steps of the progression in a tile", int64(1<<24)+4*int64(len(s.data)+len(s.hdr)))
			}
			if r >= len(t.comps[c].res) {
				return false, nil
			}
			d := done[c][r]
			if p >= len(d) || int(d[p]) != l {
				return false, nil
			}
			d[p]++
			if err := t.packet(s, l, r, c, p); err != nil {
				return true, err
			}
			return s.cut || s.pos >= len(s.data) && s.hdr == nil, nil
		}
		var stop bool
		var err error
		switch v.order {
		case orderLRCP:
		lrcp:
			for l := 0; l < v.lye; l++ {
				for r := v.rs; r < v.re; r++ {
					for c := v.cs; c < v.ce; c++ {
						if r >= len(t.comps[c].res) {
							continue
						}
						rs := &t.comps[c].res[r]
						for p := range rs.pw * rs.ph {
							if stop, err = visit(l, r, c, p); stop {
								break lrcp
							}
						}
					}
				}
			}
		case orderRLCP:
		rlcp:
			for r := v.rs; r < v.re; r++ {
				for l := 0; l < v.lye; l++ {
					for c := v.cs; c < v.ce; c++ {
						if r >= len(t.comps[c].res) {
							continue
						}
						rs := &t.comps[c].res[r]
						for p := range rs.pw * rs.ph {
							if stop, err = visit(l, r, c, p); stop {
								break rlcp
							}
						}
					}
				}
			}
		default:
			stop, err = t.positional(v, visit)
		}
		if err != nil {
			return err
		}
		if stop {
			return nil
		}
	}
	return nil
}

// positional runs the progressions by position (RPCL, PCRL, CPRL) of v.
func (t *tile) positional(v progression, visit func(l, r, c, p int) (bool, error)) (bool, error) {
	cs := t.cs
	dx, dy := 0, 0
	for c := v.cs; c < v.ce; c++ {
		tc := &t.comps[c]
		for r := v.rs; r < min(v.re, len(tc.res)); r++ {
			rs := &tc.res[r]
			lv := len(tc.res) - 1 - r
			sx := cs.comps[c].dx << (rs.ppx + lv)
			sy := cs.comps[c].dy << (rs.ppy + lv)
			if dx == 0 || sx < dx {
				dx = sx
			}
			if dy == 0 || sy < dy {
				dy = sy
			}
		}
	}
	if dx == 0 || dy == 0 {
		return false, nil
	}
	// precinct returns the precinct of component c, resolution r at
	// (x, y) on the reference grid, if one starts there.
	precinct := func(c, r, x, y int) (int, bool) {
		*t.steps--
		tc := &t.comps[c]
		if r >= len(tc.res) {
			return 0, false
		}
		rs := &tc.res[r]
		if rs.pw == 0 || rs.ph == 0 {
			return 0, false
		}
		lv := len(tc.res) - 1 - r
		cx, cy := cs.comps[c].dx, cs.comps[c].dy
		if !(y%(cy<<(rs.ppy+lv)) == 0 || y == t.y0 && (rs.y0<<lv)%(1<<(rs.ppy+lv)) != 0) {
			return 0, false
		}
		if !(x%(cx<<(rs.ppx+lv)) == 0 || x == t.x0 && (rs.x0<<lv)%(1<<(rs.ppx+lv)) != 0) {
			return 0, false
		}
		pi := ceilDiv(x, cx<<lv)>>rs.ppx - rs.x0>>rs.ppx
		pj := ceilDiv(y, cy<<lv)>>rs.ppy - rs.y0>>rs.ppy
		if pi < 0 || pj < 0 || pi >= rs.pw || pj >= rs.ph {
			return 0, false
		}
		return pi + pj*rs.pw, true
	}
	type pos struct{ x, y int }
	var positions []pos
	for y := t.y0; y < t.y1; y += dy - y%dy {
		for x := t.x0; x < t.x1; x += dx - x%dx {
			positions = append(positions, pos{x, y})
			if len(positions) > MaxPrecincts*4 {
				return false, tooLarge("over %d precinct positions in a tile", MaxPrecincts*4)
			}
		}
	}
	maxRes := v.re
	// layers visits the packets of every layer of one precinct position
	// of component c at resolution r (the innermost loop of the three
	// position-major orders).
	layers := func(c, r int, ps pos) (bool, error) {
		p, ok := precinct(c, r, ps.x, ps.y)
		if !ok {
			if *t.steps < 0 {
				return true, tooLarge("too many steps of the progression in a tile")
			}
			return false, nil
		}
		for l := 0; l < v.lye; l++ {
			if stop, err := visit(l, r, c, p); stop {
				return true, err
			}
		}
		return false, nil
	}
	switch v.order {
	case orderRPCL:
		for r := v.rs; r < maxRes; r++ {
			for _, ps := range positions {
				for c := v.cs; c < v.ce; c++ {
					if stop, err := layers(c, r, ps); stop {
						return true, err
					}
				}
			}
		}
	case orderPCRL:
		for _, ps := range positions {
			for c := v.cs; c < v.ce; c++ {
				for r := v.rs; r < maxRes; r++ {
					if stop, err := layers(c, r, ps); stop {
						return true, err
					}
				}
			}
		}
	case orderCPRL:
		for c := v.cs; c < v.ce; c++ {
			for _, ps := range positions {
				for r := v.rs; r < maxRes; r++ {
					if stop, err := layers(c, r, ps); stop {
						return true, err
					}
				}
			}
		}
	}
	return false, nil
}
