package relations

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/catalog"
)

// stamp records what one input file looked like when the graph was built.
type stamp struct {
	path   string
	exists bool
	mtime  time.Time
	size   int64
}

// parsedRefs memoises one paper's references as read from a sidecar or a PDF
// at a given stamp.
type parsedRefs struct {
	st      stamp
	refs    []ref
	skipped int
	err     error
	// own are the DOI and arXiv id the paper's PDF shows of itself, read
	// with its text when the paper's metadata has neither; meta is the
	// title, authors and year it shows, read when the metadata lacks one.
	own  [2]string
	meta PaperMeta
	// pending says the text was read while part of it was still to come
	// (ErrTextPending): the references are used but not kept on disk, and
	// Changed has the paper read again.
	pending bool
}

// parsedScan memoises the cited-by cache as read at a given stamp.
type parsedScan struct {
	st      stamp
	seeds   map[string][]citing
	skipped map[string]int
	err     error
}

// graph is the citation graph of one catalogue. It is immutable once built,
// except for the memo of related papers, which has its own lock.
type graph struct {
	cat     *catalog.Catalogue
	stamps  []stamp
	checked time.Time // guarded by Graph.lock

	refs    map[string][]Work // paper → its references
	citedBy map[string][]Work // paper → its citers
	skipped map[string]int
	errs    map[string]error
	scanErr error

	// Identity keys (see workKey) for related-paper ranking.
	refKeys    map[string][]string // paper → keys of the works it cites
	citerKeys  map[string][]string // paper → keys of the works citing it
	citingKey  map[string][]string // key of a cited work → library papers citing it
	citedByKey map[string][]string // key of a citing work → library papers it cites

	// matches memoises catalogue matches by identifiers: most works are
	// cited many times, and a rebuild over the same catalogue reuses them.
	matches map[[2]string]*catalog.Paper

	// tix finds library papers by title, built on first use.
	tix *titleIndex

	// titles holds, for library papers whose own metadata has no title,
	// the first title a sidecar or the cache gives them.
	titles map[string]string

	// own holds the identifiers library papers without any in their
	// metadata show in their PDF (Options.IDs): byOwn finds the paper by
	// idKey form ("doi:…", "arxiv:…"), ownIDs gives a paper's DOI and
	// arXiv id.
	byOwn  map[string]*catalog.Paper
	ownIDs map[string][2]string
	// meta holds what the PDFs of library papers whose metadata lacks a
	// title, authors or year show of them (Options.Meta), by ref.
	meta map[string]PaperMeta
	// citers holds, for a library paper cited by another, how the citing
	// paper cites it: cites[cited][citing].
	cites map[string]map[string]citation

	// all are the catalogue's papers, then the library's loose PDFs
	// (Options.Loose), each a paper whose Ref and PDF are its path; loose
	// finds those by path.
	all   []*catalog.Paper
	loose map[string]*catalog.Paper
	// copyOf names the library paper a loose PDF is a copy of (its PDF
	// shows that paper's identifiers or title): such a PDF is matched to
	// nothing and cites nothing, so that one work is one node.
	copyOf map[string]*catalog.Paper

	relMu sync.Mutex
	rel   map[string][]Work
}

// idKey is the identity of a work by its normalised identifiers: the DOI
// when known, else the arXiv id, else "".
func idKey(doi, arxiv string) string {
	switch {
	case doi != "":
		return "doi:" + doi
	case arxiv != "":
		return "arxiv:" + arxiv
	}
	return ""
}

// workKey is the identity of a work in the graph: the library paper when it
// is one, else its identifiers, else its Semantic Scholar id, else "" (a
// work known only by title is never merged with another).
func workKey(paper, doi, arxiv, s2 string) string {
	if paper != "" {
		return "paper:" + paper
	}
	if k := idKey(doi, arxiv); k != "" {
		return k
	}
	if s2 != "" {
		return "s2:" + s2
	}
	return ""
}

