package catalog

import (
	"bytes"
	"encoding/gob"
	"errors"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/safefs"
)

// catalogueCacheVersion changes whenever the cached form or the rules that
// build a catalogue change, so an old file is rebuilt, never misread.
// Version 5 writes each stamp and paper as its own value and marks folder
// stamps, so that a read can check every one before it keeps it, and
// counts a folder holding a PDF named after it as a paper.
const catalogueCacheVersion = 5

// The on-disk form of a Catalogue is a gob stream: a cacheHead, then
// cacheHead.Stamps stamps, then cacheHead.Papers papers, sealed by
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
const cacheFile = "catalogue.gob"

// maxCache bounds the catalogue cache read back: far above a library of a
// hundred thousand papers, far below what would strain a process.
const maxCache = 256 << 20

// maxCacheValue bounds the bytes one stamp or paper may take in the cache
// file: a paper holds what its metadata.json (read up to 1 MiB) and its
// PAPER.md heading gave, and gob can make large slices from few bytes, so
// a value is cut off before it can cost more.
const maxCacheValue = 3 << 19 // 1.5 MiB

// cacheSlack is what the decoded catalogue may take in memory beyond twice
// the file's size (see footprint) before the file is taken for a forged
// one and the catalogue rebuilt.
const cacheSlack = 64 << 20

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
// instead.
func (v *Vault) loadCache() *Catalogue {
	dir := v.cacheDir()
	if dir == "" {
		return nil
	}
	d, err := safefs.OpenDir(dir, 0)
	if err != nil {
		return nil
	}
	defer d.Close()
	d.RemoveStaleTemps()
	body, err := d.ReadSealed(cacheFile, maxCache)
	if err != nil {
		return nil
	}
	return decodeCatalogue(v.root, body)
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
//     not empty, and the decoded catalogue takes at most twice the file's
//     size plus cacheSlack, so a small forged file cannot cost gigabytes.
func decodeCatalogue(root string, body []byte) *Catalogue {
	r := &valueReader{r: bytes.NewReader(body)}
	dec := gob.NewDecoder(r)
	next := func(v any) bool {
		r.left = maxCacheValue
		return dec.Decode(v) == nil
	}
	var head cacheHead
	if !next(&head) || head.Version != catalogueCacheVersion || head.Stamps < 1 || head.Papers < 0 ||
		head.Papers > head.Stamps || head.Stamps > len(body) {
		return nil
	}
	budget := 2*int64(len(body)) + cacheSlack
	c := newCatalogue()
	isDir := map[string]bool{}
	for range head.Stamps {
		var s cachedStamp
		if !next(&s) || !stampPath(s.Path) {
			return nil
		}
		if _, dup := isDir[s.Path]; dup {
			return nil
		}
		isDir[s.Path] = s.Dir
		if budget -= 64 + int64(len(s.Path)); budget < 0 {
			return nil
		}
		c.stamps = append(c.stamps, stamp{path: s.Path, mtime: s.MTime, size: s.Size, dir: s.Dir})
	}
	var pdfs []stamp
	for range head.Papers {
		var cp cachedPaper
		if !next(&cp) || !isDir[cp.Ref] || c.byRef[cp.Ref] != nil || !paperHolds(&cp) {
			return nil
		}
		if cp.PDF != "" {
			pdfs = append(pdfs, stamp{path: cp.PDF, file: true})
		}
		if budget -= footprint(&cp); budget < 0 {
			return nil
		}
		p := &Paper{Ref: cp.Ref, PDF: cp.PDF, Meta: cp.Meta, HasNotes: cp.HasNotes, HasBody: cp.HasBody, heading: cp.Heading}
		if cp.MetaErr != "" {
			p.MetaErr = errors.New(cp.MetaErr)
		}
		p.DOI, p.ArXiv = Identifiers(p.Meta.DOI, p.Meta.ArXivID)
		c.papers = append(c.papers, p)
		c.byRef[p.Ref] = p
	}
	if r.r.Len() != 0 {
		return nil // something after the last paper
	}
	// Nothing in the file is taken before the file system confirms it:
	// every stamp, and that every paper's PDF is a regular file.
	if len(c.stamps) == 0 || !allFresh(root, append(pdfs, c.stamps...)) {
		return nil
	}
	c.index()
	return c
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

// footprint estimates the memory a decoded paper takes: its strings, a
// header per string and the Paper itself.
func footprint(cp *cachedPaper) int64 {
	n := int64(unsafe.Sizeof(Paper{}))
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

// errValueTooLarge ends the decoding of a cache value above maxCacheValue.
var errValueTooLarge = errors.New("vault: catalogue cache value too large")

// valueReader lets the gob decoder read at most left more bytes. It is an
// io.ByteReader, so the decoder reads from it directly, without a buffer
// that would read ahead past the value.
type valueReader struct {
	r    *bytes.Reader
	left int
}

func (v *valueReader) Read(p []byte) (int, error) {
	if v.left <= 0 {
		return 0, errValueTooLarge
	}
	if len(p) > v.left {
		p = p[:v.left]
	}
	n, err := v.r.Read(p)
	v.left -= n
	return n, err
}

func (v *valueReader) ReadByte() (byte, error) {
	if v.left <= 0 {
		return 0, errValueTooLarge
	}
	v.left--
	return v.r.ReadByte()
}

// storeCache writes the catalogue atomically and sealed (see
// safefs.Dir.WriteSealed) for the next process. Failing to write costs speed only.
func (v *Vault) storeCache(c *Catalogue) {
	dir := v.cacheDir()
	if dir == "" {
		return
	}
	var body bytes.Buffer
	enc := gob.NewEncoder(&body)
	if enc.Encode(cacheHead{Version: catalogueCacheVersion, Stamps: len(c.stamps), Papers: len(c.papers)}) != nil {
		return
	}
	for _, s := range c.stamps {
		if enc.Encode(cachedStamp{Path: s.path, MTime: s.mtime, Size: s.size, Dir: s.dir}) != nil {
			return
		}
	}
	for _, pp := range c.papers {
		cp := cachedPaper{Ref: pp.Ref, PDF: pp.PDF, Meta: pp.Meta, HasNotes: pp.HasNotes, HasBody: pp.HasBody, Heading: pp.heading}
		if pp.MetaErr != nil {
			cp.MetaErr = pp.MetaErr.Error()
		}
		if enc.Encode(cp) != nil {
			return
		}
	}
	d, err := safefs.OpenDir(dir, safefs.Create)
	if err != nil {
		return
	}
	defer d.Close()
	d.WriteSealed(cacheFile, body.Bytes())
}
