package jbig2

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/researchctx/researchctx/internal/mq"
)

// bitWriter writes bits most significant first, for Huffman-coded test
// data.
type bitWriter struct {
	b []byte
	n int // bits written
}

func (w *bitWriter) bits(v int64, n int) {
	for i := n - 1; i >= 0; i-- {
		if w.n%8 == 0 {
			w.b = append(w.b, 0)
		}
		if v>>uint(i)&1 != 0 {
			w.b[len(w.b)-1] |= 0x80 >> uint(w.n%8)
		}
		w.n++
	}
}

func (w *bitWriter) align() { w.n = (w.n + 7) &^ 7 }

func (w *bitWriter) bytes(b []byte) {
	w.align()
	w.b = append(w.b, b...)
	w.n += 8 * len(b)
}

// huffCodes assigns canonical codes to the lines of a table (T.88 B.3),
// written apart from the decoder's table: lines by prefix length, in
// order within a length.
func huffCodes(lines []huffLine) []int {
	codes := make([]int, len(lines))
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return lines[a].prefLen - lines[b].prefLen })
	code, prev := 0, 0
	for _, i := range order {
		l := lines[i].prefLen
		if l == 0 {
			continue
		}
		if prev > 0 {
			code = (code + 1) << uint(l-prev)
		}
		codes[i], prev = code, l
	}
	return codes
}

// huffPut codes v, or out-of-band, with the table of lines.
func huffPut(t testing.TB, w *bitWriter, lines []huffLine, v int64, oob bool) {
	t.Helper()
	codes := huffCodes(lines)
	for i, l := range lines {
		var off int64
		switch {
		case oob && l.kind == lineOOB:
		case oob || l.kind == lineOOB:
			continue
		case l.kind == lineLower && v <= l.low:
			off = l.low - v
		case l.kind == lineUpper && v >= l.low:
			off = v - l.low
		case l.kind == 0 && v >= l.low && v < l.low+1<<uint(l.rangeLen):
			off = v - l.low
		default:
			continue
		}
		w.bits(int64(codes[i]), l.prefLen)
		w.bits(off, l.rangeLen)
		return
	}
	t.Fatalf("%d (out-of-band %v) is in no line of the table", v, oob)
}

// huffSymbolDictData codes syms as a Huffman-coded symbol dictionary,
// heights by B.4 (or B.5) and widths by B.2 (or B.3), each height class
// one collective bitmap, in MMR (libtiff) every other class; order as
// symbolDictData's.
func huffSymbolDictData(t testing.TB, syms []*Bitmap, b5b3 bool) ([]byte, []int) {
	order := make([]int, len(syms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if syms[a].Height != syms[b].Height {
			return syms[a].Height - syms[b].Height
		}
		return syms[a].Width - syms[b].Width
	})
	var classes [][]*Bitmap
	for i := 0; i < len(order); {
		var class []*Bitmap
		for h := syms[order[i]].Height; i < len(order) && syms[order[i]].Height == h; i++ {
			class = append(class, syms[order[i]])
		}
		classes = append(classes, class)
	}
	return huffDictData(t, classes, b5b3), order
}

// huffDictData codes the height classes, each of symbols of one height,
// in order, as a Huffman-coded symbol dictionary (see huffSymbolDictData).
func huffDictData(t testing.TB, classes [][]*Bitmap, b5b3 bool) []byte {
	dhT, dwT, flags := standardLines[4], standardLines[2], uint16(1)
	if b5b3 {
		dhT, dwT, flags = standardLines[5], standardLines[3], 1|1<<2|1<<4
	}
	n := 0
	for _, c := range classes {
		n += len(c)
	}
	d := binary.BigEndian.AppendUint16(nil, flags)
	d = append(d, u32s(uint32(n), uint32(n))...)
	w := &bitWriter{}
	height := 0
	for class, members := range classes {
		h := members[0].Height
		huffPut(t, w, dhT, int64(h-height), false)
		height = h
		width := 0
		for _, s := range members {
			huffPut(t, w, dwT, int64(s.Width-width), false)
			width = s.Width
		}
		huffPut(t, w, dwT, 0, true)
		total := 0
		for _, s := range members {
			total += s.Width
		}
		coll := newBitmap(total, h)
		x := 0
		for _, s := range members {
			coll.compose(s, x, 0, opOR)
			x += s.Width
		}
		if class%2 == 1 && total > 0 {
			mmr := g4(t, coll)
			huffPut(t, w, standardLines[1], int64(len(mmr)), false)
			w.bytes(mmr)
		} else {
			huffPut(t, w, standardLines[1], 0, false)
			w.bytes(coll.Data)
		}
	}
	huffPut(t, w, standardLines[1], 0, false)
	huffPut(t, w, standardLines[1], int64(n), false)
	return append(d, w.b...)
}

