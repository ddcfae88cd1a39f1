package researchctx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// Resolve resolves req with a process-wide Resolver.
func Resolve(ctx context.Context, req Request) (*Plan, error) {
	return defaultResolver.Resolve(ctx, req)
}

// Resolve turns a Request into a Plan. Paths that cannot be authorised are
// listed in Plan.Dropped with a reason; only a malformed Request (no
// absolute Vault, an unsafe runtime id, no turn id, a bad budget) is an error,
// and a ctx cancelled or past its deadline, which gives ctx.Err() and no
// plan: a plan made without reading what it had to would look valid.
//
// A selection's quote is checked against its document: on the page it
// names (a passage running onto the next page counts), or placed by its
// text when it names none. A quote that is not there is listed in Dropped
// with DropQuote; when the text is elsewhere in the document the evidence
// is placed and cited there, else it stays as the user's words with no
// page and no citation. Evidence from a document that cannot be read is
// marked Unreadable.
func (r *Resolver) Resolve(ctx context.Context, req Request) (*Plan, error) {
	if err := checkRequest(&req); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	budget, err := req.Budget.Apply(grant.DefaultBudget())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRequest, err)
	}
	if one := budget.CardChars + grant.CardOverhead; budget.TurnChars < one {
		// Not even one search card would fit: every search would fail.
		return nil, fmt.Errorf("%w: %w: turnChars = %d is less than one search card (cardChars %d + %d)",
			ErrRequest, grant.ErrBudget, budget.TurnChars, budget.CardChars, grant.CardOverhead)
	}
	lib, err := r.Library(req.Vault)
	if err != nil {
		// Named as the host gave it: the error is the host's, never a
		// tool result, and a host with several Vaults must tell which.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // "open .: ..." names nothing
		}
		return nil, fmt.Errorf("%w: vault %q cannot be opened: %w", ErrRequest, req.Vault, err)
	}
	res := &resolution{ctx: ctx, lib: lib, seen: map[string]bool{}, reg: r.registry()}
	res.plan = &Plan{
		Vault:     req.Vault,
		RuntimeID: req.RuntimeID,
		TurnID:    req.TurnID,
		Evidence:  []Evidence{},
		Scope:     grant.Scope{Budget: budget, Sources: []grant.Ref{}, Tools: []string{}},
		Dropped:   []Dropped{},
		Notes:     req.Budget.Capped(),
	}
	var current *vault.PaperInfo
	if req.CurrentPaper != "" {
		current = res.addPaper(req.CurrentPaper)
	}
	for _, sel := range req.Selections {
		res.addSelection(sel, current)
	}
	for _, m := range req.Mentions {
		res.addMention(m)
	}
	if err := ctx.Err(); err != nil {
		// Something above may have given up half-way (a PDF not read, a
		// path not classified): the plan would be wrong, not just late.
		return nil, err
	}
	res.canonical()
	p := res.plan
	p.Mode = grant.ModeMCP
	if req.Remote || len(p.Sources) == 0 {
		p.Mode = grant.ModePromptOnly
	} else {
		p.Tools = append(p.Tools, grant.Tools()...)
	}
	p.Fingerprint = p.Scope.Fingerprint()
	return p, nil
}

// checkRequest validates the fields every Request needs.
func checkRequest(req *Request) error {
	switch {
	case req.Vault == "":
		return fmt.Errorf("%w: vault is required", ErrRequest)
	case !filepath.IsAbs(req.Vault):
		return fmt.Errorf("%w: vault must be an absolute path", ErrRequest)
	case vault.IsFileSystemRoot(req.Vault):
		// Every file of the machine would be in the library, and its
		// grants and caches written at /.agentero.
		return fmt.Errorf("%w: vault %q is the root of the file system: name the library's own folder", ErrRequest, req.Vault)
	}
	if err := grant.CheckRuntimeID(req.RuntimeID); err != nil {
		return fmt.Errorf("%w: %w", ErrRequest, err)
	}
	if req.TurnID == "" || len(req.TurnID) > 256 || !utf8.ValidString(req.TurnID) ||
		strings.ContainsFunc(req.TurnID, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: turnId must be 1–256 printable characters", ErrRequest)
	}
	return nil
}

