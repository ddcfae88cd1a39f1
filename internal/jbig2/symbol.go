package jbig2

import (
	"fmt"

	"github.com/researchctx/researchctx/internal/mq"
)

// symbolDict is a decoded symbol dictionary: the symbols it exports,
// and its generic region contexts when it retains them.
type symbolDict struct {
	exported []*Bitmap
	template int
	at       [4]at
	cx       []mq.Context
}

// maxCoord bounds the coordinates that text regions compute.
const maxCoord = 1 << 31

// symbolDict decodes a symbol dictionary segment (7.4.2, 6.5) coded
// arithmetically.
func (dc *decoder) symbolDict(s *segment) (*symbolDict, error) {
	r := &reader{b: s.data}
	flags := r.u16()
	if r.err != nil {
		return nil, r.err
	}
	if flags&1 != 0 {
		return nil, fmt.Errorf("%w: a Huffman-coded symbol dictionary", ErrUnsupported)
	}
	refAgg := flags&2 != 0
	rtemplate := flags >> 12 & 1
	sd := &symbolDict{template: flags >> 10 & 3}
	if err := readAT(r, sd.at[:atCount[sd.template]]); err != nil {
		return nil, err
	}
	var rat [2]at
	if refAgg {
		var err error
		if rat, err = readRefineAT(r, rtemplate); err != nil {
			return nil, err
		}
	}
	numEx, numNew := r.u32(), r.u32()
	if r.err != nil {
		return nil, r.err
	}
	in, last, err := dc.referredSymbols(s)
	if err != nil {
		return nil, err
	}
	if uint64(numNew) > uint64(dc.symbols) {
		return nil, fmt.Errorf("%w: a symbol dictionary of %d symbols", ErrLimit, numNew)
	}
	dc.symbols -= int(numNew)
	total := len(in) + int(numNew)
	if uint64(numEx) > uint64(total) {
		return nil, fmt.Errorf("%w: %d symbols exported of %d", ErrMalformed, numEx, total)
	}
	var cx []mq.Context
	if flags&0x100 != 0 {
		if last == nil || last.cx == nil || last.template != sd.template || last.at != sd.at {
			return nil, fmt.Errorf("%w: a symbol dictionary uses contexts no dictionary retained", ErrMalformed)
		}
		cx = append([]mq.Context(nil), last.cx...)
	} else {
		cx = genericContexts(sd.template)
	}
	d := mq.NewDecoder(s.data[r.off:])
	var iadh, iadw, iaex, iaai intDecoder
	var tc *textCoders
	if refAgg {
		tc = newTextCoders(symbolCodeLen(total), rtemplate)
	}
	p := genericParams{template: sd.template, at: sd.at}
	syms := make([]*Bitmap, 0, min(int(numNew), 4096))
	height := int64(0)
	for classes := 0; len(syms) < int(numNew); classes++ {
		if classes >= int(numNew) {
			return nil, fmt.Errorf("%w: an empty height class", ErrMalformed)
		}
		dh, ok := iadh.decode(d)
		height += dh
		if !ok || height < 0 || height > int64(dc.maxPixels) {
			return nil, fmt.Errorf("%w: a height class of height %d", ErrMalformed, height)
		}
		width := int64(0)
		for {
			dw, ok := iadw.decode(d)
			if !ok {
				break
			}
			width += dw
			if len(syms) == int(numNew) || width < 0 || width*height > int64(dc.maxPixels) {
				return nil, fmt.Errorf("%w: symbol %d of %d×%d pixels", ErrMalformed, len(syms), width, height)
			}
			if err := dc.spend(int(width), int(height)); err != nil {
				return nil, err
			}
			if !refAgg {
				syms = append(syms, decodeGeneric(d, cx, int(width), int(height), &p))
				continue
			}
			// A symbol refined from one before it, or an aggregate of them
			// (6.5.8.2).
			known := append(in[:len(in):len(in)], syms...)
			n, ok := iaai.decode(d)
			if !ok || n < 1 || n > int64(dc.symbols) {
				return nil, fmt.Errorf("%w: an aggregate of %d symbols", ErrMalformed, n)
			}
			var sym *Bitmap
			if n == 1 {
				id := tc.iaid.decode(d)
				rdx, ok1 := tc.iardx.decode(d)
				rdy, ok2 := tc.iardy.decode(d)
				if id >= len(known) || !ok1 || !ok2 || rdx < -maxCoord || rdx > maxCoord || rdy < -maxCoord || rdy > maxCoord {
					return nil, fmt.Errorf("%w: a refinement of symbol %d", ErrMalformed, id)
				}
				rp := refineParams{template: rtemplate, at: rat, ref: known[id], dx: int(rdx), dy: int(rdy)}
				sym = decodeRefine(d, tc.grcx, int(width), int(height), &rp)
			} else {
				tp := textParams{
					w: int(width), h: int(height), numInst: uint32(n), strips: 1,
					corner: cornerTopLeft, op: opOR, refine: true, rtemplate: rtemplate, rat: rat, syms: known,
				}
				var err error
				if sym, err = dc.decodeText(d, &tp, tc); err != nil {
					return nil, err
				}
			}
			syms = append(syms, sym)
		}
	}
	// The export flags, in runs (6.5.10).
	all := append(in[:len(in):len(in)], syms...)
	export := false
	for i, runs := 0, 0; i < total; runs++ {
		n, ok := iaex.decode(d)
		if !ok || n < 0 || n > int64(total-i) || runs > 2*total+2 {
			return nil, fmt.Errorf("%w: the export flags", ErrMalformed)
		}
		if export {
			sd.exported = append(sd.exported, all[i:i+int(n)]...)
		}
		i += int(n)
		export = !export
	}
	if len(sd.exported) != int(numEx) {
		return nil, fmt.Errorf("%w: %d symbols exported, %d declared", ErrMalformed, len(sd.exported), numEx)
	}
	if flags&0x200 != 0 {
		sd.cx = cx
	}
	return sd, nil
}