// TestHuffmanDictTables: symbol dictionaries whose heights and widths
// fall on every line of the tables B.2–B.5, placed by a text region,
// decode with jbig2dec and with this package to the bitmap they draw.
func TestHuffmanDictTables(t *testing.T) {
	for _, tc := range []struct {
		b5b3            bool
		heights, widths []int
	}{
		{false, []int{1, 3, 6, 10, 21, 33, 108, 184, 1500}, []int{1, 1, 3, 6, 16, 27, 101, 176, 1000}},
		{true, []int{1, 3, 6, 10, 21, 33, 108, 184, 1500, 1200, 1000, 1000, 700}, []int{1, 1, 3, 6, 16, 27, 101, 176, 1000, 700, 400, 300}},
	} {
		var classes [][]*Bitmap
		var syms []*Bitmap
		for i, h := range tc.heights {
			var class []*Bitmap
			if i == 0 {
				for j, w := range tc.widths {
					class = append(class, noise(w, h, uint64(j)))
				}
			} else {
				class = []*Bitmap{noise(1+i%3, h, uint64(100+i))}
			}
			classes = append(classes, class)
			syms = append(syms, class...)
		}
		// One row of instances: each symbol once, left to right.
		var inst []instance
		x := 0
		for id, s := range syms {
			inst = append(inst, instance{id, x, 0})
			x += s.Width + 1
		}
		w, h := x, 1500
		st := &stream{}
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(w), uint32(h), 0, 0))
		ref := st.segment(typeSymbolDict, 1, nil, huffDictData(t, classes, tc.b5b3))
		st.segment(typeImmediateText, 1, []uint32{ref}, textRegionData(w, h, syms, inst, 0))
		want := newBitmap(w, h)
		for _, in := range inst {
			want.compose(syms[in.id], in.x, in.y, opOR)
		}
		got, err := Decode(st.Bytes(), nil, 1<<24, testBytes)
		if err != nil {
			t.Fatal(err)
		}
		if d := differ(got, want); d != "" {
			t.Errorf("B.5 and B.3 %v: decoded: %s", tc.b5b3, d)
		}
		if d := differ(jbig2dec(t, st.Bytes(), nil), want); d != "" {
			t.Errorf("B.5 and B.3 %v: jbig2dec: %s", tc.b5b3, d)
		}
	}
}

// huffTextScript is a Huffman-coded text region's values, strip by
// strip: each strip's T step, its first S step, then the S gaps, T
// offsets and symbols of its instances.
type huffTextStrip struct {
	dt, fs int64
	ds     []int64 // one fewer than ids
	ts     []int64
	ids    []int
	// refined, if not nil, holds each instance's refinement: nil for
	// none, else the bitmap the symbol is refined to, offset by the
	// reference's rdx, rdy.
	refined []*huffRefinement
}

// huffRefinement is a Huffman-coded text instance's refinement.
type huffRefinement struct {
	target   *Bitmap
	rdx, rdy int64
}

// huffTextData codes a w×h text region of the strips with the tables
// B.fs, B.ds and B.dt (0: the user tables given, in that order), symbol
// IDs coded by the run codes, in strips of 1<<logStrips rows; it returns
// the bitmap its instances draw, computed from the values.
func huffTextData(t testing.TB, w, h int, syms []*Bitmap, strips []huffTextStrip, logStrips, fs, ds, dt int, user [][]huffLine) ([]byte, *Bitmap) {
	return huffRefinedTextData(t, w, h, syms, strips, logStrips, fs, ds, dt, 0, user)
}