// resolution is the state of one Resolve call.
type resolution struct {
	ctx  context.Context
	reg  *sources.Registry // the connectors mentions may name
	plan *Plan
	seen map[string]bool // source paths already added
	// within maps a granted file to the paper it lies in, if any.
	within map[string]*vault.PaperInfo
	lib    *vault.Library
	docs   map[string]docRead // files read, by path
}

// docRead is a document Resolve read, or why it could not.
type docRead struct {
	doc *sources.Document
	err error
}

func (r *resolution) drop(p string, reason DropReason) {
	r.plan.Dropped = append(r.plan.Dropped, Dropped{Path: displayPath(p), Reason: reason})
}

// displayPath keeps a dropped path recognisable without echoing line
// breaks, control or direction characters (escaped by textnorm.Line) or an
// absolute path of the machine back to the host's logs.
func displayPath(p string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(strings.TrimSpace(p), "/") {
		return "(absolute path)"
	}
	return textnorm.Line(p)
}

// classify checks a vault-relative path and returns what it is, or records
// why it was dropped.
func (r *resolution) classify(p string) (*vault.Item, bool) {
	orig := p
	if p == "" {
		r.drop(p, DropEmpty)
		return nil, false
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		r.drop(p, DropAbsolute)
		return nil, false
	}
	clean := path.Clean(p)
	if clean == "." {
		// ".", "./", "papers/..": granting the root would grant every
		// paper and note at once.
		r.drop(p, DropRoot)
		return nil, false
	}
	if clean != ".." && !strings.HasPrefix(clean, "../") {
		// "notes/../x" is x, inside the vault; only a path that climbs
		// above the root is outside it.
		p = clean
	}
	it, err := r.lib.Stat(r.ctx, p)
	if err != nil {
		why := reason(err)
		if why == DropNotFound && r.unknownKind(orig) {
			why = DropUnknownKind
		}
		r.drop(orig, why)
		return nil, false
	}
	if it.Path == "." {
		r.drop(orig, DropRoot)
		return nil, false
	}
	return it, true
}

func (r *resolution) addSource(kind grant.Kind, p, title string) {
	if r.seen[p] {
		return
	}
	r.seen[p] = true
	title = textnorm.Line(title)
	if title == "" {
		title = textnorm.Line(path.Base(p))
	}
	r.plan.Sources = append(r.plan.Sources, grant.Ref{Kind: kind, Path: p, Title: title})
}

// canonical leaves out every source another source of the plan already
// grants, whatever order they were named in: anything below a granted
// directory (a paper in it included), and a paper's own documents (its
// PDF, PAPER.md, NOTES.md) when the paper is granted. The scope is then
// one source per thing readable, so its fingerprint does not change with
// a mention that adds nothing, and no passage is found through two
// sources. A connector's sources are left as they are.
func (r *resolution) canonical() {
	vaultKind := func(k grant.Kind) bool {
		return k == grant.KindPaper || k == grant.KindDirectory || k == grant.KindFile
	}
	covers := func(b, a grant.Ref) bool {
		switch {
		case a.Path == b.Path || !vaultKind(a.Kind) || !vaultKind(b.Kind) || len(a.Config) > 0 || len(b.Config) > 0:
			return false
		case b.Kind == grant.KindDirectory:
			return strings.HasPrefix(a.Path, b.Path+"/")
		case b.Kind == grant.KindPaper && a.Kind == grant.KindFile:
			pp := r.within[a.Path]
			return pp != nil && pp.Path == b.Path && pp.Owns(a.Path)
		}
		return false
	}
	srcs := r.plan.Sources
	out := srcs[:0:0]
	for _, a := range srcs {
		if !slices.ContainsFunc(srcs, func(b grant.Ref) bool { return covers(b, a) }) {
			out = append(out, a)
		}
	}
	r.plan.Sources = out
}

