package jpx

import "github.com/researchctx/researchctx/internal/mq"

// Flags of a coefficient in the tier-1 decoder: which neighbours are
// significant and, of the four nearest, negative; whether it is itself
// significant, coded in this bit-plane's significance pass, refined.
const (
	fN = 1 << iota
	fS
	fW
	fE
	fNW
	fNE
	fSW
	fSE
	fNegN
	fNegS
	fNegW
	fNegE
	fSig
	fVisit
	fRefined
	fNeg

	fNeighbours = fN | fS | fW | fE | fNW | fNE | fSW | fSE
	// fSouth is what vertically causal contexts do not see below a
	// stripe.
	fSouth = fS | fSW | fSE | fNegS
)

// Contexts (T.800 Annex D): 0–8 zero coding, 9–13 sign coding, 14–16
// magnitude refinement, 17 run length, 18 uniform.
const (
	ctxRL      = 17
	ctxUniform = 18
	numCtx     = 19
)

// zcLUT maps the neighbour flags to a zero coding context, by
// orientation.
var zcLUT [4][256]uint8

// scLUT maps the four nearest neighbours' significance and signs to a
// sign coding context and the bit the sign is XORed with.
var scLUT [256]uint8

func init() {
	for o := range 4 {
		for f := range 256 {
			h := f&fW/fW + f&fE/fE
			v := f&fN/fN + f&fS/fS
			d := f&fNW/fNW + f&fNE/fNE + f&fSW/fSW + f&fSE/fSE
			if o == 1 {
				h, v = v, h
			}
			var cx int
			if o == 3 {
				hv := h + v
				switch {
				case d >= 3:
					cx = 8
				case d == 2:
					cx = 6 + min(hv, 1)
				case d == 1:
					cx = 3 + min(hv, 2)
				default:
					cx = min(hv, 2)
				}
			} else {
				switch {
				case h == 2:
					cx = 8
				case h == 1:
					switch {
					case v >= 1:
						cx = 7
					case d >= 1:
						cx = 6
					default:
						cx = 5
					}
				default:
					switch {
					case v == 2:
						cx = 4
					case v == 1:
						cx = 3
					default:
						cx = min(d, 2)
					}
				}
			}
			zcLUT[o][f] = uint8(cx)
		}
	}
	// Index: bits 0–3 significance of N, S, W, E; bits 4–7 their signs.
	for i := range 256 {
		contrib := func(sig, neg int) int {
			if i&sig == 0 {
				return 0
			}
			if i&neg != 0 {
				return -1
			}
			return 1
		}
		h := max(-1, min(1, contrib(4, 64)+contrib(8, 128)))
		v := max(-1, min(1, contrib(1, 16)+contrib(2, 32)))
		var cx, x int
		switch {
		case h == 1:
			cx = 12 + v
		case h == 0:
			if v == -1 {
				cx, x = 10, 1
			} else {
				cx = 9 + v
			}
		default:
			cx, x = 12-v, 1
		}
		scLUT[i] = uint8(cx<<1 | x)
	}
}

// scIndex packs the flags f into an index of scLUT.
func scIndex(f uint32) int {
	return int(f&(fN|fS|fW|fE) | (f>>8&15)<<4)
}

// rawDecoder reads the bits of a bypassed (raw) segment.
type rawDecoder struct {
	data []byte
	pos  int
	c    uint32
	ct   int
}

func (r *rawDecoder) bit() int {
	if r.ct == 0 {
		next := byte(0xFF)
		if r.pos < len(r.data) {
			next = r.data[r.pos]
		}
		if r.c == 0xFF {
			if next > 0x8F {
				r.c, r.ct = 0xFF, 8
			} else {
				r.c, r.ct = uint32(next), 7
				r.pos++
			}
		} else {
			r.c, r.ct = uint32(next), 8
			r.pos++
		}
	}
	r.ct--
	return int(r.c>>r.ct) & 1
}

// t1 is the tier-1 decoder's working state, reused across code-blocks.
type t1 struct {
	w, h   int
	data   []int32  // magnitudes ×2 with a half bit, signed
	flags  []uint32 // (w+2)×(h+2), a border all round
	ctx    [numCtx]mq.Context
	mqd    *mq.Decoder
	raw    rawDecoder
	isRaw  bool
	orient int
	vsc    bool
}

