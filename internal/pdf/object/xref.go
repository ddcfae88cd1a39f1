package object

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// pdfcpu keeps a table entry for every cross-reference entry and parses
// the object of every entry in use, each time it is listed, before any
// page is read. A small file can list millions of entries (a compressed
// cross-reference stream of identical rows), list one object under many
// numbers, claim millions of objects in an object stream, or give streams
// lengths that overlap: what pdfcpu then allocates is out of all
// proportion to the file. AuditXRef reads the cross-reference sections
// first, without building pdfcpu's structures, and holds them to what the
// file's bytes can back:
//
//   - the entries listed, the /Size of each section, and the objects the
//     object streams in use claim (/N) are at most MaxEntries(size): every
//     object takes some bytes of the file (a plain one its "N G obj"
//     header, "endobj" and an entry of the table; a compressed one its pair
//     in an object stream's header and its body);
//   - an object stream's header (/First) is no longer than its /N pairs
//     can be;
//   - the bytes pdfcpu reads for the objects in use, each from its offset
//     to its "endobj" or to the end of its stream's /Length, add up to no
//     more than the file and maxObjectOverlap: objects lie side by side,
//     so that an object listed twice, or one whose offset lies inside
//     another, or a stream whose /Length runs over what follows, is read
//     again only within that allowance.
//
// A section it cannot read (a damaged table) is left to pdfcpu and to the
// repair, whose rebuilt table is audited in turn. Whatever the table says,
// the object headers of the whole file are held to the same allowance:
// pdfcpu's own repair, to which it turns on a damaged table or a wrong
// offset, makes an entry of every one.

// minObjectBytes is the fewest bytes of a file one object takes in
// MaxEntries; the test corpus averages 371 bytes an object or more.
const minObjectBytes = 16

// minEntries is the entry allowance of any file, however small, so that
// a short file numbering its objects sparsely still reads.
const minEntries = 4096

// maxObjectOverlap is how many bytes of objects may be read more than once
// (see AuditXRef).
const maxObjectOverlap = 1 << 20

// MaxEntries is the most cross-reference entries (and objects) a file of
// size bytes may list: one per minObjectBytes, at least minEntries, at
// most MaxObjects.
func MaxEntries(size int64) int {
	return int(min(MaxObjects, max(size/minObjectBytes, minEntries)))
}

// MaxObjStmFirst is the longest object-stream header that n objects need:
// two numbers and two separators each.
func MaxObjStmFirst(n int) int64 { return 24*int64(n) + 1024 }

// maxXRefSections bounds the sections followed through /Prev and
// /XRefStm; incremental updates add one each.
const maxXRefSections = 1024

// xrefWindow is how much of the file is read for one dictionary (a
// trailer, a cross-reference stream's dictionary, the dictionary before
// a stream's data), objStmWindow for an object stream's.
const (
	xrefWindow   = 64 << 10
	objStmWindow = 4 << 10
)

type auditEntry struct {
	nr  int
	typ byte  // 0 free, 1 in use, 2 in an object stream
	f2  int64 // type 1: offset; type 2: the object stream's number
	f3  int64 // type 1: generation; type 2: index in the object stream
	seq int   // order listed: the first listing of a number wins, as in pdfcpu
}

// XRefAudit is the audit of a file's cross-reference sections (see
// AuditTable): the entries it read, held to what the file's size backs.
type XRefAudit struct {
	ctx     context.Context
	r       io.ReaderAt
	size    int64
	max     int
	claimed int // entries claimed by the sections read so far
	entries []auditEntry
	scratch []byte // what window returns, reused
	// trailers are the trailer dictionaries (and cross-reference stream
	// dictionaries) in the order read, newest first: what the lazy
	// reader takes /Root, /Info and /Encrypt from.
	trailers []types.Dict
}

// ErrUnaudited ends the audit of a section it cannot read: pdfcpu decides.
var ErrUnaudited = errors.New("pdf: cross-reference not audited")

