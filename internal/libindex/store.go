package libindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/safefs"
)

// On disk, an index is a folder of files, each sealed (a CRC-32C at its
// end) and written atomically through safefs.Dir:
//
//	manifest        which segments are live and, for every item, its
//	                stamp, its segment and its failure, if any
//	seg-NNNNNNNN    one segment: its items, their units (location, title,
//	                text) and an index.Index of the units, 4-byte aligned
//	                so that it is used in place
//	lock            held (flock) by the one process that writes
//
// Segments are immutable: an update writes new segments and then a new
// manifest, so a reader sees the old manifest and its segments or the new
// ones, never a half-written segment. A segment a newer manifest no longer
// lists is removed after that manifest is in place; a reader that finds
// one gone reads the manifest again.
const (
	manifestName  = "manifest"
	lockName      = "lock"
	manifestMagic = "RCTXLIBM"
	segmentMagic  = "RCTXLIBS"
	// formatVersion changes whenever the files' layout, the tokenisation
	// (index.Version) or what goes into units changes.
	formatVersion = 1
	// maxManifest bounds the manifest read back.
	maxManifest = 1 << 30
)

// errFormat reports a file that does not decode.
var errFormat = errors.New("libindex: damaged index file")

func segmentName(id uint64) string { return fmt.Sprintf("seg-%08d", id) }

// entry is the manifest's record of one item.
type entry struct {
	stamp string
	seg   uint64 // 0: no units (failed, or nothing to index)
	err   string // why extraction failed, "" when it did not
}

// manifest is the decoded manifest file.
type manifest struct {
	version string   // Options.Version of the writer
	next    uint64   // the next segment id
	segs    []uint64 // live segments, oldest first
	entries map[string]entry
}

func newManifest() *manifest { return &manifest{next: 1, entries: map[string]entry{}} }

func (m *manifest) clone() *manifest {
	c := &manifest{version: m.version, next: m.next, segs: append([]uint64(nil), m.segs...), entries: make(map[string]entry, len(m.entries))}
	for k, e := range m.entries {
		c.entries[k] = e
	}
	return c
}

func (m *manifest) encode() []byte {
	b := []byte(manifestMagic)
	b = binary.AppendUvarint(b, formatVersion)
	b = binary.AppendUvarint(b, index.Version)
	b = appendStr(b, m.version)
	b = binary.AppendUvarint(b, m.next)
	b = binary.AppendUvarint(b, uint64(len(m.segs)))
	for _, s := range m.segs {
		b = binary.AppendUvarint(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(m.entries)))
	for k, e := range m.entries {
		b = appendStr(b, k)
		b = appendStr(b, e.stamp)
		b = binary.AppendUvarint(b, e.seg)
		b = appendStr(b, e.err)
	}
	return b
}

func decodeManifest(data []byte) (*manifest, error) {
	if len(data) < len(manifestMagic) || string(data[:len(manifestMagic)]) != manifestMagic {
		return nil, errFormat
	}
	d := decoder{b: data[len(manifestMagic):]}
	if d.uvarint() != formatVersion || d.uvarint() != index.Version {
		return nil, errFormat
	}
	m := newManifest()
	m.version = d.str()
	m.next = d.uvarint()
	n := d.count(1)
	for range n {
		m.segs = append(m.segs, d.uvarint())
	}
	n = d.count(4)
	for range n {
		k := d.str()
		m.entries[k] = entry{stamp: d.str(), seg: d.uvarint(), err: d.str()}
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errFormat
	}
	return m, nil
}

// segment is one loaded segment file.
type segment struct {
	id    uint64
	items []string // item keys, in document order
	first []int    // first document of each item; len(items)+1 entries
	units []Unit   // by document
	ix    *index.Index
	data  []byte // the mapped or read file, kept alive while in use
}