// build reads every sidecar (or PDF fallback) and the cache, and indexes
// them against cat. It holds Graph.lock.
func (l *Graph) build(ctx context.Context, cat *catalog.Catalogue) (*graph, error) {
	g := &graph{
		cat:        cat,
		refs:       map[string][]Work{},
		citedBy:    map[string][]Work{},
		skipped:    map[string]int{},
		errs:       map[string]error{},
		refKeys:    map[string][]string{},
		citerKeys:  map[string][]string{},
		citingKey:  map[string][]string{},
		citedByKey: map[string][]string{},
		rel:        map[string][]Work{},
		titles:     map[string]string{},
		matches:    map[[2]string]*catalog.Paper{},
		byOwn:      map[string]*catalog.Paper{},
		ownIDs:     map[string][2]string{},
		meta:       map[string]PaperMeta{},
		cites:      map[string]map[string]citation{},
	}
	if l.g != nil && l.g.cat == cat {
		g.matches = l.g.matches
	}
	if err := l.addLoose(ctx, g); err != nil {
		return nil, err
	}
	parsed := make(map[string]parsedRefs, len(l.parsed))
	// A build that is cancelled part way keeps what it read, so that the
	// next one does not read those papers again.
	keep := func() {
		for k, pr := range parsed {
			l.parsed[k] = pr
		}
	}
	rc := l.refCache()
	defer rc.flush()
	libCiters := map[string][]string{} // paper → library papers citing it
	// Every paper's references are read first, with the identifiers the
	// PDFs of papers without any show, so that a reference matches such
	// a paper whatever the order.
	type read struct {
		p  *catalog.Paper
		pr parsedRefs
	}
	var reads []read
	for _, p := range g.all {
		if err := ctx.Err(); err != nil {
			keep()
			return nil, err
		}
		pr, ok, err := l.paperRefs(ctx, p, g, rc)
		if err != nil {
			keep()
			return nil, err
		}
		if !ok {
			continue
		}
		parsed[pr.st.path] = pr
		g.addOwn(p, pr.own)
		if pr.meta.Title != "" || len(pr.meta.Authors) > 0 || pr.meta.Year > 0 {
			g.meta[p.Ref] = pr.meta
		}
		reads = append(reads, read{p, pr})
	}
	g.markCopies()
	for _, rd := range reads {
		p, pr := rd.p, rd.pr
		// A copy of a library paper lists its references but cites
		// nothing in the graph's name: the paper does.
		copied := g.copyOf[p.Ref] != nil
		g.skipped[p.Ref] += pr.skipped
		if pr.err != nil {
			g.errs[p.Ref] = pr.err
		}
		seen := map[string]bool{}
		for _, r := range pr.refs {
			w := g.resolveRef(r)
			if len(w.Contexts) > 0 {
				w.ContextPDF = p.PDF
			}
			if w.Paper == p.Ref || (w.Paper == "" && g.samePaper(p, w.DOI, w.ArXivID)) {
				// A paper never cites itself: such an entry is the
				// paper's own identifier (an arXiv stamp, a footer DOI)
				// or a sidecar error.
				continue
			}
			k := workKey(w.Paper, w.DOI, w.ArXivID, "")
			if k != "" {
				if seen[k] {
					continue
				}
				seen[k] = true
				if !copied {
					g.refKeys[p.Ref] = append(g.refKeys[p.Ref], k)
					g.citingKey[k] = append(g.citingKey[k], p.Ref)
				}
			}
			if w.Paper != "" && !copied {
				libCiters[w.Paper] = append(libCiters[w.Paper], p.Ref)
				g.noteTitle(w.Paper, r.title)
				g.noteCite(w.Paper, p, r)
			}
			g.refs[p.Ref] = append(g.refs[p.Ref], w)
		}
	}
	l.parsed = parsed
	if err := l.addScan(g, libCiters); err != nil {
		return nil, err
	}
	g.checked = time.Now()
	return g, nil
}

