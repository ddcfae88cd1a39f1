package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/researchctx/researchctx/internal/safefs"
)

// The on-disk form is laid out so that Read can use it in place:
//
//	magic, version                        8 bytes, uint32
//	docs, terms, postings, positions,
//	  key bytes, term bytes               6 × uint32
//	keyEnd, titleLen, bodyLen, bodyStart  docs × uint32 each
//	termOff, postStart                    (terms+1) × uint32 each
//	postDoc                               postings × uint32
//	posStart                              (postings+1) × uint32
//	pos                                   positions × uint32
//	keys, terms                           the strings, concatenated
//	CRC-32C of everything before it       uint32
//
// Every integer is little-endian and every array starts at a multiple of
// four bytes, so on a little-endian machine the arrays of the Index are
// views of the file's bytes rather than decoded copies, and reading costs
// little more than copying the bytes, the checksum and a validating pass.
// The price is space: about 2.3 times a varint encoding of the same index.
const magic = "RCTXIDX\x00"

// Version is the on-disk format version. It changes whenever the encoding
// or the tokenisation changes, so that an index written by another version
// is rebuilt rather than misread.
const Version = 2

const headerLen = len(magic) + 4 + 6*4

var (
	// ErrCorrupt is returned by Read for data that fails its checksum or
	// does not decode to a consistent index.
	ErrCorrupt = errors.New("index: corrupt index data")
	// ErrVersion is returned by Read for an index written in another
	// format version; the caller should rebuild it.
	ErrVersion = errors.New("index: unsupported index version")
)

// encodedLen returns the size of the binary form for the given counts, or
// -1 if it does not fit in an int.
func encodedLen(docs, terms, postings, positions, keyBytes, termBytes uint64) int {
	n := uint64(headerLen) + 4*(4*docs+2*(terms+1)+2*postings+1+positions) + keyBytes + termBytes + 4
	if n > math.MaxInt {
		return -1
	}
	return int(n)
}