// huffRefinedTextData is huffTextData with refined instances, whose size
// changes and offsets are coded with the table B.rt (14 or 15; 0 if none
// is refined), the refinements in template 0.
func huffRefinedTextData(t testing.TB, w, h int, syms []*Bitmap, strips []huffTextStrip, logStrips, fs, ds, dt, rt int, user [][]huffLine) ([]byte, *Bitmap) {
	want := newBitmap(w, h)
	table := func(n int) []huffLine {
		if n > 0 {
			return standardLines[n]
		}
		u := user[0]
		user = user[1:]
		return u
	}
	sel := func(n int, standard []int) int {
		if i := slices.Index(standard, n); i >= 0 {
			return i
		}
		return 3
	}
	fsT, dsT, dtT := table(fs), table(ds), table(dt)
	hf := uint16(sel(fs, []int{6, 7}) | sel(ds, []int{8, 9, 10})<<2 | sel(dt, []int{11, 12, 13})<<4)
	n := 0
	for _, s := range strips {
		n += len(s.ids)
	}
	d := regionData(w, h, 0, 0, opOR)
	refine := rt != 0
	flags := uint16(1 | logStrips<<2 | cornerTopLeft<<4)
	if refine {
		flags |= 2
		r := uint16(rt - 14)
		hf |= r<<6 | r<<8 | r<<10 | r<<12
	}
	d = binary.BigEndian.AppendUint16(d, flags)
	d = binary.BigEndian.AppendUint16(d, hf)
	if refine {
		for _, a := range nominalRefineAT {
			d = append(d, byte(int8(a.dx)), byte(int8(a.dy)))
		}
	}
	d = append(d, u32s(uint32(n))...)
	grcx := refineContexts(0)
	bw := &bitWriter{}
	// Run codes: all of length 6; the symbols' code lengths all codeLen,
	// written as a length and repeats of it.
	for range 35 {
		bw.bits(6, 4)
	}
	run := make([]huffLine, 35)
	for i := range run {
		run[i] = huffLine{6, 0, int64(i), 0}
	}
	codeLen := max(symbolCodeLen(len(syms)), 1)
	for i := 0; i < len(syms); {
		if i == 0 || len(syms)-i < 3 {
			huffPut(t, bw, run, int64(codeLen), false)
			i++
			continue
		}
		k := min(len(syms)-i, 6)
		huffPut(t, bw, run, 32, false)
		bw.bits(int64(k-3), 2)
		i += k
	}
	bw.align()
	ids := make([]huffLine, len(syms))
	for i := range ids {
		ids[i] = huffLine{codeLen, 0, int64(i), 0}
	}
	stripT := int64(-1) << logStrips
	huffPut(t, bw, dtT, 1, false)
	firstS := int64(0)
	for _, s := range strips {
		huffPut(t, bw, dtT, s.dt, false)
		stripT += s.dt << logStrips
		var curS int64
		for j, id := range s.ids {
			if j == 0 {
				huffPut(t, bw, fsT, s.fs, false)
				firstS += s.fs
				curS = firstS
			} else {
				huffPut(t, bw, dsT, s.ds[j-1], false)
				curS += s.ds[j-1]
			}
			if logStrips > 0 {
				bw.bits(s.ts[j], logStrips)
			}
			huffPut(t, bw, ids, int64(id), false)
			sym := syms[id]
			if refine {
				var r *huffRefinement
				if s.refined != nil {
					r = s.refined[j]
				}
				if r == nil {
					bw.bits(0, 1)
				} else {
					bw.bits(1, 1)
					rdw, rdh := int64(r.target.Width-sym.Width), int64(r.target.Height-sym.Height)
					huffPut(t, bw, standardLines[rt], rdw, false)
					huffPut(t, bw, standardLines[rt], rdh, false)
					huffPut(t, bw, standardLines[rt], r.rdx, false)
					huffPut(t, bw, standardLines[rt], r.rdy, false)
					e := mq.NewEncoder()
					rp := refineParams{template: 0, at: nominalRefineAT, ref: sym, dx: int(rdw>>1 + r.rdx), dy: int(rdh>>1 + r.rdy)}
					encodeRefine(e, grcx, r.target, &rp)
					coded := e.Flush()
					huffPut(t, bw, standardLines[1], int64(len(coded)), false)
					bw.bytes(coded)
					sym = r.target
				}
			}
			want.compose(sym, int(curS), int(stripT+s.ts[j]), opOR)
			curS += int64(sym.Width) - 1
		}
		huffPut(t, bw, dsT, 0, true)
	}
	return append(d, bw.b...), want
}