// paperRefs returns a paper's references from its sidecar, else from its PDF
// text when the fallback is configured; ok is false when there is neither.
// Only a cancelled context is an error: problems with the paper's files are
// recorded in the result, and so is a panic while reading them (a bug
// costs that paper, not the graph).
func (l *Graph) paperRefs(ctx context.Context, p *catalog.Paper, g *graph, rc *refCache) (pr parsedRefs, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			pr = parsedRefs{st: stamp{path: p.Ref}, err: fmt.Errorf("%s: %w: internal failure: %v", p.Ref, ErrPaperFailed, r)}
			ok, err = true, nil
		}
	}()
	sc := path.Join(p.Ref, SidecarFile)
	var st stamp
	if g.loose[p.Ref] == nil { // a loose PDF has no sidecar
		st = l.stat(sc)
		g.stamps = append(g.stamps, st)
	}
	if st.exists {
		if memo, ok := l.parsed[sc]; ok && memo.st == st {
			return memo, true, nil
		}
		pr = parsedRefs{st: st}
		data, err := l.v.FS().ReadFile(sc, maxSidecar)
		if err == nil {
			pr.refs, pr.skipped, err = parseSidecar(data)
			if err != nil {
				err = fmt.Errorf("%s: %w", sc, err)
			}
		}
		pr.err = err
		return pr, true, nil
	}
	if l.opts.Text == nil || p.PDF == "" {
		return parsedRefs{}, false, nil
	}
	pst := l.stat(p.PDF)
	g.stamps = append(g.stamps, pst)
	if memo, ok := l.parsed[p.PDF]; ok && memo.st == pst {
		return memo, true, nil
	}
	pr = parsedRefs{st: pst}
	if refs, own, meta, ok := rc.load(pst); ok {
		pr.refs, pr.own, pr.meta = refs, own, meta
		return pr, true, nil
	}
	text, trimmed, err := l.paperText(ctx, p)
	if errors.Is(err, ErrTextPending) {
		pr.pending, err = true, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return parsedRefs{}, false, ctx.Err()
		}
		pr.err = fmt.Errorf("%s: references from text: %w: %w", p.PDF, ErrPaperFailed, err)
		return pr, true, nil
	}
	// Citing sentences are found by page: a text cut at its start has
	// lost its first pages' numbers.
	pr.refs = textRefs(text, !trimmed)
	if needsMeta(p) && l.opts.Meta != nil {
		m, err := l.ownMeta(ctx, p)
		if err != nil && ctx.Err() != nil {
			return parsedRefs{}, false, ctx.Err()
		}
		if err == nil {
			pr.meta = m
		}
	}
	if p.DOI == "" && p.ArXiv == "" && l.opts.IDs != nil {
		// The PDF was just read: its own identifiers cost little now.
		doi, arxiv, err := l.ownIDs(ctx, p)
		if err != nil && ctx.Err() != nil {
			return parsedRefs{}, false, ctx.Err()
		}
		if err == nil {
			pr.own[0], pr.own[1] = cite.Identifiers(doi, arxiv)
		}
	}
	if !pr.pending {
		rc.store(pst, pr.refs, pr.own, pr.meta)
	}
	return pr, true, nil
}

// paperText calls the Text hook for one paper, within PaperTimeout, and
// keeps at most the last maxPaperText bytes. A panic in the hook is that
// paper's error, not the build's.
func (l *Graph) paperText(ctx context.Context, p *catalog.Paper) (text string, trimmed bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.PaperTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			text, trimmed, err = "", false, fmt.Errorf("internal failure reading the text: %v", r)
		}
	}()
	text, err = l.opts.Text(ctx, p)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("took longer than %v: %w", l.opts.PaperTimeout, err)
	}
	if len(text) > maxPaperText {
		text, trimmed = text[len(text)-maxPaperText:], true
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	return text, trimmed, err
}

