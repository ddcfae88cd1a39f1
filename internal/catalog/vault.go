// Package catalog models a researcher's paper library (the Vault) read-only:
// which folders are paper units, what their metadata says, where their PDF
// is, and what any vault-relative path is (a paper, a directory or a file).
//
// Every access goes through internal/safefs, so nothing outside the Vault
// root, nothing under the private .agentero/ folder and no special file is
// ever opened. The view is safefs's Strict one: a document is read only
// from real folders and files, never through a symbolic link (not even one
// that stays in the Vault, which could make a granted paper's NOTES.md show
// an ungranted paper), and entries whose names hold control or direction
// characters are neither listed nor read. The library catalogue is built by one walk of papers/ and
// reused until a folder or metadata file in it changes.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// Kind says what a vault path is. Its values are the names of the
// Vault's source kinds (package sources/vault turns one into a grant
// kind).
type Kind string

// The three kinds of source a path can be.
const (
	KindPaper     Kind = "paper"
	KindDirectory Kind = "directory"
	KindFile      Kind = "file"
)

// ErrNotPaper: a path is not a paper unit. Messages name vault-relative
// paths only.
var ErrNotPaper = errors.New("not a paper")

// PapersDir is the folder under which paper units live.
const PapersDir = "papers"

// Marker files: a folder under papers/ holding one of them is a paper unit,
// as is one holding a PDF named after the folder (papers/1706.03762 with
// 1706.03762.pdf), the layout of a download with nothing else yet.
const (
	NotesFile    = "NOTES.md"
	PaperMDFile  = "PAPER.md"
	MetadataFile = "metadata.json"
)

// maxMetadata caps metadata.json: a larger one is treated as malformed.
const maxMetadata = 1 << 20

// skipNested names the folders inside a paper that never hold nested papers.
var skipNested = map[string]bool{"source": true, "assets": true, "marks": true, "attachments": true}

// Paper is one paper unit of the Vault.
type Paper struct {
	Ref      string   // vault-relative folder, e.g. "papers/1706.03762"
	PDF      string   // vault-relative path of its PDF, "" when it has none
	Meta     Metadata // metadata.json as read (zero when absent or malformed)
	MetaErr  error    // why metadata.json could not be read, if present but bad
	HasNotes bool     // NOTES.md present
	HasBody  bool     // PAPER.md present
	DOI      string   // normalised DOI (see cite.Identifiers), "" when none
	ArXiv    string   // normalised arXiv id, "" when none
	heading  string   // first heading of PAPER.md, a title fallback
}

// Title returns the best title known without reading the PDF: metadata.json,
// else PAPER.md's first heading, else "".
func (p *Paper) Title() string {
	if t := textnorm.Line(p.Meta.Title); t != "" {
		return t
	}
	return textnorm.Line(p.heading)
}

// Options configure a Vault. The zero value is ready to use.
type Options struct {
	// Revalidate is how long a catalogue is trusted before the folders it
	// was built from are checked for changes again. Zero means 2 seconds.
	Revalidate time.Duration
	// CacheDir is where the catalogue is kept between processes, so a new
	// process starts from it, after checking that no folder or metadata
	// file changed, instead of walking the library again. Empty means {vault}/.agentero/cache,
	// the folder the SDK owns; "-" disables it.
	CacheDir string
	// CheckPapersLater has a new process start from the cached catalogue
	// once the folders that hold no paper (papers/ and those between it
	// and the papers) are checked, so that a paper added, removed or
	// moved is seen at once; each paper's folder, metadata file and PDF
	// are checked in the background right after, and the catalogue is
	// rebuilt if one changed. A server's first answer then does not wait
	// for three stats per paper (30,000 at 10,000 papers); a one-shot
	// process (a CLI resolving one request) leaves it off and never sees a
	// paper's metadata older than its file.
	CheckPapersLater bool
}

