package catalog

import (
	"encoding/binary"
	"errors"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/safefs"
)

// catalogueCacheVersion changes whenever the cached form or the rules that
// build a catalogue change, so an old file is rebuilt, never misread.
// Version 5 wrote each stamp and paper as its own value and marked folder
// stamps, so that a read can check every one before it keeps it, and
// counted a folder holding a PDF named after it as a paper. Version 6
// writes the same values in a compact binary form (see encodeCatalogue)
// in place of gob, which took a new process tens of milliseconds of
// reflection to read back at 10,000 papers. Version 7 adds the titles
// learnt of PDFs after the papers (see LearnTitle).
const catalogueCacheVersion = 7

// The on-disk form of a Catalogue (see encodeCatalogue): a cacheHead,
// then cacheHead.Stamps stamps, then cacheHead.Papers papers, then the
// titles learnt of PDFs when there are any (see appendTitles), sealed by
// safefs.Dir.WriteSealed.
type cacheHead struct {
	Version        int
	Stamps, Papers int
}

type cachedPaper struct {
	Ref, PDF          string
	Meta              Metadata
	MetaErr           string
	HasNotes, HasBody bool
	Heading           string
}

type cachedStamp struct {
	Path  string
	MTime time.Time
	Size  int64
	Dir   bool
}

// cacheFile is the catalogue cache's name in its folder.
const cacheFile = "catalogue.bin"

// oldCacheFile is the name versions up to 5 wrote their gob stream to: a
// process that writes the cache removes it.
const oldCacheFile = "catalogue.gob"

// maxCache bounds the catalogue cache read back: far above a library of a
// hundred thousand papers, far below what would strain a process.
const maxCache = 256 << 20

// maxCacheValue bounds the bytes one stamp or paper may take in the cache
// file: a paper holds what its metadata.json (read up to 1 MiB) and its
// PAPER.md heading gave, so a value is cut off before it can cost more.
const maxCacheValue = 3 << 19 // 1.5 MiB

// cacheSlack is what the decoded catalogue may take in memory beyond twice
// the file's size (see footprint) before the file is taken for a forged
// one and the catalogue rebuilt.
const cacheSlack = 64 << 20

// Smallest encodings of a stamp (a path of one byte, seconds, nanoseconds,
// size, flags) and of a paper (a ref of one byte, eleven empty strings or
// lists, the year and the flags): they bound the counts a head may claim
// before anything is allocated for them.
const (
	minStampBytes = 2 + 1 + 1 + 1 + 1
	minPaperBytes = 2 + 11 + 1 + 1
)

// maxCacheHint bounds the room made ahead for stamps, above what 100,000
// papers take; a larger catalogue grows its lists as they are read.
const maxCacheHint = 1 << 18

// cacheDir returns the folder of the catalogue cache, or "" when caching
// is off.
func (v *Vault) cacheDir() string {
	switch v.opts.CacheDir {
	case "-":
		return ""
	case "":
		return filepath.Join(v.root, agentero.Cache)
	}
	dir, err := filepath.Abs(v.opts.CacheDir)
	if err != nil {
		return ""
	}
	return dir
}

// loadCache reads the catalogue a previous process wrote, through the safe
// file layer (no links, a regular file, a non-blocking open), and returns
// it only when it is still fresh and every mapping in it holds on the file
// system now (see decodeCatalogue). Anything damaged, unsafe, stale, of
// another version or that does not hold is ignored: the caller builds
// instead. With Options.CheckPapersLater, only the folders that hold no
// paper are checked now, and the stamps left to check are returned with
// the catalogue (see splitStamps).
func (v *Vault) loadCache() (*Catalogue, []stamp) {
	dir := v.cacheDir()
	if dir == "" {
		return nil, nil
	}
	d, err := safefs.OpenDir(dir, 0)
	if err != nil {
		return nil, nil
	}
	defer d.Close()
	d.RemoveStaleTemps()
	body, err := d.ReadSealed(cacheFile, maxCache)
	if err != nil {
		return nil, nil
	}
	if !v.opts.CheckPapersLater {
		return decodeCatalogue(v.root, body), nil
	}
	c, pdfs := parseCatalogue(body)
	if c == nil {
		return nil, nil
	}
	now, later := c.splitStamps()
	if !allFresh(v.root, now) {
		return nil, nil
	}
	return c, append(later, pdfs...)
}

