package sources

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/textnorm"

	"github.com/researchctx/researchctx/internal/safefs"
)

// unit is one searchable piece of a source: a text file, a PDF page, a
// PAPER.md or NOTES.md. Its key in the index is its position.
type unit struct {
	Loc   Location
	Title string
	Text  string
}

// unitIndex is the search index of one source over its units.
type unitIndex struct {
	units []unit
	ix    *index.Index
}

func buildUnitIndex(units []unit) *unitIndex {
	var b unitBuilder
	if err := b.add(units...); err != nil {
		// Only an index past 2³² positions fails; keep what fits.
		return b.index()
	}
	return b.index()
}

// unitBuilder indexes units as they come.
type unitBuilder struct {
	units []unit
	b     index.Builder
}

func (u *unitBuilder) add(units ...unit) error {
	for _, un := range units {
		if err := u.addTokenized(un, tokenize(un)); err != nil {
			return err
		}
	}
	return nil
}

// tokenize prepares a unit for addTokenized; it may run on any goroutine.
func tokenize(un unit) index.Tokenized {
	return index.Tokenize(index.Doc{Key: unitKey(un.Loc), Title: un.Title, Body: bodyAfterTitle(un.Text, un.Title)})
}

func (u *unitBuilder) addTokenized(un unit, t index.Tokenized) error {
	if err := u.b.AddTokenized(t); err != nil {
		return err
	}
	u.units = append(u.units, un)
	return nil
}

func (u *unitBuilder) index() *unitIndex {
	return &unitIndex{units: u.units, ix: u.b.Index()}
}

// bodyAfterTitle drops the text's first line when it is the title, so the
// title is weighted once, as a title, not again as body text.
func bodyAfterTitle(text, title string) string {
	if title == "" {
		return text
	}
	rest := strings.TrimLeft(text, " \t\r\n")
	line, after, _ := strings.Cut(rest, "\n")
	if firstLine(line) == title {
		return after
	}
	return text
}

// maxUnitBytes bounds the text of one search unit. A longer unit (a file
// without headings, a one-line PAPER.md, a huge section) is split into
// pieces of at most this size, cut at a line, sentence or word end, so that
// tokenising a unit and picking a hit's passage from it cost time and
// memory bounded by the piece, not by the file.
const maxUnitBytes = 64 << 10

// splitUnits returns units with every unit above maxUnitBytes split into
// pieces with the same location.
func splitUnits(units []unit) []unit {
	n := 0
	for _, u := range units {
		n += len(u.Text)/maxUnitBytes + 1
	}
	if n == len(units) {
		return units
	}
	out := make([]unit, 0, n)
	for _, u := range units {
		for len(u.Text) > maxUnitBytes {
			cut := pieceEnd(u.Text, maxUnitBytes)
			piece := u
			piece.Text = u.Text[:cut]
			out = append(out, piece)
			u.Text = u.Text[cut:]
		}
		if u.Text != "" {
			out = append(out, u)
		}
	}
	return out
}