func (t *t1) resetCtx() {
	for i := range t.ctx {
		t.ctx[i] = mq.Context{}
	}
	t.ctx[0] = mq.Context{Index: 4}
	t.ctx[ctxRL] = mq.Context{Index: 3}
	t.ctx[ctxUniform] = mq.Context{Index: 46}
}

// setSig marks coefficient at flag index i significant, negative or not,
// and tells its neighbours.
func (t *t1) setSig(i int, neg bool) {
	s := t.w + 2
	f := t.flags
	f[i] |= fSig
	if neg {
		f[i] |= fNeg
		f[i-s] |= fS | fNegS
		f[i+s] |= fN | fNegN
		f[i-1] |= fE | fNegE
		f[i+1] |= fW | fNegW
	} else {
		f[i-s] |= fS
		f[i+s] |= fN
		f[i-1] |= fE
		f[i+1] |= fW
	}
	f[i-s-1] |= fSE
	f[i-s+1] |= fSW
	f[i+s-1] |= fNE
	f[i+s+1] |= fNW
}

// neighbourFlags is the flags of index i as the contexts see them at row
// y of its stripe.
func (t *t1) neighbourFlags(i, row int) uint32 {
	return t.flags[i] & t.rowMask(row)
}

// becomeSig decodes the sign of the coefficient at flag index i and
// makes it significant with magnitude v.
func (t *t1) becomeSig(i, di, row int, v int32) {
	f := t.neighbourFlags(i, row)
	var neg bool
	if t.isRaw {
		neg = t.raw.bit() == 1
	} else {
		lut := scLUT[scIndex(f)]
		neg = (t.mqd.Decode(&t.ctx[lut>>1]) ^ int(lut&1)) == 1
	}
	if neg {
		t.data[di] = -v
	} else {
		t.data[di] = v
	}
	t.setSig(i, neg)
}

// rowMask is what the contexts see of the flags at row of a stripe.
func (t *t1) rowMask(row int) uint32 {
	if t.vsc && row == 3 {
		return ^uint32(fSouth)
	}
	return ^uint32(0)
}

// sigPass is the significance propagation pass at bit-plane bp.
func (t *t1) sigPass(bp int) {
	one := int32(1) << (bp + 1)
	v := one | one>>1
	s := t.w + 2
	zc := &zcLUT[t.orient]
	flags := t.flags
	for y0 := 0; y0 < t.h; y0 += 4 {
		rows := min(4, t.h-y0)
		for x := 0; x < t.w; x++ {
			i0 := (y0+1)*s + x + 1
			if rows == 4 {
				// A column with nothing to code is the common case.
				f := flags[i0] | flags[i0+s] | flags[i0+2*s] | flags[i0+3*s]
				if f&fNeighbours == 0 {
					continue
				}
			}
			for row := range rows {
				i := i0 + row*s
				f := flags[i] & t.rowMask(row)
				if f&(fSig|fVisit) != 0 || f&fNeighbours == 0 {
					continue
				}
				var bit int
				if t.isRaw {
					bit = t.raw.bit()
				} else {
					bit = t.mqd.Decode(&t.ctx[zc[f&0xFF]])
				}
				if bit == 1 {
					t.becomeSig(i, (y0+row)*t.w+x, row, v)
				}
				flags[i] |= fVisit
			}
		}
	}
}

// refPass is the magnitude refinement pass at bit-plane bp.
func (t *t1) refPass(bp int) {
	half := int32(1) << bp
	s := t.w + 2
	flags, data := t.flags, t.data
	for y0 := 0; y0 < t.h; y0 += 4 {
		rows := min(4, t.h-y0)
		for x := 0; x < t.w; x++ {
			i0 := (y0+1)*s + x + 1
			if rows == 4 {
				f := flags[i0] | flags[i0+s] | flags[i0+2*s] | flags[i0+3*s]
				if f&fSig == 0 {
					continue
				}
			}
			for row := range rows {
				i := i0 + row*s
				f := flags[i] & t.rowMask(row)
				if f&(fSig|fVisit) != fSig {
					continue
				}
				cx := 16
				if f&fRefined == 0 {
					cx = 14
					if f&fNeighbours != 0 {
						cx = 15
					}
				}
				var bit int
				if t.isRaw {
					bit = t.raw.bit()
				} else {
					bit = t.mqd.Decode(&t.ctx[cx])
				}
				di := (y0+row)*t.w + x
				d := data[di]
				if (bit == 1) == (d > 0) {
					data[di] = d + half
				} else {
					data[di] = d - half
				}
				flags[i] |= fRefined
			}
		}
	}
}

