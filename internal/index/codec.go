package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// The on-disk form is laid out so that Read can use it in place:
//
//	magic, version                        8 bytes, uint32
//	docs, terms, postings, positions,
//	  key bytes, term bytes, blocks       7 × uint32
//	keyEnd, titleLen, bodyLen, bodyStart  docs × uint32 each
//	termOff, postStart                    (terms+1) × uint32 each
//	blockTerm                             (blocks+1) × uint32
//	blockSum                              blocks × uint32
//	postDoc                               postings × uint32
//	posStart                              (postings+1) × uint32
//	pos                                   positions × uint32
//	keys, terms                           the strings, concatenated
//	CRC-32C of the head                   uint32
//
// Every integer is little-endian and every array starts at a multiple of
// four bytes, so on a little-endian machine the arrays of the Index are
// views of the file's bytes rather than decoded copies. The price is
// space: about 2.3 times a varint encoding of the same index.
//
// The head is everything but the postings and positions (postDoc,
// posStart, pos): the documents, the dictionary and the block table. Its
// checksum covers it alone. The postings and positions, most of the
// file, are cut into blocks of consecutive terms (blockTerm[b] is the
// first term of block b); blockSum[b] is the CRC-32C of the block's
// ranges of postDoc, posStart (with the one element after) and pos. So a
// search that reads a few terms' postings checks (LoadLazy) only the
// blocks holding them, and a damaged block is found when it is read,
// never used.
const magic = "RCTXIDX\x00"

// Version is the on-disk format version. It changes whenever the encoding
// or the tokenisation changes, so that an index written by another version
// is rebuilt rather than misread.
const Version = 3

const headerLen = len(magic) + 4 + 7*4

// blockBytes is the size of postings and positions a block aims at: a
// query's few terms check a few pages each.
const blockBytes = 16 << 10

var (
	// ErrCorrupt is returned by Read for data that fails its checksum or
	// does not decode to a consistent index.
	ErrCorrupt = errors.New("index: corrupt index data")
	// ErrVersion is returned by Read for an index written in another
	// format version; the caller should rebuild it.
	ErrVersion = errors.New("index: unsupported index version")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodedLen returns the size of the binary form for the given counts, or
// -1 if it does not fit in an int.
func encodedLen(docs, terms, postings, positions, keyBytes, termBytes, blocks uint64) int {
	n := uint64(headerLen) + 4*(4*docs+2*(terms+1)+2*blocks+1+2*postings+1+positions) + keyBytes + termBytes + 4
	if n > math.MaxInt {
		return -1
	}
	return int(n)
}

// blocks cuts the terms into blocks of about blockBytes of postings and
// positions: the first term of each, then the number of terms.
func (ix *Index) blocks() []uint32 {
	nt := len(ix.termOff) - 1
	bt := []uint32{0}
	size := 0
	for t := range nt {
		lo, hi := ix.postStart[t], ix.postStart[t+1]
		size += 8*int(hi-lo) + 4*int(ix.posStart[hi]-ix.posStart[lo])
		if size >= blockBytes && t+1 < nt {
			bt = append(bt, uint32(t+1))
			size = 0
		}
	}
	if nt == 0 {
		return bt
	}
	return append(bt, uint32(nt))
}

// blockRanges returns block b's ranges of postDoc, posStart and pos, as
// element offsets: postDoc[plo:phi], posStart[plo:phi+1], pos[qlo:qhi].
// ok is false when posStart's ends for the block are out of order or out
// of range, which a valid file never has.
func (ix *Index) blockRanges(b int) (plo, phi, qlo, qhi uint32, ok bool) {
	plo, phi = ix.postStart[ix.blockTerm[b]], ix.postStart[ix.blockTerm[b+1]]
	qlo, qhi = ix.posStart[plo], ix.posStart[phi]
	return plo, phi, qlo, qhi, qlo <= qhi && uint64(qhi) <= uint64(len(ix.pos))
}

// blockSumOf returns the checksum of block b's postings and positions.
func (ix *Index) blockSumOf(b int) (uint32, bool) {
	plo, phi, qlo, qhi, ok := ix.blockRanges(b)
	if !ok {
		return 0, false
	}
	c := crc32.Update(0, castagnoli, u32bytes(ix.postDoc[plo:phi]))
	c = crc32.Update(c, castagnoli, u32bytes(ix.posStart[plo:phi+1]))
	return crc32.Update(c, castagnoli, u32bytes(ix.pos[qlo:qhi])), true
}

// u32bytes returns a as its little-endian bytes: a view on a
// little-endian machine, a copy otherwise.
func u32bytes(a []uint32) []byte {
	if len(a) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 4*len(a))
	}
	return appendUint32s(make([]byte, 0, 4*len(a)), a)
}

