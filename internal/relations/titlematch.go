package relations

import (
	"slices"
	"strings"
	"unicode"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// minTitleScore is the least word overlap (Dice coefficient over the
// normalised title words) for a reference to be matched to a library paper
// by title. A match also needs the year (±1, preprints are cited a year
// early) or the first author's surname to agree.
const minTitleScore = 0.85

// normTitle folds s (case, diacritics, ligatures) and keeps its letters
// and digits as space-separated words: "Fast R-CNN." → "fast r cnn".
func normTitle(s string) string {
	f := textnorm.Fold(s)
	var b strings.Builder
	space := true
	for _, r := range f {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// titleIndex finds library papers by the words of their titles.
type titleIndex struct {
	words  map[string][]*catalog.Paper // word → papers whose title has it
	titles map[*catalog.Paper][]string
	// years and authors stand in for a paper's metadata when it has none
	// (what its PDF shows, the year of its arXiv id).
	years   map[*catalog.Paper]int
	authors map[*catalog.Paper][]string
	// found memoises match: a work is cited by many papers, each entry
	// with the same title, year and first author.
	found map[matchKey]*catalog.Paper
}

// matchKey is what match reads of a reference: its title, its year and
// its first author.
type matchKey struct {
	title, author string
	year          int
	authors       bool // author is set: the reference has authors
}

// titleIndex indexes the library papers of g by their titles, their
// metadata's else their PDF's, each with its PDF's authors and year, or
// its arXiv id's year, when its metadata has none.
func (g *graph) titleIndex() *titleIndex {
	papers := g.all
	if len(g.copyOf) > 0 {
		papers = slices.DeleteFunc(slices.Clone(papers), func(p *catalog.Paper) bool { return g.copyOf[p.Ref] != nil })
	}
	ix := newTitleIndexOf(papers, func(p *catalog.Paper) string {
		if t := p.Title(); t != "" {
			return t
		}
		return g.meta[p.Ref].Title
	})
	ix.years, ix.authors = map[*catalog.Paper]int{}, map[*catalog.Paper][]string{}
	for p := range ix.titles {
		if p.Meta.Year == 0 {
			if y := g.ownYear(p); y > 0 {
				ix.years[p] = y
			}
		}
		if a := g.meta[p.Ref].Authors; len(p.Meta.Authors) == 0 && len(a) > 0 {
			ix.authors[p] = a
		}
	}
	return ix
}

// newTitleIndexOf indexes papers by the titles title gives them.
func newTitleIndexOf(papers []*catalog.Paper, title func(*catalog.Paper) string) *titleIndex {
	ix := &titleIndex{words: map[string][]*catalog.Paper{}, titles: map[*catalog.Paper][]string{}}
	for _, p := range papers {
		ws := strings.Fields(normTitle(title(p)))
		if len(ws) == 0 {
			continue
		}
		ix.titles[p] = ws
		seen := map[string]bool{}
		for _, w := range ws {
			if !seen[w] {
				seen[w] = true
				ix.words[w] = append(ix.words[w], p)
			}
		}
	}
	return ix
}

// joinCompounds returns a with each pair of adjacent words whose
// concatenation is a word of b joined into that word. A compound broken at
// a line end loses its hyphen ("born-" + "digital" reads "borndigital"),
// and one title may write "data set" where the other has "dataset": both
// spellings then count as the same word. a is not changed.
func joinCompounds(a, b []string) []string {
	for i := 0; i+1 < len(a); i++ {
		if hasJoined(b, a[i], a[i+1]) {
			out := append(append(append([]string(nil), a[:i]...), a[i]+a[i+1]), a[i+2:]...)
			return joinCompounds(out, b)
		}
	}
	return a
}

// hasJoined reports whether x+y is a word of ws, without building x+y: a
// title has a few dozen words at most, so a scan beats a set, which every
// candidate of every reference would build anew.
func hasJoined(ws []string, x, y string) bool {
	n := len(x) + len(y)
	for _, w := range ws {
		if len(w) == n && w[:len(x)] == x && w[len(x):] == y {
			return true
		}
	}
	return false
}

// dice is the Dice coefficient of two word lists (as multisets).
func dice(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	// Each word of b takes one equal word of a not taken before; titles
	// are short, so a scan with a bitmap of taken words allocates nothing
	// for up to 64 words of a.
	var small [1]uint64
	taken := small[:]
	if len(a) > 64 {
		taken = make([]uint64, (len(a)+63)/64)
	}
	common := 0
	for _, w := range b {
		for i, v := range a {
			if taken[i/64]&(1<<(i%64)) == 0 && v == w {
				taken[i/64] |= 1 << (i % 64)
				common++
				break
			}
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// match returns the one library paper r names by title, confirmed by year
// or first author; nil when none does or when more than one does (an
// ambiguous match never gets a path).
func (ix *titleIndex) match(r ref) *catalog.Paper {
	k := matchKey{title: r.title, year: r.year}
	if len(r.authors) > 0 {
		k.author, k.authors = r.authors[0], true
	}
	if p, ok := ix.found[k]; ok {
		return p
	}
	p := ix.matchTitle(r)
	if ix.found == nil {
		ix.found = map[matchKey]*catalog.Paper{}
	}
	ix.found[k] = p
	return p
}

// matchTitle is match without the memo.
func (ix *titleIndex) matchTitle(r ref) *catalog.Paper {
	ws := strings.Fields(normTitle(r.title))
	if len(ws) == 0 || len(ws) > 60 {
		return nil
	}
	// Candidates share the entry's rarest word: a title that scores
	// minTitleScore shares most words, so it shares one of the three
	// rarest.
	rare := make([]string, 0, len(ws))
	for _, w := range ws {
		if len(ix.words[w]) > 0 {
			rare = append(rare, w)
		}
	}
	if len(rare) == 0 {
		return nil
	}
	// Sort by posting length, keep three.
	for i := 1; i < len(rare); i++ {
		for j := i; j > 0 && len(ix.words[rare[j]]) < len(ix.words[rare[j-1]]); j-- {
			rare[j], rare[j-1] = rare[j-1], rare[j]
		}
	}
	seen := map[*catalog.Paper]bool{}
	var found *catalog.Paper
	for _, w := range rare[:min(3, len(rare))] {
		for _, p := range ix.words[w] {
			if seen[p] {
				continue
			}
			seen[p] = true
			if !ix.confirmed(p, r, ws) {
				continue
			}
			if found != nil && found != p {
				return nil // ambiguous
			}
			found = p
		}
	}
	return found
}

// confirmed reports whether library paper p is the work r: titles that
// agree and a year or first author that agrees. A short title (fewer than
// three words of three letters or more: "Fast R-CNN", "Deep learning")
// names many works, so it must be equal and confirmed by both when the
// paper has both.
func (ix *titleIndex) confirmed(p *catalog.Paper, r ref, ws []string) bool {
	pt := ix.titles[p]
	pt = joinCompounds(pt, ws)
	ws = joinCompounds(ws, pt)
	if a, b := float64(len(pt)), float64(len(ws)); 2*min(a, b) < minTitleScore*(a+b) {
		return false // lengths alone rule the score out
	}
	score := dice(pt, ws)
	if score < minTitleScore {
		return false
	}
	year, authors := p.Meta.Year, p.Meta.Authors
	if year == 0 {
		year = ix.years[p]
	}
	if len(authors) == 0 {
		authors = ix.authors[p]
	}
	yearOK := r.year > 0 && year > 0 && r.year >= year-1 && r.year <= year+1
	authorOK := false
	if len(r.authors) > 0 && len(authors) > 0 {
		a, b := surname(r.authors[0]), surname(authors[0])
		authorOK = a != "" && a == b
	}
	if short(pt) || short(ws) {
		if score < 1 {
			return false
		}
		if year > 0 && len(authors) > 0 && r.year > 0 && len(r.authors) > 0 {
			return yearOK && authorOK
		}
	}
	return yearOK || authorOK
}

// short reports whether a title has fewer than three words of three
// letters or more.
func short(ws []string) bool {
	n := 0
	for _, w := range ws {
		if len(w) >= 3 {
			n++
		}
	}
	return n < 3
}
