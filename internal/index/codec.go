package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unicode/utf8"
)

// The on-disk form: magic, format version, then uvarint-encoded sections
// (documents, then terms with delta-coded postings and positions), then a
// CRC-32C of everything before it.
const magic = "RCTXIDX\x00"

// Version is the on-disk format version. It changes whenever the encoding
// or the tokenisation changes, so that an index written by another version
// is rebuilt rather than misread.
const Version = 1

var (
	// ErrCorrupt is returned by Read for data that fails its checksum or
	// does not decode to a consistent index.
	ErrCorrupt = errors.New("index: corrupt index data")
	// ErrVersion is returned by Read for an index written in another
	// format version; the caller should rebuild it.
	ErrVersion = errors.New("index: unsupported index version")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes the index in its binary form.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	b := make([]byte, 0, 16+len(ix.pos)*2+len(ix.postDoc)*4)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, Version)
	b = binary.AppendUvarint(b, uint64(len(ix.keys)))
	for d, k := range ix.keys {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(ix.titleLen[d]))
		b = binary.AppendUvarint(b, uint64(ix.bodyLen[d]))
	}
	terms := make([]string, len(ix.dict))
	for t, id := range ix.dict {
		terms[id] = t
	}
	b = binary.AppendUvarint(b, uint64(len(terms)))
	b = binary.AppendUvarint(b, uint64(len(ix.postDoc)))
	b = binary.AppendUvarint(b, uint64(len(ix.pos)))
	for id, t := range terms {
		b = appendString(b, t)
		lo, hi := ix.postStart[id], ix.postStart[id+1]
		b = binary.AppendUvarint(b, uint64(hi-lo))
		prevDoc := uint32(0)
		for j := lo; j < hi; j++ {
			b = binary.AppendUvarint(b, uint64(ix.postDoc[j]-prevDoc))
			prevDoc = ix.postDoc[j]
			b = binary.AppendUvarint(b, uint64(ix.postTitle[j]))
			b = binary.AppendUvarint(b, uint64(ix.postBody[j]))
			pos := ix.pos[ix.posStart[j]:ix.posStart[j+1]]
			b = binary.AppendUvarint(b, uint64(len(pos)))
			prev := uint32(0)
			for _, x := range pos {
				b = binary.AppendUvarint(b, uint64(x-prev))
				prev = x
			}
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	n, err := w.Write(b)
	return int64(n), err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Read decodes an index written by WriteTo. Data that is damaged in any
// way gives ErrCorrupt, never a partial or inconsistent index.
func Read(r io.Reader) (*Index, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("index: read: %w", err)
	}
	if len(data) < len(magic)+8 || !bytes.Equal(data[:len(magic)], []byte(magic)) {
		return nil, fmt.Errorf("%w: not an index file", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(data[len(magic):]); v != Version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrVersion, v, Version)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	d := decoder{b: body[len(magic)+4:]}
	ix, err := d.index()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return ix, nil
}

// decoder reads the sections, checking every count against the bytes left
// so that a crafted file cannot cause a huge allocation.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) > 0 && d.b[0] < 0x80 {
		v := uint64(d.b[0])
		d.b = d.b[1:]
		return v
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// u32 reads a uvarint that must fit in a uint32.
func (d *decoder) u32() uint32 {
	v := d.uvarint()
	if v > math.MaxUint32 {
		d.fail("value out of range")
		return 0
	}
	return uint32(v)
}

// count reads a length of items each taking at least one byte.
func (d *decoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.b)) {
		d.fail("count exceeds data")
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) fail(msg string) {
	if d.err == nil {
		d.err = errors.New(msg)
	}
}

func (d *decoder) index() (*Index, error) {
	n := d.count()
	ix := &Index{
		p:        defaults,
		keys:     make([]string, 0, n),
		titleLen: make([]uint32, 0, n),
		bodyLen:  make([]uint32, 0, n),
	}
	for range n {
		ix.keys = append(ix.keys, d.str())
		ix.titleLen = append(ix.titleLen, d.u32())
		ix.bodyLen = append(ix.bodyLen, d.u32())
	}
	nt := d.count()
	np, npos := d.count(), d.count() // totals, for exact allocation
	if d.err != nil {
		return nil, d.err
	}
	ix.dict = make(map[string]uint32, nt)
	ix.postStart = make([]uint32, 0, nt+1)
	ix.postDoc = make([]uint32, 0, np)
	ix.postTitle = make([]uint32, 0, np)
	ix.postBody = make([]uint32, 0, np)
	ix.posStart = make([]uint32, 0, np+1)
	ix.pos = make([]uint32, 0, npos)
	for id := range nt {
		t := d.str()
		if d.err != nil {
			return nil, d.err
		}
		if t == "" || !utf8.ValidString(t) {
			return nil, errors.New("bad term")
		}
		if _, dup := ix.dict[t]; dup {
			return nil, fmt.Errorf("duplicate term %q", t)
		}
		ix.dict[t] = uint32(id)
		ix.postStart = append(ix.postStart, uint32(len(ix.postDoc)))
		np := d.count()
		doc := uint32(0)
		for j := range np {
			delta := d.u32()
			if j > 0 && delta == 0 {
				d.fail("postings out of order")
			}
			doc += delta
			if uint64(doc) >= uint64(n) || doc < delta {
				d.fail("document out of range")
			}
			tf, bf := d.u32(), d.u32()
			npos := d.count()
			if d.err != nil {
				return nil, d.err
			}
			if uint64(tf)+uint64(bf) != uint64(npos) || npos == 0 {
				return nil, errors.New("frequencies disagree with positions")
			}
			if uint64(len(ix.pos))+uint64(npos) > math.MaxUint32 {
				return nil, errors.New("too many positions")
			}
			ix.postDoc = append(ix.postDoc, doc)
			ix.postTitle = append(ix.postTitle, tf)
			ix.postBody = append(ix.postBody, bf)
			ix.posStart = append(ix.posStart, uint32(len(ix.pos)))
			if !d.positions(npos, &ix.pos) {
				return nil, errors.New("bad positions")
			}
			if d.err != nil {
				return nil, d.err
			}
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, errors.New("trailing data")
	}
	if len(ix.postDoc) != np || len(ix.pos) != npos {
		return nil, errors.New("totals disagree with postings")
	}
	ix.postStart = append(ix.postStart, uint32(len(ix.postDoc)))
	ix.posStart = append(ix.posStart, uint32(len(ix.pos)))
	ix.finish()
	return ix, nil
}

// positions decodes n delta-coded, strictly ascending positions onto
// *dst. It is the bulk of the file, hence the tight loop.
func (d *decoder) positions(n int, dst *[]uint32) bool {
	b := d.b
	out := *dst
	p := uint64(0)
	for k := 0; k < n; k++ {
		var v uint64
		if len(b) > 0 && b[0] < 0x80 {
			v = uint64(b[0])
			b = b[1:]
		} else {
			var m int
			v, m = binary.Uvarint(b)
			if m <= 0 {
				return false
			}
			b = b[m:]
		}
		if k > 0 && v == 0 {
			return false
		}
		p += v
		if p > math.MaxUint32 {
			return false
		}
		out = append(out, uint32(p))
	}
	d.b = b
	*dst = out
	return true
}
