package hostilepdf

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math"
)

// Hostile page images: streams that declare a small image, or none at all,
// and cost their decoder far more than their size, each built here in a
// few bytes so that the decoders' tests, their fuzzers' seeds and the
// extraction suites share them.

// ImagePage is a one-page document drawing one image XObject over the
// whole page: dict is the image's dictionary without /Length, data its
// stream as it is (already encoded by the filters dict names).
func ImagePage(dict string, data []byte) []byte {
	return ImagePages(1, dict, data)
}

// ImagePages is ImagePage of n pages drawing the same image.
func ImagePages(n int, dict string, data []byte) []byte {
	w := &writer{}
	img := w.stream(dict, data)
	content := w.stream("", []byte("q 612 0 0 792 0 0 cm /Im Do Q"))
	contents := make([]int, n)
	for i := range contents {
		contents[i] = content
	}
	return w.bytes(w.pages(contents, fmt.Sprintf("/XObject << /Im %d 0 R >>", img), ""))
}

// bitWriter writes bits most significant first.
type bitWriter struct {
	b []byte
	n int // bits written
}

func (w *bitWriter) bits(v uint64, n int) {
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

// tableB1 writes v with JBIG2's standard Huffman table B.1.
func (w *bitWriter) tableB1(v uint64) {
	switch {
	case v < 16:
		w.bits(0, 1)
		w.bits(v, 4)
	case v < 272:
		w.bits(0b10, 2)
		w.bits(v-16, 8)
	case v < 65808:
		w.bits(0b110, 3)
		w.bits(v-272, 16)
	default:
		w.bits(0b111, 3)
		w.bits(v-65808, 32)
	}
}

// jbig2Segment is a JBIG2 segment of page 1 in the embedded organisation
// (T.88 7.2): its header, the long form of its referred segments when
// more than four, and its data.
func jbig2Segment(n uint32, typ byte, referred []uint32, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, n)
	b = append(b, typ)
	if len(referred) <= 4 {
		b = append(b, byte(len(referred)<<5))
	} else {
		b = binary.BigEndian.AppendUint32(b, 0xE0000000|uint32(len(referred)))
		b = append(b, make([]byte, (len(referred)+8)/8)...) // retention flags
	}
	for _, r := range referred {
		switch {
		case n <= 256:
			b = append(b, byte(r))
		case n <= 65536:
			b = binary.BigEndian.AppendUint16(b, uint16(r))
		default:
			b = binary.BigEndian.AppendUint32(b, r)
		}
	}
	b = append(b, 1) // page 1
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// JBIG2SymbolChain is a JBIG2 stream of a w×h page holding a symbol
// dictionary of one 1×1 symbol and then up to n dictionaries, Huffman
// coded, that code no symbol of their own and export every symbol they
// inherit from the dictionaries they refer to: each refers to the one
// before it refs times (refs > 1: one segment repeated in the list) or,
// when refs is 0, to every dictionary before it. What each exports at
// least doubles at each step; the chain stops where the count would
// overflow its 32-bit field. A few kilobytes declare billions of symbols.
func JBIG2SymbolChain(w, h, n, refs int) []byte {
	page := binary.BigEndian.AppendUint32(nil, uint32(w))
	page = binary.BigEndian.AppendUint32(page, uint32(h))
	page = append(page, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0)
	out := jbig2Segment(0, 48, nil, page)
	// The first dictionary: flags SDHUFF, one symbol exported of one; a
	// height class of height 1 (table B.4: 0), a symbol of width 1
	// (B.2: 10), the class's end (B.2's out-of-band: 111111), its
	// collective bitmap uncompressed (B.1: 0); aligned, the bitmap's one
	// byte; then the export flags' runs 0 and 1 (B.1).
	first := binary.BigEndian.AppendUint16(nil, 1)
	first = binary.BigEndian.AppendUint32(first, 1)
	first = binary.BigEndian.AppendUint32(first, 1)
	bw := &bitWriter{}
	bw.bits(0, 1)
	bw.bits(0b10, 2)
	bw.bits(0b111111, 6)
	bw.tableB1(0)
	first = append(first, bw.b...)
	first = append(first, 0x80)
	bw = &bitWriter{}
	bw.tableB1(0)
	bw.tableB1(1)
	first = append(first, bw.b...)
	out = append(out, jbig2Segment(1, 0, nil, first)...)
	exports := []uint64{1}
	for k := 1; k <= n; k++ {
		var referred []uint32
		total := uint64(0)
		if refs == 0 {
			for j := range k {
				referred = append(referred, uint32(1+j))
				total += exports[j]
			}
		} else {
			for range refs {
				referred = append(referred, uint32(k))
				total += exports[k-1]
			}
		}
		if total > math.MaxUint32 || len(referred) > 4096 {
			break
		}
		d := binary.BigEndian.AppendUint16(nil, 1)
		d = binary.BigEndian.AppendUint32(d, uint32(total))
		d = binary.BigEndian.AppendUint32(d, 0)
		bw := &bitWriter{}
		bw.tableB1(0)
		bw.tableB1(total)
		d = append(d, bw.b...)
		out = append(out, jbig2Segment(uint32(1+k), 0, referred, d)...)
		exports = append(exports, total)
	}
	return out
}

// JBIG2ImageDict is the dictionary of a w×h JBIG2 image.
func JBIG2ImageDict(w, h int) string {
	return fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode", w, h)
}

// JPXOptions describe a JPEG 2000 codestream for JPXCodestream.
type JPXOptions struct {
	Width, Height int // the image's size
	TileW, TileH  int // its tiles' size; 0 means one tile
	Components    int // 1 if 0
	Depth         int // bits per sample, 8 if 0
	Levels        int // wavelet decomposition levels
	// BlockExp is the code-blocks' width and height exponents (2 to 6);
	// 0 means 6 (64×64).
	BlockExp int
	// PrecinctExp, when above 0, is the precincts' width and height
	// exponents at every resolution but the lowest (whose precincts are
	// 2^0); 0 means the maximal precincts.
	PrecinctExp int
}

// JPXCodestream is a JPEG 2000 codestream of the given geometry whose one
// tile-part (of the first tile) holds empty packets: under 200 bytes
// that make a decoder set up every tile-component, precinct and
// code-block, and every sample, the geometry declares.
func JPXCodestream(o JPXOptions) []byte {
	comps, depth, cbe := max(o.Components, 1), o.Depth, o.BlockExp
	if depth == 0 {
		depth = 8
	}
	if cbe == 0 {
		cbe = 6
	}
	tw, th := o.TileW, o.TileH
	if tw == 0 || th == 0 {
		tw, th = o.Width, o.Height
	}
	var b []byte
	u8 := func(v int) { b = append(b, byte(v)) }
	u16 := func(v int) { b = binary.BigEndian.AppendUint16(b, uint16(v)) }
	u32 := func(v int) { b = binary.BigEndian.AppendUint32(b, uint32(v)) }
	u16(0xFF4F) // SOC
	u16(0xFF51) // SIZ
	u16(38 + 3*comps)
	u16(0)
	u32(o.Width)
	u32(o.Height)
	u32(0)
	u32(0)
	u32(tw)
	u32(th)
	u32(0)
	u32(0)
	u16(comps)
	for range comps {
		u8(depth - 1)
		u8(1)
		u8(1)
	}
	u16(0xFF52) // COD
	scod := 0
	if o.PrecinctExp > 0 {
		scod = 1
		u16(12 + o.Levels + 1)
	} else {
		u16(12)
	}
	u8(scod)
	u8(0)  // LRCP
	u16(1) // one layer
	u8(0)  // no component transform
	u8(o.Levels)
	u8(cbe - 2)
	u8(cbe - 2)
	u8(0) // code-block style
	u8(1) // 5/3 wavelet
	if o.PrecinctExp > 0 {
		u8(0)
		for range o.Levels {
			u8(o.PrecinctExp<<4 | o.PrecinctExp)
		}
	}
	u16(0xFF5C) // QCD: no quantisation, 2 guard bits
	bands := 3*o.Levels + 1
	u16(3 + bands)
	u8(0x40)
	for range bands {
		u8(depth << 3)
	}
	u16(0xFF90) // SOT: tile 0, to the end
	u16(10)
	u16(0)
	u32(0)
	u8(0)
	u8(1)
	u16(0xFF93) // SOD
	// Empty packets, as many as the data holds: the tile-part runs to
	// the end (no EOC), which a decoder takes as a cut codestream.
	return append(b, make([]byte, 64)...)
}

// JPXImageDict is the dictionary of a w×h JPX image.
func JPXImageDict(w, h int) string {
	return fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /Filter /JPXDecode", w, h)
}

// FaxWhite is CCITT Group 4 data of rows all-white rows: one vertical
// mode code (a single bit) a row, whatever the width.
func FaxWhite(rows int) []byte {
	return bytes.Repeat([]byte{0xFF}, (rows+7)/8)
}

// FaxImageDict is the dictionary of a w×h Group 4 image.
func FaxImageDict(w, h int) string {
	return fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns %d /Rows %d >>", w, h, w, h)
}

// FlateZeros is n zero bytes, Flate-compressed (about a thousandth of n).
func FlateZeros(n int64) []byte {
	var b bytes.Buffer
	z, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	zero := make([]byte, 1<<16)
	for ; n > 0; n -= int64(len(zero)) {
		z.Write(zero[:min(n, int64(len(zero)))]) // into memory: no error
	}
	z.Close()
	return b.Bytes()
}

// JPEGFrame is the start of a baseline JPEG whose frame header declares
// w×h pixels of comps components: what an OCR engine allocates by, what
// the dictionary says notwithstanding.
func JPEGFrame(w, h, comps int) []byte {
	b := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}
	b = append(b, 0xFF, 0xC0)
	b = binary.BigEndian.AppendUint16(b, uint16(8+3*comps))
	b = append(b, 8)
	b = binary.BigEndian.AppendUint16(b, uint16(h))
	b = binary.BigEndian.AppendUint16(b, uint16(w))
	b = append(b, byte(comps))
	for i := range comps {
		b = append(b, byte(i+1), 0x11, 0)
	}
	return append(b, 0xFF, 0xD9)
}