// AuditXRef checks the cross-reference sections of the file (size bytes
// of r) against the limits above. It returns a *LimitError (LimitObjects
// or LimitObjectBytes) when the file lists more than it can back, the
// context's error when it ends, ErrUnaudited when the sections cannot be
// read (pdfcpu and the repair deal with those), and nil otherwise.
func AuditXRef(ctx context.Context, r io.ReaderAt, size int64) error {
	_, err := AuditTable(ctx, r, size)
	return err
}

// AuditTable is AuditXRef that also returns the audit, whose entries
// (sorted by object number, one each) and trailers are the file's
// cross-reference when the error is nil.
func AuditTable(ctx context.Context, r io.ReaderAt, size int64) (*XRefAudit, error) {
	a := &XRefAudit{ctx: ctx, r: r, size: size, max: MaxEntries(size)}
	err := a.run()
	unaudited := errors.Is(err, ErrUnaudited)
	if err == nil || unaudited {
		// pdfcpu's own repair, which it may turn to whatever the table
		// says, registers every object header of the file.
		err = a.headers()
	}
	if err == nil && unaudited {
		return a, ErrUnaudited
	}
	return a, err
}

// headers holds the "N G obj" headers of the whole file to the file's
// allowance, as pdfcpu's own repair (bypassXrefSection) makes an entry of
// every one it finds.
func (a *XRefAudit) headers() error {
	const chunk = 1 << 20
	const back = 256 // what a header before its keyword may take
	// Each chunk reads the header bytes before it and the keyword and the
	// byte after it beyond it; a keyword is the chunk's it starts in.
	buf := make([]byte, min(back+chunk+4, a.size))
	n := 0
	for at := int64(0); at < a.size; at += chunk {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		start := max(0, at-back)
		k, _ := a.r.ReadAt(buf[:min(int64(len(buf)), a.size-start)], start)
		b := buf[:k]
		first, end := int(at-start), int(at-start)+chunk
		for i := first; i < end; {
			j := bytes.Index(b[i:], []byte("obj"))
			if j < 0 || i+j >= end {
				break
			}
			p := i + j
			i = p + 3
			if i < len(b) && !isSpace(b[i]) && !isDelim(b[i]) {
				continue // "objstm" and the like
			}
			if nr, _, _, ok := objHeader(b, p); ok && nr > 0 {
				if n++; n > a.max {
					return a.tooMany("objects in the file", n)
				}
			}
		}
	}
	return nil
}

func (a *XRefAudit) tooMany(what string, n int) error {
	return fmt.Errorf("%w (%s: %d)", &LimitError{Limit: LimitObjects, Max: int64(a.max)}, what, n)
}

func (a *XRefAudit) run() error {
	start, err := a.startXRef()
	if err != nil {
		return err
	}
	queue := []int64{start}
	seen := map[int64]bool{}
	for len(queue) > 0 && len(seen) < maxXRefSections {
		off := queue[0]
		queue = queue[1:]
		if seen[off] || off <= 0 || off >= a.size {
			continue
		}
		seen[off] = true
		if err := a.ctx.Err(); err != nil {
			return err
		}
		next, err := a.section(off)
		if err != nil {
			return err
		}
		queue = append(next, queue...)
	}
	if len(a.entries) == 0 {
		return ErrUnaudited
	}
	// The first listing of each number wins, as in pdfcpu.
	slices.SortFunc(a.entries, func(x, y auditEntry) int {
		if x.nr != y.nr {
			return x.nr - y.nr
		}
		return x.seq - y.seq
	})
	a.entries = slices.CompactFunc(a.entries, func(x, y auditEntry) bool { return x.nr == y.nr })
	// Spans first: once they hold, the objects in use lie side by side,
	// and reading each object stream's dictionary reads the file about
	// once.
	if err := a.spans(); err != nil {
		return err
	}
	return a.objectStreams()
}

// read returns up to n bytes of the file from off.
func (a *XRefAudit) read(off int64, n int) []byte {
	if off < 0 || off >= a.size {
		return nil
	}
	b := make([]byte, min(int64(n), a.size-off))
	k, _ := a.r.ReadAt(b, off)
	return b[:k]
}

