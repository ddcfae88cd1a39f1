package pdf

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Heading is a section heading found in a document.
type Heading struct {
	Title string
	Page  int // 1-based physical page
	Level int // 0 = top
	Line  int // index into Pages[Page-1].Lines; -1 when not found on the page
}

// Headings returns the document's headings. When the PDF has an outline,
// its items are the headings, each anchored to the first line on its page
// that carries the same words (95 % of outline titles appear verbatim on
// their page). Otherwise headings are lines set larger than the body text,
// or bold at about body size, and short; the body size is the most common
// glyph size, and levels follow the distinct heading sizes, largest first.
func (d *Document) Headings() []Heading {
	if len(d.Outline) > 0 {
		return d.outlineHeadings()
	}
	return d.fontHeadings()
}

func headingKey(s string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func (d *Document) outlineHeadings() []Heading {
	out := make([]Heading, 0, len(d.Outline))
	next := map[int]int{} // page → first line index not yet used as an anchor
	for _, it := range d.Outline {
		h := Heading{Title: it.Title, Page: it.Page, Level: it.Level, Line: -1}
		if it.Page >= 1 && it.Page <= len(d.Pages) {
			key := headingKey(it.Title)
			lines := d.Pages[it.Page-1].Lines
			// Search on from the previous anchor on the page, then from the
			// top: outlines list figures and tables apart from sections.
			for _, from := range [2]int{next[it.Page], 0} {
				if i := anchorLine(lines, key, from); i >= 0 {
					h.Line = i
					next[it.Page] = i + 1
					break
				}
			}
		}
		out = append(out, h)
	}
	return out
}

func anchorLine(lines []Line, key string, from int) int {
	if key == "" {
		return -1
	}
	for i := from; i < len(lines); i++ {
		lk := headingKey(lines[i].Text)
		if lk == "" {
			continue
		}
		if lk == key || strings.HasPrefix(lk, key) || (len(lk) >= 4 && strings.HasPrefix(key, lk)) ||
			(len(key) >= 4 && strings.HasSuffix(lk, key)) {
			return i
		}
	}
	return -1
}

func (d *Document) fontHeadings() []Heading {
	sizes := map[float64]int{}
	for _, p := range d.Pages {
		for _, l := range p.Lines {
			if l.Annot == "" { // form text is not the document's type
				sizes[l.FontSize] += len(l.Text)
			}
		}
	}
	body, bodyN := 0.0, -1
	for s, n := range sizes {
		if n > bodyN || (n == bodyN && s < body) {
			body, bodyN = s, n
		}
	}
	if body == 0 {
		return nil
	}
	type cand struct {
		h    Heading
		size float64
	}
	var cands []cand
	levels := map[float64]bool{}
	for _, p := range d.Pages {
		for i, l := range p.Lines {
			t := strings.TrimSpace(l.Text)
			words := len(strings.Fields(t))
			if l.Annot != "" || words == 0 || words > 14 || len(t) > 140 || letterCount(t) < 2 {
				continue
			}
			size := math.Round(l.FontSize*2) / 2
			switch {
			case l.FontSize >= 1.15*body:
			case l.Bold && l.FontSize >= 0.95*body:
				size = body
			default:
				continue
			}
			levels[size] = true
			cands = append(cands, cand{Heading{Title: t, Page: p.Number, Line: i}, size})
		}
	}
	var ls []float64
	for s := range levels {
		ls = append(ls, s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(ls)))
	out := make([]Heading, 0, len(cands))
	for _, c := range cands {
		c.h.Level = min(sort.Search(len(ls), func(i int) bool { return ls[i] <= c.size }), 3)
		out = append(out, c.h)
	}
	return out
}
