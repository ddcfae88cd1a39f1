package jbig2

import "fmt"

// huffLine is a line of a Huffman table (T.88 B.2): values from low on,
// rangeLen bits after a prefix of prefLen bits; the lower range line
// counts down from low, the upper one up, and the out-of-band line has
// no value.
type huffLine struct {
	prefLen, rangeLen int
	low               int64
	kind              byte // 0, lineLower, lineUpper or lineOOB
}

const (
	lineLower = 'L'
	lineUpper = 'U'
	lineOOB   = 'O'
)

// huffTable is a table's canonical prefix codes (B.3): the lines of each
// prefix length, the first code of each length.
type huffTable struct {
	lines  [][]huffLine // by prefix length
	first  []int
	maxLen int
}

// maxHuffLines bounds the lines of a table.
const maxHuffLines = 1 << 12

// newHuffTable assigns codes to the lines, in order within a length.
func newHuffTable(lines []huffLine) (*huffTable, error) {
	t := &huffTable{}
	for _, l := range lines {
		if l.prefLen < 0 || l.prefLen > 32 || l.rangeLen < 0 || l.rangeLen > 32 {
			return nil, fmt.Errorf("%w: a Huffman line of prefix %d, range %d", ErrMalformed, l.prefLen, l.rangeLen)
		}
		t.maxLen = max(t.maxLen, l.prefLen)
	}
	t.lines = make([][]huffLine, t.maxLen+1)
	t.first = make([]int, t.maxLen+1)
	for _, l := range lines {
		if l.prefLen > 0 {
			t.lines[l.prefLen] = append(t.lines[l.prefLen], l)
		}
	}
	code := 0
	for n := 1; n <= t.maxLen; n++ {
		code = (code + len(t.lines[n-1])) << 1
		if n == 1 {
			code = 0
		}
		t.first[n] = code
		if code+len(t.lines[n]) > 1<<n {
			return nil, fmt.Errorf("%w: Huffman codes over-subscribed", ErrMalformed)
		}
	}
	return t, nil
}

// bitReader reads a segment's data bit by bit, most significant first,
// for Huffman coding and uncompressed bitmaps.
type bitReader struct {
	b   []byte
	off int // in bits
}

func (r *bitReader) bits(n int) (int64, error) {
	if n < 0 || r.off+n > len(r.b)*8 {
		return 0, fmt.Errorf("%w: Huffman data cut short", ErrMalformed)
	}
	var v int64
	for range n {
		v = v<<1 | int64(r.b[r.off>>3]>>(7-uint(r.off&7))&1)
		r.off++
	}
	return v, nil
}

// align skips to the next byte.
func (r *bitReader) align() { r.off = (r.off + 7) &^ 7 }

// byteOffset is the data's next whole byte.
func (r *bitReader) byteOffset() int { return (r.off + 7) / 8 }

// decode decodes a value with t; ok is false for out-of-band.
func (r *bitReader) decode(t *huffTable) (v int64, ok bool, err error) {
	code := 0
	for n := 1; n <= t.maxLen; n++ {
		b, err := r.bits(1)
		if err != nil {
			return 0, false, err
		}
		code = code<<1 | int(b)
		if i := code - t.first[n]; i >= 0 && i < len(t.lines[n]) {
			l := t.lines[n][i]
			if l.kind == lineOOB {
				return 0, false, nil
			}
			off, err := r.bits(l.rangeLen)
			if err != nil {
				return 0, false, err
			}
			if l.kind == lineLower {
				return l.low - off, true, nil
			}
			return l.low + off, true, nil
		}
	}
	return 0, false, fmt.Errorf("%w: a Huffman code of no table line", ErrMalformed)
}