// cleanPass is the cleanup pass at bit-plane bp.
func (t *t1) cleanPass(bp int, segSymbol bool) {
	one := int32(1) << (bp + 1)
	v := one | one>>1
	s := t.w + 2
	zc := &zcLUT[t.orient]
	for y0 := 0; y0 < t.h; y0 += 4 {
		for x := 0; x < t.w; x++ {
			start := 0
			if y0+3 < t.h {
				i := (y0+1)*s + x + 1
				f0 := t.flags[i]
				f1 := t.flags[i+s]
				f2 := t.flags[i+2*s]
				f3 := t.flags[i+3*s]
				if t.vsc {
					f3 &^= fSouth
				}
				if (f0|f1|f2|f3)&(fSig|fVisit|fNeighbours) == 0 {
					if t.mqd.Decode(&t.ctx[ctxRL]) == 0 {
						continue
					}
					run := t.mqd.Decode(&t.ctx[ctxUniform])<<1 | t.mqd.Decode(&t.ctx[ctxUniform])
					y := y0 + run
					t.becomeSig((y+1)*s+x+1, y*t.w+x, run, v)
					start = run + 1
				}
			}
			for row := start; row < 4 && y0+row < t.h; row++ {
				y := y0 + row
				i := (y+1)*s + x + 1
				f := t.flags[i] & t.rowMask(row)
				if f&(fSig|fVisit) != 0 {
					t.flags[i] &^= fVisit
					continue
				}
				if t.mqd.Decode(&t.ctx[zc[f&0xFF]]) == 1 {
					t.becomeSig(i, y*t.w+x, row, v)
				}
			}
		}
	}
	if segSymbol {
		for range 4 {
			t.mqd.Decode(&t.ctx[ctxUniform])
		}
	}
}

// decodeBlock decodes code-block cb of band b into t.data (w×h, row by
// row), its passes over bit-planes from cb.numbps+roi down.
func (t *t1) decodeBlock(cb *codeBlock, orient int, style byte, roi int) {
	t.w, t.h = cb.x1-cb.x0, cb.y1-cb.y0
	n := t.w * t.h
	if cap(t.data) < n {
		t.data = make([]int32, n)
	}
	t.data = t.data[:n]
	clear(t.data)
	nf := (t.w + 2) * (t.h + 2)
	if cap(t.flags) < nf {
		t.flags = make([]uint32, nf)
	}
	t.flags = t.flags[:nf]
	clear(t.flags)
	t.orient = orient
	t.vsc = style&styleVCausal != 0
	t.resetCtx()
	bp := cb.numbps + roi - 1
	pass := 0 // 0 cleanup first, then significance, refinement, cleanup
	kind := 2
	for _, sg := range cb.segs {
		if sg.passes == 0 {
			continue
		}
		// Past the first ten passes, bypass codes the significance and
		// refinement passes raw, each pair a segment of its own (see
		// maxPasses).
		t.isRaw = style&styleBypass != 0 && pass >= 10 && kind != 2
		if t.isRaw {
			t.raw = rawDecoder{data: sg.data}
		} else {
			t.mqd = mq.NewDecoder(sg.data)
		}
		for range sg.passes {
			if bp < 0 {
				return
			}
			switch kind {
			case 0:
				t.sigPass(bp)
			case 1:
				t.refPass(bp)
			case 2:
				t.cleanPass(bp, style&styleSegSymbol != 0)
			}
			if style&styleReset != 0 {
				t.resetCtx()
			}
			pass++
			kind++
			if kind == 3 {
				kind = 0
				bp--
			}
		}
	}
}