// splitStamps parts the catalogue's stamps into those of the folders that
// hold no paper (papers/ and the folders between it and the papers, few
// even in a large library), whose times change when a paper is added,
// removed or moved, and the rest: the papers' own folders and metadata
// files and the folders inside papers.
func (c *Catalogue) splitStamps() (now, later []stamp) {
	later = make([]stamp, 0, len(c.stamps)+len(c.papers))
	for _, s := range c.stamps {
		if s.dir && c.byRef[s.path] == nil && c.PaperOf(s.path) == nil {
			now = append(now, s)
		} else {
			later = append(later, s)
		}
	}
	return now, later
}

// decodeCatalogue decodes a cached catalogue of the Vault at root, or
// returns nil. The cache is a file in a folder that sync tools, archives
// and other machines may write into, so it is trusted for nothing the file
// system can say:
//
//   - Its stamps (the folders and metadata files it was built from) are
//     clean paths under papers/, each once, at least one, and all must
//     match an Lstat now (fresh).
//   - Each paper is a folder one of those stamps names as a folder, once;
//     its PDF lies inside that folder, ends in .pdf and is a regular file
//     now (an Lstat). So a forged cache cannot map a paper to a file
//     outside it, say a granted paper to private/secret.pdf.
//   - Each value is read within maxCacheValue bytes, names and tags are
//     not empty, the counts in the head fit the file, and the decoded
//     catalogue takes at most twice the file's size plus cacheSlack, so a
//     small forged file cannot cost gigabytes.
//
// The decoded strings share one copy of body, made once.
func decodeCatalogue(root string, body []byte) *Catalogue {
	c, pdfs := parseCatalogue(body)
	// Nothing in the file is taken before the file system confirms it:
	// every stamp, and that every paper's PDF is a regular file.
	if c == nil || !allFresh(root, append(pdfs, c.stamps...)) {
		return nil
	}
	return c
}

// parseCatalogue is decodeCatalogue without the file system's check: it
// returns the catalogue body holds, with every check of its form done,
// and the stamps of its papers' PDFs (each only a regular file), or nil.
func parseCatalogue(body []byte) (*Catalogue, []stamp) {
	d := cacheDecoder{s: string(body)}
	d.value()
	head := cacheHead{Version: d.int(), Stamps: d.int(), Papers: d.int()}
	if !d.ok() || head.Version != catalogueCacheVersion || head.Stamps < 1 || head.Papers < 0 ||
		head.Papers > head.Stamps || head.Stamps > len(body)/minStampBytes || head.Papers > len(body)/minPaperBytes {
		return nil, nil
	}
	// What the head's counts cost is taken from the budget before
	// anything is made for them: a stamp's 64 bytes (its path's are
	// counted as it is read) and a Paper each.
	budget := 2*int64(len(body)) + cacheSlack
	if budget -= int64(head.Stamps)*64 + int64(head.Papers)*int64(unsafe.Sizeof(Paper{})); budget < 0 {
		return nil, nil
	}
	c := newCatalogue()
	hint := min(head.Stamps, maxCacheHint)
	c.stamps = make([]stamp, 0, hint)
	isDir := make(map[string]bool, hint)
	for range head.Stamps {
		d.value()
		s := stamp{path: d.str()}
		sec, nsec := d.varint(), d.uvarint()
		s.size = d.varint()
		s.dir = d.flags(1) == 1
		if !d.ok() || nsec >= 1e9 || !stampPath(s.path) {
			return nil, nil
		}
		s.mtime = time.Unix(sec, int64(nsec))
		if _, dup := isDir[s.path]; dup {
			return nil, nil
		}
		isDir[s.path] = s.dir
		if budget -= int64(len(s.path)); budget < 0 {
			return nil, nil
		}
		c.stamps = append(c.stamps, s)
	}
	// The papers are laid out side by side: one allocation, not one each.
	slab := make([]Paper, head.Papers)
	c.papers = make([]*Paper, 0, head.Papers)
	pdfs := make([]stamp, 0, min(head.Papers, maxCacheHint))
	for i := range slab {
		d.value()
		var cp cachedPaper
		cp.Ref, cp.PDF = d.str(), d.str()
		m := &cp.Meta
		m.Title, m.Authors, m.Year, m.Date, m.Abstract = d.str(), d.names(), d.int(), d.str(), d.str()
		m.DOI, m.ArXivID, m.Tags, m.Publication = d.str(), d.str(), d.names(), d.str()
		cp.MetaErr, cp.Heading = d.str(), d.str()
		f := d.flags(3)
		cp.HasNotes, cp.HasBody = f&1 != 0, f&2 != 0
		if !d.ok() || !isDir[cp.Ref] || c.byRef[cp.Ref] != nil || !paperHolds(&cp) {
			return nil, nil
		}
		if cp.PDF != "" {
			pdfs = append(pdfs, stamp{path: cp.PDF, file: true})
		}
		if budget -= footprint(&cp); budget < 0 {
			return nil, nil
		}
		p := &slab[i]
		*p = Paper{Ref: cp.Ref, PDF: cp.PDF, Meta: cp.Meta, HasNotes: cp.HasNotes, HasBody: cp.HasBody, heading: cp.Heading}
		if cp.MetaErr != "" {
			p.MetaErr = errors.New(cp.MetaErr)
		}
		p.DOI, p.ArXiv = cite.Identifiers(p.Meta.DOI, p.Meta.ArXivID)
		c.papers = append(c.papers, p)
		c.byRef[p.Ref] = p
	}
	titles, ok := parseTitles(&d, &budget)
	if !ok || len(d.s) != 0 || len(c.stamps) == 0 {
		return nil, nil // something after the last title, or no stamp
	}
	c.titles = titles
	c.index()
	return c, pdfs
}