// userTableData codes lines as a tables segment's data: lines of equal
// range from low to high, then the lower, upper and out-of-band lines.
func userTableData(lines []huffLine, oob bool) []byte {
	var low, high int64
	var ps, rs int
	var body []huffLine
	var lower, upper, oobLine huffLine
	for _, l := range lines {
		switch l.kind {
		case lineLower:
			lower = l
		case lineUpper:
			upper, high = l, l.low
		case lineOOB:
			oobLine = l
		default:
			body = append(body, l)
		}
		ps, rs = max(ps, symbolCodeLen(l.prefLen+1)), max(rs, symbolCodeLen(l.rangeLen+1))
	}
	low = body[0].low
	ps, rs = max(ps, 1), max(rs, 1)
	flags := byte((ps-1)<<1 | (rs-1)<<4)
	if oob {
		flags |= 1
	}
	d := append([]byte{flags}, u32s(uint32(int32(low)), uint32(int32(high)))...)
	w := &bitWriter{}
	for _, l := range body {
		w.bits(int64(l.prefLen), ps)
		w.bits(int64(l.rangeLen), rs)
	}
	w.bits(int64(lower.prefLen), ps)
	w.bits(int64(upper.prefLen), ps)
	if oob {
		w.bits(int64(oobLine.prefLen), ps)
	}
	return append(d, w.b...)
}

// huffStrips arranges instances, top left corners the reference, into
// the strips of a Huffman-coded text region.
func huffStrips(syms []*Bitmap, inst []instance, logStrips int) []huffTextStrip {
	strips := 1 << logStrips
	inst = slices.Clone(inst)
	slices.SortStableFunc(inst, func(a, b instance) int {
		if sa, sb := a.y/strips, b.y/strips; sa != sb {
			return sa - sb
		}
		return a.x - b.x
	})
	var out []huffTextStrip
	prevT, firstS := -strips, 0
	for i := 0; i < len(inst); {
		st := inst[i].y / strips * strips
		s := huffTextStrip{dt: int64((st - prevT) / strips), fs: int64(inst[i].x - firstS)}
		prevT, firstS = st, inst[i].x
		end := 0
		for ; i < len(inst) && inst[i].y/strips*strips == st; i++ {
			in := inst[i]
			if len(s.ids) > 0 {
				s.ds = append(s.ds, int64(in.x-end))
			}
			s.ts = append(s.ts, int64(in.y-st))
			s.ids = append(s.ids, in.id)
			end = in.x + syms[in.id].Width - 1
		}
		out = append(out, s)
	}
	return out
}

