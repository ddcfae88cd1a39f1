package vault

import (
	"context"
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/internal/figure"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// figures returns the figures, tables and algorithms that doc's captions
// give (see package figure).
func (f *pdfFile) figures(doc *pdf.Document) []sources.Figure {
	var out []sources.Figure
	for _, it := range figure.Find(doc) {
		out = append(out, sources.Figure{ID: it.ID, Kind: it.Kind, Number: it.Number, Page: it.Page, Caption: textnorm.Line(it.Caption)})
	}
	return out
}

// figureRegion reads the figure, table or algorithm id ("figure-3") that
// doc's captions give: its caption, then the text of its area.
func (f *pdfFile) figureRegion(doc *pdf.Document, id string) (*sources.Region, error) {
	for _, it := range figure.Find(doc) {
		if it.ID != id {
			continue
		}
		return &sources.Region{
			Location: sources.Location{Path: f.rel, Page: it.Page, Label: pageLabel(doc, it.Page-1), Region: id},
			ID:       id,
			Kind:     it.Kind,
			Title:    textnorm.Line(it.Caption),
			Text:     it.Text,
			Box:      sources.Box(it.Box),
		}, nil
	}
	return nil, fmt.Errorf("%s: region %q: %w", f.rel, id, sources.ErrNotFound)
}

// Region implements sources.RegionReader for a loose PDF: its figures,
// tables and algorithms by the ids metadata lists ("figure-3").
func (s *PDF) Region(ctx context.Context, id string) (*sources.Region, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc, err := s.pdf.document(ctx)
	if err != nil {
		return nil, err
	}
	return s.pdf.figureRegion(doc, strings.TrimSpace(id))
}

// paperFigures merges what the layout index lists with what the PDF's
// captions give: a listed figure or table keeps the index's id, and
// replaces the caption of the same kind and number.
func paperFigures(listed []layoutItem, found []sources.Figure) []sources.Figure {
	var out []sources.Figure
	taken := map[string]bool{}
	for _, it := range listed {
		kind := strings.ToLower(textnorm.Line(it.Kind))
		if kind != figure.Figure && kind != figure.Table && kind != figure.Algorithm || it.ID == "" {
			continue
		}
		fig := sources.Figure{ID: textnorm.Line(it.ID), Kind: kind, Page: it.Page, Caption: textnorm.Line(it.Title)}
		if it.PageIndex != nil {
			fig.Page = *it.PageIndex + 1
		}
		if k, n, ok := figure.Caption(it.Title); ok && k == kind {
			fig.Number = n
		} else if k, n, ok := strings.Cut(fig.ID, "-"); ok && k == kind {
			fig.Number = n
		}
		if r := []rune(fig.Caption); len(r) > figure.MaxCaption {
			fig.Caption = string(r[:figure.MaxCaption-1]) + "…"
		}
		taken[figure.ID(kind, fig.Number)], taken[fig.ID] = true, true
		out = append(out, fig)
	}
	for _, f := range found {
		if !taken[f.ID] {
			out = append(out, f)
		}
	}
	return out
}
