package hostilepdf

import "encoding/binary"

// deflateRun returns the zlib stream of n bytes c, written directly
// rather than found by a compressor: one literal c, then matches of 258
// bytes at distance 1, then what is left as literals, in one dynamic
// Huffman block whose codes give a match two bits. That is the ratio a
// compressor at its best reaches on a run (about 1:1030), at the cost of
// writing it: compressing a GiB of zeros takes a compressor tens of
// seconds of CPU.
func deflateRun(c byte, n int64) []byte {
	var w lsbWriter
	w.b = []byte{0x78, 0xDA} // deflate, 32 KiB window, best compression
	w.bits(1, 1)             // BFINAL
	w.bits(2, 2)             // BTYPE: dynamic Huffman codes

	// The literal/length alphabet uses c, end of block (256) and length
	// 258 (285); the distance alphabet distance 1 (0) and, to keep the
	// code complete as inflaters require, 2 (1).
	lens := make([]uint8, 286+2)
	lens[c], lens[256], lens[285] = 2, 2, 1
	lens[286], lens[287] = 1, 1
	litCodes := canonicalCodes(lens[:286])
	distCodes := canonicalCodes(lens[286:])

	// The code lengths, zeros run-length coded (16 is never used).
	type clSym struct {
		sym   int
		extra uint64
		nbits int
	}
	var syms []clSym
	for i := 0; i < len(lens); {
		if lens[i] != 0 {
			syms = append(syms, clSym{int(lens[i]), 0, 0})
			i++
			continue
		}
		j := i
		for j < len(lens) && lens[j] == 0 && j-i < 138 {
			j++
		}
		switch run := j - i; {
		case run >= 11:
			syms = append(syms, clSym{18, uint64(run - 11), 7})
		case run >= 3:
			syms = append(syms, clSym{17, uint64(run - 3), 3})
		default:
			j = i + 1
			syms = append(syms, clSym{0, 0, 0})
		}
		i = j
	}
	// A complete code over the five code-length symbols used.
	clLens := make([]uint8, 19)
	clLens[0], clLens[2], clLens[18], clLens[1], clLens[17] = 2, 2, 2, 3, 3
	clCodes := canonicalCodes(clLens)
	order := [...]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
	const nCL = 18 // up to symbol 1 in order; 15 is unused

	w.bits(286-257, 5) // HLIT
	w.bits(2-1, 5)     // HDIST
	w.bits(nCL-4, 4)   // HCLEN
	for _, s := range order[:nCL] {
		w.bits(uint64(clLens[s]), 3)
	}
	for _, s := range syms {
		w.bits(uint64(clCodes[s.sym]), int(clLens[s.sym]))
		w.bits(s.extra, s.nbits)
	}

	if n > 0 {
		w.bits(uint64(litCodes[c]), int(lens[c]))
		match := uint64(litCodes[285]) | uint64(distCodes[0])<<lens[285]
		for range (n - 1) / 258 {
			w.bits(match, int(lens[285]+lens[286]))
		}
		for range (n - 1) % 258 {
			w.bits(uint64(litCodes[c]), int(lens[c]))
		}
	}
	w.bits(uint64(litCodes[256]), int(lens[256]))
	w.flush()
	return binary.BigEndian.AppendUint32(w.b, adler32Run(c, n))
}

// adler32Run is the Adler-32 checksum of n bytes c, by its closed form:
// the sum A after k bytes is 1+k·c, and B the sum of those.
func adler32Run(c byte, n int64) uint32 {
	const mod = 65521
	k := uint64(n)
	a := (1 + k%mod*uint64(c)) % mod
	tri := k / 2 * (k + 1) // k(k+1)/2, without overflow for k < 2^32
	if k%2 == 1 {
		tri = (k + 1) / 2 * k
	}
	b := (k%mod + tri%mod*uint64(c)) % mod
	return uint32(b<<16 | a)
}

// canonicalCodes returns the canonical Huffman codes (RFC 1951 3.2.2) of
// the given code lengths, bit-reversed for an lsbWriter.
func canonicalCodes(lens []uint8) []uint16 {
	var count [16]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [16]int
	code := 0
	for bits := 1; bits < 16; bits++ {
		code = (code + count[bits-1]) << 1
		next[bits] = code
	}
	codes := make([]uint16, len(lens))
	for i, l := range lens {
		if l == 0 {
			continue
		}
		v := next[l]
		next[l]++
		var r uint16
		for range l {
			r = r<<1 | uint16(v&1)
			v >>= 1
		}
		codes[i] = r
	}
	return codes
}

// lsbWriter writes bits least significant first, as Deflate packs them.
type lsbWriter struct {
	b   []byte
	acc uint64
	n   int // bits in acc
}

func (w *lsbWriter) bits(v uint64, n int) {
	w.acc |= v << w.n
	w.n += n
	for w.n >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// flush writes the bits left, padded to a byte.
func (w *lsbWriter) flush() {
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc))
	}
	w.acc, w.n = 0, 0
}