// pieceEnd returns where to cut the first piece of s, at most max bytes
// long: after its last line break, else sentence end, else space in the
// second half, else on a character boundary.
func pieceEnd(s string, max int) int {
	head := s[:max]
	if i := strings.LastIndexByte(head, '\n'); i >= max/2 {
		return i + 1
	}
	if i := strings.LastIndex(head, ". "); i >= max/2 {
		return i + 2
	}
	if i := strings.LastIndexByte(head, ' '); i >= max/2 {
		return i + 1
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return cut
}

func unitKey(l Location) string {
	if l.Page > 0 {
		return fmt.Sprintf("%s#page=%06d", l.Path, l.Page)
	}
	return l.Path + "#" + l.Section
}

// search ranks the units for q and picks each hit's excerpt.
func (u *unitIndex) search(q Query) *Results {
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	hits, total := u.ix.Search(q.Text, limit)
	res := &Results{Total: total, Hits: make([]Hit, 0, len(hits))}
	for _, h := range hits {
		un := u.units[h.Doc]
		hit := Hit{Location: un.Loc, Title: un.Title, Text: un.Text, Score: h.Norm}
		if q.ExcerptChars > 0 {
			s, e := u.ix.BestPassage(un.Text, q.Text, q.ExcerptChars)
			hit.Excerpt = un.Text[s:e]
		}
		res.Hits = append(res.Hits, hit)
	}
	return res
}

// indexCacheVersion changes whenever the cached form or what goes into
// units changes, so old cache files are rebuilt rather than misread.
const indexCacheVersion = 4

// indexCacheMagic starts every index cache file.
const indexCacheMagic = "RCTXUNI\x00"

// indexCache loads and stores unit indexes under a folder the SDK owns. A
// file is trusted only when its checksum, version and stamp match.
//
// The file holds what the index was built from (the stamp), every unit's
// location and title, the units' texts as one block (so loading slices one
// string instead of allocating thousands), the encoded index, and a CRC-32C
// of all of it: enough to detect a torn or damaged file, which is then
// rebuilt. The cache is not a security boundary: it lives in the private
// folder, and what it returns is text the grant already allows.
type indexCache struct {
	path string // "" when caching is off
}

// load returns the cached index for stamp, or nil.
func (c *indexCache) load(stamp string) *unitIndex {
	got, ui := c.read()
	if ui == nil || got != stamp {
		return nil
	}
	return ui
}

// read returns the cached index and the stamp it was built for, or nil.
func (c *indexCache) read() (string, *unitIndex) {
	if c.path == "" {
		return "", nil
	}
	dir, err := safefs.OpenDir(filepath.Dir(c.path), 0)
	if err != nil {
		return "", nil
	}
	body, err := dir.ReadSealed(filepath.Base(c.path), maxIndexCache)
	dir.Close()
	// Torn, corrupt, a link or not a regular file: rebuild, never trust.
	if err != nil || len(body) < len(indexCacheMagic)+4 || string(body[:len(indexCacheMagic)]) != indexCacheMagic {
		return "", nil
	}
	d := cacheDecoder{b: body[len(indexCacheMagic):]}
	if d.uvarint() != indexCacheVersion {
		return "", nil
	}
	stamp := d.str()
	n := d.count(6)
	units := make([]unit, n)
	lens := make([]int, n)
	for i := range units {
		u := &units[i]
		u.Loc.Path, u.Loc.Label, u.Loc.Section, u.Loc.Region = d.str(), d.str(), d.str(), d.str()
		u.Loc.Page = int(d.uvarint())
		u.Title = d.str()
		lens[i] = d.count(1)
	}
	// Every unit's text is a substring of one string over the file's bytes:
	// no copy, and data is never written to after this point.
	texts := d.view()
	for i, off := range lens {
		if d.err != nil || off > len(texts) {
			return "", nil
		}
		units[i].Text, texts = texts[:off], texts[off:]
	}
	ixData := d.rest()
	if d.err != nil {
		return "", nil
	}
	ix, err := index.Read(bytes.NewReader(ixData))
	if err != nil || ix.Len() != len(units) {
		return "", nil
	}
	return stamp, &unitIndex{units: units, ix: ix}
}

// store writes the index atomically (temporary file, then rename), so
// concurrent processes see either the old file or the new one.
func (c *indexCache) store(stamp string, u *unitIndex) error {
	if c.path == "" {
		return nil
	}
	var ixb bytes.Buffer
	if _, err := u.ix.WriteTo(&ixb); err != nil {
		return err
	}
	b := []byte(indexCacheMagic)
	b = binary.AppendUvarint(b, indexCacheVersion)
	b = appendStr(b, stamp)
	b = binary.AppendUvarint(b, uint64(len(u.units)))
	textLen := 0
	for _, un := range u.units {
		for _, f := range []string{un.Loc.Path, un.Loc.Label, un.Loc.Section, un.Loc.Region} {
			b = appendStr(b, f)
		}
		b = binary.AppendUvarint(b, uint64(un.Loc.Page))
		b = appendStr(b, un.Title)
		b = binary.AppendUvarint(b, uint64(len(un.Text)))
		textLen += len(un.Text)
	}
	b = binary.AppendUvarint(b, uint64(textLen))
	for _, un := range u.units {
		b = append(b, un.Text...)
	}
	b = append(b, ixb.Bytes()...)
	dir, err := safefs.OpenDir(filepath.Dir(c.path), safefs.Create)
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.WriteSealed(filepath.Base(c.path), b)
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// cacheDecoder reads the cache file's fields, checking every length against
// the bytes left.
type cacheDecoder struct {
	b   []byte
	err error
}

func (d *cacheDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a count of items of at least min bytes each.
func (d *cacheDecoder) count(min int) int {
	v := d.uvarint()
	if v > uint64(len(d.b)/min) {
		d.err = errors.New("count out of range")
		return 0
	}
	return int(v)
}

func (d *cacheDecoder) str() string {
	n := d.count(1)
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// view is str without a copy: the string aliases the decoder's bytes.
func (d *cacheDecoder) view() string {
	n := d.count(1)
	if d.err != nil || n == 0 {
		return ""
	}
	s := unsafe.String(&d.b[0], n)
	d.b = d.b[n:]
	return s
}

func (d *cacheDecoder) rest() []byte {
	b := d.b
	d.b = nil
	return b
}

// maxIndexCache bounds an index cache file read back.
const maxIndexCache = 1 << 30

// stampOf hashes what a source's index depends on.
func stampOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lazyIndex builds a source's index on first use and rebuilds it when the
// source's stamp changes. Searches share one build.
type lazyIndex struct {
	cache indexCache
	mu    sync.Mutex
	stamp string
	ui    *unitIndex
}

// get returns the index for the current stamp, from memory, the disk cache,
// or by calling build.
func (l *lazyIndex) get(ctx context.Context, stamp string, build func(context.Context) ([]unit, error)) (*unitIndex, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ui != nil && l.stamp == stamp {
		return l.ui, nil
	}
	if ui := l.cache.load(stamp); ui != nil {
		l.ui, l.stamp = ui, stamp
		return ui, nil
	}
	units, err := build(ctx)
	if err != nil {
		return nil, err
	}
	ui := buildUnitIndex(units)
	// A cache that cannot be written costs speed, not correctness.
	_ = l.cache.store(stamp, ui)
	l.ui, l.stamp = ui, stamp
	return ui, nil
}

// cacheName turns a source identity into a cache file name.
func cacheName(kind Kind, ref string) string {
	sum := sha256.Sum256([]byte(string(kind) + "\x00" + ref))
	return hex.EncodeToString(sum[:12]) + ".idx"
}

// firstLine returns the first non-empty line of text without Markdown
// heading marks, at most 200 characters: a text file's title.
func firstLine(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		// Only the start of a long line can become the title: do not
		// fold megabytes to keep 200 characters.
		line = strings.TrimLeft(line, " \t\r")
		if len(line) > 4*maxTitle {
			cut := 4 * maxTitle
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			line = line[:cut]
		}
		line = textnorm.Line(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" {
			line, _ = textnorm.Truncate(line, maxTitle)
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// maxTitle is the longest title, in characters, taken from a file's first
// line.
const maxTitle = 200
