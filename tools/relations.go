package tools

import (
	"context"
	"fmt"

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
	defer func() {
		if t.recovered(grant.ToolRelations, recover(), &err) {
			out = nil
		}
		if err = ctxErr(ctx, grant.ToolRelations, err); err != nil {
			out = nil
		}
	}()
	kind := in.Kind
	switch kind {
	case "":
		kind = RelAll
	case RelAll, RelReferences, RelCitedBy, RelRelated:
	default:
		return nil, fmt.Errorf("%w: kind %s is not one of references, cited_by, related, all", ErrInvalidArgument, quoteArg(kind))
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
		return nil, fmt.Errorf("%w: %s is a %s, not a paper", ErrInvalidArgument, quoteArg(info.Ref), info.Kind)
	case !ok:
		return nil, fmt.Errorf("%w: relations are not available for this source", ErrInvalidArgument)
	}
	limit := defaultRelationLimit
	if in.Limit > 0 {
		limit = min(in.Limit, tn.grant.Budget.SearchCards*5)
	}
	rels, err := rel.Relations(ctx)
	if err != nil {
		return nil, fmt.Errorf("relations of %s cannot be read: %w", quoteArg(info.Ref), t.sourceErr(tg.conn, info.Ref, err))
	}
	// A paper is named by its folder or its PDF, nothing else inside it.
	if tg.path != "" && tg.path != rels.Main {
		return nil, fmt.Errorf("%w: %s is not a paper; name the paper folder or its PDF", ErrInvalidArgument, quoteArg(tg.path))
	}
	out = &RelationsOutput{Paper: info.Ref, Kind: kind, References: []RelationCard{}, CitedBy: []RelationCard{}, Related: []RelationCard{},
		Problems: problemLines(tg.conn, rels.Problems), Skipped: rels.Skipped}
	var uris []string
	var same [][]string
	chars := out.Chars()
	found := false
	add := func(dst *[]RelationCard, works []sources.Work) {
		for i, w := range works {
			if i >= limit {
				out.Truncated = true
				return
			}
			found = true
			c := t.card(w)
			n := c.chars()
			if chars+n > tn.limit() {
				out.Truncated = true
				return
			}
			chars += n
			*dst = append(*dst, c)
			uris = append(uris, c.CitationURI)
			if c.PaperPath != "" {
				// A library paper's PDF and its links are one work.
				if set := sameWork(c.CitationURI, c.DOI, c.ArXivID); set != nil {
					same = append(same, set)
				}
			}
		}
	}
	if kind == RelAll || kind == RelReferences {
		add(&out.References, rels.References)
	}
	if kind == RelAll || kind == RelCitedBy {
		add(&out.CitedBy, rels.CitedBy)
	}
	if kind == RelAll || kind == RelRelated {
		add(&out.Related, rels.Related)
	}
	if chars > tn.limit() || found && len(out.References)+len(out.CitedBy)+len(out.Related) == 0 {
		return nil, tn.spent(chars)
	}
	out.Budget, err = t.finishSame(tn, grant.ToolRelations, uris, same, out.Chars())
	if err != nil {
		return nil, err
	}
	return out, nil
}

// card turns a work into a slim card.
func (t *Toolset) card(w sources.Work) RelationCard {
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
	return c
}
