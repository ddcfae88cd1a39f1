package vault

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/lowprio"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// LibraryOptions configure a Library. The zero value is ready to use.
type LibraryOptions struct {
	// CacheDir is where indexes and extracted PDF text are kept between
	// processes. Empty means {vault}/.agentero/cache, the folder the SDK
	// owns; "-" disables the on-disk cache.
	CacheDir string
	// CheckPapersLater has a new process start from the paper catalogue
	// the last one cached once the folders holding papers are checked (a
	// paper added, removed or moved is seen at once), and check each
	// paper's own folder, metadata and PDF in the background right after:
	// a long-lived server's first answer does not wait for three stats
	// per paper. Until that check ends, a paper's metadata may be older
	// than its file; a search's hits are still checked against the
	// papers' files. Off, the whole catalogue is checked first.
	CheckPapersLater bool
	// Progress, when set, is called while the library index takes in a
	// directory's items (its text files and the papers inside it), with
	// the directory's ref, how many items are done and how many are
	// queued; a search served by a complete index reports its item count
	// as done. A host uses it to show progress on a large first-time
	// index. It is called on the indexing goroutine (the search's, when
	// nothing was left to index) and must return quickly.
	Progress func(ref string, done, total int)
	// OnProgress, when set, is called when Progress is, with the build's
	// pace too: pages (search units) indexed, pages per second and the
	// time left at that pace.
	OnProgress func(IndexProgress)
	// IndexWait is how long a search waits for the library index to take
	// in what it needs before it answers from what is indexed so far
	// (saying so in sources.Results.Indexing); 0 means 3 s.
	IndexWait time.Duration
	// OCR recognises the pages of PDFs that have no text layer (scans),
	// in the background once the index's build of text has ended (a
	// search meanwhile says it is partial), and when such a page is read;
	// their text is then searched and read like extracted text, marked as
	// recognised, and cached by the PDF's stamp and the engine's ID. Nil
	// means the default: the tesseract program when it is on PATH, as
	// RESEARCHCTX_OCR (off, auto or the program's path) and
	// RESEARCHCTX_OCR_LANGS (eng, chi_sim, jpn: those installed) ask;
	// ocr.Off() turns it off. The index is rebuilt when the engine changes.
	OCR ocr.Engine
	// OCRProgress, when set, is called as pages are recognised, with the
	// pages recognised and queued so far; it must return quickly.
	OCRProgress func(done, total int)
}

// IndexProgress is how far the library index is in taking in a
// directory's items, for LibraryOptions.OnProgress.
type IndexProgress struct {
	Path        string // the directory's
	Done, Total int    // items (papers, text files) done and queued
	// Pages is how many pages, sections and text files the build has
	// indexed so far; PagesPerSecond its pace over the last half minute
	// or so, and ETA the time left for the items queued at that pace;
	// both 0 until the build has run for a quarter of a second, and once
	// every item is done.
	Pages          int
	PagesPerSecond float64
	ETA            time.Duration
}

// defaultIndexWait is how long a search waits for the library index by
// default.
const defaultIndexWait = 3 * time.Second

// Library opens the Vault's sources — papers, directories and plain files —
// and shares what they have in common: the Vault, the PDF text cache and one
// search index of every paper and text file its sources cover (see
// internal/libindex), which each source searches through a filter. It is safe for concurrent use, and a source opened twice is
// the same value.
type Library struct {
	v        *catalog.Vault
	ownVault bool // opened by OpenLibrary: Close closes it
	rel      *relator
	cat      *catalogue
	cacheDir string // "" when disabled

	idx *indexer
	ocr *ocrWorker
	// calls counts the calls in flight, which the background yields to.
	calls lowprio.Calls

	// bg counts the background rescans of directories, which Close waits
	// for (closing stops them early), so that nothing is written to the
	// caches after Close returns.
	bg       sync.WaitGroup
	bgMu     sync.Mutex // orders background starts with Close
	closed   bool
	bgCtx    context.Context
	bgCancel context.CancelFunc

	mu         sync.Mutex
	sources    map[string]sources.Source   // by kind + "\x00" + path
	docFilters map[string]*libindex.Filter // SearchDocuments' filters, by their items' keys
}