// stampPath reports whether p can be a stamp of a catalogue: the Vault
// root (a Vault without papers/), papers/ or a clean path below it.
func stampPath(p string) bool {
	if p == "." {
		return true
	}
	clean, err := safefs.Clean(p)
	return err == nil && clean == p && (p == PapersDir || strings.HasPrefix(p, PapersDir+"/"))
}

// paperHolds reports whether a cached paper is one a walk could have
// found: a clean folder below papers/, and a PDF that is a clean path
// inside that folder, named .pdf (the caller checks that it is a regular
// file now). Names and tags must not be empty, as ParseMetadata never
// makes them.
func paperHolds(cp *cachedPaper) bool {
	if !stampPath(cp.Ref) || cp.Ref == PapersDir || cp.Ref == "." {
		return false
	}
	for _, list := range [][]string{cp.Meta.Authors, cp.Meta.Tags} {
		if slices.Contains(list, "") {
			return false
		}
	}
	if cp.PDF == "" {
		return true
	}
	clean, err := safefs.Clean(cp.PDF)
	return err == nil && clean == cp.PDF && strings.HasPrefix(cp.PDF, cp.Ref+"/") && strings.EqualFold(path.Ext(cp.PDF), ".pdf")
}

// footprint estimates the memory a decoded paper takes beyond the Paper
// itself (which decodeCatalogue counts for all papers at once): its
// strings and a header per string.
func footprint(cp *cachedPaper) int64 {
	n := int64(0)
	add := func(ss ...string) {
		for _, s := range ss {
			n += 16 + int64(len(s))
		}
	}
	m := &cp.Meta
	add(cp.Ref, cp.PDF, cp.MetaErr, cp.Heading, m.Title, m.Date, m.Abstract, m.DOI, m.ArXivID, m.Publication)
	add(m.Authors...)
	add(m.Tags...)
	return n
}

// encodeCatalogue lays out a catalogue cache: head, stamps and papers
// one after another, each a run of fields. A string is its length (a
// uvarint) and its bytes, a list of names its count and its strings, a
// number a varint (a count, a year, a size, a modification time's seconds)
// or a uvarint (the time's nanoseconds), and a stamp's or paper's booleans
// one byte of flags (a stamp: 1 for a folder; a paper: 1 for NOTES.md, 2
// for PAPER.md).
func encodeCatalogue(head cacheHead, stamps []cachedStamp, papers []cachedPaper) []byte {
	b := binary.AppendVarint(nil, int64(head.Version))
	b = binary.AppendVarint(b, int64(head.Stamps))
	b = binary.AppendVarint(b, int64(head.Papers))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, s := range stamps {
		str(s.Path)
		b = binary.AppendVarint(b, s.MTime.Unix())
		b = binary.AppendUvarint(b, uint64(s.MTime.Nanosecond()))
		b = binary.AppendVarint(b, s.Size)
		b = append(b, boolBits(s.Dir, false))
	}
	names := func(l []string) {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, s := range l {
			str(s)
		}
	}
	for _, p := range papers {
		m := &p.Meta
		str(p.Ref)
		str(p.PDF)
		str(m.Title)
		names(m.Authors)
		b = binary.AppendVarint(b, int64(m.Year))
		str(m.Date)
		str(m.Abstract)
		str(m.DOI)
		str(m.ArXivID)
		names(m.Tags)
		str(m.Publication)
		str(p.MetaErr)
		str(p.Heading)
		b = append(b, boolBits(p.HasNotes, p.HasBody))
	}
	return b
}