// addPaper authorises a paper ref and returns its paper, or nil.
func (r *resolution) addPaper(ref string) *vault.PaperInfo {
	it, ok := r.classify(ref)
	if !ok {
		return nil
	}
	if it.Kind != grant.KindPaper {
		r.drop(ref, DropNotPaper)
		return nil
	}
	r.titled(it)
	r.addSource(grant.KindPaper, it.Paper.Path, it.Paper.Title)
	return it.Paper
}

// titled sets the title of the paper it is or lies in to the best the
// Library knows (Library.Title): the one cards and context_read show.
func (r *resolution) titled(it *vault.Item) {
	if it.Paper != nil {
		it.Paper.Title = r.lib.Title(r.ctx, &vault.Item{Kind: grant.KindPaper, Path: it.Paper.Path, Paper: it.Paper})
	}
}

func (r *resolution) addMention(m string) {
	if _, ok := r.connector(m); ok {
		return
	}
	it, ok := r.classify(m)
	if !ok {
		return
	}
	r.noteWithin(it)
	title := ""
	if it.Kind == grant.KindPaper || it.Kind == grant.KindFile && isPDF(it.Path) {
		title = r.lib.Title(r.ctx, it)
	}
	r.addSource(it.Kind, it.Path, title)
}

// noteWithin remembers the paper a granted file lies in (see canonical).
func (r *resolution) noteWithin(it *vault.Item) {
	if it.Kind != grant.KindFile || it.Paper == nil {
		return
	}
	if r.within == nil {
		r.within = map[string]*vault.PaperInfo{}
	}
	r.within[it.Path] = it.Paper
}

// isPDF reports whether a vault path names a PDF, by its extension.
func isPDF(p string) bool { return strings.EqualFold(path.Ext(p), ".pdf") }

// addSelection adds the evidence of one selection and authorises the file or
// paper it came from.
func (r *resolution) addSelection(sel Selection, current *vault.PaperInfo) {
	text := strings.TrimSpace(sel.Text)
	if text == "" {
		return
	}
	quote, cut := textnorm.Truncate(text, MaxQuote)
	ev := Evidence{Quote: quote, Truncated: cut, Page: sel.Page, Section: textnorm.Line(sel.Section)}
	var paper *vault.PaperInfo
	file := ""
	switch {
	case sel.Path != "":
		if r.addConnectorSelection(sel, ev) {
			return
		}
		it, ok := r.classify(sel.Path)
		if !ok {
			// The quote is still what the user sees; it just has no source.
			ev.Page = max(ev.Page, 0)
			r.plan.Evidence = append(r.plan.Evidence, ev)
			return
		}
		kind, clean := it.Kind, it.Path
		r.titled(it)
		paper = it.Paper
		switch kind {
		case grant.KindPaper:
			file = paper.PDF
		case grant.KindFile:
			file = clean
		}
		if paper == nil {
			// Outside a paper the item itself is granted; evidence in a
			// plain directory cannot point into it precisely. A loose PDF
			// is titled as it titles itself, not by its file name.
			title := ""
			if kind == grant.KindFile && isPDF(clean) {
				title = r.lib.Title(r.ctx, it)
				ev.Title = title
			}
			r.addSource(kind, clean, title)
		}
	case current != nil:
		paper = current
		file = current.PDF
	}
	if paper != nil {
		r.addSource(grant.KindPaper, paper.Path, paper.Title)
		ev.PaperRef, ev.Title = paper.Path, paper.Title
		if file == "" {
			file = paper.PDF
		}
	}
	ev.Path = file
	if sel.Page < 0 || sel.Page > 0 && file != "" && r.beyondLastPage(paper, file, sel.Page) {
		// A page the document does not have would cite nowhere: the
		// page is dropped, the quote kept and placed by its text.
		at := sel.Path
		if at == "" {
			at = file
		}
		r.drop(at, DropPage)
		sel.Page, ev.Page = 0, 0
	}
	var doc *sources.Document
	if file != "" {
		d, err := r.document(paper, file)
		doc = d
		ev.Unreadable = err != nil && r.ctx.Err() == nil
	}
	var span pageSpan // the pages the quote runs over, when it is placed
	if doc != nil && !r.checkQuote(doc, &sel, &ev, &span) {
		at := sel.Path
		if at == "" {
			at = file
		}
		r.drop(at, DropQuote)
		if ev.Page == 0 && ev.Section == "" {
			// Nowhere in the document: the user's words, uncited.
			r.plan.Evidence = append(r.plan.Evidence, ev)
			return
		}
	}
	ev.CitationURI = citation(file, sel)
	ev.CitationURIs = span.uris(file, ev.Page)
	r.addMarkComment(paper, file, &ev)
	r.plan.Evidence = append(r.plan.Evidence, ev)
}

