package relations

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"sync"

	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/safefs"
)

// parserVersion identifies what textIDs makes of a paper's text. The disk
// cache of parsed references trusts only entries written under the same
// version: bump it whenever the section finder, the entry splitter, the
// field parser or textIDs change their output.
const parserVersion = 7 // 3: bracketed labels, one initials-first author, questions, editions and arXiv cues in titles; 4: the PDF's own identifiers; 5: labels, citing sentences and the PDF's own authors and year; 6: AMS entries (names written out, commas between everything), an entry whose first line is its authors and year, hyphenated surnames broken at their hyphen and two works of one first author and year in citing sentences; 7: citing sentences across page breaks, long author lists, collaborations and "and N others"

// refCacheDir is the folder of the parsed-reference cache inside the cache
// folder.
const refCacheDir = "refs"

// maxRefCache bounds one paper's cache file read back: far above the
// references of a real paper (a few KiB), far below what strains a process.
const maxRefCache = 16 << 20

// cachedRefs is the on-disk form of one PDF's parsed references: what the
// PDF looked like when its text was parsed, the versions of the parser and
// of the PDF text extractor (whose text the tools' hook returns), and the
// references.
type cachedRefs struct {
	Version int         `json:"v"`
	Text    int         `json:"e"`
	Path    string      `json:"p"`
	MTime   int64       `json:"m"` // Unix nanoseconds
	Size    int64       `json:"s"`
	Refs    []cachedRef `json:"r"`
	// Own are the DOI and arXiv id the PDF shows of itself (Options.IDs),
	// for a paper whose metadata has none.
	Own [2]string `json:"o,omitzero"`
	// Meta is the title, authors and year the PDF shows of itself
	// (Options.Meta), for a paper whose metadata lacks them.
	Meta PaperMeta `json:"om,omitzero"`
}

type cachedRef struct {
	Title   string   `json:"t,omitempty"`
	Authors []string `json:"a,omitempty"`
	Year    int      `json:"y,omitempty"`
	DOI     string   `json:"d,omitempty"`
	ArXiv   string   `json:"x,omitempty"`
	Parsed  bool     `json:"k,omitempty"`
	Label   string   `json:"l,omitempty"`
	// Contexts are the body's citing sentences: [page, text] pairs.
	Contexts []cachedContext `json:"c,omitempty"`
}

type cachedContext struct {
	Page int    `json:"p"`
	Text string `json:"t"`
}

// refCache reads and writes one build's parsed references under the cache
// folder, one small sealed file per PDF (see safefs.Dir.WriteSealed):
// refs/{hh}/{hash}.refs, the hash being of the Vault and the PDF's
// vault-relative path. The folder is opened on first use and released by
// flush. An entry is used only when it is intact (checksum and decoding),
// names the same path and stamp, and was written by this parser version;
// anything else — torn, damaged, a link, another version, a changed PDF —
// is a miss, and the paper is parsed and its entry rewritten. The entries
// parsed during a build are written together when it ends (flush). Writes
// are atomic (temporary file, then rename), so two processes writing one
// entry leave one whole file. Failing to read or write costs speed only; a
// paper whose text could not be read is not cached (the PDF text cache
// remembers the failures that are properties of the file).
type refCache struct {
	dir     string // "" when caching is off
	root    string // the Vault's root, part of every entry's name
	version int
	d       *safefs.Dir
	failed  bool         // the folder could not be opened: no more tries this build
	pending []cachedRefs // entries parsed this build, written by flush
}

// refCache returns a build's cache of parsed references, in the folder
// Options.CacheDir names.
func (l *Graph) refCache() *refCache {
	rc := &refCache{root: l.v.Root(), version: l.version}
	switch l.opts.CacheDir {
	case "-":
	case "":
		rc.dir = filepath.Join(l.v.Root(), agentero.Cache, refCacheDir)
	default:
		if dir, err := filepath.Abs(l.opts.CacheDir); err == nil {
			rc.dir = filepath.Join(dir, refCacheDir)
		}
	}
	return rc
}