// stat stamps a file of the Vault for the freshness check. It only reads the
// file's modification time and size, never its content, so it uses a plain
// stat of the path under the root: a tenth of the cost of a checked walk,
// which matters with one stamp per paper. Whatever it follows is still read
// only through the safe view (or, for the cache, its own os.Root), which
// refuses what must not be read. A file that cannot be stat-ed for another
// reason than its absence counts as present, so that reading it reports why.
func (l *Graph) stat(rel string) stamp {
	st := stamp{path: rel}
	fi, err := os.Stat(filepath.Join(l.v.Root(), filepath.FromSlash(rel)))
	switch {
	case err == nil:
		st.exists, st.mtime, st.size = true, fi.ModTime(), fi.Size()
	case !errors.Is(err, fs.ErrNotExist):
		st.exists = true
	}
	return st
}

// fresh reports whether no input file changed since the graph was built.
func (g *graph) fresh(l *Graph) bool {
	for _, s := range g.stamps {
		if l.stat(s.path) != s {
			return false
		}
	}
	return true
}

// match is cat.Match, memoised, else the paper whose PDF shows the
// identifiers. It runs only while the graph is built.
func (g *graph) match(doi, arxiv string) *catalog.Paper {
	if doi == "" && arxiv == "" {
		return nil
	}
	k := [2]string{doi, arxiv}
	p, ok := g.matches[k]
	if !ok {
		p = g.cat.Match(doi, arxiv)
		g.matches[k] = p
	}
	if p == nil {
		p = g.matchOwn(doi, arxiv)
	}
	return p
}

// matchOwn returns the paper whose own PDF shows the identifiers (in the
// forms cite.Identifiers gives), or nil.
func (g *graph) matchOwn(doi, arxiv string) *catalog.Paper {
	doi, arxiv = cite.Identifiers(doi, arxiv)
	if p := g.byOwn[idKey(doi, "")]; doi != "" && p != nil {
		return p
	}
	if arxiv != "" {
		return g.byOwn[idKey("", arxiv)]
	}
	return nil
}

// addOwn records the identifiers p's PDF shows of itself, for a paper
// whose metadata has none; an identifier a paper of the catalogue already
// has, or another paper's PDF showed first, is left to it.
func (g *graph) addOwn(p *catalog.Paper, own [2]string) {
	if p.DOI != "" || p.ArXiv != "" || own == [2]string{} {
		return
	}
	g.ownIDs[p.Ref] = own
	if doi := own[0]; doi != "" && g.byOwn[idKey(doi, "")] == nil && g.cat.Match(doi, "") == nil {
		g.byOwn[idKey(doi, "")] = p
	}
	if arxiv := own[1]; arxiv != "" && g.byOwn[idKey("", arxiv)] == nil && g.cat.Match("", arxiv) == nil {
		g.byOwn[idKey("", arxiv)] = p
	}
}

// ownIDs calls the IDs hook for one paper, within PaperTimeout; a panic
// in the hook is that paper's error.
func (l *Graph) ownIDs(ctx context.Context, p *catalog.Paper) (doi, arxiv string, err error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.PaperTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			doi, arxiv, err = "", "", fmt.Errorf("internal failure reading the identifiers: %v", r)
		}
	}()
	return l.opts.IDs(ctx, p)
}

// noteTitle records t as the fallback title of the library paper ref when
// its metadata has none and no title was recorded before.
func (g *graph) noteTitle(ref, t string) {
	if t == "" || g.titles[ref] != "" {
		return
	}
	if p := g.paper(ref); p != nil && p.Title() == "" {
		g.titles[ref] = t
	}
}

// libWork is the Work of the library paper ref, titled from the sidecars or
// the cache when its metadata has no title.
func (g *graph) libWork(ref string) Work {
	w := g.withPaper(Work{}, g.paper(ref))
	if w.Title == "" {
		w.Title = g.titles[ref]
	}
	if w.Title == "" {
		w.Title = g.meta[ref].Title
	}
	return w
}

// samePaper reports whether identifiers name p itself, by its metadata or
// by what its PDF shows.
func (g *graph) samePaper(p *catalog.Paper, doi, arxiv string) bool {
	own := g.ownIDs[p.Ref]
	return (doi != "" && (doi == p.DOI || doi == own[0])) || (arxiv != "" && (arxiv == p.ArXiv || arxiv == own[1]))
}

