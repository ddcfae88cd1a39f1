package tools

import (
	"context"
	"fmt"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// defaultRelationLimit is the cards per list when the call names none.
const defaultRelationLimit = 10

// Relations answers paper_relations: slim cards for the paper's references,
// the works citing it and related library papers. Papers outside the grant
// appear only as cards: context_read still refuses them.
func (t *Toolset) Relations(ctx context.Context, in RelationsInput) (out *RelationsOutput, err error) {
	ctx, cancel := t.callContext(ctx)
	defer cancel()
	defer func() {
		if t.recovered(grant.ToolRelations, recover(), &err) {
			out = nil
		}
		if err = t.ctxErr(ctx, grant.ToolRelations, err); err != nil {
			out = nil
		}
	}()
	var c *cursor
	if in.Cursor != "" {
		var err error
		if c, err = t.relationsCursor(in); err != nil {
			return nil, err
		}
		in.Kind = RelationKind(c.Mode)
		if in.Paper == "" {
			in.Paper = c.Target
		}
	}
	kind := in.Kind
	switch kind {
	case "":
		kind = RelAll
	case RelAll, RelReferences, RelCitedBy, RelRelated:
	default:
		return nil, fmt.Errorf("%w: kind %s is not one of references, cited_by, related, all", ErrInvalidArgument, quoteArg(string(kind)))
	}
	if in.Limit < 0 {
		return nil, fmt.Errorf("%w: limit must be positive", ErrInvalidArgument)
	}
	// A relations result is charged like a read and capped like one.
	tn, err := t.begin(ctx, func(b grant.Budget) int { return b.ReadChars })
	if err != nil {
		return nil, err
	}
	defer tn.end()
	tg, err := t.resolve(ctx, in.Paper)
	if err != nil {
		return nil, err
	}
	info := tg.src.Info()
	rel, ok := tg.src.(sources.Relater)
	switch {
	case !ok && info.Kind != grant.KindPaper:
		return nil, fmt.Errorf("%w: %s is a %s, not a paper", ErrInvalidArgument, quoteArg(info.Path), info.Kind)
	case !ok:
		return nil, fmt.Errorf("%w: relations are not available for this source", ErrInvalidArgument)
	}
	if c != nil && c.Target != info.Path {
		return nil, fmt.Errorf("%w: the cursor belongs to paper %s", ErrInvalidArgument, quoteArg(c.Target))
	}
	limit := defaultRelationLimit
	if in.Limit > 0 {
		limit = min(in.Limit, tn.grant.Budget.SearchCards*5)
	}
	rels, err := rel.Relations(ctx)
	if err != nil {
		return nil, fmt.Errorf("relations of %s cannot be read: %w", quoteArg(info.Path), t.sourceErr(tg.conn, info.Path, err))
	}
	// A paper is named by its folder or its PDF, nothing else inside it.
	if tg.path != "" && tg.path != rels.Main {
		return nil, fmt.Errorf("%w: %s is not a paper; name the paper folder or its PDF", ErrInvalidArgument, quoteArg(tg.path))
	}
	pg := &relPage{paper: info.Path, kind: kind, library: in.Library, fingerprint: t.fingerprint}
	if c != nil {
		copy(pg.start[:], c.Offsets)
	}
	out = &RelationsOutput{Paper: info.Path, Kind: kind, References: []RelationCard{}, CitedBy: []RelationCard{}, Related: []RelationCard{},
		Problems: problemLines(tg.conn, rels.Problems), Skipped: rels.Skipped, page: pg}
	var uris []string
	var same [][]string
	outside := map[string]bool{}
	chars := out.Chars()
	found := false
	// Each list pages on its own: from where the cursor left it, at most
	// limit cards, and no card past the first that does not fit.
	add := func(i int, dst *[]RelationCard, works []sources.Work) {
		if in.Library {
			works = libraryWorks(works)
		}
		pg.total[i] = len(works)
		pg.start[i] = min(pg.start[i], len(works))
		for j, w := range works[pg.start[i]:] {
			if j >= limit {
				return
			}
			found = true
			c := t.card(w, i)
			n := c.chars()
			if chars+n > tn.limit() {
				return
			}
			chars += n
			*dst = append(*dst, c)
			uris = append(uris, c.CitationURI)
			if !c.InGrant {
				// A library paper outside the grant, or a link out.
				outside[c.CitationURI] = true
			}
			for _, x := range c.Contexts {
				// A quoted sentence is a source like a quoted page.
				uris = append(uris, x.CitationURI)
			}
			if c.PaperPath != "" {
				// A library paper's PDF and its links are one work.
				if set := sameWork(c.CitationURI, c.DOI, c.ArXivID); set != nil {
					same = append(same, set)
				}
			}
		}
	}
	if kind == RelAll || kind == RelReferences {
		add(0, &out.References, rels.References)
	}
	if kind == RelAll || kind == RelCitedBy {
		add(1, &out.CitedBy, rels.CitedBy)
	}
	if kind == RelAll || kind == RelRelated {
		add(2, &out.Related, rels.Related)
	}
	out.Repage()
	if chars > tn.limit() || found && len(out.References)+len(out.CitedBy)+len(out.Related) == 0 {
		return nil, tn.spent(chars)
	}
	out.Budget, err = t.finishPlaced(tn, grant.ToolRelations, uris, same, outside, out.Chars())
	if err != nil {
		return nil, err
	}
	return out, nil
}

// card turns a work of list (0 references, 1 cited-by, 2 related) into a
// slim card. A reference or cited-by card carries the work's label and the
// sentences citing it that quote a granted document. A label is text of
// the citing paper: of the paper asked about for a reference, of the work
// itself for a cited-by card, which then carries it only when the work is
// a granted paper.
func (t *Toolset) card(w sources.Work, list int) RelationCard {
	// One line each, whatever source made the work: a connector's
	// relations come here as it wrote them.
	c := RelationCard{
		Title: textnorm.Line(w.Title), Authors: textnorm.Lines(w.Authors), Year: w.Year,
		DOI: textnorm.Line(w.DOI), ArXivID: textnorm.Line(w.ArXivID), PaperPath: w.Paper, CitationURI: w.CitationURI,
	}
	if w.Paper != "" {
		src, _ := t.owner(w.Paper)
		c.InGrant = src != nil
	}
	if list == 2 {
		return c
	}
	if list == 0 || c.InGrant {
		c.Label, _ = textnorm.Truncate(textnorm.Line(w.Label), maxLabelChars)
	}
	c.Contexts = t.contexts(w.Contexts)
	return c
}

// Bounds of what a relation card quotes.
const (
	maxLabelChars   = 80
	maxContexts     = 2
	maxContextChars = 300
)

// contexts keeps at most maxContexts citing sentences whose page URI
// names a document of the grant: a sentence of a paper outside the grant
// is never handed out, whatever the source says.
func (t *Toolset) contexts(cs []sources.CiteContext) []RelationContext {
	var out []RelationContext
	for _, x := range cs {
		if len(out) == maxContexts {
			break
		}
		u, err := cite.Parse(x.CitationURI)
		if err != nil || u.Path == "" || u.Page < 1 {
			continue
		}
		if src, _ := t.owner(u.Path); src == nil {
			continue
		}
		text, _ := textnorm.Truncate(textnorm.Line(x.Text), maxContextChars)
		if text == "" {
			continue
		}
		out = append(out, RelationContext{Page: u.Page, Text: text, CitationURI: x.CitationURI})
	}
	return out
}

// libraryWorks returns the works that are library papers, in order.
func libraryWorks(works []sources.Work) []sources.Work {
	var lib []sources.Work
	for _, w := range works {
		if w.Paper != "" {
			lib = append(lib, w)
		}
	}
	return lib
}

// relationsCursor decodes the cursor of a paper_relations call and checks
// that the call asks for what the cursor was made for (its paper is
// checked once resolved).
func (t *Toolset) relationsCursor(in RelationsInput) (*cursor, error) {
	c, err := decodeCursor(in.Cursor, t.fingerprint)
	if err != nil {
		return nil, err
	}
	if c.Tool != cursorRelations || len(c.Offsets) != 3 || min(c.Offsets[0], c.Offsets[1], c.Offsets[2]) < 0 {
		return nil, fmt.Errorf("%w: the cursor is not one of paper_relations", ErrInvalidArgument)
	}
	switch RelationKind(c.Mode) {
	case RelAll, RelReferences, RelCitedBy, RelRelated:
	default:
		return nil, fmt.Errorf("%w: cursor is not one this server handed out", ErrInvalidArgument)
	}
	if in.Kind != "" && in.Kind != RelationKind(c.Mode) {
		return nil, fmt.Errorf("%w: the cursor belongs to kind %s", ErrInvalidArgument, c.Mode)
	}
	if in.Library != c.Library {
		return nil, fmt.Errorf("%w: the cursor was made with library %t", ErrInvalidArgument, c.Library)
	}
	return &c, nil
}

// relPage is how a relations page was cut: where each list started, how
// long it is, and what a cursor for the next page is bound to.
type relPage struct {
	paper        string
	kind         RelationKind
	library      bool
	fingerprint  string
	start, total [3]int
}

// Before counts, for each list, the cards that come before this page's:
// the page's first reference is the list's Before().References+1st.
func (o *RelationsOutput) Before() RelationCounts {
	if o.page == nil {
		return RelationCounts{}
	}
	return RelationCounts{References: o.page.start[0], CitedBy: o.page.start[1], Related: o.page.start[2]}
}

// Repage sets Truncated, Remaining and NextCursor from the cards the lists
// hold now: a caller that drops cards from the end of a list (to fit a
// result's size) calls it so the cursor goes on from the first card left
// out.
func (o *RelationsOutput) Repage() {
	p := o.page
	if p == nil {
		return
	}
	var next, left [3]int
	for i, l := range [][]RelationCard{o.References, o.CitedBy, o.Related} {
		next[i] = p.start[i] + len(l)
		left[i] = max(0, p.total[i]-next[i])
	}
	o.Remaining = RelationCounts{References: left[0], CitedBy: left[1], Related: left[2]}
	o.Truncated = left != [3]int{}
	o.NextCursor = ""
	if o.Truncated {
		o.NextCursor = encodeCursor(cursor{
			Tool: cursorRelations, Target: p.paper, Mode: string(p.kind), Library: p.library, Offsets: next[:],
		}, p.fingerprint)
	}
}
