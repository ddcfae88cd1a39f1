package vault

import (
	"context"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// paperMeta returns the title, authors and year a library paper's PDF
// shows of itself, as Describe reads them (the title block, else the Info
// dictionary, else XMP): the citation graph's stand-in for what its
// metadata.json lacks.
func (l *Library) paperMeta(ctx context.Context, p *catalog.Paper) (relations.PaperMeta, error) {
	src, err := l.paperSource(ctx, p.Ref)
	if err != nil {
		return relations.PaperMeta{}, err
	}
	doc, err := src.pdfDocument(ctx)
	if err != nil {
		return relations.PaperMeta{}, err
	}
	x := parseXMP(doc.XMP)
	if x == nil {
		x = &xmpMeta{}
	}
	m := relations.PaperMeta{Title: textnorm.Line(doc.Title), Authors: textnorm.Lines(doc.Authors), Year: x.Year}
	if m.Title == "" {
		m.Title = x.Title
	}
	if len(m.Authors) == 0 {
		m.Authors = x.Authors
	}
	return m, nil
}
