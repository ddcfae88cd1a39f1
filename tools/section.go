package tools

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// findSection looks a section up: by exact title; by number ("3.5",
// "§3.5", "Sec. 3.5", "Section 3.5 Positional Encoding"); by title ignoring
// case and numbering, or a unique prefix of it; else by the title's words
// stemmed ("positional encodings" finds "3.5 Positional Encoding"), when
// one section is clearly the closest.
func findSection(doc *sources.Document, title string) (int, bool) {
	secs := doc.Sections
	want := sectionKey(title)
	if want == "" && strings.TrimSpace(title) == "" {
		return 0, false
	}
	for i, s := range secs {
		if s.Title == title {
			return i, true
		}
	}
	if num, rest := splitSectionArg(title); num != "" {
		found := -1
		for i := range secs {
			if !strings.EqualFold(sectionNumber(doc, i), num) {
				continue
			}
			if found < 0 || rest != "" && titleSimilarity(rest, secs[i].Title) > titleSimilarity(rest, secs[found].Title) {
				found = i
			}
		}
		if found >= 0 {
			return found, true
		}
	}
	if want == "" {
		return 0, false
	}
	for i, s := range secs {
		if sectionKey(s.Title) == want {
			return i, true
		}
	}
	found := -1
	for i, s := range secs {
		if strings.HasPrefix(sectionKey(s.Title), want) {
			if found >= 0 {
				found = -2
				break
			}
			found = i
		}
	}
	if found >= 0 {
		return found, true
	}
	best, second := -1, 0.0
	bestSim := 0.0
	for i, s := range secs {
		sim := titleSimilarity(title, s.Title)
		switch {
		case sim > bestSim:
			best, second, bestSim = i, bestSim, sim
		case sim > second:
			second = sim
		}
	}
	if best >= 0 && bestSim >= minTitleSimilarity && bestSim-second >= 0.1 {
		return best, true
	}
	return 0, false
}

// minTitleSimilarity is the least word overlap (Dice, on stemmed content
// words) at which an approximate title names a section.
const minTitleSimilarity = 0.6

// titleSimilarity is the Dice coefficient of the stemmed content words of
// a section argument and a title, numbering left out; it is 0 unless the
// title holds at least three quarters of the argument's words, so that
// "attention visualizations" does not name "3.2 Attention".
func titleSimilarity(arg, title string) float64 {
	ta, tb := titleTerms(arg), titleTerms(title)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	common := 0
	for t := range ta {
		if tb[t] {
			common++
		}
	}
	if 4*common < 3*len(ta) {
		return 0
	}
	return 2 * float64(common) / float64(len(ta)+len(tb))
}

func titleTerms(s string) map[string]bool {
	_, rest := splitSectionArg(s)
	if rest == "" {
		rest = s
	}
	all, content := map[string]bool{}, map[string]bool{}
	for _, t := range textnorm.Tokens(rest) {
		all[t.Term] = true
		if !t.Stop {
			content[t.Term] = true
		}
	}
	if len(content) == 0 {
		return all
	}
	return content
}

// sectionArg parses a section argument: an optional "§", "Sec.",
// "Section" or "Appendix", a number ("3", "3.5", "A.2", "IV"), and the
// title words after it.
var sectionArg = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i:§+\s*|sec(?:t|tion)?\.?\s+|sec\.|appendix\s+|chapter\s+)?((?:\d+|[A-Z]|[IVX]+)(?:\.\d+)*)\.?(?:\s+(.*))?$`)
})

// splitSectionArg returns the number and the rest of a section argument or
// heading, or "" and the whole when it has no number.
func splitSectionArg(s string) (num, rest string) {
	s = strings.TrimSpace(s)
	m := sectionArg().FindStringSubmatchIndex(s)
	if m == nil {
		return "", s
	}
	num, rest = s[m[2]:m[3]], ""
	if m[4] >= 0 {
		rest = strings.TrimSpace(s[m[4]:m[5]])
	}
	if strings.Trim(num, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && rest != "" && !strings.HasPrefix(s[m[3]:], ".") {
		// A bare letter is a number only before a capitalised word:
		// "A Proofs", not the spaced small capitals of "I NTRODUCTION".
		r := []rune(rest)
		if len(r) < 2 || !unicode.IsUpper(r[0]) || !unicode.IsLower(r[1]) {
			return "", s
		}
	}
	return num, rest
}

// sectionNumber returns the number of section i: from its title, else from
// the start of its heading line in the text ("3.5" when a bookmark says
// "Positional Encoding" and the page "3.5 Positional Encoding").
func sectionNumber(doc *sources.Document, i int) string {
	s := doc.Sections[i]
	if num, rest := splitSectionArg(s.Title); num != "" && rest != "" {
		return num
	}
	if s.Part < 0 || s.Part >= len(doc.Parts) {
		return ""
	}
	text := doc.Parts[s.Part].Text
	if s.Offset < 0 || s.Offset > len(text) {
		return ""
	}
	line, _, _ := strings.Cut(text[s.Offset:], "\n")
	num, rest := splitSectionArg(line)
	if num == "" || rest == "" || sectionKey(rest) != sectionKey(s.Title) {
		return ""
	}
	return num
}

// sectionKey folds a heading and drops its numbering ("3.1 Method" → "method").
func sectionKey(s string) string {
	s = textnorm.Fold(strings.TrimSpace(s))
	s = strings.TrimLeft(s, "0123456789.ivx) ")
	return strings.Join(strings.Fields(s), " ")
}

func (r *reader) section(doc *sources.Document, title string, out *ReadOutput) error {
	if strings.TrimSpace(title) == "" {
		return fmt.Errorf("%w: section mode needs section (a title or number from the metadata)", ErrInvalidArgument)
	}
	i, ok := findSection(doc, title)
	if !ok {
		return fmt.Errorf("%w: section %s in %s; the metadata mode lists its sections", sources.ErrNotFound, quoteArg(title), quoteArg(doc.Path))
	}
	s := doc.Sections[i]
	end := sources.Section{Part: len(doc.Parts), Offset: 0}
	for _, n := range doc.Sections[i+1:] {
		if n.Level <= s.Level || s.Level == 0 {
			end = n
			break
		}
	}
	var b strings.Builder
	var spans []span
	for p := s.Part; p < len(doc.Parts) && p <= end.Part; p++ {
		text := doc.Parts[p].Text
		from, to := 0, len(text)
		if p == s.Part {
			from = min(s.Offset, len(text))
		}
		if p == end.Part {
			to = min(end.Offset, len(text))
		}
		if from < to {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			uri := cite.Section(doc.Path, s.Title)
			if pg := doc.Parts[p].Page; pg > 0 {
				uri = cite.Page(doc.Path, pg)
			}
			spans = append(spans, span{b.Len(), b.Len() + to - from, uri})
			b.WriteString(text[from:to])
		}
	}
	out.Section = s.Title
	if s.Page > 0 {
		out.Page = s.Page
		out.CitationURI = cite.Page(doc.Path, s.Page)
	} else {
		out.CitationURI = cite.Section(doc.Path, s.Title)
	}
	// The section runs over every page its text is on.
	raw := b.String()
	text := strings.TrimSpace(raw)
	lead := len(raw) - len(strings.TrimLeftFunc(raw, unicode.IsSpace))
	for _, sp := range spans {
		r.addSpan(text, max(0, sp.start-lead), min(len(text), max(0, sp.end-lead)), sp.uri)
	}
	r.cut(text, out)
	return nil
}