// resolveRef turns a reference into a Work: a library paper when its
// localMatch names one, else when its DOI or arXiv id matches one, else,
// for an entry parsed from PDF text, when its title names exactly one (see
// titleIndex.match).
func (g *graph) resolveRef(r ref) Work {
	w := Work{Title: r.title, Authors: r.authors, Year: r.year, DOI: r.doi, ArXivID: r.arxiv, Label: r.label, Contexts: r.contexts}
	var p *catalog.Paper
	if r.local != "" {
		p = g.paper(r.local)
	}
	if p == nil {
		p = g.match(r.doi, r.arxiv)
	}
	if p == nil && r.parsed {
		if g.tix == nil {
			g.tix = g.titleIndex()
		}
		p = g.tix.match(r)
	}
	return g.withPaper(w, p)
}

// withPaper is withPaper with the identifiers p's PDF shows when its
// metadata has none.
func (g *graph) withPaper(w Work, p *catalog.Paper) Work {
	w = withPaper(w, p)
	if p != nil {

		if own, ok := g.ownIDs[p.Ref]; ok {
			if w.DOI == "" {
				w.DOI = own[0]
			}
			if w.ArXivID == "" {
				w.ArXivID = own[1]
			}
		}
	}
	return w
}

// withPaper ties w to the library paper p (nil leaves w as it is), taking the
// library's metadata where it has any.
func withPaper(w Work, p *catalog.Paper) Work {
	if p == nil {
		return w
	}
	w.Paper, w.PDF = p.Ref, p.PDF
	if t := p.Title(); t != "" {
		w.Title = t
	}
	if len(p.Meta.Authors) > 0 {
		w.Authors = p.Meta.Authors
	}
	if p.Meta.Year > 0 {
		w.Year = p.Meta.Year
	}
	if p.DOI != "" {
		w.DOI = p.DOI
	}
	if p.ArXiv != "" {
		w.ArXivID = p.ArXiv
	}
	return w
}

