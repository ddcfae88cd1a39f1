// Package pdfcache keeps the text layer that package pdf extracts on disk,
// one entry per PDF named by its content's SHA-256 and pdf.Version, so
// that a later process reads a page back without extracting the file
// again, and a file that failed fails again at no cost. It owns the
// entry's format: a checksummed header, then one binary record per page
// (text, lines and their gaps, the researcher's marks) built from package
// pdf's exported types. Sources with PDFs (sources/vault, sources/zotero)
// give it a folder of their cache; internal/ocrpages names its own entries
// by the Sum this package keeps.
package pdfcache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/safefs"
)

// Cache keeps extracted documents on disk, one file per document keyed
// by the PDF's SHA-256 and pdf.Version, so that a page is read back in
// well under a millisecond. Dir is chosen by the caller (the SDK uses a folder under
// the vault's .agentero/cache); it is created when missing.
//
// A document that fails (malformed, encrypted, or over a limit, including
// pdf.Options.Timeout) is remembered the same way, so that no later process
// pays for it again: the same error comes back until the file changes, or
// until the cache is asked with larger Options than the failure was
// recorded under. A caller's context that ends (pdf.ErrTimeout) and errors
// reading the file are not remembered.
//
// Each entry holds a checksummed header (document metadata and the offset
// and checksum of every page) followed by the pages. Writes go to a
// temporary file that is renamed into place, so concurrent processes never
// see a partial entry; an entry that fails its checksums is rebuilt, never
// trusted. A small per-path record maps (path, size, modification time) to
// the SHA-256, so an unchanged file is not hashed again.
type Cache struct {
	Dir       string
	Extractor pdf.Extractor // nil: pdf.Native
	Options   *pdf.Options  // passed to the extractor
}

// FileInfo identifies a file for the cache's fast path. Path may be empty,
// in which case the file is always hashed.
type FileInfo struct {
	Path    string
	Size    int64
	ModTime time.Time
	// ID is the file's identity on this machine as the caller's stat
	// reported it (safefs.FileID: device, inode, change time). The path
	// record is used only for the very file it was written for: a record
	// without it, or a record copied from elsewhere or forged to point
	// the path at another document's text, does not match, and the file
	// is hashed. Empty on platforms without one; the record then matches
	// on path, size and time alone.
	ID string
}

// Opener opens the file to extract. The cache calls it at most once per
// call, only when the file must be hashed or extracted.
type Opener func() (r io.ReaderAt, size int64, closer io.Closer, err error)

// ErrCorrupt reports a cache entry that failed its checksums. The Cache
// methods remove and rebuild such an entry; the error surfaces only
// when the rebuilt entry fails again (a disk that keeps corrupting it).
var ErrCorrupt = errors.New("pdf: corrupt cache entry")

const cacheMagic = "RCPDFC01"

type cacheHeader struct {
	Version   int
	SHA256    string
	Labels    []string          `json:",omitempty"`
	Outline   []pdf.OutlineItem `json:",omitempty"`
	Title     string            `json:",omitempty"`
	Authors   []string          `json:",omitempty"`
	InfoTitle string            `json:",omitempty"`
	// XMP is a record after the pages rather than part of the header:
	// every page read decodes the header, and none needs the packet.
	XMP   *cachePageRef `json:",omitempty"`
	Pages []cachePageRef
	// Failure, when set, is why the document could not be extracted;
	// the entry then has no pages.
	Failure *cacheFailure `json:",omitempty"`
}

// cacheFailure is a remembered extraction failure and the Options it
// happened under.
type cacheFailure struct {
	Kind     string // the sentinel's message (see errKind)
	Msg      string
	Limit    pdf.Limit `json:",omitempty"`
	Max      int64     `json:",omitempty"`
	Page     int       `json:",omitempty"`
	MaxBytes int64
	Timeout  time.Duration
	MaxPages int
}

// err rebuilds the failure as an error that matches the original with
// errors.Is, and with errors.As for a *LimitError.
func (f *cacheFailure) err() error {
	if f.Limit != "" {
		return fmt.Errorf("%w (remembered)", &pdf.LimitError{Limit: f.Limit, Max: f.Max, Page: f.Page})
	}
	return fmt.Errorf("%w (remembered): %s", kindErr(f.Kind), f.Msg)
}