func boolBits(a, b bool) byte {
	var f byte
	if a {
		f |= 1
	}
	if b {
		f |= 2
	}
	return f
}

// cacheDecoder reads the fields of a catalogue cache (see
// encodeCatalogue) from s, each value within maxCacheValue bytes (see
// value). Its strings are views of s. A field that does not fit sets bad,
// and every later field reads as zero.
type cacheDecoder struct {
	s    string
	left int // bytes the current value may still take
	bad  bool
}

// value starts a value: the next fields may take maxCacheValue bytes.
func (d *cacheDecoder) value() { d.left = maxCacheValue }

func (d *cacheDecoder) ok() bool { return !d.bad }

// take returns the next n bytes, or sets bad when the file or the value
// holds fewer.
func (d *cacheDecoder) take(n uint64) string {
	if d.bad || n > uint64(len(d.s)) || n > uint64(d.left) {
		d.bad = true
		return ""
	}
	v := d.s[:n]
	d.s, d.left = d.s[n:], d.left-int(n)
	return v
}

func (d *cacheDecoder) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c := d.take(1)
		if c == "" {
			return 0
		}
		if shift == 63 && c[0] > 1 {
			break // above 64 bits
		}
		v |= uint64(c[0]&0x7f) << shift
		if c[0] < 0x80 {
			return v
		}
	}
	d.bad = true
	return 0
}

func (d *cacheDecoder) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// int reads a varint that must fit an int32 (a count, a year), not a
// negative count: the callers check signs.
func (d *cacheDecoder) int() int {
	v := d.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.bad = true
		return 0
	}
	return int(v)
}

func (d *cacheDecoder) str() string { return d.take(d.uvarint()) }

// flags reads a byte of flags, of which only the bits of mask may be set.
func (d *cacheDecoder) flags(mask byte) byte {
	c := d.take(1)
	if c == "" || c[0]&^mask != 0 {
		d.bad = true
		return 0
	}
	return c[0]
}

// names reads a list of names: none may be empty (ParseMetadata never
// makes one), so each takes at least two bytes, which bounds the list
// before it is made.
func (d *cacheDecoder) names() []string {
	n := d.uvarint()
	if d.bad || n > uint64(min(len(d.s), d.left)/2) {
		d.bad = true
		return nil
	}
	if n == 0 {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		if l[i] = d.str(); l[i] == "" {
			d.bad = true
			return nil
		}
	}
	return l
}

// storeCache writes the catalogue atomically and sealed (see
// safefs.Dir.WriteSealed) for the next process. Failing to write costs speed only.
func (v *Vault) storeCache(c *Catalogue) {
	dir := v.cacheDir()
	if dir == "" {
		return
	}
	stamps := make([]cachedStamp, len(c.stamps))
	for i, s := range c.stamps {
		stamps[i] = cachedStamp{Path: s.path, MTime: s.mtime, Size: s.size, Dir: s.dir}
	}
	papers := make([]cachedPaper, len(c.papers))
	for i, pp := range c.papers {
		papers[i] = cachedPaper{Ref: pp.Ref, PDF: pp.PDF, Meta: pp.Meta, HasNotes: pp.HasNotes, HasBody: pp.HasBody, Heading: pp.heading}
		if pp.MetaErr != nil {
			papers[i].MetaErr = pp.MetaErr.Error()
		}
	}
	body := encodeCatalogue(cacheHead{Version: catalogueCacheVersion, Stamps: len(stamps), Papers: len(papers)}, stamps, papers)
	body = v.appendTitles(body)
	d, err := safefs.OpenDir(dir, safefs.Create)
	if err != nil {
		return
	}
	defer d.Close()
	if d.WriteSealed(cacheFile, body) == nil {
		d.Remove(oldCacheFile)
	}
}