// addScan merges the cited-by cache with the library's own citations into
// g.citedBy and the citer indexes.
func (l *Graph) addScan(g *graph, libCiters map[string][]string) error {
	if st := l.stat(ScanFile); l.scan == nil || l.scan.st != st {
		seeds, skipped, st, err := l.readScan()
		l.scan = &parsedScan{st: st, seeds: seeds, skipped: skipped, err: err}
	}
	seeds, skipped := l.scan.seeds, l.scan.skipped
	g.stamps = append(g.stamps, l.scan.st)
	g.scanErr = l.scan.err
	// Seeds are keyed by paper ref; a key naming a file inside a paper
	// (its PDF, say) is read as that paper.
	bySeed := map[string][]citing{}
	keys := make([]string, 0, len(seeds))
	for k := range seeds {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic when two keys name one paper
	for _, k := range keys {
		c, err := catalog.Clean(k)
		if err != nil {
			continue
		}
		p := g.cat.PaperOf(c)
		if p == nil {
			p = g.loose[c]
		}
		if p == nil {
			continue
		}
		bySeed[p.Ref] = append(bySeed[p.Ref], seeds[k]...)
		g.skipped[p.Ref] += skipped[k]
	}
	// Titles first, so every card of an untitled library paper gets one.
	for _, p := range g.all {
		for _, c := range bySeed[p.Ref] {
			if q := g.match(c.doi, c.arxiv); q != nil && q != p {
				g.noteTitle(q.Ref, c.title)
			}
		}
	}
	for _, p := range g.all {
		ref := p.Ref
		var lib, ext []Work
		var extKeys []string
		inLib := map[string]int{} // library citer → index in lib
		seen := map[string]bool{}
		addLib := func(q string, count int) {
			if i, ok := inLib[q]; ok {
				lib[i].CitationCount = max(lib[i].CitationCount, count)
				return
			}
			inLib[q] = len(lib)
			w := g.libWork(q)
			w.CitationCount = count
			if c, ok := g.cites[ref][q]; ok {
				w.Label, w.Contexts = c.label, c.contexts
				if len(c.contexts) > 0 {
					w.ContextPDF = c.pdf
				}
			}
			lib = append(lib, w)
		}
		for _, q := range libCiters[ref] {
			addLib(q, 0)
		}
		for _, c := range bySeed[ref] {
			q := g.match(c.doi, c.arxiv)
			if q != nil && q.Ref == ref {
				// Never the seed's own path: the entry stays a card.
				q = nil
			}
			if q != nil {
				addLib(q.Ref, c.count)
				continue
			}
			k := workKey("", c.doi, c.arxiv, c.s2)
			if k != "" {
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			// The cache's s2Id is the identity shared across its seeds,
			// so co-citation keys on it first.
			ck := k
			if c.s2 != "" {
				ck = "s2:" + c.s2
			}
			ext = append(ext, Work{Title: c.title, Year: c.year, DOI: c.doi, ArXivID: c.arxiv, CitationCount: c.count})
			extKeys = append(extKeys, ck)
		}
		slices.SortFunc(lib, func(a, b Work) int { return cmp.Compare(a.Paper, b.Paper) })
		all := append(lib, ext...)
		if len(all) == 0 {
			continue
		}
		g.citedBy[ref] = all
		keys := make([]string, 0, len(all))
		for _, w := range lib {
			keys = append(keys, "paper:"+w.Paper)
		}
		for _, k := range append(keys, extKeys...) {
			if k == "" {
				continue
			}
			g.citerKeys[ref] = append(g.citerKeys[ref], k)
			g.citedByKey[k] = append(g.citedByKey[k], ref)
		}
	}
	return nil
}

// Weights of the related-paper score.
const (
	directWeight = 2 // one of the two papers cites the other
	sharedWeight = 1 // per shared reference or shared citer
)

// related ranks the library papers linked to ref: by a direct citation in
// either direction, by shared references (bibliographic coupling) and by
// shared citers (co-citation). A direct citation weighs directWeight, each
// shared work sharedWeight; ties go by ref. Directly linked papers are kept
// (they also appear in References or CitedBy) because they are the most
// closely related, and an agent asking only for related papers should see
// them. The result is memoised per paper.
func (g *graph) related(ref string) []Work {
	g.relMu.Lock()
	defer g.relMu.Unlock()
	if ws, ok := g.rel[ref]; ok {
		return ws
	}
	score := map[string]int{}
	// Direct links, each direction counted once however many inputs
	// (sidecar, PDF text, cache) report it.
	type link struct {
		paper string
		cites bool // ref cites paper (else paper cites ref)
	}
	direct := map[link]bool{}
	for _, k := range g.refKeys[ref] {
		if q, ok := strings.CutPrefix(k, "paper:"); ok {
			direct[link{q, true}] = true
		}
	}
	for _, q := range g.citedByKey["paper:"+ref] {
		direct[link{q, true}] = true // the cache says ref cites q
	}
	for _, k := range g.citerKeys[ref] {
		if q, ok := strings.CutPrefix(k, "paper:"); ok {
			direct[link{q, false}] = true
		}
	}
	for l := range direct {
		if l.paper != ref {
			score[l.paper] += directWeight
		}
	}
	for _, k := range g.refKeys[ref] {
		for _, q := range g.citingKey[k] {
			if q != ref {
				score[q] += sharedWeight
			}
		}
	}
	for _, k := range g.citerKeys[ref] {
		for _, q := range g.citedByKey[k] {
			if q != ref {
				score[q] += sharedWeight
			}
		}
	}
	type scored struct {
		ref string
		n   int
	}
	top := make([]scored, 0, len(score))
	for q, n := range score {
		top = append(top, scored{q, n})
	}
	slices.SortFunc(top, func(a, b scored) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.ref, b.ref)
	})
	if len(top) > maxRelated {
		top = top[:maxRelated]
	}
	ws := make([]Work, len(top))
	for i, t := range top {
		ws[i] = g.libWork(t.ref)
		ws[i].Overlap = t.n
	}
	g.rel[ref] = ws
	return ws
}
