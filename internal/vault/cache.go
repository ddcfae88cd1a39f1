package vault

import (
	"bytes"
	"encoding/gob"
	"errors"
	"path/filepath"
	"time"

	"github.com/researchctx/researchctx/internal/safefs"
)

// catalogueCacheVersion changes whenever the cached form or the rules that
// build a catalogue change, so an old file is rebuilt, never misread.
const catalogueCacheVersion = 4

// cachedCatalogue is the on-disk form of a Catalogue.
type cachedCatalogue struct {
	Version int
	Papers  []cachedPaper
	Stamps  []cachedStamp
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
}

// cacheFile is the catalogue cache's name in its folder.
const cacheFile = "catalogue.gob"

// maxCache bounds the catalogue cache read back: far above a library of a
// hundred thousand papers, far below what would strain a process.
const maxCache = 256 << 20

// cacheDir returns the folder of the catalogue cache, or "" when caching
// is off.
func (v *Vault) cacheDir() string {
	switch v.opts.CacheDir {
	case "-":
		return ""
	case "":
		return filepath.Join(v.root, ".agentero", "cache")
	}
	dir, err := filepath.Abs(v.opts.CacheDir)
	if err != nil {
		return ""
	}
	return dir
}

// loadCache reads the catalogue a previous process wrote, through the safe
// file layer (no links, a regular file, a non-blocking open). Anything
// damaged, unsafe or of another version is ignored: the caller builds
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
	body, err := d.ReadSealed(cacheFile, maxCache)
	if err != nil {
		return nil
	}
	var cc cachedCatalogue
	if gob.NewDecoder(bytes.NewReader(body)).Decode(&cc) != nil || cc.Version != catalogueCacheVersion {
		return nil
	}
	c := newCatalogue()
	for _, cp := range cc.Papers {
		p := &Paper{Ref: cp.Ref, PDF: cp.PDF, Meta: cp.Meta, HasNotes: cp.HasNotes, HasBody: cp.HasBody, heading: cp.Heading}
		if cp.MetaErr != "" {
			p.MetaErr = errors.New(cp.MetaErr)
		}
		p.DOI, p.ArXiv = Identifiers(p.Meta.DOI, p.Meta.ArXivID)
		c.papers = append(c.papers, p)
		c.byRef[p.Ref] = p
	}
	for _, s := range cc.Stamps {
		c.stamps = append(c.stamps, stamp{path: s.Path, mtime: s.MTime, size: s.Size})
	}
	c.index()
	return c
}

// storeCache writes the catalogue atomically and sealed (see
// safefs.Dir.WriteSealed) for the next process. Failing to write costs speed only.
func (v *Vault) storeCache(c *Catalogue) {
	dir := v.cacheDir()
	if dir == "" {
		return
	}
	cc := cachedCatalogue{Version: catalogueCacheVersion}
	for _, pp := range c.papers {
		cp := cachedPaper{Ref: pp.Ref, PDF: pp.PDF, Meta: pp.Meta, HasNotes: pp.HasNotes, HasBody: pp.HasBody, Heading: pp.heading}
		if pp.MetaErr != nil {
			cp.MetaErr = pp.MetaErr.Error()
		}
		cc.Papers = append(cc.Papers, cp)
	}
	for _, s := range c.stamps {
		cc.Stamps = append(cc.Stamps, cachedStamp{Path: s.path, MTime: s.mtime, Size: s.size})
	}
	var body bytes.Buffer
	if gob.NewEncoder(&body).Encode(cc) != nil {
		return
	}
	d, err := safefs.OpenDir(dir, safefs.Create)
	if err != nil {
		return
	}
	defer d.Close()
	d.WriteSealed(cacheFile, body.Bytes())
}