// Vault is an open, read-only Vault. It is safe for concurrent use.
type Vault struct {
	root string
	fs   *safefs.FS
	opts Options

	mu         sync.Mutex
	cat        *Catalogue
	checked    time.Time     // when cat was last known to be fresh
	checkCost  time.Duration // how long the last freshness check took
	refreshing bool          // a background check is running or pending
	pending    func()        // the check CheckPapers starts, if not yet started
	closed     bool          // Close was called: no check starts
	bg         sync.WaitGroup

	tmu    sync.Mutex
	titles map[string]learntTitle // by PDF path (see LearnTitle)
	dirty  bool                   // titles were learnt since the cache was last written
}

// Open opens the Vault rooted at the absolute folder root.
func Open(root string, opts *Options) (*Vault, error) {
	f, err := safefs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	v := &Vault{root: root, fs: f.Strict()}
	if opts != nil {
		v.opts = *opts
	}
	if v.opts.Revalidate <= 0 {
		v.opts.Revalidate = 2 * time.Second
	}
	return v, nil
}

// Root returns the absolute root the Vault was opened at. It is for the host
// (grant files, the agent's working directory), never for tool results.
func (v *Vault) Root() string { return v.root }

// FS returns the safe file view of the whole Vault (a Strict view: no
// symbolic links, no names with control or direction characters).
func (v *Vault) FS() *safefs.FS { return v.fs }

// Close releases the Vault's root handle. It waits for a background check
// under way (and the rebuild it may start), writes the titles learnt since
// the cache was last written, and none starts after it: nothing is written
// to the cache once Close has returned.
func (v *Vault) Close() error {
	v.mu.Lock()
	closed := v.closed
	v.closed, v.pending = true, nil
	v.mu.Unlock()
	v.bg.Wait()
	if !closed {
		v.flushTitles()
	}
	return v.fs.Close()
}

// background runs f as a background check unless the Vault is closed.
// Called with v.mu held.
func (v *Vault) background(f func()) {
	if v.closed {
		return
	}
	v.bg.Add(1)
	go func() {
		defer v.bg.Done()
		f()
	}()
}

// Clean validates a vault-relative path and returns its canonical form.
func Clean(rel string) (string, error) { return safefs.Clean(rel) }

// Classify reports what a vault-relative path is, by stat: a paper unit
// folder is a paper, any other folder a directory, a regular file a file
// (with or without an extension). It returns the cleaned path.
func (v *Vault) Classify(ctx context.Context, rel string) (Kind, string, error) {
	clean, err := safefs.Clean(rel)
	if err != nil {
		return "", "", err
	}
	st, err := v.fs.Stat(clean)
	if err != nil {
		return "", clean, err
	}
	switch {
	case st.IsDir():
		cat, err := v.Catalogue(ctx)
		if err != nil {
			return "", clean, err
		}
		if cat.Paper(clean) != nil {
			return KindPaper, clean, nil
		}
		return KindDirectory, clean, nil
	case st.Mode().IsRegular():
		return KindFile, clean, nil
	}
	return "", clean, fmt.Errorf("%s: %w", clean, safefs.ErrNotRegular)
}

// Paper returns the paper unit at ref, or an error wrapping ErrNotPaper.
func (v *Vault) Paper(ctx context.Context, ref string) (*Paper, error) {
	clean, err := safefs.Clean(ref)
	if err != nil {
		return nil, err
	}
	cat, err := v.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	if p := cat.Paper(clean); p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("%s: %w", clean, ErrNotPaper)
}