// WriteTo writes the index in its binary form. It streams: what it holds
// besides the index is a buffer of writeChunk bytes and the blocks'
// checksums, not the encoding, so that writing a large segment does not
// hold it twice in memory.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	keyBytes := len(ix.keyData)
	nt := len(ix.termOff) - 1
	bt := ix.blocks()
	nb := len(bt) - 1
	counts := [...]int{ix.Len(), nt, len(ix.postDoc), len(ix.pos), keyBytes, len(ix.terms), nb}
	for _, c := range counts {
		if uint64(c) > math.MaxUint32 {
			return 0, fmt.Errorf("%w: too large to encode", ErrTooLarge)
		}
	}
	sums := make([]uint32, nb)
	tmp := &Index{postStart: ix.postStart, postDoc: ix.postDoc, posStart: ix.posStart, pos: ix.pos, blockTerm: bt}
	for b := range sums {
		sums[b], _ = tmp.blockSumOf(b)
	}
	cw := &sumWriter{w: w, buf: make([]byte, 0, writeChunk), sum: true}
	cw.write([]byte(magic))
	var word [4]byte
	binary.LittleEndian.PutUint32(word[:], Version)
	cw.write(word[:])
	for _, c := range counts {
		binary.LittleEndian.PutUint32(word[:], uint32(c))
		cw.write(word[:])
	}
	for _, a := range [][]uint32{ix.keyEnd, ix.titleLen, ix.bodyLen, ix.bodyStart, ix.termOff, ix.postStart, bt, sums} {
		cw.uint32s(a)
	}
	// Postings and positions are checked by the blocks' sums, not the
	// file's.
	cw.sum = false
	for _, a := range [][]uint32{ix.postDoc, ix.posStart, ix.pos} {
		cw.uint32s(a)
	}
	cw.sum = true
	cw.write(unsafe.Slice(unsafe.StringData(ix.keyData), len(ix.keyData)))
	cw.write(unsafe.Slice(unsafe.StringData(ix.terms), len(ix.terms)))
	cw.sum = false
	binary.LittleEndian.PutUint32(word[:], cw.crc)
	cw.write(word[:])
	cw.flush()
	return cw.n, cw.err
}

// writeChunk is the size of WriteTo's buffer.
const writeChunk = 64 << 10

// sumWriter buffers WriteTo's output and keeps the CRC-32C of the bytes
// written while sum is set.
type sumWriter struct {
	w   io.Writer
	buf []byte
	crc uint32
	sum bool
	n   int64
	err error
}

func (c *sumWriter) write(p []byte) {
	if c.sum {
		c.crc = crc32.Update(c.crc, castagnoli, p)
	}
	for len(p) > 0 && c.err == nil {
		k := min(len(p), cap(c.buf)-len(c.buf))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) == cap(c.buf) {
			c.flush()
		}
	}
}

func (c *sumWriter) uint32s(a []uint32) {
	if littleEndian {
		c.write(u32bytes(a))
		return
	}
	for len(a) > 0 && c.err == nil {
		k := min(len(a), writeChunk/4)
		c.write(appendUint32s(nil, a[:k]))
		a = a[k:]
	}
}

func (c *sumWriter) flush() {
	if c.err != nil || len(c.buf) == 0 {
		return
	}
	n, err := c.w.Write(c.buf)
	c.n += int64(n)
	if err == nil && n < len(c.buf) {
		err = io.ErrShortWrite
	}
	c.err = err
	c.buf = c.buf[:0]
}