// huffTextStream is a page of c's size holding c as a Huffman-coded text
// region of its connected components; with user, its tables are user
// tables, and they and the symbol dictionary are among the globals.
func huffTextStream(t testing.TB, c *Bitmap, user bool) (data, globals []byte) {
	syms, inst := symbols(c)
	sd, order := huffSymbolDictData(t, syms, user)
	place := make([]int, len(syms))
	dict := make([]*Bitmap, len(syms))
	for i, s := range order {
		place[s] = i
		dict[i] = syms[s]
	}
	for i := range inst {
		inst[i].id = place[inst[i].id]
	}
	logStrips, fs, ds, dt := 1, 6, 8, 11
	var tables [][]huffLine
	if user {
		logStrips, fs, ds, dt = 2, 0, 0, 0
		tables = [][]huffLine{userLines(-1024, 16, 7, 5, false), userLines(-64, 32, 6, 6, true), userLines(0, 8, 5, 5, false)}
	}
	text, _ := huffTextData(t, c.Width, c.Height, dict, huffStrips(dict, inst, logStrips), logStrips, fs, ds, dt, tables)
	st, gst := &stream{}, &stream{}
	if !user {
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
		ref := st.segment(typeSymbolDict, 1, nil, sd)
		st.segment(typeImmediateText, 1, []uint32{ref}, text)
		return st.Bytes(), nil
	}
	var refs []uint32
	refs = append(refs, gst.segment(typeSymbolDict, 0, nil, sd))
	for i, l := range tables {
		refs = append(refs, gst.segment(typeTables, 0, nil, userTableData(l, i == 1)))
	}
	st.next = gst.next
	st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
	st.segment(typeImmediateText, 1, refs, text)
	return st.Bytes(), gst.Bytes()
}

// userLines is a user table of n lines of rangeLen bits from low, each
// of prefix prefLen, with lower and upper lines of prefix prefLen too,
// and an out-of-band line of prefix 2 if oob.
func userLines(low int64, n, rangeLen, prefLen int, oob bool) []huffLine {
	var lines []huffLine
	for i := range n {
		lines = append(lines, huffLine{prefLen, rangeLen, low + int64(i)<<uint(rangeLen), 0})
	}
	lines = append(lines, huffLine{prefLen, 32, low - 1, lineLower}, huffLine{prefLen, 32, low + int64(n)<<uint(rangeLen), lineUpper})
	if oob {
		lines = append(lines, huffLine{2, 0, 0, lineOOB})
	}
	return lines
}

// lineValues are values of each line of a table: a range's ends, a value
// beyond the lower or upper line's start.
func lineValues(lines []huffLine) []int64 {
	var vs []int64
	for _, l := range lines {
		switch l.kind {
		case lineLower:
			vs = append(vs, l.low, l.low-77)
		case lineUpper:
			vs = append(vs, l.low, l.low+1234)
		case 0:
			vs = append(vs, l.low, l.low+1<<uint(l.rangeLen)-1)
		}
	}
	return vs
}

// zigzag orders values from both ends in turn, so that their running
// sum stays near its start.
func zigzag(vs []int64) []int64 {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	var out []int64
	for i, j := 0, len(vs)-1; i <= j; i, j = i+1, j-1 {
		out = append(out, vs[i])
		if i != j {
			out = append(out, vs[j])
		}
	}
	return out
}

