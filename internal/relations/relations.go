// Package relations is the library citation graph behind the paper_relations
// tool: for every paper of a Vault, the works it cites (references), the
// works that cite it (cited-by) and the library papers linked to it through
// shared references or shared citers (related).
//
// References come from a paper's reference sidecar
// (source/agentero-cite.json); a paper without one falls back to the entries
// of the reference section of its PDF text (see Entries), each with its
// parsed title, authors, year and identifiers, when a text hook is
// configured. Cited-by comes from the SDK's cited-by cache
// (.agentero/citing-scan.json) and from the library papers whose references
// resolve to the paper. A work is tied to a library paper only by the
// sidecar's localMatch (when it names a real library paper), by a DOI or
// arXiv id match against the catalogue, or, for an entry parsed from PDF
// text, by a title that names exactly one library paper and agrees with its
// year or first author (metadata.json's, else what the paper's PDF shows,
// else the year its arXiv id encodes); never by borrowing the path of the
// paper being asked about. The library's loose PDFs (outside every paper
// folder) are papers of the graph too, under their own paths.
//
// A reference read from PDF text carries its label as printed and up to two
// sentences of the citing paper's body that cite it (Context), by number,
// label or author and year; a library citer's card carries its own.
//
// The graph is built paper by paper: a paper whose sidecar is malformed, or
// whose PDF text fails, panics or takes longer than Options.PaperTimeout,
// is skipped with its reason in its Relations.Err (ErrPaperFailed) and
// never stops the others.
//
// The graph is built once per catalogue and reused: it is rebuilt when the
// catalogue changes or when a sidecar, the cache, a PDF read for references
// or a folder listed for loose PDFs changes (checked by modification time
// and size at most once per revalidation interval), or when Changed names a
// PDF whose text was read before its scanned pages were recognised. A
// rebuild reads again only what changed. After the first build a lookup is
// a few map reads.
// The references parsed from a PDF are also kept on disk (see
// Options.CacheDir), keyed by the PDF's path, modification time and size and
// the parser's version, so that a new process does not parse them again.
//
// A library that is not a Vault (a reference manager's) builds its own
// graph from the same parts: TextReferences, Matcher and RefCache.
package relations

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/catalog"
)

// SidecarFile is the reference sidecar's path inside a paper folder.
const SidecarFile = "source/agentero-cite.json"

// ScanFile is the cited-by cache's vault-relative path. It lives in the
// private folder, which the safe view refuses; this package reads it as the
// SDK's own data and never returns its path or raw content.
const ScanFile = ".agentero/citing-scan.json"

// Errors callers branch on (wrapped in what Relations returns or records).
var (
	// ErrMalformed: a sidecar, the cache or one of their fields is not in
	// the documented format.
	ErrMalformed = errors.New("malformed")
	// ErrUnsupportedSchema: a sidecar or the cache declares a schemaVersion
	// other than 1.
	ErrUnsupportedSchema = errors.New("unsupported schemaVersion")
)

// Size caps. A larger file is treated as malformed; the caps bound memory,
// not what a real library is expected to hold.
const (
	maxSidecar   = 8 << 20
	maxScan      = 32 << 20
	maxCitations = 10000 // per sidecar
	maxCiting    = 20000 // per seed of the cache
	maxRelated   = 100   // related papers kept per paper
)