// appliesTo reports whether the failure stands under o: it does unless o
// allows more than the failure was recorded with.
func (f *cacheFailure) appliesTo(o pdf.Options) bool {
	return o.MaxBytes <= f.MaxBytes && o.Timeout <= f.Timeout && o.MaxPages <= f.MaxPages
}

// remembered reports whether an extraction error is a property of the file
// (under the Options used), which the cache keeps.
func remembered(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, pdf.ErrTimeout) {
		return false
	}
	return errors.Is(err, pdf.ErrMalformed) || errors.Is(err, pdf.ErrEncrypted) || errors.Is(err, pdf.ErrTooLarge)
}

// usableEntry is entry with a remembered failure returned as its error.
// A failure recorded under smaller Options than c's does not stand: its
// entry is removed and the document extracted again.
func (c *Cache) usableEntry(ctx context.Context, key FileInfo, open Opener) (*cacheEntry, error) {
	for attempt := 0; ; attempt++ {
		e, err := c.entry(ctx, key, open)
		if err != nil {
			return nil, err
		}
		f := e.hdr.Failure
		if f == nil {
			return e, nil
		}
		if attempt > 0 || f.appliesTo(c.Options.WithDefaults()) {
			e.close()
			return nil, f.err()
		}
		e.remove()
		e.close()
	}
}

// writeFailure records that the document sum failed with err.
func (c *Cache) writeFailure(d *safefs.Dir, sum string, err error) error {
	o := c.Options.WithDefaults()
	f := &cacheFailure{Kind: errKind(err), Msg: err.Error(), MaxBytes: o.MaxBytes, Timeout: o.Timeout, MaxPages: o.MaxPages}
	var le *pdf.LimitError
	if errors.As(err, &le) {
		f.Limit, f.Max, f.Page = le.Limit, le.Max, le.Page
	}
	out, err := encodeHeader(cacheHeader{Version: pdf.Version, SHA256: sum, Failure: f}, 0)
	if err != nil {
		return err
	}
	return writeAtomic(d, c.entryPath(sum), out.Bytes())
}

// encodeHeader starts an entry: magic, header length, header checksum and
// header; the page records, bodyLen bytes, follow.
func encodeHeader(hdr cacheHeader, bodyLen int) (*bytes.Buffer, error) {
	hb, err := json.Marshal(hdr)
	if err != nil {
		return nil, fmt.Errorf("pdf: encoding cache entry: %w", err)
	}
	hs := sha256.Sum256(hb)
	var out bytes.Buffer
	out.Grow(len(cacheMagic) + 4 + 32 + len(hb) + bodyLen)
	out.WriteString(cacheMagic)
	binary.Write(&out, binary.BigEndian, uint32(len(hb)))
	out.Write(hs[:])
	out.Write(hb)
	return &out, nil
}

type cachePageRef struct {
	Off, Len int64
	Sum      string // hex SHA-256 of the page record
}

type pathRecord struct {
	Path    string
	Size    int64
	ModTime int64
	SHA256  string
	ID      string `json:",omitempty"` // FileInfo.ID
}

// Extract returns the document of the file, from the cache when an entry
// for its content exists, else by extracting it and storing the result.
func (c *Cache) Extract(ctx context.Context, key FileInfo, open Opener) (*pdf.Document, error) {
	for attempt := 0; ; attempt++ {
		e, err := c.usableEntry(ctx, key, open)
		if err != nil {
			return nil, err
		}
		d, err := e.document() // removes the entry when a page is corrupt
		e.close()
		if err == nil || attempt > 0 || !errors.Is(err, ErrCorrupt) {
			return d, err
		}
	}
}

// Page returns page n (1-based) of the file, reading only that page from
// the cache entry when one exists.
func (c *Cache) Page(ctx context.Context, key FileInfo, open Opener, n int) (*pdf.Page, error) {
	e, err := c.usableEntry(ctx, key, open)
	if err != nil {
		return nil, err
	}
	defer e.close()
	if n < 1 || n > len(e.hdr.Pages) {
		return nil, fmt.Errorf("pdf: page %d out of range 1..%d", n, len(e.hdr.Pages))
	}
	p, err := e.page(n)
	if err != nil && errors.Is(err, ErrCorrupt) {
		// Corrupt page record: rebuild the entry once.
		e.remove()
		e.close()
		if e, err = c.usableEntry(ctx, key, open); err != nil {
			return nil, err
		}
		defer e.close()
		if n > len(e.hdr.Pages) {
			return nil, fmt.Errorf("pdf: page %d out of range 1..%d", n, len(e.hdr.Pages))
		}
		return e.page(n)
	}
	return p, nil
}