// TestHuffmanTables: a text region coded with each standard table of
// text regions, its values on every line of the tables, decodes with
// jbig2dec and with this package to the bitmap its values draw; so the
// tables are checked line by line against jbig2dec's.
func TestHuffmanTables(t *testing.T) {
	base := []*Bitmap{noise(3, 2, 1), noise(1, 1, 2), noise(2, 3, 3), noise(5, 4, 4)}
	base[1].fill(1)
	base[1].clearPadding()
	sd, order := symbolDictData(base, 0)
	syms := make([]*Bitmap, len(base))
	for i, s := range order {
		syms[i] = base[s]
	}
	for _, tc := range []struct{ fs, ds, dt int }{{6, 8, 11}, {7, 9, 12}, {6, 10, 13}, {7, 8, 11}} {
		t.Run(fmt.Sprintf("B.%d B.%d B.%d", tc.fs, tc.ds, tc.dt), func(t *testing.T) {
			fsv, dsv := zigzag(lineValues(standardLines[tc.fs])), zigzag(lineValues(standardLines[tc.ds]))
			dtv := lineValues(standardLines[tc.dt])
			slices.Sort(dtv)
			n := max(len(fsv), len(dtv), (len(dsv)+3)/4)
			// The first strip starts the S values in the region's middle.
			strips := []huffTextStrip{{dt: 1, fs: 4000, ts: []int64{0}, ids: []int{0}}}
			height := int64(10)
			for i := range n {
				s := huffTextStrip{dt: dtv[i%len(dtv)], fs: fsv[i%len(fsv)]}
				height += 2 * s.dt
				for j := range 5 {
					if j > 0 {
						s.ds = append(s.ds, dsv[(4*i+j-1)%len(dsv)])
					}
					s.ts = append(s.ts, int64((i+j)%2))
					s.ids = append(s.ids, (i+j)%len(syms))
				}
				strips = append(strips, s)
			}
			w, h := 9000, int(height)
			text, want := huffTextData(t, w, h, syms, strips, 1, tc.fs, tc.ds, tc.dt, nil)
			st := &stream{}
			st.segment(typePageInfo, 1, nil, pageInfoData(uint32(w), uint32(h), 0, 0))
			ref := st.segment(typeSymbolDict, 1, nil, sd)
			st.segment(typeImmediateText, 1, []uint32{ref}, text)
			black := 0
			for _, b := range want.Data {
				black += bits.OnesCount8(b)
			}
			if black < 100 {
				t.Fatalf("%d black pixels: the instances are off the region", black)
			}
			got, err := Decode(st.Bytes(), nil, 1<<26, testBytes)
			if err != nil {
				t.Fatal(err)
			}
			if d := differ(got, want); d != "" {
				t.Errorf("decoded: %s", d)
			}
			if d := differ(pdfimages(t, st.Bytes(), nil), want); d != "" {
				t.Errorf("poppler: %s", d)
			}
		})
	}
}

// TestHuffmanRefinementTables: refined instances of a Huffman-coded text
// region, their size changes and offsets on every line of B.14 and B.15,
// decode with poppler and with this package to the bitmap they draw.
// (jbig2dec reads neither the refinement's adaptive pixels nor its coded
// bitmap where the standard puts them in a Huffman-coded text region.)
func TestHuffmanRefinementTables(t *testing.T) {
	base := []*Bitmap{noise(40, 40, 1), noise(41, 39, 2)}
	sd, order := symbolDictData(base, 0)
	syms := make([]*Bitmap, len(base))
	for i, s := range order {
		syms[i] = base[s]
	}
	for _, rt := range []int{14, 15} {
		t.Run(fmt.Sprintf("B.%d", rt), func(t *testing.T) {
			vs := lineValues(standardLines[rt])
			clip := func(v int64) int64 { return max(min(v, 60), -35) }
			var strips []huffTextStrip
			for i := range len(vs) {
				s := huffTextStrip{dt: 25, fs: int64(i % 3)}
				for j := range 3 {
					id := (i + j) % len(syms)
					if j > 0 {
						s.ds = append(s.ds, 3)
					}
					s.ts = append(s.ts, 0)
					s.ids = append(s.ids, id)
					var r *huffRefinement
					if j != 1 {
						v := vs[(i+j)%len(vs)]
						target := noise(syms[id].Width+int(clip(v)), syms[id].Height+int(clip(vs[(i+j+1)%len(vs)])), uint64(i*3+j))
						r = &huffRefinement{target, vs[(i+2*j)%len(vs)], vs[(i+j+3)%len(vs)]}
					}
					s.refined = append(s.refined, r)
				}
				strips = append(strips, s)
			}
			w, h := 400, 50*len(strips)+100
			text, want := huffRefinedTextData(t, w, h, syms, strips, 0, 6, 8, 11, rt, nil)
			st := &stream{}
			st.segment(typePageInfo, 1, nil, pageInfoData(uint32(w), uint32(h), 0, 0))
			ref := st.segment(typeSymbolDict, 1, nil, sd)
			st.segment(typeImmediateText, 1, []uint32{ref}, text)
			got, err := Decode(st.Bytes(), nil, 1<<24, testBytes)
			if err != nil {
				t.Fatal(err)
			}
			if d := differ(got, want); d != "" {
				t.Errorf("decoded: %s", d)
			}
			if d := differ(pdfimages(t, st.Bytes(), nil), want); d != "" {
				t.Errorf("poppler: %s", d)
			}
		})
	}
}