// Options configure a Graph. The zero value works without PDF fallback.
type Options struct {
	// Text returns the text of a library paper's PDF (its pages in order).
	// It is called once per PDF version, only for papers that have a PDF
	// and no reference sidecar, so that relations still work offline
	// before any sidecar is generated. Nil disables the fallback. A hook
	// that has only part of the text yet (scanned pages still waiting
	// for OCR) returns that part with an error wrapping ErrTextPending:
	// the references found in it are used, not kept on disk, and the
	// paper is read again once Changed names its PDF.
	Text func(ctx context.Context, p *catalog.Paper) (string, error)
	// IDs returns the DOI and arXiv id a library paper's own PDF shows
	// (its XMP, its arXiv stamp). It is called with Text, once per PDF
	// version (the result is cached with the references), for papers
	// whose metadata gives neither and whose references come from their
	// PDF, so that works citing them match them as they would match a
	// paper with metadata.json. Nil leaves such papers matched by title
	// only.
	IDs func(ctx context.Context, p *catalog.Paper) (doi, arxiv string, err error)
	// Meta returns the title, authors and year a library paper's own PDF
	// shows (its title block, Info dictionary, XMP). It is called with
	// Text, once per PDF version (the result is cached with the
	// references), for papers whose metadata lacks one of them, so that a
	// title match with a work citing them can be confirmed by year or
	// first author as with a full metadata.json. Nil leaves such papers
	// confirmed by their metadata and arXiv id only.
	Meta func(ctx context.Context, p *catalog.Paper) (PaperMeta, error)
	// Loose lists the library's PDFs that lie in no paper folder
	// (vault-relative paths), and the folders it listed to find them.
	// Each PDF is read, matched and matchable as a paper whose folder is
	// its own path, with the title, authors and identifiers its PDF shows
	// (Meta, IDs), so that a folder of downloads has a citation graph. The
	// list is read when the graph is built; the folders are stamped with
	// the graph's other inputs, so that a PDF added to (or removed from)
	// one of them is seen at the next freshness check. Nil means no loose
	// PDFs.
	Loose func(ctx context.Context) (pdfs, dirs []string, err error)
	// Revalidate is how long a built graph is trusted before its sidecars,
	// the cache and the PDFs it read are checked for changes again. Zero
	// means 2 seconds.
	Revalidate time.Duration
	// PaperTimeout bounds the Text call of one paper; a paper that takes
	// longer is skipped with that reason (until its PDF changes). Zero
	// means DefaultPaperTimeout.
	PaperTimeout time.Duration
	// CacheDir is where the references parsed from PDF text are kept
	// between processes (in its refs folder), so that a new process reads
	// them back instead of reading and parsing every paper's text again.
	// Empty means {vault}/.agentero/cache, the folder the SDK owns; "-"
	// disables it. A host that moves its other caches
	// (vault.LibraryOptions.CacheDir) passes the same folder here.
	CacheDir string
}

// DefaultPaperTimeout bounds reading one paper's PDF text for references.
// It is longer than the PDF extractor's own time limit (pdf.DefaultTimeout,
// 30 s), so that the extractor's limit ends a costly PDF first, and that
// outcome is what the PDF cache remembers for later processes.
const DefaultPaperTimeout = 45 * time.Second

// maxPaperText is the most of one paper's text read for references: its
// end, where the reference section is.
const maxPaperText = 16 << 20

// ErrTextPending marks a text the Text hook returns before all of it is
// available (see Options.Text): not a failure of the paper.
var ErrTextPending = errors.New("text pending")

// ErrPaperFailed marks a paper skipped while building the graph: its PDF
// text could not be read in time or the reading failed. Relations.Err of
// that paper wraps it with the reason; the other papers are unaffected.
var ErrPaperFailed = errors.New("paper skipped")

// Graph answers citation relations for the papers of one Vault. It is safe
// for concurrent use.
type Graph struct {
	v    *catalog.Vault
	opts Options

	// lock serialises builds and freshness checks: a one-slot channel
	// rather than a mutex, so that a call waiting behind another's build
	// gives up when its context ends.
	lock chan struct{}
	g    *graph
	// checkCost is how long the last freshness check took; refreshing
	// says a background check is running.
	checkCost  time.Duration
	refreshing bool
	// parsed memoises sidecars and PDF references by path and stamp, so a
	// rebuild after one file changed re-reads only that file.
	parsed map[string]parsedRefs
	scan   *parsedScan // the cache, likewise
	// version is the parser version the disk cache of parsed references
	// is written and trusted under: parserVersion, except in tests.
	version int

	// changed holds the PDFs Changed named since the last call, under
	// its own lock: Changed is called from where a Text hook may be
	// waiting, and must not wait for a build.
	changedMu sync.Mutex
	changed   map[string]bool
}

