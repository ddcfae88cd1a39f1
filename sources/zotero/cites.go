package zotero

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// maxCiteText is the most of one PDF's text read for its references: its
// end, where the reference section is.
const maxCiteText = 16 << 20

// citeState is the citation graph of a library's items, read from their
// PDFs' reference sections, for the snapshot it was built for. The
// references parsed from each PDF are kept by the file's stamp, so that
// the graph of a new snapshot parses only the PDFs that changed.
type citeState struct {
	lock   chan struct{} // one build at a time; a call waiting for it gives up when its context ends
	g      *citeGraph
	parsed map[string]parsedPDF // by attachment path
}

// parsedPDF is what one PDF's text gave: its references, or why it gave
// none. pending marks a text whose scanned pages wait for OCR: it is read
// again once pages were recognised.
type parsedPDF struct {
	stamp   string
	refs    []relations.Reference
	err     error
	pending bool
}

// citeGraph is the citation graph of one snapshot.
type citeGraph struct {
	snap    *Snapshot
	gen     int64           // the OCR store's count of recognised pages when built
	pending bool            // a PDF's text waited for OCR
	pdfs    map[*Item]*Item // by regular item: the PDF its references are read from
	refs    map[*Item][]citeRef
	citedBy map[*Item][]citeRef
	errs    map[*Item]error
}

// citeRef is one reference of an item's PDF: the work, the library item it
// names (nil for none), the item whose PDF cites it and that PDF.
type citeRef struct {
	ref  relations.Reference
	to   *Item
	from *Item
	pdf  *Item
}

// citeGraph returns the citation graph of snap, built once per snapshot
// (and again when scanned pages it read without their text were
// recognised since), within ctx.
func (l *Library) citeGraph(ctx context.Context, snap *Snapshot) (*citeGraph, error) {
	c := &l.pdfs.cites
	l.pdfs.mu.Lock()
	if c.lock == nil {
		c.lock = make(chan struct{}, 1)
	}
	lock := c.lock
	l.pdfs.mu.Unlock()
	select {
	case lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-lock }()
	l.pdfs.ocrEngine()
	gen := l.pdfs.ocr.store.Gen()
	if g := c.g; g != nil && g.snap == snap && (!g.pending || g.gen == gen) {
		return g, nil
	}
	g, err := l.buildCites(ctx, snap, gen)
	if err != nil {
		return nil, err
	}
	c.g = g
	return g, nil
}

// buildCites reads the references of every regular item's first readable
// PDF (not in the trash) and ties them to the library's items. It holds
// the graph's lock.
func (l *Library) buildCites(ctx context.Context, snap *Snapshot, gen int64) (*citeGraph, error) {
	c := &l.pdfs.cites
	g := &citeGraph{snap: snap, gen: gen, pdfs: map[*Item]*Item{}, refs: map[*Item][]citeRef{}, citedBy: map[*Item][]citeRef{}, errs: map[*Item]error{}}
	var items []*Item
	for _, it := range snap.items {
		if it.isRegular() && !snap.top(it).trashed {
			items = append(items, it)
		}
	}
	// In key order: the first of two items with one DOI is the same in
	// every build.
	sort.Slice(items, func(i, j int) bool { return snap.path(items[i]) < snap.path(items[j]) })
	papers := make([]*catalog.Paper, len(items))
	byRef := make(map[string]*Item, len(items))
	for i, it := range items {
		papers[i] = paperOf(snap, it)
		byRef[papers[i].Ref] = it
	}
	m := relations.NewMatcher(papers)
	if c.parsed == nil {
		c.parsed = map[string]parsedPDF{}
	}
	for k := range c.parsed {
		if snap.item(k) == nil {
			delete(c.parsed, k) // an attachment gone: its memo too
		}
	}
	// What is parsed is kept on disk for the next process, even when the
	// call's context ends first.
	rc := relations.NewRefCache(l.cacheDir, l.id)
	defer rc.Flush()
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			// What was parsed is kept (c.parsed) for the next call.
			return nil, err
		}
		pdfItem, pr := l.itemRefs(ctx, snap, it, c.parsed, rc)
		if pdfItem == nil {
			continue
		}
		g.pdfs[it] = pdfItem
		g.pending = g.pending || pr.pending
		if pr.err != nil {
			g.errs[it] = pr.err
		}
		seen := map[*Item]bool{}
		for _, r := range pr.refs {
			var to *Item
			if p := m.Match(r); p != nil {
				to = byRef[p.Ref]
			}
			if to == it {
				continue // a paper citing itself is its own reference list's noise
			}
			if to != nil {
				if seen[to] {
					continue
				}
				seen[to] = true
			}
			cr := citeRef{ref: r, to: to, from: it, pdf: pdfItem}
			g.refs[it] = append(g.refs[it], cr)
			if to != nil {
				g.citedBy[to] = append(g.citedBy[to], cr)
			}
		}
	}
	return g, nil
}