// document reads the file a selection is from, once per Resolve, or says
// why it cannot be read.
func (r *resolution) document(paper *vault.PaperInfo, file string) (*sources.Document, error) {
	if d, ok := r.docs[file]; ok {
		return d.doc, d.err
	}
	var src sources.Source
	var err error
	if paper != nil {
		src, err = r.lib.Open(r.ctx, grant.KindPaper, paper.Path)
	} else {
		src, err = r.lib.Open(r.ctx, grant.KindFile, file)
	}
	var doc *sources.Document
	if err == nil {
		doc, err = src.Read(r.ctx, file)
	}
	if err == nil && doc == nil {
		err = sources.ErrNotFound
	}
	if err == nil && unreadablePages(doc) {
		// Every page failed: there is no text to check a quote against.
		doc, err = nil, sources.ErrUnreadable
	}
	if r.docs == nil {
		r.docs = map[string]docRead{}
	}
	r.docs[file] = docRead{doc, err}
	return doc, err
}

// unreadablePages reports a paged document none of whose pages could be
// extracted.
func unreadablePages(doc *sources.Document) bool {
	if doc.Pages == 0 || len(doc.Parts) == 0 {
		return false
	}
	for _, p := range doc.Parts {
		if p.Err == nil {
			return false
		}
	}
	return true
}

// checkQuote checks a selection's quote against its document and places
// it, updating sel and ev: on the page the selection names, when it is
// there (a passage running onto the next page counts); else where the
// document has it. A selection that names a section or a region is taken
// at its word. It reports false when the quote is not where the selection
// says, or is nowhere in the document (ev then has no page and no section).
func (r *resolution) checkQuote(doc *sources.Document, sel *Selection, ev *Evidence, span *pageSpan) bool {
	if sel.Section != "" || sel.Region != "" || sel.Page > 0 && doc.Pages == 0 {
		return true
	}
	if sel.Page > 0 {
		if first, last, ok := onPage(doc, ev.Quote, sel.Page); ok {
			*span = pageSpan{first, last}
			return true
		}
	}
	page, last, section, ok := placeQuote(doc, ev.Quote)
	*span = pageSpan{page, last}
	moved := sel.Page > 0
	sel.Page, sel.Section = page, section
	ev.Page, ev.Section = page, section
	return ok && !moved
}

// pageSpan is the pages a located quote runs over, first to last.
type pageSpan struct{ first, last int }

// uris cites every page of the span of file, in order, when the quote at
// page runs over a page break; else nil, since CitationURI says it all.
func (s pageSpan) uris(file string, page int) []string {
	if page <= 0 || s.first <= 0 || s.last <= s.first {
		return nil
	}
	out := make([]string, 0, s.last-s.first+1)
	for p := s.first; p <= s.last; p++ {
		out = append(out, cite.Page(file, p))
	}
	return out
}

