package libindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"slices"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/safefs"
)

// On disk, an index is a folder of files, each written atomically through
// safefs.Dir:
//
//	manifest        which segments are live and, for every item, its
//	                stamp, its segment and its failure, if any
//	                (sealed: a CRC-32C at its end)
//	seg-NNNNNNNN    one segment: its items, their units (location, title,
//	                text) and an index.Index of the units, 4-byte aligned
//	                so that it is used in place
//	lock            held (flock) by the one process that writes
//
// A segment is checked in parts, each when it is first read, so that a new
// process does not read the whole index before its first answer: its head
// (items and units without their text; a CRC-32C after it) when it is
// opened, the index's head (documents and dictionary) too, each block of
// the index's postings when a search reads it (index.LoadLazy), and each
// unit's text (its own CRC-32C in the head) when a hit returns it. The
// whole-file seal safefs writes is not checked: every byte is covered by
// one of those checksums. A damaged part is never used: the search that
// finds it fails with ErrDamaged, the segment is dropped and its items
// are extracted again.
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
	formatVersion = 4
	// maxManifest bounds the manifest read back.
	maxManifest = 1 << 30
)

// errFormat reports a file that does not decode.
var errFormat = errors.New("libindex: damaged index file")

// ErrDamaged reports a search that read a damaged part of a segment. The
// segment is dropped from the index as soon as that is found, and its
// items are extracted again by the next Ensure; searching again after it
// never reads the damaged part.
var ErrDamaged = errors.New("libindex: damaged segment")

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
	return &manifest{version: m.version, next: m.next, segs: slices.Clone(m.segs), entries: maps.Clone(m.entries)}
}

// without returns a copy of m without segment id and its items.
func (m *manifest) without(id uint64) *manifest {
	c := m.clone()
	c.segs = slices.DeleteFunc(c.segs, func(s uint64) bool { return s == id })
	for k, e := range c.entries {
		if e.seg == id {
			delete(c.entries, k)
		}
	}
	return c
}

func (m *manifest) encode() []byte {
	size := len(manifestMagic) + 64 + len(m.version) + 10*len(m.segs)
	for k, e := range m.entries {
		size += len(k) + len(e.stamp) + len(e.err) + 4*binary.MaxVarintLen16
	}
	b := make([]byte, 0, size)
	b = append(b, manifestMagic...)
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
	ix    *index.Index
	// units holds each document's unit once it is read (see unit): a
	// new process decodes at open only where each unit's fields start
	// (heads) and where its text lies (texts), not the fields
	// themselves, which few of a segment's units are ever read for.
	units    []atomic.Pointer[Unit]
	heads    []int  // where unit d's fields start in data
	texts    []int  // unit d's text is data[textBase+texts[d] : textBase+texts[d+1]]
	textBase int    // where the texts start in data
	headEnd  int    // where the head (and so the last unit's fields) ends
	data     []byte // the mapped or read file, kept alive while in use
	// mapped is set when data is a mapping of the file (readSegment
	// where mapFile maps), whose pages may be released; never for bytes
	// on the heap, which releasing would zero.
	mapped bool

	textSum   []uint32        // CRC-32C of each unit's text
	textState []atomic.Uint32 // 0 unchecked, 1 good, 2 damaged
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// textSum returns the CRC-32C of a unit's text, read in place.
func textSum(t string) uint32 {
	return crc32.Checksum(unsafe.Slice(unsafe.StringData(t), len(t)), castagnoli)
}

// checkText checks unit d's text against its checksum, once.
func (s *segment) checkText(d int) error {
	switch s.textState[d].Load() {
	case 1:
		return nil
	case 2:
		return fmt.Errorf("%s: text of unit %d: %w", segmentName(s.id), d, ErrDamaged)
	}
	if textSum(s.unit(d).Text) != s.textSum[d] {
		s.textState[d].Store(2)
		return fmt.Errorf("%s: text of unit %d: %w", segmentName(s.id), d, ErrDamaged)
	}
	s.textState[d].Store(1)
	return nil
}

// verify checks all of the segment, as a merge reads all of it.
func (s *segment) verify() error {
	if err := s.ix.Verify(); err != nil {
		return fmt.Errorf("%s: %w: %w", segmentName(s.id), ErrDamaged, err)
	}
	for d := range s.units {
		if err := s.checkText(d); err != nil {
			return err
		}
	}
	return nil
}

// encodeSegment lays out a segment in memory (see writeSegmentTo).
func encodeSegment(items []string, first []int, units []Unit, ix *index.Index) ([]byte, error) {
	var b bytes.Buffer
	if err := writeSegmentTo(&b, items, first, units, ix); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeSegmentTo writes a segment to w: header and units, their texts,
// then the index at a 4-byte boundary. Only the header is built in
// memory; the texts and the index are written as they are, so that
// writing a segment holds no copy of it.
func writeSegmentTo(w io.Writer, items []string, first []int, units []Unit, ix *index.Index) error {
	b := []byte(segmentMagic)
	b = binary.AppendUvarint(b, formatVersion)
	b = binary.AppendUvarint(b, uint64(len(items)))
	for i, k := range items {
		b = appendStr(b, k)
		b = binary.AppendUvarint(b, uint64(first[i+1]-first[i]))
	}
	textLen := 0
	for _, u := range units {
		for _, f := range []string{u.Path, u.Label, u.Section, u.Title, u.Mark, u.Comment, u.URI} {
			b = appendStr(b, f)
		}
		b = binary.AppendUvarint(b, uint64(u.Page))
		b = binary.AppendUvarint(b, uint64(len(u.Text)))
		b = binary.LittleEndian.AppendUint32(b, textSum(u.Text))
		textLen += len(u.Text)
	}
	b = binary.AppendUvarint(b, uint64(textLen))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	if _, err := w.Write(b); err != nil {
		return err
	}
	for _, u := range units {
		if _, err := io.WriteString(w, u.Text); err != nil {
			return err
		}
	}
	if pad := (4 - (len(b)+textLen)%4) % 4; pad > 0 {
		if _, err := w.Write(make([]byte, pad)); err != nil {
			return err
		}
	}
	_, err := ix.WriteTo(w)
	return err
}

// decodeSegment takes apart a segment's bytes (the seal removed), using
// them in place: the units' strings and the index's arrays are views of
// data. It checks the head and the index's head; the rest is checked when
// read (see checkText, index.LoadLazy).
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
		// Copied: a build reads the item keys of every segment at each
		// publish (liveDocs), which would fault the head's pages back
		// in after they were released.
		s.items[i] = d.str()
		s.first[i+1] = s.first[i] + d.count(0)
	}
	nu := s.first[n]
	if d.err != nil || nu > len(d.b)/6 {
		return nil, errFormat
	}
	s.units = make([]atomic.Pointer[Unit], nu)
	s.heads = make([]int, nu)
	s.texts = make([]int, nu+1)
	s.textSum = make([]uint32, nu)
	s.textState = make([]atomic.Uint32, nu)
	for i := range nu {
		// Each field is checked to fit here, as decoding it would: a
		// unit read later (unit) reads the same checked bytes.
		s.heads[i] = len(data) - len(d.b)
		for range unitFields {
			d.skip()
		}
		d.uvarint() // page
		l := d.count(0)
		s.textSum[i] = d.uint32()
		if s.texts[i+1] = s.texts[i] + l; s.texts[i+1] > len(data) {
			return nil, errFormat
		}
	}
	textLen := d.count(0)
	head := len(data) - len(d.b)
	if d.err != nil || len(d.b) < 4 || binary.LittleEndian.Uint32(d.b) != crc32.Checksum(data[:head], castagnoli) {
		return nil, errFormat
	}
	d.b = d.b[4:]
	if textLen > len(d.b) || s.texts[nu] > textLen {
		return nil, errFormat
	}
	s.headEnd, s.textBase = head, head+4
	d.b = d.b[textLen:]
	off := len(data) - len(d.b)
	off = (off + 3) &^ 3
	if off > len(data) {
		return nil, errFormat
	}
	ix, err := index.LoadLazy(data[off:])
	if err != nil || ix.Len() != nu {
		return nil, errFormat
	}
	s.ix = ix
	return s, nil
}