func appendUint32s(b []byte, a []uint32) []byte {
	for _, v := range a {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// Read decodes an index written by WriteTo. Data that is damaged in any
// way gives ErrCorrupt, never a partial or inconsistent index.
//
// The index keeps the bytes read from r: its arrays and strings are views
// of that one buffer, which is never written to after the checksum is
// verified.
func Read(r io.Reader) (*Index, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("index: read: %w", err)
	}
	return Load(data)
}

// Load is Read over bytes in hand, used in place: the index's arrays and
// strings are views of data (a read-only memory map, say), which must not
// change afterwards. Every block is checked before it returns.
func Load(data []byte) (*Index, error) {
	ix, err := LoadLazy(data)
	if err != nil {
		return nil, err
	}
	if err := ix.Verify(); err != nil {
		return nil, err
	}
	return ix, nil
}

// LoadLazy is Load that checks only the head (documents and dictionary)
// before it returns: each block of postings and positions is checked the
// first time a search reads it, so opening an index costs what its
// dictionary costs, not what its postings do. A search skips a damaged
// block's terms; Check reports the damage, so that a caller can refuse
// the answer and rebuild.
func LoadLazy(data []byte) (*Index, error) {
	if len(data) < len(magic)+8 || !bytes.Equal(data[:len(magic)], []byte(magic)) {
		return nil, fmt.Errorf("%w: not an index file", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(data[len(magic):]); v != Version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrVersion, v, Version)
	}
	ix, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return ix, nil
}

// Block states, in Index.checked.
const (
	blockUnchecked = iota
	blockGood
	blockBad
)

// Verify checks every block of postings and positions not yet checked.
func (ix *Index) Verify() error {
	for b := range ix.checked {
		if err := ix.checkBlock(b); err != nil {
			return err
		}
	}
	return nil
}

// checkTerm checks the block holding term t's postings.
func (ix *Index) checkTerm(t uint32) error {
	if ix.checked == nil {
		return nil // built in memory
	}
	b, _ := slices.BinarySearch(ix.blockTerm, t+1)
	return ix.checkBlock(b - 1)
}

// checkBlock checks block b once: its checksum, then that it is what
// WriteTo writes (documents in range and ascending within a term, every
// posting with positions, positions ascending within a posting).
func (ix *Index) checkBlock(b int) error {
	switch ix.checked[b].Load() {
	case blockGood:
		return nil
	case blockBad:
		return fmt.Errorf("%w: block %d", ErrCorrupt, b)
	}
	ok := ix.validBlock(b)
	state := uint32(blockGood)
	if !ok {
		state = blockBad
	}
	ix.checked[b].Store(state)
	if !ok {
		return fmt.Errorf("%w: block %d", ErrCorrupt, b)
	}
	return nil
}

func (ix *Index) validBlock(b int) bool {
	sum, ok := ix.blockSumOf(b)
	if !ok || sum != ix.blockSum[b] || !ix.validTerms(b) {
		return false
	}
	nd := uint32(ix.Len())
	for t := ix.blockTerm[b]; t < ix.blockTerm[b+1]; t++ {
		lo, hi := ix.postStart[t], ix.postStart[t+1]
		for j := lo; j < hi; j++ {
			d := ix.postDoc[j]
			if d >= nd || j > lo && d <= ix.postDoc[j-1] {
				return false
			}
			s, e := ix.posStart[j], ix.posStart[j+1]
			if e <= s || uint64(e) > uint64(len(ix.pos)) {
				return false
			}
			if descents(ix.pos[s:e]) != 0 {
				return false
			}
		}
	}
	return true
}

// validTerms reports whether the terms of block b are what WriteTo
// writes: valid UTF-8, each starting a character, ascending, and all
// before the next block's first term (checked by decode), so that the
// blocks' terms, each block checked, ascend as one list.
func (ix *Index) validTerms(b int) bool {
	lo, hi := ix.blockTerm[b], ix.blockTerm[b+1]
	if !utf8.ValidString(ix.terms[ix.termOff[lo]:ix.termOff[hi]]) {
		return false
	}
	prev := ""
	for t := lo; t < hi; t++ {
		term := ix.term(t)
		if !utf8.RuneStart(term[0]) || t > lo && strings.Compare(prev, term) >= 0 {
			return false
		}
		prev = term
	}
	return b+1 == len(ix.blockSum) || strings.Compare(prev, ix.term(hi)) < 0
}

// readAll is io.ReadAll with fewer copies: a reader that holds its data
// in memory (bytes.Reader, strings.Reader, bytes.Buffer) hands it over in
// one Write, taken by a single append; a file's buffer is sized from its
// length.
func readAll(r io.Reader) ([]byte, error) {
	if wt, ok := r.(io.WriterTo); ok {
		if _, ok := r.(interface{ Len() int }); ok {
			var w appender
			_, err := wt.WriteTo(&w)
			return w, err
		}
	}
	size := 512
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<30 {
			size = max(size, int(fi.Size())+1)
		}
	}
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// appender is an io.Writer that appends to itself.
type appender []byte

func (w *appender) Write(p []byte) (int, error) {
	*w = append(*w, p...)
	return len(p), nil
}

// decode checks and takes apart data's head (see LoadLazy): its
// checksum, and that it is what WriteTo could have written: the counts
// match the length, offsets ascend and stay in range, terms are non-empty,
// valid UTF-8 and ascend (so none is repeated), every term has postings,
// the blocks cover the terms. All checks are linear passes over the head,
// and nothing is allocated before the counts are known to match the
// length.
func decode(data []byte) (*Index, error) {
	if len(data) < headerLen+4 {
		return nil, errors.New("short header")
	}
	var c [7]uint64
	for i := range c {
		c[i] = uint64(binary.LittleEndian.Uint32(data[len(magic)+4+4*i:]))
	}
	nd, nt, np, npos, keyBytes, termBytes, nb := c[0], c[1], c[2], c[3], c[4], c[5], c[6]
	if encodedLen(nd, nt, np, npos, keyBytes, termBytes, nb) != len(data) {
		return nil, errors.New("counts disagree with length")
	}
	headEnd := headerLen + 4*int(4*nd+2*(nt+1)+2*nb+1)
	tail := len(data) - 4 - int(keyBytes+termBytes)
	sum := crc32.Update(0, castagnoli, data[:headEnd])
	sum = crc32.Update(sum, castagnoli, data[tail:len(data)-4])
	if sum != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errors.New("checksum mismatch")
	}
	rest := data[headerLen : len(data)-4]
	arr := func(n uint64) []uint32 {
		a := uint32s(rest[:4*n])
		rest = rest[4*n:]
		return a
	}
	keyEnd := arr(nd)
	ix := &Index{
		p:         defaults,
		titleLen:  arr(nd),
		bodyLen:   arr(nd),
		bodyStart: arr(nd),
		termOff:   arr(nt + 1),
		postStart: arr(nt + 1),
		blockTerm: arr(nb + 1),
		blockSum:  arr(nb),
		postDoc:   arr(np),
		posStart:  arr(np + 1),
		pos:       arr(npos),
	}
	keys, terms := bytesString(rest[:keyBytes]), bytesString(rest[keyBytes:])

	if !nonDescending(keyEnd) || nd > 0 && uint64(keyEnd[nd-1]) != keyBytes || nd == 0 && keyBytes != 0 {
		return nil, errors.New("bad key offsets")
	}
	ix.keyData, ix.keyEnd = keys, keyEnd

	// Strictly ascending offsets: no term is empty. The terms together
	// being valid UTF-8 and each starting a character makes each valid.
	if ix.termOff[0] != 0 || uint64(ix.termOff[nt]) != termBytes || descents(ix.termOff) != 0 {
		return nil, errors.New("bad term offsets")
	}
	ix.terms = terms
	// Strictly ascending: every term has postings. Each block's own
	// ranges are checked when it is (checkBlock), posStart's included.
	if ix.postStart[0] != 0 || uint64(ix.postStart[nt]) != np || descents(ix.postStart) != 0 {
		return nil, errors.New("bad posting offsets")
	}
	if ix.blockTerm[0] != 0 || uint64(ix.blockTerm[nb]) != nt || descents(ix.blockTerm) != 0 || nt > 0 && nb == 0 {
		return nil, errors.New("bad blocks")
	}
	// The first term of each block, which lookup searches first, is
	// checked now; the other terms of a block with its postings
	// (validTerms), when a lookup first reaches it: a new process's
	// first search reads a few blocks of dictionaries of some 100,000
	// terms each.
	for b := range int(nb) {
		term := ix.term(ix.blockTerm[b])
		if !utf8.ValidString(term) || !utf8.RuneStart(term[0]) || b > 0 && strings.Compare(ix.term(ix.blockTerm[b-1]), term) >= 0 {
			return nil, fmt.Errorf("bad or misordered term %q", term)
		}
	}
	if ix.posStart[0] != 0 || uint64(ix.posStart[np]) != npos {
		return nil, errors.New("bad position offsets")
	}
	ix.checked = make([]atomic.Uint32, nb)
	ix.finish()
	return ix, nil
}

// nonDescending reports whether a never descends.
func nonDescending(a []uint32) bool {
	for i := 1; i < len(a); i++ {
		if a[i] < a[i-1] {
			return false
		}
	}
	return true
}

// descents returns the number of elements of a not above the one before.
func descents(a []uint32) int {
	if len(a) == 0 {
		return 0
	}
	n, prev := 0, int64(a[0])
	for _, x := range a[1:] {
		n += notAbove(int64(x), prev)
		prev = int64(x)
	}
	return n
}

// notAbove returns 1 if x ≤ prev, else 0, without a branch: descents in
// a valid file come at irregular intervals, and a mispredicted branch
// costs more than the arithmetic.
func notAbove(x, prev int64) int {
	return int(uint64(x-prev-1) >> 63)
}

// littleEndian reports whether the machine stores integers as the file
// does, so that arrays can be used in place.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// uint32s returns b (a multiple of four bytes) as little-endian uint32s:
// a view of b when the machine is little-endian and b is aligned, a copy
// otherwise. The caller must not modify b afterwards.
func uint32s(b []byte) []uint32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(uint32(0)) == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	a := make([]uint32, n)
	for i := range a {
		a[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return a
}

// bytesString returns b as a string without copying. The caller must not
// modify b afterwards.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