// standardLines are the standard tables B.1–B.15 (T.88 Annex B.5), as
// prefix length, range length and first value; a table's lower and upper
// range lines, then its out-of-band line, come last.
var standardLines = [16][]huffLine{
	1: {{1, 4, 0, 0}, {2, 8, 16, 0}, {3, 16, 272, 0}, {3, 32, 65808, lineUpper}},
	2: {{1, 0, 0, 0}, {2, 0, 1, 0}, {3, 0, 2, 0}, {4, 3, 3, 0}, {5, 6, 11, 0}, {6, 32, 75, lineUpper}, {6, 0, 0, lineOOB}},
	3: {{8, 8, -256, 0}, {1, 0, 0, 0}, {2, 0, 1, 0}, {3, 0, 2, 0}, {4, 3, 3, 0}, {5, 6, 11, 0},
		{8, 32, -257, lineLower}, {7, 32, 75, lineUpper}, {6, 0, 0, lineOOB}},
	4: {{1, 0, 1, 0}, {2, 0, 2, 0}, {3, 0, 3, 0}, {4, 3, 4, 0}, {5, 6, 12, 0}, {5, 32, 76, lineUpper}},
	5: {{7, 8, -255, 0}, {1, 0, 1, 0}, {2, 0, 2, 0}, {3, 0, 3, 0}, {4, 3, 4, 0}, {5, 6, 12, 0},
		{7, 32, -256, lineLower}, {6, 32, 76, lineUpper}},
	6: {{5, 10, -2048, 0}, {4, 9, -1024, 0}, {4, 8, -512, 0}, {4, 7, -256, 0}, {5, 6, -128, 0}, {5, 5, -64, 0},
		{4, 5, -32, 0}, {2, 7, 0, 0}, {3, 7, 128, 0}, {3, 8, 256, 0}, {4, 9, 512, 0}, {4, 10, 1024, 0},
		{6, 32, -2049, lineLower}, {6, 32, 2048, lineUpper}},
	7: {{4, 9, -1024, 0}, {3, 8, -512, 0}, {4, 7, -256, 0}, {5, 6, -128, 0}, {5, 5, -64, 0}, {4, 5, -32, 0},
		{4, 5, 0, 0}, {5, 5, 32, 0}, {5, 6, 64, 0}, {4, 7, 128, 0}, {3, 8, 256, 0}, {3, 9, 512, 0}, {3, 10, 1024, 0},
		{5, 32, -1025, lineLower}, {5, 32, 2048, lineUpper}},
	8: {{8, 3, -15, 0}, {9, 1, -7, 0}, {8, 1, -5, 0}, {9, 0, -3, 0}, {7, 0, -2, 0}, {4, 0, -1, 0}, {2, 1, 0, 0},
		{5, 0, 2, 0}, {6, 0, 3, 0}, {3, 4, 4, 0}, {6, 1, 20, 0}, {4, 4, 22, 0}, {4, 5, 38, 0}, {5, 6, 70, 0},
		{5, 7, 134, 0}, {6, 7, 262, 0}, {7, 8, 390, 0}, {6, 10, 646, 0},
		{9, 32, -16, lineLower}, {9, 32, 1670, lineUpper}, {2, 0, 0, lineOOB}},
	9: {{8, 4, -31, 0}, {9, 2, -15, 0}, {8, 2, -11, 0}, {9, 1, -7, 0}, {7, 1, -5, 0}, {4, 1, -3, 0}, {3, 1, -1, 0},
		{3, 1, 1, 0}, {5, 1, 3, 0}, {6, 1, 5, 0}, {3, 5, 7, 0}, {6, 2, 39, 0}, {4, 5, 43, 0}, {4, 6, 75, 0},
		{5, 7, 139, 0}, {5, 8, 267, 0}, {6, 8, 523, 0}, {7, 9, 779, 0}, {6, 11, 1291, 0},
		{9, 32, -32, lineLower}, {9, 32, 3339, lineUpper}, {2, 0, 0, lineOOB}},
	10: {{7, 4, -21, 0}, {8, 0, -5, 0}, {7, 0, -4, 0}, {5, 0, -3, 0}, {2, 2, -2, 0}, {5, 0, 2, 0}, {6, 0, 3, 0},
		{7, 0, 4, 0}, {8, 0, 5, 0}, {2, 6, 6, 0}, {5, 5, 70, 0}, {6, 5, 102, 0}, {6, 6, 134, 0}, {6, 7, 198, 0},
		{6, 8, 326, 0}, {6, 9, 582, 0}, {6, 10, 1094, 0}, {7, 11, 2118, 0},
		{8, 32, -22, lineLower}, {8, 32, 4166, lineUpper}, {2, 0, 0, lineOOB}},
	11: {{1, 0, 1, 0}, {2, 1, 2, 0}, {4, 0, 4, 0}, {4, 1, 5, 0}, {5, 1, 7, 0}, {5, 2, 9, 0}, {6, 2, 13, 0},
		{7, 2, 17, 0}, {7, 3, 21, 0}, {7, 4, 29, 0}, {7, 5, 45, 0}, {7, 6, 77, 0}, {7, 32, 141, lineUpper}},
	12: {{1, 0, 1, 0}, {2, 0, 2, 0}, {3, 1, 3, 0}, {5, 0, 5, 0}, {5, 1, 6, 0}, {6, 1, 8, 0}, {7, 0, 10, 0},
		{7, 1, 11, 0}, {7, 2, 13, 0}, {7, 3, 17, 0}, {7, 4, 25, 0}, {8, 5, 41, 0}, {8, 32, 73, lineUpper}},
	13: {{1, 0, 1, 0}, {3, 0, 2, 0}, {4, 0, 3, 0}, {5, 0, 4, 0}, {4, 1, 5, 0}, {3, 3, 7, 0}, {6, 1, 15, 0},
		{6, 2, 17, 0}, {6, 3, 21, 0}, {6, 4, 29, 0}, {6, 5, 45, 0}, {7, 6, 77, 0}, {7, 32, 141, lineUpper}},
	14: {{3, 0, -2, 0}, {3, 0, -1, 0}, {1, 0, 0, 0}, {3, 0, 1, 0}, {3, 0, 2, 0}},
	15: {{7, 4, -24, 0}, {6, 2, -8, 0}, {5, 1, -4, 0}, {4, 0, -2, 0}, {3, 0, -1, 0}, {1, 0, 0, 0}, {3, 0, 1, 0},
		{4, 0, 2, 0}, {5, 1, 3, 0}, {6, 2, 5, 0}, {7, 4, 9, 0}, {7, 32, -25, lineLower}, {7, 32, 25, lineUpper}},
}

