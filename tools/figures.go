package tools

import (
	"context"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/figure"
	"github.com/researchctx/researchctx/sources"
)

// figureInfos is the figures list of a read's metadata.
func figureInfos(figs []sources.Figure) []FigureInfo {
	var out []FigureInfo
	for _, f := range figs {
		out = append(out, FigureInfo{ID: f.ID, Kind: f.Kind, Number: f.Number, Page: f.Page, Caption: f.Caption})
	}
	return out
}

// captionURI is the citation URI of the figure, table or algorithm whose
// caption a card's excerpt starts in or mostly is (#figure=N), or "" when
// the excerpt is no caption or its source does not read figures. When the
// excerpt runs on into the next item's caption, cut is where that caption
// starts in the excerpt, so that a #figure=N card carries figure N's
// caption only; else cut is 0.
func (t *Toolset) captionURI(ctx context.Context, h sources.Hit, excerpt string) (uri string, cut int) {
	excerpt = strings.TrimSpace(strings.TrimSuffix(excerpt, "…"))
	if h.Path == "" || h.Page == 0 || excerpt == "" || !strings.HasSuffix(strings.ToLower(h.Path), ".pdf") {
		return "", 0
	}
	at := strings.Index(h.Text, excerpt)
	if at < 0 {
		return "", 0
	}
	src, inner := t.owner(h.Path)
	if src != nil && inner != "" {
		src, _ = t.paperInside(ctx, src, inner)
	}
	rr, ok := src.(sources.RegionReader)
	if !ok {
		return "", 0
	}
	end := at + len(excerpt)
	spans := figure.Spans(h.Text)
	for i, s := range spans {
		if at >= s.Start && at < s.End || 2*(min(end, s.End)-max(at, s.Start)) >= len(excerpt) {
			// Only an item the source reads on this page: the URI
			// handed out must read back.
			if reg, err := rr.Region(ctx, s.ID); err == nil && reg.Path == h.Path && reg.Page == h.Page {
				if i+1 < len(spans) && spans[i+1].Start > at && spans[i+1].Start < end {
					cut = spans[i+1].Start - at
				}
				return cite.Item(h.Path, s.ID), cut
			}
			return "", 0
		}
	}
	return "", 0
}
