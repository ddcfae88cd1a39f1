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
	huff := flags&1 != 0
	refAgg := flags&2 != 0
	if huff && refAgg {
		return nil, fmt.Errorf("%w: Huffman-coded refined or aggregated symbols", ErrUnsupported)
	}
	rtemplate := flags >> 12 & 1
	sd := &symbolDict{template: flags >> 10 & 3}
	if !huff {
		if err := readAT(r, sd.at[:atCount[sd.template]]); err != nil {
			return nil, err
		}
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
	// The lists of all the symbols (for the export flags, and for
	// refinement) and of the exported ones.
	if err := dc.alloc(int64(2*total+int(numEx)) * pointerCost); err != nil {
		return nil, err
	}
	if huff {
		syms, br, err := dc.huffmanSymbols(s, r.off, flags, int(numNew))
		if err != nil {
			return nil, err
		}
		sd.exported, err = exportFlags(append(in[:len(in):len(in)], syms...), int(numEx), func() (int64, bool) {
			v, ok, err := br.decode(standardTables[1])
			return v, ok && err == nil
		})
		return sd, err
	}
	if err := dc.contexts(1 << 16); err != nil {
		return nil, err
	}
	if flags&0x200 != 0 {
		// Retained for a later dictionary: charged.
		if err := dc.alloc(1 << 16 * contextCost); err != nil {
			return nil, err
		}
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
		if err := dc.textCoders(total); err != nil {
			return nil, err
		}
		tc = newTextCoders(symbolCodeLen(total), rtemplate)
	}
	p := genericParams{template: sd.template, at: sd.at}
	syms := make([]*Bitmap, 0, min(int(numNew), 4096))
	var known []*Bitmap // the input symbols and the new ones, for refinement
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
			if known == nil {
				known = append(in[:len(in):len(in)], syms...)
			}
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
			known = append(known, sym)
		}
	}
	sd.exported, err = exportFlags(append(in[:len(in):len(in)], syms...), int(numEx), func() (int64, bool) {
		return iaex.decode(d)
	})
	if err != nil {
		return nil, err
	}
	if flags&0x200 != 0 {
		sd.cx = cx
	}
	return sd, nil
}

// exportFlags returns the symbols of all that are exported, by the runs
// of export flags (6.5.10) that next decodes, numEx of them.
func exportFlags(all []*Bitmap, numEx int, next func() (int64, bool)) ([]*Bitmap, error) {
	var out []*Bitmap
	export := false
	for i, runs := 0, 0; i < len(all); runs++ {
		n, ok := next()
		if !ok || n < 0 || n > int64(len(all)-i) || runs > 2*len(all)+2 {
			return nil, fmt.Errorf("%w: the export flags", ErrMalformed)
		}
		if export {
			out = append(out, all[i:i+int(n)]...)
		}
		i += int(n)
		export = !export
	}
	if len(out) != numEx {
		return nil, fmt.Errorf("%w: %d symbols exported, %d declared", ErrMalformed, len(out), numEx)
	}
	return out, nil
}

// referredTables returns the tables of the tables segments s refers to,
// in order.
func (dc *decoder) referredTables(s *segment) []*huffTable {
	var ts []*huffTable
	for _, n := range s.referred {
		if t, ok := dc.results[n].(*huffTable); ok {
			ts = append(ts, t)
		}
	}
	return ts
}

// tablePicker hands out the standard table a selector names, or the next
// of a segment's user tables.
type tablePicker struct {
	user []*huffTable
}

func (p *tablePicker) pick(sel int, standard []int, what string) (*huffTable, error) {
	if sel < len(standard) && standard[sel] > 0 {
		return standardTables[standard[sel]], nil
	}
	if sel != len(standard) {
		return nil, fmt.Errorf("%w: Huffman table selector %d for %s", ErrMalformed, sel, what)
	}
	if len(p.user) == 0 {
		return nil, fmt.Errorf("%w: no user Huffman table for %s", ErrMalformed, what)
	}
	t := p.user[0]
	p.user = p.user[1:]
	return t, nil
}

// huffmanSymbols decodes the new symbols of a Huffman-coded symbol
// dictionary (6.5.5 with SDHUFF 1), its data from off on: each height
// class one collective bitmap, uncompressed or in MMR. It returns the
// reader, at the export flags.
func (dc *decoder) huffmanSymbols(s *segment, off int, flags int, numNew int) ([]*Bitmap, *bitReader, error) {
	tp := &tablePicker{user: dc.referredTables(s)}
	dhT, err := tp.pick(flags>>2&3, []int{4, 5, 0}, "heights")
	if err != nil {
		return nil, nil, err
	}
	dwT, err := tp.pick(flags>>4&3, []int{2, 3, 0}, "widths")
	if err != nil {
		return nil, nil, err
	}
	bmT, err := tp.pick(flags>>6&1, []int{1}, "bitmap sizes")
	if err != nil {
		return nil, nil, err
	}
	data := s.data[off:]
	br := &bitReader{b: data}
	syms := make([]*Bitmap, 0, min(numNew, 4096))
	height := int64(0)
	for classes := 0; len(syms) < numNew; classes++ {
		if classes >= numNew {
			return nil, nil, fmt.Errorf("%w: an empty height class", ErrMalformed)
		}
		dh, ok, err := br.decode(dhT)
		if err != nil {
			return nil, nil, err
		}
		height += dh
		if !ok || height < 0 || height > int64(dc.maxPixels) {
			return nil, nil, fmt.Errorf("%w: a height class of height %d", ErrMalformed, height)
		}
		var widths []int
		width, total := int64(0), int64(0)
		for {
			dw, ok, err := br.decode(dwT)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				break
			}
			width += dw
			total += width
			if len(syms)+len(widths) == numNew || width < 0 || total*height > int64(dc.maxPixels) {
				return nil, nil, fmt.Errorf("%w: symbol %d of %d×%d pixels", ErrMalformed, len(syms)+len(widths), width, height)
			}
			widths = append(widths, int(width))
		}
		size, ok, err := br.decode(bmT)
		if err != nil || !ok || size < 0 {
			return nil, nil, fmt.Errorf("%w: a collective bitmap of %d bytes", ErrMalformed, size)
		}
		br.align()
		if err := dc.spend(int(total), int(height)); err != nil {
			return nil, nil, err
		}
		// The symbols are copies of the collective bitmap's parts.
		if err := dc.alloc(int64(total+8*int64(len(widths)))/8*height + int64(len(widths))*bitmapCost); err != nil {
			return nil, nil, err
		}
		at := br.byteOffset()
		var coll *Bitmap
		if size == 0 {
			coll = newBitmap(int(total), int(height))
			if len(data)-at < len(coll.Data) {
				return nil, nil, fmt.Errorf("%w: a collective bitmap cut short", ErrMalformed)
			}
			copy(coll.Data, data[at:])
			size = int64(len(coll.Data))
		} else {
			if size > int64(len(data)-at) {
				return nil, nil, fmt.Errorf("%w: a collective bitmap of %d bytes with %d left", ErrMalformed, size, len(data)-at)
			}
			if coll, err = decodeMMR(data[at:at+int(size)], int(total), int(height)); err != nil {
				return nil, nil, err
			}
		}
		br.off += int(size) * 8
		x := 0
		for _, w := range widths {
			syms = append(syms, coll.sub(x, 0, w, int(height)))
			x += w
		}
	}
	return syms, br, nil
}
