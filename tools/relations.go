package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// relationsFunc returns the relations of a library paper.
type relationsFunc func(ctx context.Context, ref string) (*relations.Relations, error)

// libraryRelations serves relations from the Vault's citation graph, reading
// paper text through the library's paper sources when a paper has no
// reference sidecar, and keeping the references parsed from it with the
// library's other caches.
func libraryRelations(lib *sources.Library) relationsFunc {
	cache := lib.CacheDir()
	if cache == "" {
		cache = "-" // the host turned the caches off
	}
	g := relations.New(lib.Vault(), &relations.Options{Text: lib.PaperText, CacheDir: cache})
	return g.Relations
}

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
	if info.Kind != grant.KindPaper {
		return nil, fmt.Errorf("%w: %s is a %s, not a paper", ErrInvalidArgument, quoteArg(info.Ref), info.Kind)
	}
	// A paper is named by its folder or its PDF, nothing else inside it.
	if tg.path != "" && tg.path != t.paperPDF(info.Ref) {
		return nil, fmt.Errorf("%w: %s is not a paper; name the paper folder or its PDF", ErrInvalidArgument, quoteArg(tg.path))
	}
	if t.rel == nil {
		return nil, fmt.Errorf("%w: relations are not available for this source", ErrInvalidArgument)
	}
	limit := defaultRelationLimit
	if in.Limit > 0 {
		limit = min(in.Limit, tn.grant.Budget.SearchCards*5)
	}
	rels, err := t.rel(ctx, info.Ref)
	if err != nil {
		return nil, fmt.Errorf("relations of %s cannot be read: %w", quoteArg(info.Ref), err)
	}
	out = &RelationsOutput{Paper: info.Ref, References: []RelationCard{}, CitedBy: []RelationCard{}, Related: []RelationCard{},
		Problems: problems(rels.Err), Skipped: rels.Skipped}
	var uris []string
	chars := out.Chars()
	found := false
	add := func(dst *[]RelationCard, works []relations.Work) {
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
	out.Budget, err = t.finish(tn, grant.ToolRelations, uris, out.Chars())
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Problems of a relations result: at most maxProblems lines of at most
// maxProblemChars characters each.
const (
	maxProblems     = 5
	maxProblemChars = 300
)

// problems turns the error of a relations result (errors.Join puts one
// error per line) into one-line messages for RelationsOutput.Problems.
func problems(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for line := range strings.SplitSeq(err.Error(), "\n") {
		if len(out) == maxProblems {
			break
		}
		if l, _ := textnorm.Truncate(textnorm.Line(line), maxProblemChars); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// card turns a work into a slim card; see relations.Work.CitationURI for
// its link.
func (t *Toolset) card(w relations.Work) RelationCard {
	c := RelationCard{
		Title: textnorm.Line(w.Title), Authors: textnorm.Lines(w.Authors3()), Year: w.Year, DOI: textnorm.Line(w.DOI), ArXivID: textnorm.Line(w.ArXivID),
		PaperPath: w.Paper, CitationURI: w.CitationURI(),
	}
	if w.Paper != "" {
		src, _ := t.owner(w.Paper)
		c.InGrant = src != nil
	}
	return c
}

// paperPDF returns the PDF path of a library paper, or "".
func (t *Toolset) paperPDF(ref string) string {
	if t.vault == nil {
		return ""
	}
	cat, err := t.vault.Catalogue(context.Background())
	if err != nil {
		return ""
	}
	if p := cat.Paper(ref); p != nil {
		return p.PDF
	}
	return ""
}