// Sum returns the SHA-256 of the file's content in lower-case hex, the
// name of its entry: from the path record when the record holds for the
// very file key describes, else by hashing the file, which records it.
// Other caches tie what they keep of a file to its content through it.
func (c *Cache) Sum(ctx context.Context, key FileInfo, open Opener) (string, error) {
	d, err := c.OpenDir()
	if err != nil {
		return "", err
	}
	defer d.Close()
	return c.SumIn(ctx, d, key, open)
}

// OpenDir opens the cache's folder for SumIn: a caller that asks for the
// sums of several files (a search's hits) opens it once, not once a file.
// Close it when done.
func (c *Cache) OpenDir() (*safefs.Dir, error) {
	if c.Dir == "" {
		return nil, errors.New("pdf: Cache.Dir is empty")
	}
	return c.openDir()
}

// SumIn is Sum within d, the cache's folder as OpenDir opened it.
func (c *Cache) SumIn(ctx context.Context, d *safefs.Dir, key FileInfo, open Opener) (string, error) {
	if key.Path != "" {
		if rec, ok := c.readPathRecord(d, key); ok {
			return rec.SHA256, nil
		}
	}
	r, size, closer, err := open()
	if err != nil {
		return "", err
	}
	if closer != nil {
		defer closer.Close()
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size)); err != nil {
		return "", fmt.Errorf("pdf: hashing: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	c.writePathRecord(d, key, sum)
	return sum, nil
}

// entry returns an open, verified cache entry for the file, building it
// when needed.
func (c *Cache) entry(ctx context.Context, key FileInfo, open Opener) (*cacheEntry, error) {
	if c.Dir == "" {
		return nil, errors.New("pdf: Cache.Dir is empty")
	}
	d, err := c.openDir()
	if err != nil {
		return nil, err
	}
	// A returned entry owns d (to remove itself when found corrupt).
	var e *cacheEntry
	defer func() {
		if e == nil {
			d.Close()
		}
	}()
	sum := ""
	if key.Path != "" {
		if rec, ok := c.readPathRecord(d, key); ok {
			sum = rec.SHA256
		}
	}
	if sum != "" {
		if e, err = openEntry(d, c.entryPath(sum), sum); err == nil {
			return e, nil
		}
	}
	r, size, closer, err := open()
	if err != nil {
		return nil, err
	}
	if closer != nil {
		defer closer.Close()
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size)); err != nil {
		return nil, fmt.Errorf("pdf: hashing: %w", err)
	}
	sum = hex.EncodeToString(h.Sum(nil))
	if e, err = openEntry(d, c.entryPath(sum), sum); err == nil {
		c.writePathRecord(d, key, sum)
		return e, nil
	}
	ext := c.Extractor
	if ext == nil {
		ext = pdf.Native{}
	}
	doc, err := ext.Extract(ctx, r, size, c.Options)
	if err != nil {
		if remembered(ctx, err) && c.writeFailure(d, sum, err) == nil {
			c.writePathRecord(d, key, sum)
		}
		return nil, err
	}
	if err := c.write(d, sum, doc); err != nil {
		return nil, err
	}
	c.writePathRecord(d, key, sum)
	e, err = openEntry(d, c.entryPath(sum), sum)
	return e, err
}

// openDir opens Dir through the safe file layer: no symbolic link from
// .agentero down, missing folders created 0700. The first open of a folder
// in a process removes the temporary files that writers killed before
// their rename left there (safefs.Dir.RemoveStaleTemps).
func (c *Cache) openDir() (*safefs.Dir, error) {
	dir, err := filepath.Abs(c.Dir)
	if err == nil {
		var d *safefs.Dir
		if d, err = safefs.OpenDir(dir, safefs.Create); err == nil {
			if _, done := swept.LoadOrStore(dir, true); !done {
				d.RemoveStaleTemps()
			}
			return d, nil
		}
	}
	return nil, fmt.Errorf("pdf: cache: %w", err)
}