// indexer is the Library's one search index of every paper, loose PDF and
// text file its sources cover, opened once: it has their items extracted
// and searches them, waiting at most wait for the items a search needs. It
// holds only what it needs of the Library, wired by newLibrary.
type indexer struct {
	progress func(ref string, done, total int)
	onProg   func(IndexProgress)
	wait     time.Duration

	v          *catalog.Vault
	cachePath  func(parts ...string) string
	calls      *lowprio.Calls
	background func(f func()) bool // Library.background
	paper      func(ctx context.Context, ref string) (*Paper, error)
	open       func(ctx context.Context, kind grant.Kind, path string) (sources.Source, error)
	stats      func(ctx context.Context, own *libindex.Filter, q sources.Query) (*libindex.Filter, error) // Library.statsFilter
	ocrID      func() string                                                                              // names the OCR engine in the index's version
	markOCR    func(ctx context.Context, hits []sources.Hit)                                              // sets the hits' OCR marks
	ocrWaiting func(items []libindex.Item) int                                                            // counts the items waiting for OCR

	// textBusy counts the index items whose text is being extracted: the
	// OCR of the index waits for none to be and for the build to end
	// (idle), so that text pages come first.
	textBusy atomic.Int32

	libOnce   sync.Once
	lib       *libindex.Index
	preloaded sync.Once
}

// newLibrary returns a Library over v.
func newLibrary(v *catalog.Vault, opts *LibraryOptions) *Library {
	l := &Library{v: v, sources: map[string]sources.Source{}}
	l.bgCtx, l.bgCancel = context.WithCancel(context.Background())
	l.idx = &indexer{v: v, cachePath: l.cachePath, calls: &l.calls, background: l.background,
		paper: l.paperSource, open: l.Open, stats: l.statsFilter}
	l.ocr = &ocrWorker{fsys: v.FS(), cachePath: l.cachePath, calls: &l.calls, ctx: l.bgCtx,
		background: l.background, index: l.idx.index, textIdle: l.idx.idle, paper: l.paperSource, open: l.Open}
	l.idx.ocrID, l.idx.markOCR, l.idx.ocrWaiting = l.ocr.id, l.ocr.mark, l.ocr.waiting
	dir := ""
	if opts != nil {
		dir = opts.CacheDir
		l.idx.progress = opts.Progress
		l.idx.onProg = opts.OnProgress
		l.idx.wait = opts.IndexWait
		l.ocr.opt, l.ocr.progress = opts.OCR, opts.OCRProgress
	}
	if l.idx.wait <= 0 {
		l.idx.wait = defaultIndexWait
	}
	switch dir {
	case "":
		l.cacheDir = filepath.Join(v.Root(), agentero.Cache)
	case "-":
	default:
		l.cacheDir = dir
	}
	l.cat = &catalogue{v: v, paper: l.paperSource, open: l.Open}
	l.rel = &relator{v: v, cacheDir: l.cacheDir, paper: l.paperSource, open: l.Open, title: l.cat.paperTitle, deferOCR: l.ocr.enqueue}
	return l
}

// Root returns the absolute folder of the library's Vault.
func (l *Library) Root() string { return l.v.Root() }

// Open returns the source of the given kind at a vault-relative path. The
// path must be of that kind now: a paper folder for grant.KindPaper, a folder for
// grant.KindDirectory, a regular file for grant.KindFile (a *PDF for a name
// ending in .pdf, else a *File). The Vault root itself is not a source. A
// ctx cancelled or past its deadline gives ctx.Err().
func (l *Library) Open(ctx context.Context, kind grant.Kind, path string) (sources.Source, error) {
	s, err := l.open(ctx, kind, path)
	if p, ok := s.(*Paper); ok {
		// A paper without a title in its metadata takes its PDF's: found
		// now, within ctx, outside the library's lock, so that Info never
		// reads the PDF.
		p.findTitle(ctx)
	}
	return s, err
}