// open returns the opened cache folder, or nil when there is none.
func (c *refCache) open() *safefs.Dir {
	if c.d != nil || c.failed || c.dir == "" {
		return c.d
	}
	d, err := safefs.OpenDir(c.dir, safefs.Create)
	if err != nil {
		c.failed = true
		return nil
	}
	c.d = d
	return d
}

// close releases the folder, if it was opened.
func (c *refCache) close() {
	if c.d != nil {
		c.d.Close()
		c.d = nil
	}
}

// name is the entry's file name for the PDF at rel.
func (c *refCache) name(rel string) string {
	h := sha256.Sum256([]byte(c.root + "\x00" + rel))
	s := hex.EncodeToString(h[:16])
	return s[:2] + "/" + s + ".refs"
}

// usable reports whether st can key an entry: a file that exists and whose
// modification time is known.
func usable(st stamp) bool {
	return st.exists && !st.mtime.IsZero()
}

// load returns the references, and the PDF's own identifiers, cached for
// the PDF stamped st.
func (c *refCache) load(st stamp) ([]ref, [2]string, PaperMeta, bool) {
	if !usable(st) {
		return nil, [2]string{}, PaperMeta{}, false
	}
	d := c.open()
	if d == nil {
		return nil, [2]string{}, PaperMeta{}, false
	}
	body, err := d.ReadSealed(c.name(st.path), maxRefCache)
	if err != nil {
		return nil, [2]string{}, PaperMeta{}, false
	}
	var cr cachedRefs
	if json.Unmarshal(body, &cr) != nil || cr.Version != c.version || cr.Text != pdf.Version || cr.Path != st.path ||
		cr.MTime != st.mtime.UnixNano() || cr.Size != st.size {
		return nil, [2]string{}, PaperMeta{}, false
	}
	refs := make([]ref, len(cr.Refs))
	for i, r := range cr.Refs {
		refs[i] = ref{title: r.Title, authors: r.Authors, year: r.Year, doi: r.DOI, arxiv: r.ArXiv, parsed: r.Parsed, label: r.Label}
		for _, c := range r.Contexts {
			refs[i].contexts = append(refs[i].contexts, Context(c))
		}
	}
	return refs, cr.Own, cr.Meta, true
}

// store queues the references parsed from the PDF stamped st, and its own
// identifiers, for flush.
func (c *refCache) store(st stamp, refs []ref, own [2]string, meta PaperMeta) {
	if !usable(st) || c.dir == "" {
		return
	}
	cr := cachedRefs{Version: c.version, Text: pdf.Version, Path: st.path, MTime: st.mtime.UnixNano(), Size: st.size, Refs: make([]cachedRef, len(refs)), Own: own, Meta: meta}
	for i, r := range refs {
		cr.Refs[i] = cachedRef{Title: r.title, Authors: r.authors, Year: r.year, DOI: r.doi, ArXiv: r.arxiv, Parsed: r.parsed, Label: r.label}
		for _, c := range r.contexts {
			cr.Refs[i].Contexts = append(cr.Refs[i].Contexts, cachedContext(c))
		}
	}
	c.pending = append(c.pending, cr)
}

// flushWorkers is how many entries are written at once: each write is
// synced, and the file system commits concurrent syncs together, so a
// first build of thousands of papers does not wait for each in turn.
const flushWorkers = 16

// flush writes the queued entries and releases the folder.
func (c *refCache) flush() {
	defer c.close()
	if len(c.pending) == 0 {
		return
	}
	d := c.open()
	if d == nil {
		return
	}
	work := make(chan *cachedRefs)
	var wg sync.WaitGroup
	for range min(flushWorkers, len(c.pending)) {
		wg.Go(func() {
			for cr := range work {
				if body, err := json.Marshal(cr); err == nil {
					d.WriteSealed(c.name(cr.Path), body)
				}
			}
		})
	}
	for i := range c.pending {
		work <- &c.pending[i]
	}
	close(work)
	wg.Wait()
	c.pending = nil
}
