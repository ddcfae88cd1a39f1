package tools

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

func (r *reader) excerpt(ctx context.Context, doc *sources.Document, quote string, out *ReadOutput) error {
	quote = strings.TrimSpace(quote)
	if quote == "" {
		return fmt.Errorf("%w: excerpt mode needs quote", ErrInvalidArgument)
	}
	docs := []*sources.Document{doc}
	if d, ok := r.tg.src.(sources.Describer); ok && r.tg.path == "" {
		// A paper: the quote may be in its PDF, PAPER.md or NOTES.md.
		if m, err := d.Describe(ctx); err == nil {
			for _, p := range m.Documents {
				if p == doc.Path {
					continue
				}
				if other, err := readFor(ctx, r.tg.src, p, nil); err == nil {
					docs = append(docs, other)
				}
			}
		}
	}
	// The first exact match in document order wins, else the best
	// approximate one; a near miss only names its pages.
	var hit, near textnorm.QuoteResult
	var hitDoc, nearDoc *sources.Document
	total := 0
	for _, d := range docs {
		texts := make([]string, len(d.Parts))
		for i, p := range d.Parts {
			texts[i] = p.Text
		}
		res := textnorm.FindQuote(texts, quote)
		total += res.Matches
		switch {
		case res.Found && (hitDoc == nil || res.Exact && !hit.Exact || res.Exact == hit.Exact && res.Score > hit.Score):
			hit, hitDoc = res, d
		case !res.Found && len(res.Hints) > 0 && (nearDoc == nil || res.Score > near.Score):
			near, nearDoc = res, d
		}
	}
	if hitDoc == nil {
		return fmt.Errorf("%w: the quote is not in %s%s; try context_search", sources.ErrNotFound, quoteArg(r.path()), nearPages(nearDoc, near))
	}
	hitPart := hitDoc.Parts[hit.Part]
	// A quote that runs across a page break is returned, and cited, on
	// both pages: the passage is taken from the pages joined.
	text, matchEnd := hitPart.Text, hit.End
	last := min(max(hit.EndPart, hit.Part), len(hitDoc.Parts)-1)
	starts := []int{0}
	if last > hit.Part {
		var b strings.Builder
		for i := hit.Part; i <= last; i++ {
			if i > hit.Part {
				b.WriteString("\n\n")
				starts = append(starts, b.Len())
			}
			b.WriteString(hitDoc.Parts[i].Text)
		}
		text = b.String()
		matchEnd = starts[len(starts)-1] + min(hit.EndPartEnd, len(hitDoc.Parts[last].Text))
	}
	start, end := passage(text, hit.Start, matchEnd, min(r.limit, excerptWindow))
	// A passage is a window by design, not a cut read: the rest of its
	// page is a page read away, so it carries no cursor and is not marked
	// truncated.
	out.Text = text[start:end]
	if last > hit.Part {
		for k, off := range starts {
			i := hit.Part + k
			from, to := max(off, start), min(off+len(hitDoc.Parts[i].Text), end)
			if from < to {
				r.addSpan(out.Text, from-start, to-start, partURI(hitDoc, i, max(0, from-off)))
			}
		}
	}
	out.Matches = total
	out.Match, out.Score = MatchApproximate, math.Round(hit.Score*100)/100
	if hit.Exact {
		out.Match, out.Score = MatchExact, 1
	}
	out.Page, out.PageLabel = hitPart.Page, hitPart.Label
	markOCR(out, hitPart.OCR)
	out.Title = hitDoc.Title
	if hitPart.Page == 0 {
		out.Section = sectionAt(hitDoc.Sections, hit.Part, hit.Start)
	}
	out.CitationURI = partURI(hitDoc, hit.Part, hit.Start)
	return nil
}

// partURI is the citation URI of byte off of part i of doc: its page, else
// the section it is in, else the file.
func partURI(doc *sources.Document, i, off int) string {
	if pg := doc.Parts[i].Page; pg > 0 {
		return cite.Page(doc.Path, pg)
	}
	if s := sectionAt(doc.Sections, i, off); s != "" {
		return cite.Section(doc.Path, s)
	}
	return cite.File(doc.Path)
}

// nearPages names the pages of the closest passages of a quote that was
// not found, as a hint.
func nearPages(doc *sources.Document, res textnorm.QuoteResult) string {
	if doc == nil {
		return ""
	}
	var pages []string
	for _, i := range res.Hints {
		if p := doc.Parts[i].Page; p > 0 {
			pages = append(pages, strconv.Itoa(p))
		}
	}
	if len(pages) == 0 {
		return ""
	}
	word := "page"
	if len(pages) > 1 {
		word = "pages"
	}
	return fmt.Sprintf(" (no passage is close enough; the nearest are on %s %s)", word, strings.Join(pages, ", "))
}

// sectionAt returns the title of the innermost section that contains byte
// off of part.
func sectionAt(secs []sources.Section, part, off int) string {
	title := ""
	for _, s := range secs {
		if s.Part < part || s.Part == part && s.Offset <= off {
			title = s.Title
		}
	}
	return title
}

// excerptWindow is the size of an excerpt read: the passage around a quote,
// not the page it is on (page mode reads that).
const excerptWindow = 1500

// passage widens [start, end) to at most limit characters around the match,
// preferring to start at a paragraph or sentence boundary.
func passage(text string, start, end, limit int) (int, int) {
	matchLen := utf8.RuneCountInString(text[start:end])
	if matchLen >= limit {
		s, _ := textnorm.Truncate(text[start:end], limit)
		return start, start + len(s)
	}
	room := limit - matchLen
	// Up to a third of the room before the match, the rest after it.
	before := room / 3
	s := start
	for n := 0; n < before && s > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:s])
		s -= size
	}
	if i := strings.LastIndex(text[s:start], "\n\n"); i >= 0 {
		s += i + 2
	} else if i := strings.LastIndex(text[s:start], ". "); i >= 0 {
		s += i + 2
	}
	used := utf8.RuneCountInString(text[s:end])
	rest, _ := textnorm.Truncate(text[end:], limit-used)
	return s, end + len(rest)
}