func (l *Library) open(ctx context.Context, kind grant.Kind, path string) (sources.Source, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if kind == grant.KindDirectory {
		l.idx.preload()
	}
	got, clean, err := l.v.Classify(ctx, path)
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	if clean == "." {
		// It would grant every paper and note at once; a grant names
		// folders and files inside the Vault.
		return nil, fmt.Errorf("%w: the vault root is not a source", sources.ErrOutside)
	}
	if grant.Kind(got) != kind {
		return nil, fmt.Errorf("%s: is a %s, not a %s", clean, got, kind)
	}
	key := string(kind) + "\x00" + clean
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.sources[key]; s != nil {
		return s, nil
	}
	var s sources.Source
	switch kind {
	case grant.KindPaper:
		p, err := l.v.Paper(ctx, clean)
		if err != nil {
			return nil, ctxErr(ctx, err)
		}
		s = l.newPaper(p)
	case grant.KindDirectory:
		d, err := l.newDirectory(clean)
		if err != nil {
			return nil, err
		}
		s = d
	case grant.KindFile:
		if isPDF(clean) {
			// A PDF is a document with pages, not a text file.
			s = l.newPDF(clean)
		} else {
			s = l.newFile(clean)
		}
	default:
		return nil, fmt.Errorf("%s: unknown source kind %q", clean, kind)
	}
	l.sources[key] = s
	return s, nil
}

// paperSource returns the (shared) source of a library paper, for the
// library's own use: its title is not looked for (see Library.Open).
func (l *Library) paperSource(ctx context.Context, ref string) (*Paper, error) {
	s, err := l.open(ctx, grant.KindPaper, ref)
	if err != nil {
		return nil, err
	}
	return s.(*Paper), nil
}

// CacheDir returns the folder of the Library's on-disk caches, "" when
// caching is off: a connector keeps its own caches below it, never in the
// folders of the library it reads. It implements sources.Library.
func (l *Library) CacheDir() string { return l.cacheDir }

// cachePath returns the path of a cache file, or "" when caching is off.
func (l *Library) cachePath(parts ...string) string {
	if l.cacheDir == "" {
		return ""
	}
	return filepath.Join(append([]string{l.cacheDir}, parts...)...)
}

// Keys of the library index's items.
const (
	paperItem = "paper:"
	fileItem  = "file:"
	pdfItem   = "pdf:" // a loose PDF (see PDF)
)

// Close stops the library's background work (a running index build) and
// waits for it to end, so that nothing is written to the cache folder after
// it returns, then closes the Vault it opened. Searches of sources already
// open still answer from what is indexed.
func (l *Library) Close() error {
	l.bgMu.Lock()
	l.closed = true
	l.bgMu.Unlock()
	l.bgCancel()
	l.bg.Wait()
	err := l.idx.index().Close()
	if l.ownVault {
		err = errors.Join(err, l.v.Close())
	}
	return err
}

// background runs f on its own goroutine, unless the Library is closed;
// Close cancels l.bgCtx and waits for f to return.
func (l *Library) background(f func()) bool {
	l.bgMu.Lock()
	defer l.bgMu.Unlock()
	if l.closed {
		return false
	}
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		f()
	}()
	return true
}

// preload starts, once, the loading of the library index in the
// background: the OCR engine's detection its version names (the engine
// is run to learn its version and languages) and the snapshot on disk.
// A directory's first search needs both; started when the directory is
// opened, they run while the catalogue is checked and the folder walked
// rather than after.
func (x *indexer) preload() {
	x.preloaded.Do(func() {
		x.background(func() { x.index().Snapshot() })
	})
}