// onPage reports whether quote is on page of doc: a passage that starts
// there, or one that ends there having started on the page before; first
// and last are the pages the passage runs over.
func onPage(doc *sources.Document, quote string, page int) (first, last int, ok bool) {
	var texts []string
	var pages []int
	for _, p := range doc.Parts {
		if p.Page >= page-1 && p.Page <= page+1 {
			texts, pages = append(texts, p.Text), append(pages, p.Page)
		}
	}
	if len(texts) == 0 {
		return 0, 0, false
	}
	res := textnorm.FindQuote(texts, quote)
	if !res.Found {
		return 0, 0, false
	}
	first, last = pages[res.Part], pages[max(res.EndPart, res.Part)]
	return first, last, first <= page && page <= last
}

// placeQuote finds text in doc: its page (and the page it ends on) when
// paged, else its section; ok is false when doc does not have it.
func placeQuote(doc *sources.Document, text string) (page, last int, section string, ok bool) {
	texts := make([]string, len(doc.Parts))
	for i, p := range doc.Parts {
		texts[i] = p.Text
	}
	res := textnorm.FindQuote(texts, text)
	if !res.Found {
		return 0, 0, "", false
	}
	if p := doc.Parts[res.Part].Page; p > 0 {
		return p, max(p, doc.Parts[max(res.EndPart, res.Part)].Page), "", true
	}
	for _, s := range doc.Sections {
		if s.Part < res.Part || s.Part == res.Part && s.Offset <= res.Start {
			section = s.Title
		}
	}
	return 0, 0, section, true
}

// beyondLastPage reports whether page is past the last page of the PDF
// file. A file that is not a PDF or cannot be read is given the benefit of
// the doubt.
func (r *resolution) beyondLastPage(paper *vault.PaperInfo, file string, page int) bool {
	if !strings.EqualFold(path.Ext(file), ".pdf") {
		return false
	}
	doc, _ := r.document(paper, file)
	return doc != nil && doc.Pages > 0 && page > doc.Pages
}

// citation builds the URI of a selection in file: a PDF by page (else
// region), a text file by section; at most one fragment.
func citation(file string, sel Selection) string {
	if file == "" {
		return ""
	}
	isPDF := strings.EqualFold(path.Ext(file), ".pdf")
	switch {
	case isPDF && sel.Page > 0:
		return cite.Page(file, sel.Page)
	case sel.Region != "":
		return cite.Region(file, sel.Region)
	case sel.Section != "":
		return cite.Section(file, sel.Section)
	}
	return cite.File(file)
}

// unknownKind reports whether s reads as "kind:name" for a kind no
// connector of the registry knows, so that a mention of a connector the
// host forgot to link is not taken for a missing vault file.
func (r *resolution) unknownKind(s string) bool {
	kind, name, ok := strings.Cut(s, ":")
	return ok && name != "" && grant.Kind(kind).Valid() && r.reg.Driver(grant.Kind(kind)) == nil
}

// connector grants what a "kind:name" mention or selection path names
// through its connector. ok is false when s names no registered kind: it
// is then a vault path. A name the connector cannot grant is dropped.
func (r *resolution) connector(s string) (n *sources.Named, ok bool) {
	n, ok, err := r.reg.Resolve(r.ctx, s, &sources.Env{Vault: r.lib})
	if !ok {
		return nil, false
	}
	if err != nil {
		// A connector's own message may name what the host's logs should
		// not show: the reason is the resolver's.
		switch {
		case errors.Is(err, sources.ErrNotFound):
			r.drop(s, DropNotFound)
		case errors.Is(err, sources.ErrOutside):
			r.drop(s, DropOutside)
		default:
			r.drop(s, DropUnreadable)
		}
		return nil, true
	}
	ref := n.Ref
	if r.seen[ref.Path] {
		for _, g := range r.plan.Sources {
			if g.Path == ref.Path && g.Kind != ref.Kind {
				// Its documents would be cited in a source that has none.
				r.drop(s, DropKindTaken)
				return nil, true
			}
		}
		return n, true
	}
	r.seen[ref.Path] = true
	ref.Title = textnorm.Line(ref.Title)
	if ref.Title == "" {
		ref.Title = textnorm.Line(path.Base(ref.Path))
	}
	r.plan.Sources = append(r.plan.Sources, ref)
	return n, true
}