// Changed tells the graph that the text of the PDF at rel (vault-relative)
// is more complete than when it was read: its scanned pages were
// recognised. A paper whose text was read pending (ErrTextPending) is read
// again at the next call, and the graph rebuilt from what it holds for
// the others; for any other PDF, Changed costs nothing. It never waits
// for a build.
func (l *Graph) Changed(rel string) {
	l.changedMu.Lock()
	defer l.changedMu.Unlock()
	if l.changed == nil {
		l.changed = map[string]bool{}
	}
	l.changed[rel] = true
}

// takeChanged drops the memo of the pending PDFs Changed named, and
// reports whether there was any. It holds l.lock.
func (l *Graph) takeChanged() bool {
	l.changedMu.Lock()
	changed := l.changed
	l.changed = nil
	l.changedMu.Unlock()
	stale := false
	for rel := range changed {
		if pr, ok := l.parsed[rel]; ok && pr.pending {
			delete(l.parsed, rel)
			stale = true
		}
	}
	return stale
}

// New returns the citation Graph of v. opts may be nil.
func New(v *catalog.Vault, opts *Options) *Graph {
	l := &Graph{v: v, lock: make(chan struct{}, 1), parsed: map[string]parsedRefs{}, version: parserVersion}
	if opts != nil {
		l.opts = *opts
	}
	if l.opts.Revalidate <= 0 {
		l.opts.Revalidate = 2 * time.Second
	}
	if l.opts.PaperTimeout <= 0 {
		l.opts.PaperTimeout = DefaultPaperTimeout
	}
	return l
}

// Work is one node of the graph as shown to an agent: a cited, citing or
// related work, in the library or not.
type Work struct {
	Title   string
	Authors []string
	Year    int
	DOI     string // normalised (see cite.Identifiers); an arXiv DOI alias is reported as ArXivID
	ArXivID string // normalised, without version
	// Paper is the library paper ref this work is, when a localMatch, a
	// DOI/arXiv match or an unambiguous, confirmed title match says so; ""
	// otherwise.
	Paper string
	// PDF is the vault-relative PDF of Paper, "" when none.
	PDF string
	// CitationCount is the cache's citation count of a citing work, 0
	// when unknown.
	CitationCount int
	// Overlap ranks related papers: 2 for a direct citation (either
	// way) plus 1 per shared reference and per shared citer.
	Overlap int
	// Label is how the citing paper's body cites the work, as printed
	// ("12", "Vas17", "Vaswani et al., 2017"), and Contexts the sentences
	// of its body that cite it: of the paper asked about for a
	// reference, of the citing library paper for a cited-by work (whose
	// PDF is ContextPDF). Only works read from PDF text have them.
	Label      string
	Contexts   []Context
	ContextPDF string
}

// Authors3 returns at most three authors, then "et al." when there are more.
func (w Work) Authors3() []string {
	if len(w.Authors) <= 3 {
		return w.Authors
	}
	out := make([]string, 0, 4)
	return append(append(out, w.Authors[:3]...), "et al.")
}

// CitationURI returns the work's citation URI: the library PDF when the work
// is a library paper with a PDF, else its DOI link, else its arXiv link, else
// "" (never a link that cannot be opened).
func (w Work) CitationURI() string {
	switch {
	case w.Paper != "" && w.PDF != "":
		return cite.File(w.PDF)
	case w.DOI != "":
		return cite.DOI(w.DOI)
	case w.ArXivID != "":
		return cite.ArXiv(w.ArXivID)
	}
	return ""
}