// index returns the library's one search index, kept under the cache
// folder's "library" folder (in memory when caching is off).
func (x *indexer) index() *libindex.Index {
	x.libOnce.Do(func() {
		// The engine's name is learnt while the index on disk is read.
		x.lib = libindex.Open(libindex.Options{Dir: x.cachePath("library"), Extract: x.extract,
			VersionOf: func() string { return unitsVersion + "+" + x.ocrID() },
			Yield:     x.calls.YieldBuild})
	})
	return x.lib
}

// idle reports whether no index item's text is being extracted and the
// library index runs no build.
func (x *indexer) idle() bool {
	return x.textBusy.Load() == 0 && x.index().Running() == nil
}

// extract returns the search units of a paper unit, a loose PDF or a
// text file. A PDF that cannot be read is the item's failure, with its
// reason; a paper's Markdown files are still indexed.
func (x *indexer) extract(ctx context.Context, key string) ([]libindex.Unit, error) {
	x.textBusy.Add(1)
	defer x.textBusy.Add(-1)
	var us []units.Unit
	var failure error
	switch {
	case strings.HasPrefix(key, paperItem):
		src, err := x.paper(ctx, strings.TrimPrefix(key, paperItem))
		if err != nil {
			return nil, err
		}
		if src.p.PDF != "" {
			if _, err := src.pdfDocument(ctx); err != nil {
				failure = err
			}
		}
		us, err = src.units(ctx)
		src.releasePDF()
		if err != nil {
			return nil, err
		}
	case strings.HasPrefix(key, pdfItem):
		src, err := x.open(ctx, grant.KindFile, strings.TrimPrefix(key, pdfItem))
		if err != nil {
			return nil, err
		}
		s, ok := src.(*PDF)
		if !ok {
			return nil, fmt.Errorf("%s: not a PDF", strings.TrimPrefix(key, pdfItem))
		}
		us, failure, err = s.units(ctx)
		s.releasePDF()
		if err != nil {
			return nil, err
		}
	case strings.HasPrefix(key, fileItem):
		p := strings.TrimPrefix(key, fileItem)
		text, err := x.v.FS().ReadText(p, 0)
		if err != nil {
			return nil, fsErr(err)
		}
		us = units.Of(units.TextDocument(p, text))
	default:
		return nil, fmt.Errorf("unknown index item %q", key)
	}
	out := units.IndexUnits(us)
	return out, failure
}

// search has items indexed, waiting at most the library's IndexWait,
// and searches the library index over what filter admits, with the
// statistics of q's Collection (see docSet). A search that did not
// wait for the end of the build says so in sources.Results.Indexing.
func (x *indexer) search(ctx context.Context, items []libindex.Item, filter *libindex.Filter, q sources.Query) (*sources.Results, error) {
	return x.searchAt(ctx, time.Now(), items, filter, q, "", nil)
}

