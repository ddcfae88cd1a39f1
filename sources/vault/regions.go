package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/researchctx/researchctx/internal/figure"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// Files of a paper unit that the paper source reads besides its PDF.
const (
	layoutFile      = "source/layout.json"
	layoutIndexFile = "source/layout-index.json"
)

// layoutMax caps layout.json and layout-index.json.
const layoutMax = 32 << 20

// layoutRegion is one region of source/layout.json (schemaVersion 3).
type layoutRegion struct {
	ID        string     `json:"id"`
	PageIndex int        `json:"pageIndex"`
	Kind      string     `json:"kind"`
	Title     string     `json:"title"`
	Text      string     `json:"text"`
	BBox      layoutBBox `json:"bbox"`
}

// layoutItem is one item of source/layout-index.json (schemaVersion 1).
type layoutItem struct {
	ID             string     `json:"id"`
	Kind           string     `json:"kind"`
	Section        string     `json:"section"`
	Page           int        `json:"page"`
	PageIndex      *int       `json:"pageIndex"`
	BBox           layoutBBox `json:"bbox"`
	Title          string     `json:"title"`
	LayoutRegionID string     `json:"layoutRegionId"`
}

type layoutBBox struct{ X, Y, W, H float64 }

func (b layoutBBox) box() sources.Box { return sources.Box(b) }

// layoutRegions reads source/layout.json.
func (s *Paper) layoutRegions() ([]layoutRegion, error) {
	var doc struct {
		Regions []layoutRegion `json:"regions"`
	}
	if err := s.readJSON(s.p.Ref+"/"+layoutFile, &doc); err != nil {
		return nil, err
	}
	return doc.Regions, nil
}

// layoutItems reads source/layout-index.json.
func (s *Paper) layoutItems() ([]layoutItem, error) {
	var doc struct {
		Items []layoutItem `json:"items"`
	}
	if err := s.readJSON(s.p.Ref+"/"+layoutIndexFile, &doc); err != nil {
		return nil, err
	}
	return doc.Items, nil
}

// readJSON decodes a sidecar; a missing file is sources.ErrNotFound.
func (s *Paper) readJSON(rel string, v any) error {
	data, err := s.l.v.FS().ReadFile(rel, layoutMax)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", rel, sources.ErrNotFound)
		}
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: malformed: %w", rel, err)
	}
	return nil
}

