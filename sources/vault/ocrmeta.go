package vault

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/sources"
)

// A recognised page's lines carry sizes measured from word boxes, which
// vary with the letters' shapes, and every line of the page, stamps and
// fragments included: its title and headings are found by stricter rules
// than a text layer's (see ocrTitle and ocrSections).
const (
	// ocrTitleTop is the part of the first page, from its top, where a
	// scan's title is looked for.
	ocrTitleTop = 0.4
	// ocrTitleRatio is how much larger than the page's body a title line
	// is set, at least.
	ocrTitleRatio = 1.25
	// ocrHeadingRatio is how much larger than the body a heading is set,
	// at least: headings set bold at body size measure about 1.1 to 1.2.
	ocrHeadingRatio = 1.08
	// ocrSameSize is how far two lines' measured sizes may differ for the
	// lines to be one wrapped title or heading.
	ocrSameSize = 0.15
	// ocrMaxNumber is the longest section number part: "2014" starting a
	// line of running text is a year, not a section.
	ocrMaxNumber = 2
)

// ocrBody is the body size of recognised lines: the median size, by
// characters.
func ocrBody(lines []pdf.Line) float64 {
	type sz struct {
		size float64
		n    int
	}
	var ss []sz
	total := 0
	for _, l := range lines {
		ss = append(ss, sz{l.FontSize, len(l.Text)})
		total += len(l.Text)
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].size < ss[j].size })
	at := 0
	for _, s := range ss {
		if at += s.n; 2*at >= total {
			return s.size
		}
	}
	return 0
}

// ocrStray reports whether a recognised line is none a reader would take
// for a title or heading: a side stamp (arXiv's, or any line set
// vertically), an e-mail line, a fragment starting in lowercase, a line
// ending mid-sentence (a comma, a hyphen, a full stop), a formula, or a
// line without the letters or the shape of a heading (headingLike).
func ocrStray(l pdf.Line, width, height float64) bool {
	t := strings.TrimSpace(l.Text)
	if !headingLike(t) || arXivStamp().MatchString(t) || strings.HasPrefix(strings.ToLower(t), "arxiv") ||
		strings.ContainsAny(t, "@=|{}<>[]") {
		return true
	}
	if l.Box.H*height > 2*l.Box.W*width {
		return true // set vertically: a margin stamp
	}
	first, _ := utf8.DecodeRuneInString(t)
	if !unicode.IsUpper(first) && !unicode.IsDigit(first) {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	if strings.ContainsRune(".,;-\u2010\u2011\u00ad", last) {
		return true
	}
	letters, other := 0, 0
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r), unicode.IsDigit(r):
		default:
			other++
		}
	}
	return other*4 > letters
}

// ocrTitle returns the title a recognised first page sets: its largest
// line in the top part of the page, set well above the body size, with
// the lines of about its size right under it that wrap it; "" when the
// page sets none.
func ocrTitle(pg *pdf.Page) string {
	lines := pg.Lines
	body := ocrBody(lines)
	if body == 0 {
		return ""
	}
	best := -1
	for i, l := range lines {
		if l.Box.Y > ocrTitleTop || l.FontSize < ocrTitleRatio*body || ocrStray(l, pg.Width, pg.Height) {
			continue
		}
		if best < 0 || l.FontSize > lines[best].FontSize {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	parts := []string{strings.TrimSpace(lines[best].Text)}
	prev := lines[best]
	for _, l := range lines[best+1:] {
		if !ocrWraps(prev, l) || ocrStray(l, pg.Width, pg.Height) {
			break
		}
		parts = append(parts, strings.TrimSpace(l.Text))
		prev = l
	}
	return strings.Join(parts, " ")
}

// ocrWraps reports whether next continues line: about the same size,
// right under it (less than a line's height apart), overlapping it across
// the page.
func ocrWraps(line, next pdf.Line) bool {
	if next.FontSize < (1-ocrSameSize)*line.FontSize || next.FontSize > (1+ocrSameSize)*line.FontSize {
		return false
	}
	gap := next.Box.Y - (line.Box.Y + line.Box.H)
	return gap >= -line.Box.H/2 && gap < line.Box.H &&
		next.Box.X < line.Box.X+line.Box.W && line.Box.X < next.Box.X+next.Box.W
}

// ocrNumbered returns a line's section number ("3", "2.1", "A.2") and
// true when the line starts with one and a capitalised word follows.
func ocrNumbered(t string) (string, bool) {
	num, rest, ok := strings.Cut(strings.TrimSpace(t), " ")
	if !ok || !isNumbering(num) || strings.Trim(strings.TrimSuffix(num, "."), "IVXLivxl") == "" {
		return "", false
	}
	for _, p := range strings.Split(strings.TrimSuffix(num, "."), ".") {
		if len(p) > ocrMaxNumber {
			return "", false
		}
	}
	first, _ := utf8.DecodeRuneInString(strings.TrimSpace(rest))
	return num, unicode.IsUpper(first)
}

// ocrSections returns the headings of doc's recognised pages: lines set
// above the body size that are numbered ("1 Introduction", "2.1 Data")
// with the lines that wrap them, or that are one capitalised word
// ("Abstract", "References"), and never the title or a stray line
// (ocrStray). Levels come from the numbers.
func ocrSections(doc *pdf.Document) []sources.Section {
	var all []pdf.Line
	for _, p := range doc.Pages {
		if p.Recognised {
			all = append(all, p.Lines...)
		}
	}
	body := ocrBody(all)
	if body == 0 {
		return nil
	}
	title := foldSpace(doc.Title)
	var out []sources.Section
	for pi := range doc.Pages {
		pg := &doc.Pages[pi]
		if !pg.Recognised {
			continue
		}
		for i := 0; i < len(pg.Lines); i++ {
			l := pg.Lines[i]
			t := strings.TrimSpace(l.Text)
			if l.FontSize < ocrHeadingRatio*body || ocrStray(l, pg.Width, pg.Height) ||
				pi == 0 && title != "" && strings.Contains(title, foldSpace(t)) {
				continue
			}
			_, numbered := ocrNumbered(t)
			if !numbered && len(strings.Fields(t)) != 1 {
				continue
			}
			if numbered {
				for prev := l; i+1 < len(pg.Lines); i++ {
					next := pg.Lines[i+1]
					if _, n := ocrNumbered(next.Text); n || !ocrWraps(prev, next) || ocrStray(next, pg.Width, pg.Height) {
						break
					}
					t += " " + strings.TrimSpace(next.Text)
					prev = next
				}
			}
			out = append(out, sources.Section{Title: t, Level: numberingLevel(t), Page: pi + 1, Part: pi, Offset: max(min(l.Start, len(pg.Text)), 0)})
			if len(out) >= maxDetectedHeadings {
				return out
			}
		}
	}
	return out
}