// addConnectorSelection adds a selection whose path names a connector's
// document ("bib:refs.bib/vaswani2017"): the source is granted, and the
// evidence is cited in the document, placed on its page or in its section
// when the selection came without one. It reports false for a vault path.
func (r *resolution) addConnectorSelection(sel Selection, ev Evidence) bool {
	n, ok := r.connector(sel.Path)
	if !ok {
		return false
	}
	if sel.Page < 0 {
		// A page the document cannot have would cite nowhere, as for a
		// vault file: dropped, the quote kept and placed by its text.
		r.drop(sel.Path, DropPage)
		sel.Page, ev.Page = 0, 0
	}
	if n == nil {
		// Dropped: the quote is still what the user sees.
		r.plan.Evidence = append(r.plan.Evidence, ev)
		return true
	}
	doc := n.Doc
	if doc == "" {
		doc = n.Ref.Path
	}
	ev.Path = doc
	var span pageSpan // the pages the quote runs over, when it is placed
	src, err := r.reg.Open(r.ctx, n.Ref, &sources.Env{Vault: r.lib})
	if err == nil {
		if c, ok := src.(io.Closer); ok {
			defer c.Close()
		}
		var d *sources.Document
		if d, err = src.Read(r.ctx, n.Doc); err == nil && d == nil {
			err = sources.ErrNotFound
		}
		if err == nil {
			ev.Title = textnorm.Line(d.Title)
			if !r.checkQuote(d, &sel, &ev, &span) {
				r.drop(sel.Path, DropQuote)
				if ev.Page == 0 && ev.Section == "" {
					// Nowhere in the document: the user's words, uncited.
					if ev.Title == "" {
						ev.Title = n.Ref.Title
					}
					r.plan.Evidence = append(r.plan.Evidence, ev)
					return true
				}
			}
		}
	}
	ev.Unreadable = err != nil && r.ctx.Err() == nil
	if ev.Title == "" {
		ev.Title = n.Ref.Title
	}
	if sel.Page > 0 {
		ev.CitationURI = cite.Page(doc, sel.Page)
		ev.CitationURIs = span.uris(doc, sel.Page)
	} else {
		ev.CitationURI = citation(doc, sel)
	}
	r.plan.Evidence = append(r.plan.Evidence, ev)
	return true
}

// markMatch is the word overlap (F1 of their words) at which a selection
// is taken for one of the user's marks on its page.
const markMatch = 0.8

// addMarkComment gives ev the comment of the user's mark that the
// selection is, when it is one: a mark on the evidence's page whose marked
// text is the quote (words in common, F1 ≥ markMatch). The comment comes
// within MaxQuote with the quote: what the quote leaves, cut on a
// character boundary and ending in "…" when cut.
func (r *resolution) addMarkComment(paper *vault.PaperInfo, file string, ev *Evidence) {
	if ev.Page == 0 || file == "" || ev.Unreadable {
		return
	}
	var src sources.Source
	var err error
	if paper != nil {
		src, err = r.lib.Open(r.ctx, grant.KindPaper, paper.Path)
	} else {
		src, err = r.lib.Open(r.ctx, grant.KindFile, file)
	}
	if err != nil {
		return
	}
	mr, ok := src.(sources.MarkReader)
	if !ok {
		return
	}
	ms, err := mr.Marks(r.ctx, file)
	if err != nil {
		return
	}
	best, bestScore := -1, 0.0
	for i, m := range ms.Marks {
		if m.Page != ev.Page || m.Text == "" || m.Comment == "" {
			continue
		}
		if s := textnorm.WordF1(m.Text, ev.Quote); s >= markMatch && s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		return
	}
	room := MaxQuote - len([]rune(ev.Quote))
	if room <= 0 {
		return
	}
	c := strings.TrimSpace(ms.Marks[best].Comment)
	if len([]rune(c)) > room {
		c, _ = textnorm.Truncate(c, room-1)
		c += "…"
	}
	ev.Comment, ev.MarkKind = c, ms.Marks[best].Kind
}