// unitFields is the number of string fields of a unit in a segment's head:
// Path, Label, Section, Title, Mark, Comment, URI.
const unitFields = 7

// unit returns document d's unit, decoding its fields from the head the
// first time it is read; every later read returns the same *Unit. Its
// strings are views of the segment's data, as they were when all units
// were decoded at open. Should the bytes no longer decode (the file
// changed under its mapping since the head was checked), the unit is
// empty and its text damaged, so that no search returns it.
func (s *segment) unit(d int) *Unit {
	if u := s.units[d].Load(); u != nil {
		return u
	}
	u := &Unit{}
	dec := decoder{b: s.data[s.heads[d]:s.headEnd]}
	u.Path, u.Label, u.Section, u.Title, u.Mark, u.Comment, u.URI = dec.view(), dec.view(), dec.view(), dec.view(), dec.view(), dec.view(), dec.view()
	u.Page = int(dec.uvarint())
	if dec.err != nil {
		*u = Unit{}
		s.textState[d].Store(2)
	} else if lo, hi := s.textBase+s.texts[d], s.textBase+s.texts[d+1]; lo < hi {
		u.Text = unsafe.String(&s.data[lo], hi-lo)
	}
	if s.units[d].CompareAndSwap(nil, u) {
		return u
	}
	return s.units[d].Load()
}

// len returns the number of documents (units) of the segment.
func (s *segment) len() int { return len(s.units) }

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
	if len(d.b) > 0 && d.b[0] < 0x80 {
		// One byte, as most lengths and pages are.
		v := d.b[0]
		d.b = d.b[1:]
		return uint64(v)
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

func (d *decoder) uint32() uint32 {
	if d.err != nil || len(d.b) < 4 {
		d.err = errFormat
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
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

// skip passes over a string (see bytes).
func (d *decoder) skip() {
	if d.err == nil && len(d.b) > 0 && d.b[0] < 0x80 && int(d.b[0]) < len(d.b) {
		d.b = d.b[1+int(d.b[0]):] // a short string, the common case
		return
	}
	d.bytes()
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
// allows it. Only the segment's heads are read (see decodeSegment), and
// their pages are then released from the resident set (see release).
func readSegment(dir *safefs.Dir, id uint64) (*segment, error) {
	data, err := mapFile(dir, segmentName(id))
	if err != nil {
		return nil, err
	}
	if len(data) < 4 {
		unmap(data)
		return nil, fmt.Errorf("%s: %w", segmentName(id), errFormat)
	}
	s, err := decodeSegment(id, data[:len(data)-4])
	if err != nil {
		unmap(data)
		return nil, fmt.Errorf("%s: %w", segmentName(id), err)
	}
	s.data, s.mapped = data, mapsFiles
	if s.mapped {
		// Decoding read the heads (and with large folios, the pages
		// around them): a search faults in again what it reads.
		release(data)
	}
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