// isSum reports whether s is a SHA-256 in lower-case hex, as entry names
// are made from.
func isSum(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// swept holds the cache folders this process has swept of stale
// temporary files.
var swept sync.Map

// entryPath and pathRecordPath name files relative to Dir.
func (c *Cache) entryPath(sum string) string {
	return fmt.Sprintf("v%d/%s/%s.pdfc", pdf.Version, sum[:2], sum)
}

func (c *Cache) pathRecordPath(path string) string {
	h := sha256.Sum256([]byte(path))
	return "paths/" + hex.EncodeToString(h[:16]) + ".json"
}

// maxPathRecord bounds a path record read back; a real one is a few
// hundred bytes.
const maxPathRecord = 64 << 10

func (c *Cache) readPathRecord(d *safefs.Dir, key FileInfo) (pathRecord, bool) {
	var rec pathRecord
	b, err := d.ReadFile(c.pathRecordPath(key.Path), maxPathRecord)
	if err != nil || json.Unmarshal(b, &rec) != nil {
		return rec, false
	}
	// The record is a file in a folder others may write into (a synced or
	// unpacked Vault): it counts only for the file the caller just stat'ed,
	// so it cannot send a path to another document's entry.
	ok := rec.Path == key.Path && rec.Size == key.Size && rec.ModTime == key.ModTime.UnixNano() &&
		rec.ID == key.ID && isSum(rec.SHA256)
	return rec, ok
}

func (c *Cache) writePathRecord(d *safefs.Dir, key FileInfo, sum string) {
	if key.Path == "" || key.ModTime.IsZero() {
		return
	}
	b, err := json.Marshal(pathRecord{key.Path, key.Size, key.ModTime.UnixNano(), sum, key.ID})
	if err == nil {
		_ = writeAtomic(d, c.pathRecordPath(key.Path), b) // only a shortcut: failure costs a hash later
	}
}

// write stores doc as the entry for sum.
func (c *Cache) write(d *safefs.Dir, sum string, doc *pdf.Document) error {
	hdr := cacheHeader{Version: pdf.Version, SHA256: sum, Labels: doc.Labels, Outline: doc.Outline,
		Title: doc.Title, Authors: doc.Authors, InfoTitle: doc.InfoTitle}
	// Each page is encoded twice, once for its record's length and
	// checksum and once into the entry, so that the entry is the one copy
	// of the document's text in memory beside the Document.
	bodyLen := 0
	record := func(b []byte) cachePageRef {
		s := sha256.Sum256(b)
		ref := cachePageRef{Off: int64(bodyLen), Len: int64(len(b)), Sum: hex.EncodeToString(s[:])}
		bodyLen += len(b)
		return ref
	}
	for i := range doc.Pages {
		hdr.Pages = append(hdr.Pages, record(encodePage(&doc.Pages[i])))
	}
	if len(doc.XMP) > 0 {
		ref := record(doc.XMP)
		hdr.XMP = &ref
	}
	out, err := encodeHeader(hdr, bodyLen)
	if err != nil {
		return err
	}
	for i := range doc.Pages {
		out.Write(encodePage(&doc.Pages[i]))
	}
	out.Write(doc.XMP)
	return writeAtomic(d, c.entryPath(sum), out.Bytes())
}

// writeAtomic writes data to the file name of d atomically (see
// safefs.Dir.WriteFile), so readers see either the old file or the whole
// new one.
func writeAtomic(d *safefs.Dir, name string, data []byte) error {
	if err := d.WriteFile(name, data); err != nil {
		return fmt.Errorf("pdf: cache: %w", err)
	}
	return nil
}

// cacheEntry is an open entry whose header has been verified.
type cacheEntry struct {
	f    *safefs.File
	dir  *safefs.Dir // open while the entry is; closed by close
	name string      // the entry's name in dir
	hdr  cacheHeader
	body int64 // offset of the first page record
}

// openEntry opens and verifies the header of the entry at path. A corrupt
// entry is removed, so that the caller rebuilds it.
func openEntry(d *safefs.Dir, name, sum string) (*cacheEntry, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	e, err := readHeader(f, sum)
	if err != nil {
		f.Close()
		if errors.Is(err, ErrCorrupt) {
			d.Remove(name)
		}
		return nil, err
	}
	e.dir, e.name = d, name
	return e, nil
}

// remove removes the entry's file, so that it is rebuilt.
func (e *cacheEntry) remove() {
	if e.dir != nil {
		e.dir.Remove(e.name)
	}
}

func readHeader(f *safefs.File, sum string) (*cacheEntry, error) {
	var pre [len(cacheMagic) + 4 + 32]byte
	if _, err := io.ReadFull(f, pre[:]); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if string(pre[:len(cacheMagic)]) != cacheMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	n := binary.BigEndian.Uint32(pre[len(cacheMagic):])
	if n > 64<<20 {
		return nil, fmt.Errorf("%w: header length %d", ErrCorrupt, n)
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(f, hb); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if s := sha256.Sum256(hb); !bytes.Equal(s[:], pre[len(cacheMagic)+4:]) {
		return nil, fmt.Errorf("%w: header checksum", ErrCorrupt)
	}
	e := &cacheEntry{f: f, body: int64(len(pre)) + int64(n)}
	if err := json.Unmarshal(hb, &e.hdr); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if e.hdr.Version != pdf.Version || e.hdr.SHA256 != sum {
		return nil, fmt.Errorf("%w: entry is for another version or file", ErrCorrupt)
	}
	// The extraction limits bound what an entry holds; one that claims
	// more was not written by this package, and reading it back is not
	// paid for.
	total := int64(0)
	for _, ref := range e.hdr.Pages {
		total += max(0, ref.Len)
	}
	if total > pdf.MaxDocumentText+int64(len(e.hdr.Pages))*maxRecordExtra {
		return nil, fmt.Errorf("%w: pages of %d bytes", ErrCorrupt, total)
	}
	return e, nil
}

// maxRecordExtra is what a page record holds beyond its text and lines
// (see textSize): its numbers, and its error message, which a page's
// limits do not count.
const maxRecordExtra = 64 << 10

func (e *cacheEntry) close() {
	if e != nil && e.f != nil {
		e.f.Close()
		e.f = nil
	}
	if e != nil && e.dir != nil {
		e.dir.Close()
		e.dir = nil
	}
}

// record reads and verifies the body record ref, named what in errors.
func (e *cacheEntry) record(ref cachePageRef, what string) ([]byte, error) {
	if ref.Len < 0 || ref.Len > max(pdf.MaxPageText, pdf.MaxXMPBytes)+maxRecordExtra || ref.Off < 0 {
		return nil, fmt.Errorf("%w: %s record", ErrCorrupt, what)
	}
	b := make([]byte, ref.Len)
	if _, err := e.f.ReadAt(b, e.body+ref.Off); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, what, err)
	}
	s := sha256.Sum256(b)
	if hex.EncodeToString(s[:]) != ref.Sum {
		return nil, fmt.Errorf("%w: %s checksum", ErrCorrupt, what)
	}
	return b, nil
}

// page reads and verifies page n.
func (e *cacheEntry) page(n int) (*pdf.Page, error) {
	b, err := e.record(e.hdr.Pages[n-1], "page "+strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	p, err := decodePage(b)
	if err != nil {
		return nil, fmt.Errorf("%w: page %d: %v", ErrCorrupt, n, err)
	}
	return p, nil
}

// document reads every page.
func (e *cacheEntry) document() (*pdf.Document, error) {
	d := &pdf.Document{Labels: e.hdr.Labels, Outline: e.hdr.Outline, Title: e.hdr.Title, Authors: e.hdr.Authors, InfoTitle: e.hdr.InfoTitle}
	if e.hdr.XMP != nil {
		b, err := e.record(*e.hdr.XMP, "XMP")
		if err != nil {
			e.remove()
			return nil, err
		}
		d.XMP = b
	}
	d.Pages = make([]pdf.Page, len(e.hdr.Pages))
	for i := range e.hdr.Pages {
		p, err := e.page(i + 1)
		if err != nil {
			e.remove()
			return nil, err
		}
		d.Pages[i] = *p
	}
	return d, nil
}