// Catalogue returns the library catalogue, rebuilding it only when a folder
// or metadata file it was built from has changed.
func (v *Vault) Catalogue(ctx context.Context) (*Catalogue, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cat == nil {
		// Start from what the last process saw when nothing changed since:
		// checking costs an Lstat per folder, a fraction of a walk, and a
		// one-shot process (a CLI resolving one request) never sees a
		// stale catalogue.
		start := time.Now()
		if cat, later := v.loadCache(); cat != nil {
			v.adoptTitles(cat)
			v.checkCost = time.Since(start)
			v.cat, v.checked = cat, time.Now()
			if len(later) > 0 {
				// The check waits for CheckPapers, so that it does not take
				// the cores the first answer needs, or for papersDelay.
				v.refreshing = true
				v.pending = func() { v.refreshWith(cat, func() bool { return allFresh(v.root, later) }) }
				time.AfterFunc(papersDelay, v.CheckPapers)
			}
			return cat, nil
		}
		cat, err := build(ctx, v.fs)
		if err != nil {
			return nil, err
		}
		v.cat, v.checked = cat, time.Now()
		v.storeCache(cat)
		return cat, nil
	}
	if time.Since(v.checked) < v.opts.Revalidate || v.refreshing {
		return v.cat, nil
	}
	if v.checkCost > syncCheck {
		// A large library: check and rebuild in the background and keep
		// serving the catalogue in hand, so no call waits for the check.
		v.refreshing = true
		v.background(v.refresh)
		return v.cat, nil
	}
	start := time.Now()
	fresh := v.cat.fresh(v.root)
	v.checkCost = time.Since(start)
	if !fresh {
		cat, err := build(ctx, v.fs)
		if err != nil {
			return nil, err
		}
		v.cat = cat
		v.storeCache(cat)
	}
	v.checked = time.Now()
	return v.cat, nil
}

// CheckPapers starts the check of the papers that Options.CheckPapersLater
// deferred, unless it has started: a server calls it once its first
// answer is out. It starts by itself papersDelay after the catalogue was
// loaded.
func (v *Vault) CheckPapers() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if f := v.pending; f != nil {
		v.pending = nil
		v.background(f)
	}
}

// papersDelay is how long the deferred check of the papers waits for
// CheckPapers.
const papersDelay = time.Second

// syncCheck is the longest freshness check a call waits for; a library whose
// check takes longer is revalidated in the background.
const syncCheck = 10 * time.Millisecond

// refresh revalidates the catalogue off the request path.
func (v *Vault) refresh() {
	v.mu.Lock()
	cat := v.cat
	v.mu.Unlock()
	v.refreshWith(cat, func() bool { return cat.fresh(v.root) })
}

// refreshWith checks cat with fresh off the request path, rebuilds it
// when that fails, and ends the refresh.
func (v *Vault) refreshWith(cat *Catalogue, fresh func() bool) {
	start := time.Now()
	ok := fresh()
	cost := time.Since(start)
	if !ok {
		if rebuilt, err := build(context.Background(), v.fs); err == nil {
			cat = rebuilt
			v.storeCache(cat)
		}
	}
	v.mu.Lock()
	v.cat, v.checked, v.checkCost, v.refreshing = cat, time.Now(), cost, false
	v.mu.Unlock()
}

// stamp is what a catalogue was built from: a folder's or a file's
// modification time and size, checked to decide whether to rebuild.
type stamp struct {
	path  string
	mtime time.Time
	size  int64
	dir   bool // a folder: its size is not compared, and it must still be one
	file  bool // only a regular file (not a link) must be there, of any time and size
}

// Catalogue lists every paper unit of a Vault with its identifiers.
type Catalogue struct {
	papers  []*Paper // sorted by Ref
	byRef   map[string]*Paper
	byDOI   map[string]*Paper
	byArXiv map[string]*Paper
	stamps  []stamp

	titles map[string]learntTitle // read with a cached catalogue, for its Vault to adopt
}

// Papers returns every paper unit, sorted by Ref.
func (c *Catalogue) Papers() []*Paper { return c.papers }

// Paper returns the paper unit with this ref, or nil.
func (c *Catalogue) Paper(ref string) *Paper { return c.byRef[ref] }

// Match returns the library paper a work's DOI or arXiv id names (either may
// be empty; the arXiv DOI alias and version suffixes are understood), or nil.
func (c *Catalogue) Match(doi, arxiv string) *Paper {
	d, a := cite.Identifiers(doi, arxiv)
	if d != "" {
		if p := c.byDOI[d]; p != nil {
			return p
		}
	}
	if a != "" {
		return c.byArXiv[a]
	}
	return nil
}

