package vault

import (
	"context"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// maxDetectedHeadings bounds headings guessed from font sizes, which on a
// badly typeset PDF could otherwise be every other line.
const maxDetectedHeadings = 300

// cachedSections returns pdfSections(doc), computed again only when the
// PDF, layout.json or PAPER.md changed. The caller gets its own copy.
func (s *Paper) cachedSections(ctx context.Context, doc *pdf.Document) []sources.Section {
	stamp := s.fileStamp(s.p.Ref+"/"+layoutFile) + "\x00" + s.fileStamp(s.p.Ref+"/"+catalog.PaperMDFile)
	s.secMu.Lock()
	defer s.secMu.Unlock()
	if s.secDoc != doc || s.secStamp != stamp {
		s.secs = s.pdfSections(ctx, doc)
		s.secDoc, s.secStamp = doc, stamp
	}
	return append([]sources.Section(nil), s.secs...)
}

// pdfSections returns the headings of the PDF, anchored in its pages. They
// come from the first of these that yields any: the header regions of
// source/layout.json, the PDF outline, headings detected from the text
// layer's font sizes, and the headings of PAPER.md found in the page text.
// Titles are one line each (textnorm.Line), whichever source they came from.
func (s *Paper) pdfSections(ctx context.Context, doc *pdf.Document) []sources.Section {
	return oneLineTitles(s.foundSections(ctx, doc))
}

func (s *Paper) foundSections(ctx context.Context, doc *pdf.Document) []sources.Section {
	if regs, err := s.layoutRegions(); err == nil {
		if secs := layoutSections(doc, regs); len(secs) > 0 {
			return secs
		}
	}
	if secs := ownSections(doc); len(secs) > 0 {
		return secs
	}
	if text, err := s.l.v.FS().ReadText(s.p.Ref+"/"+catalog.PaperMDFile, markdownMax); err == nil && ctx.Err() == nil {
		return paperMDSections(doc, units.MarkdownSections(text, 0))
	}
	return nil
}

// ownSections returns the headings a PDF shows by itself: its outline,
// else the headings detected from its fonts.
func ownSections(doc *pdf.Document) []sources.Section {
	if secs := outlineSections(doc); len(secs) > 0 {
		return secs
	}
	return detectedSections(doc)
}

// oneLineTitles makes every section title one line (textnorm.Line).
func oneLineTitles(secs []sources.Section) []sources.Section {
	for i := range secs {
		secs[i].Title = textnorm.Line(secs[i].Title)
	}
	return secs
}

// layoutSections anchors the header regions of layout.json in the pages.
func layoutSections(doc *pdf.Document, regs []layoutRegion) []sources.Section {
	var out []sources.Section
	for _, r := range regs {
		if r.Kind != "header" || r.PageIndex < 0 || r.PageIndex >= len(doc.Pages) {
			continue
		}
		title := strings.TrimSpace(r.Title)
		if title == "" {
			title = strings.TrimSpace(r.Text)
		}
		if title == "" {
			continue
		}
		pg := &doc.Pages[r.PageIndex]
		hint := -1
		if lines := linesIn(pg, r.BBox.box()); len(lines) > 0 {
			hint = lines[0].Start
		}
		off, ok := anchor(pg.Text, title, hint)
		if !ok {
			off = max(hint, 0)
		}
		out = append(out, sources.Section{Title: title, Level: numberingLevel(title), Page: r.PageIndex + 1, Part: r.PageIndex, Offset: off})
	}
	sortSections(out)
	return out
}

// outlineSections anchors the PDF's bookmarks in the pages. A bookmark
// whose destination page is unknown is looked for after the previous one.
func outlineSections(doc *pdf.Document) []sources.Section {
	var out []sources.Section
	cur := position{}
	for _, it := range doc.Outline {
		title := strings.TrimSpace(it.Title)
		if title == "" {
			continue
		}
		sec := sources.Section{Title: title, Level: it.Level + 1}
		if it.Page >= 1 && it.Page <= len(doc.Pages) {
			i := it.Page - 1
			hint := -1
			if cur.part == i {
				hint = cur.offset
			}
			off, ok := anchor(doc.Pages[i].Text, title, hint)
			if !ok {
				off = 0
			}
			sec.Page, sec.Part, sec.Offset = it.Page, i, off
		} else {
			at, ok := findAfter(doc, title, cur)
			if !ok {
				continue
			}
			sec.Page, sec.Part, sec.Offset = at.part+1, at.part, at.offset
		}
		cur = position{sec.Part, sec.Offset}
		out = append(out, sec)
	}
	sortSections(out)
	return out
}

// paperMDSections finds PAPER.md's headings in the PDF's pages, in order;
// headings not found are left out.
func paperMDSections(doc *pdf.Document, hs []sources.Section) []sources.Section {
	var out []sources.Section
	cur := position{}
	for _, h := range hs {
		at, ok := findAfter(doc, h.Title, cur)
		if !ok {
			continue
		}
		out = append(out, sources.Section{Title: h.Title, Level: h.Level, Page: at.part + 1, Part: at.part, Offset: at.offset})
		cur = at
	}
	return out
}

// position is a place in a PDF document: a page index and a byte offset.
type position struct{ part, offset int }

// findAfter finds title in the pages at or after cur, preferring a match
// that starts a line.
func findAfter(doc *pdf.Document, title string, cur position) (position, bool) {
	for i := max(cur.part, 0); i < len(doc.Pages); i++ {
		text := doc.Pages[i].Text
		from := 0
		if i == cur.part {
			from = min(cur.offset, len(text))
		}
		ms := textnorm.Locate(text[from:], title)
		if len(ms) == 0 {
			continue
		}
		if off, ok := anchor(text[from:], title, 0); ok {
			return position{i, from + off}, true
		}
	}
	return position{}, false
}

// anchor finds a heading's title in a page's text and returns the byte
// offset where the heading starts. A match that starts a line (after an
// optional section number) is preferred to one inside running text, and
// among those the one nearest hint (when hint >= 0).
func anchor(text, title string, hint int) (int, bool) {
	ms := textnorm.Locate(text, title)
	if len(ms) == 0 {
		return 0, false
	}
	best, bestRank, bestDist := -1, -1, math.MaxInt
	for _, m := range ms {
		start, rank := lineHead(text, m.Start)
		if rank == 1 && wholeLine(text, m.End) {
			rank = 2
		}
		dist := 0
		if hint >= 0 {
			dist = abs(start - hint)
		}
		if rank > bestRank || (rank == bestRank && dist < bestDist) {
			best, bestRank, bestDist = start, rank, dist
		}
	}
	return best, true
}

// wholeLine reports whether only spaces follow end on its line.
func wholeLine(text string, end int) bool {
	rest := text[end:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest) == ""
}

// lineHead reports whether the text before offset on its line is empty or
// only a section number ("3.1", "IV.", "A"): it returns the line's start and
// 1 if so, else offset and 0.
func lineHead(text string, offset int) (int, int) {
	start := strings.LastIndexByte(text[:offset], '\n') + 1
	prefix := strings.TrimSpace(text[start:offset])
	if prefix == "" || isNumbering(prefix) {
		return start, 1
	}
	return offset, 0
}

// isNumbering reports whether s looks like a section number: "3", "3.1.",
// "A.2", "IV".
func isNumbering(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 12 {
		return false
	}
	if strings.Trim(s, "IVXLivxl") == "" {
		return true
	}
	for i, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		if i == 0 && len(part) == 1 && part[0] >= 'A' && part[0] <= 'Z' {
			continue
		}
		if strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

// numberingLevel returns a heading's level from its number: "3 Method" is
// 1, "3.1 Block partition" is 2; unnumbered headings are 1.
func numberingLevel(title string) int {
	num, _, ok := strings.Cut(strings.TrimSpace(title), " ")
	if !ok || !isNumbering(num) || strings.Trim(strings.TrimSuffix(num, "."), "IVXLivxl") == "" {
		return 1
	}
	return strings.Count(strings.TrimSuffix(num, "."), ".") + 1
}

// detectedSections turns the headings the pdf package finds from font
// sizes and weights into sections. The document title (the largest text on
// page 1, possibly wrapped onto several lines) is not a section. Levels come
// from section numbers, so "3.1 Block partition" sits under "3 Method" and
// unnumbered headings such as "Abstract" are top level. Recognised pages
// have their own rules (ocrSections).
func detectedSections(doc *pdf.Document) []sources.Section {
	title := foldSpace(doc.Title)
	var out []sources.Section
	for _, h := range doc.Headings() {
		if h.Page < 1 || h.Page > len(doc.Pages) {
			continue
		}
		pg := &doc.Pages[h.Page-1]
		if pg.Recognised {
			continue // see ocrSections
		}
		t := strings.TrimSpace(h.Title)
		if !headingLike(t) || (h.Page == 1 && title != "" && strings.Contains(title, foldSpace(t))) {
			continue
		}
		sec := sources.Section{Title: t, Level: numberingLevel(t), Page: h.Page, Part: h.Page - 1}
		switch {
		case h.Line >= 0 && h.Line < len(pg.Lines) && pg.Lines[h.Line].Start >= 0 && pg.Lines[h.Line].Start <= len(pg.Text):
			sec.Offset = pg.Lines[h.Line].Start
		default:
			off, ok := anchor(pg.Text, t, -1)
			if !ok {
				continue
			}
			sec.Offset = off
		}
		out = append(out, sec)
		if len(out) >= maxDetectedHeadings {
			break
		}
	}
	out = append(out, ocrSections(doc)...)
	sortSections(out)
	return out[:min(len(out), maxDetectedHeadings)]
}

// foldSpace folds s for comparison and collapses its whitespace.
func foldSpace(s string) string {
	return textnorm.Fold(strings.Join(strings.Fields(s), " "))
}

// headingLike reports whether a line could be a heading at all: short, with
// letters, not ending like a clause.
func headingLike(t string) bool {
	if t == "" || len([]rune(t)) > 90 || strings.HasSuffix(t, ",") {
		return false
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3
}

// sortSections puts sections in reading order.
func sortSections(secs []sources.Section) {
	sort.SliceStable(secs, func(i, j int) bool {
		if secs[i].Part != secs[j].Part {
			return secs[i].Part < secs[j].Part
		}
		return secs[i].Offset < secs[j].Offset
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