// Region returns a layout region by id: an item of source/layout-index.json
// ("figure-1"), resolved to its layout.json region, or a layout.json region
// id ("p2-r03"). Its text is the region's own text, else the PDF lines
// inside its box; a figure or table listed in the layout index also gets
// the text of its caption region. An id neither lists is a figure, table
// or algorithm the PDF's captions give ("figure-3").
func (s *Paper) Region(ctx context.Context, id string) (*sources.Region, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id = strings.TrimSpace(id)
	items, itemsErr := s.layoutItems()
	regs, regsErr := s.layoutRegions()
	for _, err := range []error{itemsErr, regsErr} {
		if err != nil && !errors.Is(err, sources.ErrNotFound) {
			return nil, err
		}
	}
	var item *layoutItem
	for i := range items {
		if items[i].ID == id {
			item = &items[i]
			break
		}
	}
	if item == nil {
		item = listedByNumber(items, id)
	}
	regionID := id
	if item != nil && item.LayoutRegionID != "" {
		regionID = item.LayoutRegionID
	}
	var reg *layoutRegion
	for i := range regs {
		if regs[i].ID == regionID {
			reg = &regs[i]
			break
		}
	}
	if item == nil && reg != nil {
		// A region named directly may still be a listed figure or table.
		for i := range items {
			if items[i].LayoutRegionID == reg.ID {
				item = &items[i]
				break
			}
		}
	}
	if item == nil && reg == nil {
		if s.p.PDF != "" && id != "" {
			// Not in the layout files: a figure, table or algorithm
			// the PDF's captions give.
			if doc, err := s.pdfDocument(ctx); err == nil {
				if r, err := s.pdf.figureRegion(doc, id); err == nil {
					return r, nil
				}
			} else if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		return nil, fmt.Errorf("%s: region %q: %w", s.p.Ref, id, sources.ErrNotFound)
	}

	out := &sources.Region{ID: id}
	page := 0
	switch {
	case reg != nil:
		page = reg.PageIndex + 1
		out.Kind, out.Title, out.Text, out.Box = textnorm.Line(reg.Kind), textnorm.Line(reg.Title), reg.Text, reg.BBox.box()
	case item.PageIndex != nil:
		page = *item.PageIndex + 1
	default:
		page = item.Page
	}
	if item != nil {
		if out.Kind == "" {
			out.Kind = textnorm.Line(item.Kind)
		}
		if out.Title == "" {
			out.Title = textnorm.Line(item.Title)
		}
		if reg == nil {
			out.Box = item.BBox.box()
		}
	}
	out.Location = sources.Location{Path: s.p.PDF, Page: page, Region: id}
	if s.p.PDF == "" {
		out.Location.Path = s.p.Ref + "/" + layoutFile
	}

	var doc *pdf.Document
	if s.p.PDF != "" {
		d, err := s.pdfDocument(ctx)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		doc = d // a PDF that cannot be read leaves only the layout's own text
	}
	if doc != nil && page >= 1 && page <= len(doc.Pages) {
		out.Label = pageLabel(doc, page-1)
		if strings.TrimSpace(out.Text) == "" {
			out.Text = joinLines(linesIn(&doc.Pages[page-1], out.Box))
		}
	}
	if item != nil {
		if c := captionOf(regs, reg, item, page, out.Box); c != nil {
			ct := strings.TrimSpace(c.Text)
			if ct == "" && doc != nil && page >= 1 && page <= len(doc.Pages) {
				ct = joinLines(linesIn(&doc.Pages[page-1], c.BBox.box()))
			}
			if ct != "" && !strings.Contains(out.Text, ct) {
				if strings.TrimSpace(out.Text) == "" {
					out.Text = ct
				} else {
					out.Text = strings.TrimRight(out.Text, "\n") + "\n\n" + ct
				}
			}
		}
	}
	return out, nil
}

// listedByNumber returns the layout index's figure or table whose title
// is the caption of id's kind and number ("figure-3": "Figure 3: …"), so
// that #figure=3 reads the item the index lists under an id of its own.
func listedByNumber(items []layoutItem, id string) *layoutItem {
	for i := range items {
		if k, n, ok := figure.Caption(items[i].Title); ok && figure.ID(k, n) == id && strings.EqualFold(strings.TrimSpace(items[i].Kind), k) {
			return &items[i]
		}
	}
	return nil
}

// captionOf finds the caption region of a figure or table on its page: the
// caption whose text starts like the item's title, else the caption nearest
// above or below the region's box.
func captionOf(regs []layoutRegion, self *layoutRegion, item *layoutItem, page int, box sources.Box) *layoutRegion {
	title := textnorm.Fold(strings.Join(strings.Fields(item.Title), " "))
	var near *layoutRegion
	nearGap := 0.08 // at most this far (a fraction of the page height)
	for i := range regs {
		r := &regs[i]
		if r == self || r.Kind != "caption" || r.PageIndex+1 != page {
			continue
		}
		text := textnorm.Fold(strings.Join(strings.Fields(r.Text), " "))
		if title != "" && text != "" && (strings.HasPrefix(title, firstRunes(text, 40)) || strings.HasPrefix(text, firstRunes(title, 40))) {
			return r
		}
		b := r.BBox.box()
		gap := math.Max(b.Y-(box.Y+box.H), box.Y-(b.Y+b.H))
		if gap < nearGap {
			near, nearGap = r, gap
		}
	}
	return near
}

func firstRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// linesIn returns the page's lines that lie mostly inside box.
func linesIn(pg *pdf.Page, box sources.Box) []pdf.Line {
	if box.W <= 0 || box.H <= 0 {
		return nil
	}
	var out []pdf.Line
	for _, ln := range pg.Lines {
		b := ln.Box
		ix := math.Min(b.X+b.W, box.X+box.W) - math.Max(b.X, box.X)
		iy := math.Min(b.Y+b.H, box.Y+box.H) - math.Max(b.Y, box.Y)
		if ix <= 0 || iy <= 0 {
			continue
		}
		area := b.W * b.H
		if area <= 0 || ix*iy >= 0.5*area {
			out = append(out, ln)
		}
	}
	return out
}

func joinLines(lines []pdf.Line) string {
	texts := make([]string, len(lines))
	for i, ln := range lines {
		texts[i] = ln.Text
	}
	return strings.Join(texts, "\n")
}