// PaperOf returns the innermost paper unit that contains the vault-relative
// path rel (rel itself or a file below it), or nil.
func (c *Catalogue) PaperOf(rel string) *Paper {
	for p := rel; p != "." && p != "" && p != "/"; p = path.Dir(p) {
		if pp := c.byRef[p]; pp != nil {
			return pp
		}
	}
	return nil
}

// fresh reports whether nothing the catalogue was built from changed. It
// only compares Lstat times and sizes of paths the safe walk found: no
// content is read here, and a changed entry of any kind (a folder swapped for
// a link included) makes the catalogue be rebuilt through the safe view. A
// plain Lstat costs a few microseconds, the safe resolution tens, and this
// runs over every folder of the library.
func (c *Catalogue) fresh(root string) bool {
	// The Lstats are independent and a library of 10,000 papers has twice
	// as many stamps: they run in chunks on a few goroutines, and the
	// first change found stops them all.
	if len(c.stamps) == 0 {
		// Every catalogue is built from at least one stamp: one without is
		// damaged or forged, never fresh.
		return false
	}
	return allFresh(root, c.stamps)
}

// allFresh reports whether every stamp holds, checking them in chunks on a
// few goroutines.
func allFresh(root string, stamps []stamp) bool {
	n := len(stamps)
	workers := min(2*runtime.GOMAXPROCS(0), (n+freshChunk-1)/freshChunk)
	if workers <= 1 {
		return stampsFresh(root, stamps)
	}
	var stale atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for !stale.Load() {
				i := int(next.Add(freshChunk)) - freshChunk
				if i >= n {
					return
				}
				if !stampsFresh(root, stamps[i:min(i+freshChunk, n)]) {
					stale.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return !stale.Load()
}

// freshChunk is how many stamps a goroutine of fresh checks at a time.
const freshChunk = 512

// build walks papers/ once.
func build(ctx context.Context, f *safefs.FS) (*Catalogue, error) {
	c := newCatalogue()
	st, err := f.Stat(PapersDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A Vault without papers/ is valid: watch the root for its creation.
		if rst, err := f.Stat("."); err == nil {
			c.stamps = append(c.stamps, stamp{path: ".", mtime: rst.ModTime(), dir: true})
		}
		return c, nil
	case err != nil:
		return nil, err
	case !st.IsDir():
		// Watch the file in the way, so that a papers/ folder made in its
		// place is seen.
		c.stamps = append(c.stamps, stamp{path: PapersDir, mtime: st.ModTime(), size: st.Size()})
		return c, nil
	}
	if _, err := c.walk(ctx, f, PapersDir, st.ModTime(), 0); err != nil {
		return nil, err
	}
	c.index()
	return c, nil
}

func newCatalogue() *Catalogue {
	return &Catalogue{byRef: map[string]*Paper{}, byDOI: map[string]*Paper{}, byArXiv: map[string]*Paper{}}
}

// index sorts the papers and fills the identifier maps.
func (c *Catalogue) index() {
	sort.Slice(c.papers, func(i, j int) bool { return c.papers[i].Ref < c.papers[j].Ref })
	for _, p := range c.papers {
		// The first paper (by ref) with an identifier keeps it, so matching
		// is deterministic when two folders share an id.
		if p.DOI != "" && c.byDOI[p.DOI] == nil {
			c.byDOI[p.DOI] = p
		}
		if p.ArXiv != "" && c.byArXiv[p.ArXiv] == nil {
			c.byArXiv[p.ArXiv] = p
		}
	}
}

// maxDepth bounds the walk below papers/ against pathological trees.
const maxDepth = 32

// walk visits dir and reports whether it or anything below it is a paper.
func (c *Catalogue) walk(ctx context.Context, f *safefs.FS, dir string, mtime time.Time, depth int) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	c.stamps = append(c.stamps, stamp{path: dir, mtime: mtime, dir: true})
	entries, err := f.ReadDir(dir)
	if err != nil {
		// An unreadable folder holds no papers; it must not fail the Vault.
		return false, nil
	}
	var hasNotes, hasBody, hasMeta, ownPDF bool
	var pdfs []string
	var subdirs []fs.DirEntry
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			subdirs = append(subdirs, e)
		case name == NotesFile:
			hasNotes = true
		case name == PaperMDFile:
			hasBody = true
		case name == MetadataFile:
			hasMeta = true
		case strings.EqualFold(path.Ext(name), ".pdf") && e.Type().IsRegular():
			pdfs = append(pdfs, name)
			ownPDF = ownPDF || strings.TrimSuffix(name, path.Ext(name)) == path.Base(dir)
		}
	}
	marker := hasNotes || hasBody || hasMeta || ownPDF
	nested := false
	if depth < maxDepth {
		for _, e := range subdirs {
			if marker && skipNested[e.Name()] {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			found, err := c.walk(ctx, f, path.Join(dir, e.Name()), info.ModTime(), depth+1)
			if err != nil {
				return false, err
			}
			nested = nested || found
		}
	}
	// A folder whose only marker is an index NOTES.md and that holds nested
	// papers is an organisation folder, not a paper.
	if !marker || dir == PapersDir || (nested && !hasBody && !hasMeta && len(pdfs) == 0) {
		return nested, nil
	}
	p := &Paper{Ref: dir, HasNotes: hasNotes, HasBody: hasBody}
	if len(pdfs) > 0 {
		sort.Strings(pdfs)
		p.PDF = path.Join(dir, pdfs[0])
		for _, name := range pdfs {
			if strings.TrimSuffix(name, path.Ext(name)) == path.Base(dir) {
				p.PDF = path.Join(dir, name) // the folder's own PDF first
				break
			}
		}
	} else {
		p.PDF = firstPDF(f, dir, subdirs, 0)
	}
	if hasMeta {
		mp := path.Join(dir, MetadataFile)
		if st, err := f.Stat(mp); err == nil {
			c.stamps = append(c.stamps, stamp{path: mp, mtime: st.ModTime(), size: st.Size()})
		}
		data, err := f.ReadFile(mp, maxMetadata)
		if err == nil {
			p.Meta, err = ParseMetadata(data)
		}
		if err != nil {
			p.MetaErr = fmt.Errorf("%s: %w", mp, err)
		}
	}
	if hasBody && p.Meta.Title == "" {
		p.heading = firstHeading(f, path.Join(dir, PaperMDFile))
	}
	p.DOI, p.ArXiv = cite.Identifiers(p.Meta.DOI, p.Meta.ArXivID)
	c.papers = append(c.papers, p)
	c.byRef[p.Ref] = p
	return true, nil
}

// firstPDF finds the first PDF in the subfolders of a paper unit: subfolders
// in name order, a folder's own files before its subfolders.
func firstPDF(f *safefs.FS, dir string, subdirs []fs.DirEntry, depth int) string {
	if depth > 4 {
		return ""
	}
	sort.Slice(subdirs, func(i, j int) bool { return subdirs[i].Name() < subdirs[j].Name() })
	for _, d := range subdirs {
		sub := path.Join(dir, d.Name())
		entries, err := f.ReadDir(sub)
		if err != nil {
			continue
		}
		var dirs []fs.DirEntry
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, e)
			} else if strings.EqualFold(path.Ext(e.Name()), ".pdf") && e.Type().IsRegular() {
				return path.Join(sub, e.Name())
			}
		}
		if p := firstPDF(f, sub, dirs, depth+1); p != "" {
			return p
		}
	}
	return ""
}

// firstHeading returns the text of the first Markdown heading of a file.
func firstHeading(f *safefs.FS, rel string) string {
	data, err := f.ReadFile(rel, 64<<10)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			return textnorm.Line(strings.TrimLeft(line, "#"))
		}
	}
	return ""
}
