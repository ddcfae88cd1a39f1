package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// catalogueCacheVersion changes whenever the cached form or the rules that
// build a catalogue change, so an old file is rebuilt, never misread.
const catalogueCacheVersion = 2

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

// cachePath returns the catalogue cache file, or "" when caching is off.
func (v *Vault) cachePath() string {
	switch v.opts.CacheDir {
	case "-":
		return ""
	case "":
		return filepath.Join(v.root, ".agentero", "cache", "catalogue.gob")
	}
	return filepath.Join(v.opts.CacheDir, "catalogue.gob")
}

// loadCache reads the catalogue a previous process wrote. Anything damaged
// or of another version is ignored: the caller builds instead.
func (v *Vault) loadCache() *Catalogue {
	p := v.cachePath()
	if p == "" {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil || len(data) < sha256.Size {
		return nil
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
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

// storeCache writes the catalogue atomically (a temporary file, then a
// rename) for the next process. Failing to write costs speed only.
func (v *Vault) storeCache(c *Catalogue) {
	p := v.cachePath()
	if p == "" {
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
	sum := sha256.Sum256(body.Bytes())
	body.Write(sum[:])
	dir := filepath.Dir(p)
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".catalogue-*")
	if err != nil {
		return
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(body.Bytes())
	if cerr := tmp.Close(); werr == nil && cerr == nil {
		os.Rename(tmp.Name(), p)
	}
}