// itemRefs returns the PDF attachment of it whose references are read
// (its first PDF whose text can be extracted) and what they are, from memo
// or the disk cache rc when the file is as it was then, else read and kept
// in both (a text whose scanned pages wait for OCR in memo only); nil when
// it has no PDF on disk.
func (l *Library) itemRefs(ctx context.Context, snap *Snapshot, it *Item, memo map[string]parsedPDF, rc *relations.RefCache) (*Item, parsedPDF) {
	var firstErr error
	var first *Item
	for _, a := range snap.children(it) {
		if !a.isPDF() {
			continue
		}
		key := snap.path(a)
		ref, err := l.locate(a)
		if err != nil {
			continue
		}
		view, f, st, err := ref.open()
		if err != nil {
			continue // a missing file is not the item's PDF
		}
		f.Close()
		view.Close()
		stamp := fmt.Sprintf("%s\x00%s\x00%d:%d", ref.root, ref.rel, st.Size(), st.ModTime().UnixNano())
		// The disk cache names the file by its place in the library,
		// never by an absolute path.
		diskKey := key + "\x00" + ref.rel
		if pr, ok := memo[key]; ok && pr.stamp == stamp && !pr.pending {
			if pr.err == nil {
				return a, pr
			}
			if first == nil {
				first, firstErr = a, pr.err
			}
			continue
		}
		if refs, ok := rc.Load(diskKey, st.ModTime(), st.Size()); ok {
			pr := parsedPDF{stamp: stamp, refs: refs}
			memo[key] = pr
			return a, pr
		}
		doc, err := l.pdfs.document(ctx, key, a)
		if err != nil {
			if ctx.Err() != nil {
				return nil, parsedPDF{}
			}
			if first == nil {
				first, firstErr = a, err
			}
			memo[key] = parsedPDF{stamp: stamp, err: err}
			continue
		}
		rd, notes := l.pdfs.recognised(ctx, key, a, doc, nil, false)
		pending := false
		for _, n := range notes {
			pending = pending || n.Text == "" && n.Reason == notYet
		}
		pages := make([]string, len(rd.Pages))
		size := 0
		for i := len(rd.Pages) - 1; i >= 0 && size < maxCiteText; i-- {
			pages[i] = rd.Pages[i].Text
			size += len(pages[i])
		}
		pr := parsedPDF{stamp: stamp, refs: relations.TextReferences(strings.Join(pages, "\f")), pending: pending}
		memo[key] = pr
		if !pending {
			rc.Store(diskKey, st.ModTime(), st.Size(), pr.refs)
		}
		return a, pr
	}
	if first != nil {
		return first, parsedPDF{err: fmt.Errorf("%s: %w", snap.path(first), firstErr)}
	}
	return nil, parsedPDF{}
}

// paperOf is an item as the matcher knows a library paper: its path, its
// title, authors and year, its DOI and arXiv id (from its DOI, its archive
// ID or its arXiv URL).
func paperOf(snap *Snapshot, it *Item) *catalog.Paper {
	p := &catalog.Paper{Ref: snap.path(it), Meta: catalog.Metadata{Title: textnorm.Line(it.Title()), Year: year(it.Fields["date"])}}
	for _, c := range it.Creators {
		if c.Type == "" || c.Type == "author" {
			if n := textnorm.Line(c.Name()); n != "" {
				p.Meta.Authors = append(p.Meta.Authors, n)
			}
		}
	}
	arxiv := ""
	if v, ok := cutFold(it.Fields["archiveID"], "arxiv:"); ok {
		arxiv = v
	} else if u := it.Fields["url"]; strings.Contains(strings.ToLower(u), "arxiv.org/abs/") {
		arxiv = u[strings.Index(strings.ToLower(u), "arxiv.org/abs/"):]
	}
	p.DOI, p.ArXiv = cite.Identifiers(it.Fields["DOI"], arxiv)
	return p
}

// cutFold is strings.CutPrefix with prefix matched case-insensitively.
func cutFold(s, prefix string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return strings.TrimSpace(s[len(prefix):]), true
}

// itemWork is a library item as a relation card shows it.
func (s *Snapshot) itemWork(it *Item) sources.Work {
	w := sources.Work{Title: textnorm.Line(it.Title()), Year: year(it.Fields["date"]), DOI: textnorm.Line(it.Fields["DOI"]), Paper: s.path(it), CitationURI: cite.File(s.path(it))}
	for i, c := range it.Creators {
		if i == 3 {
			w.Authors = append(w.Authors, "et al.")
			break
		}
		w.Authors = append(w.Authors, textnorm.Line(c.Name()))
	}
	return w
}

// citeContexts are the sentences of the citing PDF pdf that cite the work,
// each cited by its page.
func (s *Snapshot) citeContexts(r citeRef) []sources.CiteContext {
	var out []sources.CiteContext
	for _, c := range r.ref.Contexts {
		out = append(out, sources.CiteContext{Page: c.Page, Text: c.Text, CitationURI: cite.Page(s.path(r.pdf), c.Page)})
	}
	return out
}

// citations returns the PDF an item's references are read from, its
// references, tied to the library's items, and the library items whose
// PDFs cite it. Each
// carries the label and sentences of the citing PDF; the tools hand those
// out only when the citing item is in the grant.
func (s *Snapshot) citations(ctx context.Context, it *Item) (main string, refs, citedBy []sources.Work, problems []string, err error) {
	g, err := s.lib.citeGraph(ctx, s)
	if err != nil {
		return "", nil, nil, nil, err
	}
	if pdf := g.pdfs[it]; pdf != nil {
		main = s.path(pdf)
	}
	for _, r := range g.refs[it] {
		var w sources.Work
		if r.to != nil {
			w = s.itemWork(r.to)
		} else {
			w = sources.Work{Title: textnorm.Line(r.ref.Title), Authors: textnorm.Lines(r.ref.Authors3()), Year: r.ref.Year,
				DOI: textnorm.Line(r.ref.DOI), ArXivID: textnorm.Line(r.ref.ArXivID), CitationURI: r.ref.CitationURI()}
		}
		w.Label, w.Contexts = textnorm.Line(r.ref.Label), s.citeContexts(r)
		refs = append(refs, w)
	}
	for _, r := range g.citedBy[it] {
		w := s.itemWork(r.from)
		w.Label, w.Contexts = textnorm.Line(r.ref.Label), s.citeContexts(r)
		citedBy = append(citedBy, w)
	}
	if e := g.errs[it]; e != nil {
		problems = append(problems, "references not read: "+textnorm.Line(e.Error()))
	}
	return main, refs, citedBy, problems, nil
}