// WriteTo writes the index in its binary form.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	keyBytes := 0
	for _, k := range ix.keys {
		keyBytes += len(k)
	}
	nt := len(ix.termOff) - 1
	counts := [...]int{len(ix.keys), nt, len(ix.postDoc), len(ix.pos), keyBytes, len(ix.terms)}
	for _, c := range counts {
		if uint64(c) > math.MaxUint32 {
			return 0, fmt.Errorf("%w: too large to encode", ErrTooLarge)
		}
	}
	b := make([]byte, 0, encodedLen(uint64(counts[0]), uint64(counts[1]), uint64(counts[2]),
		uint64(counts[3]), uint64(counts[4]), uint64(counts[5])))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, Version)
	for _, c := range counts {
		b = binary.LittleEndian.AppendUint32(b, uint32(c))
	}
	end := uint32(0)
	for _, k := range ix.keys {
		end += uint32(len(k))
		b = binary.LittleEndian.AppendUint32(b, end)
	}
	for _, a := range [][]uint32{ix.titleLen, ix.bodyLen, ix.bodyStart, ix.termOff, ix.postStart, ix.postDoc, ix.posStart, ix.pos} {
		b = appendUint32s(b, a)
	}
	for _, k := range ix.keys {
		b = append(b, k...)
	}
	b = append(b, ix.terms...)
	b = safefs.Seal(b)
	n, err := w.Write(b)
	return int64(n), err
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
// change afterwards.
func Load(data []byte) (*Index, error) {
	if len(data) < len(magic)+8 || !bytes.Equal(data[:len(magic)], []byte(magic)) {
		return nil, fmt.Errorf("%w: not an index file", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(data[len(magic):]); v != Version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrVersion, v, Version)
	}
	if _, ok := safefs.Unseal(data); !ok {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	ix, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return ix, nil
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

// decode checks and takes apart data, whose checksum has been verified.
// A consistent file is one WriteTo could have written: the counts match
// the length, offsets ascend and stay in range, terms are non-empty, valid
// UTF-8 and ascend (so none is repeated), every term has postings and
// every posting positions, documents ascend within a term and positions
// within a posting. All checks are linear passes, and nothing is
// allocated before the counts are known to match the length.
func decode(data []byte) (*Index, error) {
	if len(data) < headerLen+4 {
		return nil, errors.New("short header")
	}
	var c [6]uint64
	for i := range c {
		c[i] = uint64(binary.LittleEndian.Uint32(data[len(magic)+4+4*i:]))
	}
	nd, nt, np, npos, keyBytes, termBytes := c[0], c[1], c[2], c[3], c[4], c[5]
	if encodedLen(nd, nt, np, npos, keyBytes, termBytes) != len(data) {
		return nil, errors.New("counts disagree with length")
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
		postDoc:   arr(np),
		posStart:  arr(np + 1),
		pos:       arr(npos),
	}
	keys, terms := bytesString(rest[:keyBytes]), bytesString(rest[keyBytes:])

	if !nonDescending(keyEnd) || nd > 0 && uint64(keyEnd[nd-1]) != keyBytes || nd == 0 && keyBytes != 0 {
		return nil, errors.New("bad key offsets")
	}
	ix.keys = make([]string, nd)
	start := uint32(0)
	for d, end := range keyEnd {
		ix.keys[d] = keys[start:end]
		start = end
	}

	// Strictly ascending offsets: no term is empty. The terms together
	// being valid UTF-8 and each starting a character makes each valid.
	if ix.termOff[0] != 0 || uint64(ix.termOff[nt]) != termBytes || descents(ix.termOff) != 0 {
		return nil, errors.New("bad term offsets")
	}
	ix.terms = terms
	if !utf8.ValidString(terms) {
		return nil, errors.New("bad term")
	}
	prev := ""
	for t := range nt {
		term := terms[ix.termOff[t]:ix.termOff[t+1]]
		if !utf8.RuneStart(term[0]) || t > 0 && strings.Compare(prev, term) >= 0 {
			return nil, fmt.Errorf("bad or misordered term %q", term)
		}
		prev = term
	}

	// The remaining checks are flat passes over the posting and position
	// arrays. A descent (an element not above the one before) is allowed
	// only where a term's postings or a posting's positions start, so
	// comparing the count of descents with the count at those starts
	// checks the order within every run without a loop per run.
	if ix.postStart[0] != 0 || uint64(ix.postStart[nt]) != np || descents(ix.postStart) != 0 {
		return nil, errors.New("bad posting offsets")
	}
	if ix.posStart[0] != 0 || uint64(ix.posStart[np]) != npos {
		return nil, errors.New("bad position offsets")
	}
	if postingErrors(ix.postDoc, ix.posStart, uint32(nd)) != 0 {
		return nil, errors.New("bad postings")
	}
	if descents(ix.postDoc) != startDescents(ix.postDoc, ix.postStart) {
		return nil, errors.New("postings out of order")
	}
	if descents(ix.pos) != startDescents(ix.pos, ix.posStart) {
		return nil, errors.New("positions out of order")
	}
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

// postingErrors counts postings j whose document is not below docs or
// that have no positions (start[j] to start[j+1]). start has one element
// more than doc.
func postingErrors(doc, start []uint32, docs uint32) int {
	if len(start) != len(doc)+1 {
		return 1
	}
	n, lo := 0, start[0]
	for j, d := range doc {
		hi := start[j+1]
		if hi <= lo {
			n++
		}
		if d >= docs {
			n++
		}
		lo = hi
	}
	return n
}

// startDescents returns the number of descents of pos where a posting
// starts; start is valid for pos.
func startDescents(pos, start []uint32) int {
	n := 0
	if len(start) < 2 {
		return 0
	}
	for _, s := range start[1 : len(start)-1] {
		n += notAbove(int64(pos[s]), int64(pos[s-1]))
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