// standardTables are the standard tables' codes.
var standardTables = func() [16]*huffTable {
	var ts [16]*huffTable
	for i := 1; i < len(ts); i++ {
		t, err := newHuffTable(standardLines[i])
		if err != nil {
			panic(fmt.Sprintf("table B.%d: %v", i, err))
		}
		ts[i] = t
	}
	return ts
}()

// userTable reads a tables segment (7.4.13): a table's lines coded in
// its data.
func userTable(data []byte) (*huffTable, error) {
	r := &reader{b: data}
	flags := r.u8()
	low, high := int64(int32(r.u32())), int64(int32(r.u32()))
	if r.err != nil {
		return nil, r.err
	}
	oob := flags&1 != 0
	ps, rs := int(flags>>1&7)+1, int(flags>>4&7)+1
	if low >= high {
		return nil, fmt.Errorf("%w: a Huffman table from %d to %d", ErrMalformed, low, high)
	}
	br := &bitReader{b: data[r.off:]}
	var lines []huffLine
	for cur := low; cur < high; {
		if len(lines) == maxHuffLines {
			return nil, fmt.Errorf("%w: a Huffman table of more than %d lines", ErrLimit, maxHuffLines)
		}
		p, err := br.bits(ps)
		if err != nil {
			return nil, err
		}
		n, err := br.bits(rs)
		if err != nil {
			return nil, err
		}
		if n > 32 {
			return nil, fmt.Errorf("%w: a Huffman range of %d bits", ErrMalformed, n)
		}
		lines = append(lines, huffLine{int(p), int(n), cur, 0})
		cur += int64(1) << n
	}
	lowPref, err := br.bits(ps)
	if err != nil {
		return nil, err
	}
	highPref, err := br.bits(ps)
	if err != nil {
		return nil, err
	}
	lines = append(lines, huffLine{int(lowPref), 32, low - 1, lineLower}, huffLine{int(highPref), 32, high, lineUpper})
	if oob {
		p, err := br.bits(ps)
		if err != nil {
			return nil, err
		}
		lines = append(lines, huffLine{int(p), 0, 0, lineOOB})
	}
	return newHuffTable(lines)
}