// Relations are one paper's references, citers and related library papers.
// The lists belong to the caller; the Authors slices in them are shared and
// read-only.
type Relations struct {
	Paper string // the library paper ref asked about
	// References are the works the paper cites, in the sidecar's order
	// (or the order found in its PDF text), without duplicates or itself.
	References []Work
	// CitedBy are the works citing the paper: library papers first (by
	// ref), then the cache's other entries in its order.
	CitedBy []Work
	// Related are library papers linked to the paper by a direct
	// citation, shared references or shared citers, by Overlap (highest
	// first), ties by ref; at most 100.
	Related []Work
	// Skipped counts malformed entries of the paper's sidecar and of the
	// cache's entry for it that were left out.
	Skipped int
	// Err says why part of the relations could not be read (a malformed
	// sidecar, unreadable PDF text or a malformed cache); the lists still
	// hold everything that could be. Messages name vault-relative paths
	// only.
	Err error
}

// Relations returns the relations of the library paper ref, or of the
// loose PDF ref (see Options.Loose). An error wrapping catalog.ErrNotPaper
// means ref is neither; problems with one
// sidecar or the cache are reported in Relations.Err instead.
func (l *Graph) Relations(ctx context.Context, ref string) (*Relations, error) {
	clean, err := catalog.Clean(ref)
	if err != nil {
		return nil, fmt.Errorf("relations: %w", err)
	}
	g, err := l.graph(ctx)
	if err != nil {
		return nil, err
	}
	if g.paper(clean) == nil {
		return nil, fmt.Errorf("relations: %s: %w", clean, catalog.ErrNotPaper)
	}
	r := &Relations{
		Paper:      clean,
		References: clone(g.refs[clean]),
		CitedBy:    clone(g.citedBy[clean]),
		Related:    clone(g.related(clean)),
		Skipped:    g.skipped[clean],
		Err:        errors.Join(g.errs[clean], g.scanErr),
	}
	return r, nil
}

// syncCheck is the longest freshness check a call waits for; a library whose
// check takes longer is revalidated in the background.
const syncCheck = 10 * time.Millisecond

// refresh revalidates g off the request path and swaps in a rebuilt graph
// when something changed.
func (l *Graph) refresh(g *graph) {
	start := time.Now()
	fresh := g.fresh(l) // stats only: needs no lock
	cost := time.Since(start)
	l.lock <- struct{}{}
	defer func() { <-l.lock }()
	l.checkCost, l.refreshing = cost, false
	if fresh {
		g.checked = time.Now()
		return
	}
	if ng, err := l.build(context.Background(), g.cat); err == nil && l.g == g {
		l.g = ng
	}
}

// clone copies a list so that a caller's changes to it do not reach the
// shared graph. The Authors slices inside are shared with the graph and the
// catalogue and must be treated as read-only.
func clone(ws []Work) []Work {
	if len(ws) == 0 {
		return nil
	}
	return append([]Work(nil), ws...)
}

// graph returns the current graph, rebuilding it when the catalogue or one
// of the files it was built from changed.
func (l *Graph) graph(ctx context.Context) (*graph, error) {
	cat, err := l.v.Catalogue(ctx)
	if err != nil {
		return nil, fmt.Errorf("relations: %w", err)
	}
	select {
	case l.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-l.lock }()
	stale := l.takeChanged()
	if g := l.g; g != nil && g.cat == cat && !stale {
		if time.Since(g.checked) < l.opts.Revalidate || l.refreshing {
			return g, nil
		}
		if l.checkCost > syncCheck {
			// A large library: check (and rebuild) in the background and
			// serve the graph in hand meanwhile.
			l.refreshing = true
			go l.refresh(g)
			return g, nil
		}
		start := time.Now()
		fresh := g.fresh(l)
		l.checkCost = time.Since(start)
		if fresh {
			g.checked = time.Now()
			return g, nil
		}
	}
	g, err := l.build(ctx, cat)
	if err != nil {
		return nil, err
	}
	l.g = g
	return g, nil
}