// searchAt is search for a directory: the wait counts from
// start, when its search began (its scan included); progress is reported
// under ref; ensured remembers the last snapshot in which every item was
// found indexed, so that later searches skip that check.
func (ix *indexer) searchAt(ctx context.Context, start time.Time, items []libindex.Item, filter *libindex.Filter, q sources.Query, ref string, ensured *atomic.Pointer[libindex.Snapshot]) (*sources.Results, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := ix.index()
	var progress func(done, total int)
	if f, g := ix.progress, ix.onProg; (f != nil || g != nil) && ref != "" {
		progress = func(done, total int) {
			if f != nil {
				f(ref, done, total)
			}
			if g != nil {
				p := IndexProgress{Path: ref, Done: done, Total: total}
				if j := x.Running(); j != nil {
					p.Pages = j.Pages()
					if done < total {
						_, p.PagesPerSecond, p.ETA = j.Rate()
					}
				}
				g(p)
			}
		}
	}
	var indexing *sources.Indexing
	if before := x.Snapshot(); ensured != nil && ensured.Load() == before {
		// Nothing changed since every item was found indexed.
		if progress != nil {
			progress(len(items), len(items))
		}
	} else if job := x.Ensure(items, ref, progress); isClosed(job.Done()) {
		if job.Err() == nil {
			if ensured != nil {
				ensured.Store(before)
			}
			if _, t := job.Progress(); t == 0 && progress != nil {
				// Nothing was left to index: the search is at its end.
				progress(len(items), len(items))
			}
		}
	} else {
		// The build this call waits for is not held back for it.
		resume := ix.calls.Pause(ctx)
		t := time.NewTimer(max(time.Until(start.Add(ix.wait)), 0))
		select {
		case <-job.Done():
		case <-t.C:
			d, n := job.Progress()
			indexing = &sources.Indexing{Done: d, Total: n}
		case <-ctx.Done():
			t.Stop()
			resume()
			return nil, ctx.Err()
		}
		t.Stop()
		resume()
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	stats, err := ix.stats(ctx, filter, q)
	if err != nil {
		return nil, err
	}
	snap := x.Snapshot()
	hits, total, err := snap.SearchIn(q.Text, 2*limit, filter, stats) // room for the marks left out
	if errors.Is(err, libindex.ErrDamaged) {
		// The damaged segment is dropped: its items are extracted again,
		// and no search reads it twice, so this ends.
		return ix.searchAt(ctx, start, items, filter, q, ref, ensured)
	}
	if err != nil {
		return nil, err
	}
	res := units.Results(hits, total, limit, q)
	ix.markOCR(ctx, res.Hits)
	if n := ix.ocrWaiting(items); n > 0 && indexing == nil {
		// Scanned pages wait for the OCR engine: more may match.
		indexing = &sources.Indexing{Done: len(items) - n, Total: len(items)}
	}
	if indexing != nil {
		res.Indexing, res.Truncated = indexing, true
	}
	res.Skipped = ix.skipped(ctx, snap, items)
	return res, nil
}

// skipped returns the PDFs of items that snap holds as failed, each with
// why it could not be read. A text file that turned out not to be text is
// not one: a search promises documents, not every file of a folder.
func (x *indexer) skipped(ctx context.Context, snap *libindex.Snapshot, items []libindex.Item) []sources.Skip {
	var out []sources.Skip
	for _, it := range items {
		_, failure, ok := snap.Status(it.Key)
		if !ok || failure == "" {
			continue
		}
		var p string
		switch {
		case strings.HasPrefix(it.Key, pdfItem):
			p = strings.TrimPrefix(it.Key, pdfItem)
		case strings.HasPrefix(it.Key, paperItem):
			paper, err := x.v.Paper(ctx, strings.TrimPrefix(it.Key, paperItem))
			if err != nil || paper.PDF == "" {
				continue
			}
			p = paper.PDF
		default:
			continue
		}
		out = append(out, sources.Skip{Path: p, Reason: skipReason(p, failure)})
	}
	slices.SortFunc(out, func(a, b sources.Skip) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// skipReason is the reason of an index failure as a search reports it:
// the one line an unreadable PDF's error gives after its path, or a plain
// "cannot be read" for anything else, whose text is not meant for a model.
func skipReason(p, failure string) string {
	r, ok := strings.CutPrefix(failure, p+": "+sources.ErrUnreadable.Error()+": ")
	if !ok {
		return "cannot be read"
	}
	r, _ = textnorm.Truncate(textnorm.Line(r), maxProblemChars)
	return r
}

// isClosed reports whether c is closed, without waiting.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// releasePDF drops the parsed PDF a paper keeps in memory, once the index
// has its text: kept for every paper of a folder being indexed, parsed
// documents would grow with the library (hundreds of megabytes for a few
// hundred papers). A later read parses the PDF again from the PDF cache. A
// failure is kept: it costs nothing and is not retried until the file
// changes.
func (s *Paper) releasePDF() {
	s.pdf.release()
	s.secMu.Lock()
	s.secDoc, s.secStamp, s.secs = nil, "", nil
	s.secMu.Unlock()
}