// window is read into a buffer that the next call reuses: for what is
// looked at and let go (dictionaries are parsed into strings of their
// own), so that the audit's reads cost no allocation each.
func (a *XRefAudit) window(off int64, n int) []byte {
	if off < 0 || off >= a.size {
		return nil
	}
	n = int(min(int64(n), a.size-off))
	if cap(a.scratch) < n {
		a.scratch = make([]byte, n)
	}
	k, _ := a.r.ReadAt(a.scratch[:n], off)
	return a.scratch[:k]
}

// startXRef returns the offset of the last section, from the file's
// last "startxref".
func (a *XRefAudit) startXRef() (int64, error) {
	from := max(0, a.size-4096)
	tail := a.window(from, 4096)
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return 0, ErrUnaudited
	}
	f := bytes.Fields(tail[i+len("startxref"):])
	if len(f) == 0 {
		return 0, ErrUnaudited
	}
	off, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0, ErrUnaudited
	}
	return off, nil
}

// section audits the section at off, adding its entries, and returns the
// offsets of the sections it points to, in the order pdfcpu reads them.
func (a *XRefAudit) section(off int64) ([]int64, error) {
	head := a.window(off, 64)
	t := bytes.TrimLeft(head, " \t\r\n\f\x00")
	if bytes.HasPrefix(t, []byte("xref")) {
		return a.table(off + int64(len(head)-len(t)) + 4)
	}
	return a.stream(off)
}

// table audits a classic table whose first subsection starts at off.
func (a *XRefAudit) table(off int64) ([]int64, error) {
	nr := 0
	for {
		if len(a.entries)%4096 == 0 {
			if err := a.ctx.Err(); err != nil {
				return nil, err
			}
		}
		line, next := a.line(off)
		if line == nil {
			return nil, ErrUnaudited
		}
		f := bytes.Fields(line)
		switch {
		case len(f) == 2:
			start, err1 := strconv.Atoi(string(f[0]))
			n, err2 := strconv.Atoi(string(f[1]))
			if err1 != nil || err2 != nil || start < 0 || n < 0 {
				return nil, ErrUnaudited
			}
			if a.claimed += n; a.claimed > a.max {
				return nil, a.tooMany("cross-reference entries", a.claimed)
			}
			nr = start
		case len(f) == 3 && (string(f[2]) == "n" || string(f[2]) == "f"):
			o, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil {
				return nil, ErrUnaudited
			}
			gen, _ := strconv.ParseInt(string(f[1]), 10, 64)
			typ := byte(1)
			if f[2][0] == 'f' {
				typ = 0
			}
			if len(a.entries) >= a.max {
				return nil, a.tooMany("cross-reference entries", len(a.entries)+1)
			}
			a.entries = append(a.entries, auditEntry{nr: nr, typ: typ, f2: o, f3: gen, seq: len(a.entries)})
			nr++
		case bytes.Contains(line, []byte("trailer")):
			at := off + int64(bytes.Index(line, []byte("trailer"))) + int64(len("trailer"))
			d := a.dict(a.window(at, xrefWindow))
			if d == nil {
				return nil, ErrUnaudited
			}
			if err := a.checkSize(d); err != nil {
				return nil, err
			}
			a.trailers = append(a.trailers, d)
			var next []int64
			for _, k := range []string{"XRefStm", "Prev"} {
				if v := d.Int64Entry(k); v != nil {
					next = append(next, *v)
				}
			}
			return next, nil
		case len(f) == 0:
		default:
			return nil, ErrUnaudited
		}
		off = next
	}
}