// encodeSegment lays out a segment: header and units, then the index at a
// 4-byte boundary.
func encodeSegment(items []string, first []int, units []Unit, ix *index.Index) ([]byte, error) {
	b := []byte(segmentMagic)
	b = binary.AppendUvarint(b, formatVersion)
	b = binary.AppendUvarint(b, uint64(len(items)))
	for i, k := range items {
		b = appendStr(b, k)
		b = binary.AppendUvarint(b, uint64(first[i+1]-first[i]))
	}
	textLen := 0
	for _, u := range units {
		for _, f := range []string{u.Path, u.Label, u.Section, u.Title} {
			b = appendStr(b, f)
		}
		b = binary.AppendUvarint(b, uint64(u.Page))
		b = binary.AppendUvarint(b, uint64(len(u.Text)))
		textLen += len(u.Text)
	}
	b = binary.AppendUvarint(b, uint64(textLen))
	for _, u := range units {
		b = append(b, u.Text...)
	}
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	var w sliceWriter
	w.b = b
	if _, err := ix.WriteTo(&w); err != nil {
		return nil, err
	}
	return w.b, nil
}

type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// decodeSegment takes apart a segment's bytes (checksum verified, the seal
// removed), using them in place: the units' strings and the index's arrays
// are views of data.
func decodeSegment(id uint64, data []byte) (*segment, error) {
	if len(data) < len(segmentMagic) || string(data[:len(segmentMagic)]) != segmentMagic {
		return nil, errFormat
	}
	d := decoder{b: data[len(segmentMagic):]}
	if d.uvarint() != formatVersion {
		return nil, errFormat
	}
	s := &segment{id: id, data: data}
	n := d.count(2)
	s.items = make([]string, n)
	s.first = make([]int, n+1)
	for i := range n {
		s.items[i] = d.view()
		s.first[i+1] = s.first[i] + d.count(0)
	}
	nu := s.first[n]
	if d.err != nil || nu > len(d.b)/6 {
		return nil, errFormat
	}
	s.units = make([]Unit, nu)
	lens := make([]int, nu)
	for i := range s.units {
		u := &s.units[i]
		u.Path, u.Label, u.Section, u.Title = d.view(), d.view(), d.view(), d.view()
		u.Page = int(d.uvarint())
		lens[i] = d.count(0)
	}
	texts := d.view()
	for i, l := range lens {
		if d.err != nil || l > len(texts) {
			return nil, errFormat
		}
		s.units[i].Text, texts = texts[:l], texts[l:]
	}
	if d.err != nil {
		return nil, errFormat
	}
	off := len(data) - len(d.b)
	off = (off + 3) &^ 3
	if off > len(data) {
		return nil, errFormat
	}
	ix, err := index.Load(data[off:])
	if err != nil || ix.Len() != nu {
		return nil, errFormat
	}
	s.ix = ix
	return s, nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads fields, checking every length against the bytes left.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errFormat
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a count of items of at least min bytes each (0: any count
// that fits an int32).
func (d *decoder) count(min int) int {
	v := d.uvarint()
	if (min > 0 && v > uint64(len(d.b)/min)) || v > 1<<31 {
		d.err = errFormat
		return 0
	}
	return int(v)
}

func (d *decoder) str() string { return string(d.bytes()) }

// view is str without a copy: the string aliases the decoder's bytes,
// which are never written to.
func (d *decoder) view() string {
	b := d.bytes()
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (d *decoder) bytes() []byte {
	n := d.count(1)
	if d.err != nil {
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

// readSegment loads segment id from dir, mapped in place where the system
// allows it.
func readSegment(dir *safefs.Dir, id uint64) (*segment, error) {
	data, err := mapFile(dir, segmentName(id))
	if err != nil {
		return nil, err
	}
	body, ok := safefs.Unseal(data)
	if !ok {
		unmap(data)
		return nil, fmt.Errorf("%s: %w", segmentName(id), safefs.ErrCorrupt)
	}
	s, err := decodeSegment(id, body)
	if err != nil {
		unmap(data)
		return nil, fmt.Errorf("%s: %w", segmentName(id), err)
	}
	s.data = data
	return s, nil
}

// parseSegmentName returns the id of a segment file name.
func parseSegmentName(name string) (uint64, bool) {
	if len(name) != len("seg-")+8 || name[:4] != "seg-" {
		return 0, false
	}
	id, err := strconv.ParseUint(name[4:], 10, 64)
	return id, err == nil
}