// line returns the line at off (without its end, at most 256 bytes of
// it) and the offset after it, or nil at the end of the file.
func (a *XRefAudit) line(off int64) ([]byte, int64) {
	b := a.window(off, 256)
	if len(b) == 0 {
		return nil, off
	}
	i := bytes.IndexAny(b, "\r\n")
	if i < 0 {
		// A long line: a trailer on one line with its dictionary (read
		// again from "trailer"), or not a line of a table.
		return b, off + int64(len(b))
	}
	j := i + 1
	if b[i] == '\r' && j < len(b) && b[j] == '\n' {
		j++
	}
	return b[:i], off + int64(j)
}

// dict parses the dictionary that b starts with (after white space).
func (a *XRefAudit) dict(b []byte) types.Dict {
	s := string(bytes.TrimLeft(b, " \t\r\n\f\x00"))
	if len(s) < 2 || s[:2] != "<<" {
		return nil
	}
	o, err := model.ParseObjectContext(a.ctx, &s, 0, MaxObjectNesting)
	if err != nil {
		return nil
	}
	d, _ := o.(types.Dict)
	return d
}

// checkSize holds a section's /Size to the file's allowance: pdfcpu
// allocates for it.
func (a *XRefAudit) checkSize(d types.Dict) error {
	if s := d.IntEntry("Size"); s != nil && *s > a.max {
		return a.tooMany("/Size", *s)
	}
	return nil
}

// objectHead returns the dictionary of the object at off and the offset
// of its stream's data, or -1 when it has none within n bytes.
func (a *XRefAudit) objectHead(off int64, n int) (types.Dict, int64) {
	w := a.window(off, n)
	o := bytes.Index(w, []byte("obj"))
	if o < 0 {
		return nil, -1
	}
	d := a.dict(w[o+3:])
	s := streamKeyword(w, o+3)
	if s < 0 {
		return d, -1
	}
	data := s + len("stream")
	if data < len(w) && w[data] == '\r' {
		data++
	}
	if data < len(w) && w[data] == '\n' {
		data++
	}
	return d, off + int64(data)
}

// streamKeyword returns the index in b, from from, of the first "stream"
// keyword that is not the end of "endstream", or -1.
func streamKeyword(b []byte, from int) int {
	for i := from; i < len(b); {
		k := bytes.Index(b[i:], []byte("stream"))
		if k < 0 {
			return -1
		}
		at := i + k
		if at < 3 || string(b[at-3:at]) != "end" {
			return at
		}
		i = at + len("stream")
	}
	return -1
}

// stream audits the cross-reference stream at off.
func (a *XRefAudit) stream(off int64) ([]int64, error) {
	d, data := a.objectHead(off, xrefWindow)
	if d == nil || data < 0 {
		return nil, ErrUnaudited
	}
	if err := a.checkSize(d); err != nil {
		return nil, err
	}
	a.trailers = append(a.trailers, d)
	size := d.IntEntry("Size")
	if size == nil || *size < 0 {
		return nil, ErrUnaudited
	}
	// The object numbers the rows are for: /Index pairs, else 0../Size.
	type run struct{ start, n int }
	runs := []run{{0, *size}}
	if idx := d.ArrayEntry("Index"); idx != nil {
		runs = runs[:0]
		for i := 0; i+1 < len(idx); i += 2 {
			s, ok1 := idx[i].(types.Integer)
			n, ok2 := idx[i+1].(types.Integer)
			if !ok1 || !ok2 || s < 0 || n < 0 {
				return nil, ErrUnaudited
			}
			runs = append(runs, run{int(s), int(n)})
		}
	}
	rows := 0
	for _, r := range runs {
		if rows += r.n; rows > a.max {
			return nil, a.tooMany("cross-reference stream entries", rows)
		}
	}
	if a.claimed += rows; a.claimed > a.max {
		return nil, a.tooMany("cross-reference entries", a.claimed)
	}
	wa := d.ArrayEntry("W")
	if len(wa) != 3 {
		return nil, ErrUnaudited
	}
	var w [3]int
	for i, v := range wa {
		n, ok := v.(types.Integer)
		if !ok || n < 0 || n > 8 {
			return nil, ErrUnaudited
		}
		w[i] = int(n)
	}
	width := w[0] + w[1] + w[2]
	if width == 0 {
		return nil, ErrUnaudited
	}
	content, err := a.decode(d, data, int64(rows)*int64(width))
	if err != nil {
		return nil, err
	}
	field := func(b []byte) int64 {
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return v
	}
	i := 0
	for _, r := range runs {
		for nr := r.start; nr < r.start+r.n && i+width <= len(content); nr++ {
			row := content[i : i+width]
			i += width
			typ := int64(1)
			if w[0] > 0 {
				typ = field(row[:w[0]])
			}
			if typ > 2 {
				continue
			}
			a.entries = append(a.entries, auditEntry{nr: nr, typ: byte(typ), f2: field(row[w[0] : w[0]+w[1]]), f3: field(row[w[0]+w[1]:]), seq: len(a.entries)})
		}
	}
	var next []int64
	if p := d.Int64Entry("Prev"); p != nil {
		next = append(next, *p)
	}
	return next, nil
}

// decode returns the decoded data of the stream whose dictionary is d and
// whose data starts at data: at most need bytes (and a quarter more),
// else a *LimitError, for a cross-reference stream decodes to its rows.
func (a *XRefAudit) decode(d types.Dict, data int64, need int64) ([]byte, error) {
	n := int64(-1)
	if l := d.Int64Entry("Length"); l != nil && *l >= 0 {
		n = min(*l, a.size-data)
	} else if e := a.find(data, []byte("endstream"), MaxStreamBytes); e >= 0 {
		n = e - data
	}
	if n < 0 || n > MaxStreamBytes {
		return nil, ErrUnaudited
	}
	raw := a.read(data, int(n))
	var pipe []types.PDFFilter
	parms := d["DecodeParms"]
	switch f := d["Filter"].(type) {
	case nil:
	case types.Name:
		p, _ := parms.(types.Dict)
		pipe = append(pipe, types.PDFFilter{Name: f.Value(), DecodeParms: p})
	case types.Array:
		pa, _ := parms.(types.Array)
		for i, e := range f {
			name, ok := e.(types.Name)
			if !ok {
				return nil, ErrUnaudited
			}
			var p types.Dict
			if i < len(pa) {
				p, _ = pa[i].(types.Dict)
			}
			pipe = append(pipe, types.PDFFilter{Name: name.Value(), DecodeParms: p})
		}
	default:
		return nil, ErrUnaudited
	}
	limit := need + need/4 + 4096 // a few rows more than listed, as some writers leave
	if len(pipe) == 0 {
		if int64(len(raw)) > limit {
			return nil, a.tooMany("cross-reference stream bytes", len(raw))
		}
		return raw, nil
	}
	sd := types.NewStreamDict(d, data, &n, nil, pipe)
	sd.Raw = raw
	b, err := sd.DecodeLengthWithLimit(-1, limit)
	if err != nil {
		if int64(len(b)) > limit || errors.Is(err, filter.ErrDecodeLimitExceeded) {
			return nil, fmt.Errorf("%w (a cross-reference stream decoding to more than its %d entries)", &LimitError{Limit: LimitObjects, Max: int64(a.max)}, need)
		}
		return nil, ErrUnaudited
	}
	return b, nil
}

// find returns the offset of the first pat in the file from off, looking
// at most limit bytes ahead, or -1.
func (a *XRefAudit) find(off int64, pat []byte, limit int64) int64 {
	// Most keywords are near: the window starts small and doubles.
	chunk := 4 << 10
	for at := off; at < a.size && at-off < limit; at += int64(chunk) {
		chunk = min(2*chunk, 1<<20)
		b := a.window(at, chunk+len(pat)-1)
		if i := bytes.Index(b, pat); i >= 0 {
			return at + int64(i)
		}
	}
	return -1
}

// lookup returns the entry for object nr.
func (a *XRefAudit) lookup(nr int) (auditEntry, bool) {
	i, ok := slices.BinarySearchFunc(a.entries, nr, func(e auditEntry, nr int) int { return e.nr - nr })
	if !ok {
		return auditEntry{}, false
	}
	return a.entries[i], true
}

// objectStreams holds the object streams in use to the file's allowance:
// the objects they claim add up to at most a.max, and each one's header
// is no longer than its objects need.
func (a *XRefAudit) objectStreams() error {
	var streams []int
	for _, e := range a.entries {
		if e.typ == 2 {
			streams = append(streams, int(e.f2))
		}
	}
	slices.Sort(streams)
	streams = slices.Compact(streams)
	total := 0
	for _, nr := range streams {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		e, ok := a.lookup(nr)
		if !ok || e.typ != 1 {
			continue
		}
		d, _ := a.objectHead(e.f2, objStmWindow)
		if d == nil {
			continue
		}
		n, first := d.IntEntry("N"), d.Int64Entry("First")
		if n == nil || first == nil {
			continue
		}
		if total += max(0, *n); total > a.max {
			return a.tooMany("objects in object streams", total)
		}
		if *first > MaxObjStmFirst(*n) {
			return a.tooMany(fmt.Sprintf("object stream header of %d bytes for /N", *first), *n)
		}
	}
	return nil
}

var (
	lengthKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Length\s+(\d+)(?:\s+(\d+)\s+R\b)?`) })
	intObject = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\d+\s+\d+\s+obj\s*(\d+)`) })
)

// spans adds up the bytes pdfcpu reads for the objects in use, each from
// its offset to the "endobj" after it or to the end of its stream's
// /Length, whichever is later: at most the file and maxObjectOverlap.
func (a *XRefAudit) spans() error {
	var offs []int64
	for _, e := range a.entries {
		// pdfcpu skips in-use entries at offsets below 9, as no object
		// can start there.
		if e.typ == 1 && e.f2 >= 9 && e.f2 < a.size {
			offs = append(offs, e.f2)
		}
	}
	slices.Sort(offs)
	budget := a.size + maxObjectOverlap
	var total int64
	endobj, stream := int64(-2), int64(-2) // next keyword at or after the current offset; -1 none
	for i, off := range offs {
		if i%4096 == 0 {
			if err := a.ctx.Err(); err != nil {
				return err
			}
		}
		if endobj != -1 && endobj < off {
			endobj = a.find(off, []byte("endobj"), a.size)
		}
		if stream != -1 && stream < off {
			stream = a.nextStream(off)
		}
		end := a.size
		if endobj >= 0 {
			end = endobj + int64(len("endobj"))
		}
		if stream >= 0 && stream < end {
			end = max(end, a.streamEnd(off, stream))
		}
		if total += end - off; total > budget {
			return fmt.Errorf("%w (objects read over %d bytes, %d listed)", &LimitError{Limit: LimitObjectBytes, Max: budget}, total, len(offs))
		}
	}
	return nil
}

// nextStream returns the offset of the first "stream" keyword (not the
// end of "endstream") from off, or -1.
func (a *XRefAudit) nextStream(off int64) int64 {
	for at := off; ; {
		k := a.find(at, []byte("stream"), a.size)
		if k < 3 || string(a.window(k-3, 3)) != "end" {
			return k
		}
		at = k + int64(len("stream"))
	}
}

// streamEnd returns where the data of the stream whose object starts at
// off, and whose "stream" keyword is at kw, ends by its /Length (direct,
// or an indirect integer object), within the file.
func (a *XRefAudit) streamEnd(off, kw int64) int64 {
	from := max(off, kw-xrefWindow)
	m := lastMatch(lengthKey(), a.window(from, int(kw-from)))
	if m == nil {
		return kw
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		return kw
	}
	if m[2] != nil {
		e, ok := a.lookup(int(n))
		if !ok || e.typ != 1 {
			return kw
		}
		v := intObject().FindSubmatch(a.window(e.f2, 64))
		if v == nil {
			return kw
		}
		if n, err = strconv.ParseInt(string(v[1]), 10, 64); err != nil {
			return kw
		}
	}
	return min(a.size, kw+int64(len("stream"))+1+max(0, n))
}
