package index

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// BestPassage returns the span text[start:end] (byte offsets) that best
// answers query in at most maxChars characters: the run of consecutive
// sentences covering the largest idf-weighted share of the query's
// distinct terms, with idf from the index; between equal shares, the one
// with the most (idf-weighted) occurrences of them. The passage starts at a
// sentence or line boundary when a whole sentence fits, preferring one
// that itself holds query terms; otherwise it is cut at word boundaries
// around the query terms. Without any query term in text, it is the
// beginning of text. The span is verbatim and never splits a character.
func (ix *Index) BestPassage(text, query string, maxChars int) (start, end int) {
	return ix.passage(text, ix.queryWeights(query), maxChars)
}

// passage is BestPassage with each query term's weight given.
func (ix *Index) passage(text string, weight map[string]float64, maxChars int) (start, end int) {
	if maxChars <= 0 || strings.TrimSpace(text) == "" {
		return 0, 0
	}
	units := sentences(text)
	// Only the query's terms are looked at: the others need not be
	// stemmed or kept.
	toks := textnorm.TokensIn(text, weight)

	// For each unit, the query terms it holds; for each term, a bit.
	termBit := map[string]int{}
	var weights []float64
	unitTerms := make([][]int, len(units))
	u := 0
	for _, t := range toks {
		w, ok := weight[t.Term]
		if !ok || t.Stop {
			continue
		}
		for u < len(units) && units[u][1] <= t.Start {
			u++
		}
		if u == len(units) {
			break
		}
		if t.Start < units[u][0] {
			continue
		}
		b, ok := termBit[t.Term]
		if !ok {
			b = len(weights)
			termBit[t.Term] = b
			weights = append(weights, w)
		}
		unitTerms[u] = append(unitTerms[u], b)
	}
	// The character offsets of the units' ends, counted once: the windows
	// below compare them instead of counting characters again, so a text
	// of many short sentences or one long line costs linear time.
	runeStart, runeEnd := make([]int, len(units)), make([]int, len(units))
	rc := runeCursor{text: text}
	for i, un := range units {
		runeStart[i], runeEnd[i] = rc.at(un[0]), rc.at(un[1])
	}
	// The window [lo, hi) of units, with how often each term occurs in it.
	win := newTermWindow(weights)
	lo, hi := 0, 0
	self := newTermWindow(weights)

	best := passageScore{cover: -1}
	j := 0
	for i := range units {
		if runeEnd[i]-runeStart[i] > maxChars {
			// A sentence longer than the cap: the best cut inside it.
			s, e, sc := ix.cut(text, units[i], toks, weight, maxChars)
			if sc.better(best) {
				best, start, end = sc, s, e
			}
			continue
		}
		j = max(j, i)
		for j+1 < len(units) && runeEnd[j+1]-runeStart[i] <= maxChars {
			j++
		}
		if hi <= i {
			win.reset()
			lo, hi = i, i
		}
		for ; lo < i; lo++ {
			win.remove(unitTerms[lo])
		}
		for ; hi <= j; hi++ {
			win.add(unitTerms[hi])
		}
		self.add(unitTerms[i])
		// The window's own coverage, with a smaller reward for opening
		// on a sentence that holds query terms itself.
		sc := passageScore{cover: win.cover() + 0.5*self.cover(), mass: win.mass()}
		self.remove(unitTerms[i])
		if sc.better(best) {
			best, start, end = sc, units[i][0], units[j][1]
		}
	}
	return start, end
}

// passageScore is what passages are compared by: the weight of the
// distinct query terms they cover, and between equal covers the weight of
// all their occurrences: of two passages that hold the same query terms,
// the one that mentions them more often is more about them (as term
// frequency counts in BM25). Between equal scores the first passage wins.
type passageScore struct {
	cover, mass float64
}

func (p passageScore) better(q passageScore) bool {
	return p.cover > q.cover || p.cover == q.cover && p.mass > q.mass
}

// runeCursor counts the characters of text between its starting offset b
// and increasing byte offsets, each character once.
type runeCursor struct {
	text string
	b, r int // the last offset asked for and the characters before it
}

// at returns the characters in text[b0:off], b0 being the cursor's start;
// off must not decrease from one call to the next.
func (c *runeCursor) at(off int) int {
	c.r += utf8.RuneCountInString(c.text[c.b:off])
	c.b = off
	return c.r
}

// termWindow is the multiset of query terms (by bit) in a sliding window.
type termWindow struct {
	weights []float64
	count   []int
}

func newTermWindow(weights []float64) *termWindow {
	return &termWindow{weights: weights, count: make([]int, len(weights))}
}

func (w *termWindow) add(bits []int) {
	for _, b := range bits {
		w.count[b]++
	}
}

func (w *termWindow) remove(bits []int) {
	for _, b := range bits {
		w.count[b]--
	}
}

func (w *termWindow) reset() { clear(w.count) }

// mass sums the weights of the terms' occurrences in the window.
func (w *termWindow) mass() float64 {
	sum := 0.0
	for b, n := range w.count {
		sum += float64(n) * w.weights[b]
	}
	return sum
}

// cover sums the weights of the distinct terms in the window. It costs the
// number of distinct query terms in the text, which the query bounds.
func (w *termWindow) cover() float64 {
	sum := 0.0
	for b, n := range w.count {
		if n > 0 {
			sum += w.weights[b]
		}
	}
	return sum
}

// queryWeights returns the idf of each distinct indexable query term;
// terms absent from the index get the highest idf.
func (ix *Index) queryWeights(query string) map[string]float64 {
	w := map[string]float64{}
	for _, t := range textnorm.Tokens(query) {
		if t.Stop || len(t.Term) > maxTermLen {
			continue
		}
		df := 0
		if id, ok := ix.lookup(t.Term); ok {
			df = int(ix.postStart[id+1] - ix.postStart[id])
		}
		w[t.Term] = ix.idf(df)
	}
	return w
}

// cut returns the best span of at most maxChars characters inside the
// unit u, starting and ending at word boundaries, and its score.
func (ix *Index) cut(text string, u [2]int, toks []textnorm.Token, weight map[string]float64, maxChars int) (int, int, passageScore) {
	// toks is in text order: the unit's tokens are one run of it.
	first := sort.Search(len(toks), func(k int) bool { return toks[k].Start >= u[0] })
	last := first
	for last < len(toks) && toks[last].Start < u[1] {
		last++
	}
	var in []textnorm.Token
	for _, t := range toks[first:last] {
		if t.End <= u[1] {
			in = append(in, t)
		}
	}
	// Character offsets of the tokens' starts and ends from the unit's
	// start; both run forward.
	starts, ends := runeCursor{text: text, b: u[0]}, runeCursor{text: text, b: u[0]}
	startAt := make([]int, len(in))
	endAt := make([]int, len(in))
	for k, t := range in {
		startAt[k], endAt[k] = starts.at(t.Start), ends.at(t.End)
	}
	// The window in[a:b] is the longest run from a that fits; b only grows
	// with a. seen counts its distinct weighted, non-stop terms.
	termBit := map[string]int{}
	var weights []float64
	bits := make([]int, len(in)) // -1 for tokens that do not score
	for k, t := range in {
		bits[k] = -1
		w, ok := weight[t.Term]
		if !ok || t.Stop {
			continue
		}
		b, ok := termBit[t.Term]
		if !ok {
			b = len(weights)
			termBit[t.Term] = b
			weights = append(weights, w)
		}
		bits[k] = b
	}
	win := newTermWindow(weights)
	bestS, bestE, best := -1, -1, passageScore{cover: -1}
	b := 0 // window is in[a:b]
	for a := range in {
		if b < a {
			b = a
		}
		s, sr := in[a].Start, startAt[a]
		if a == 0 {
			s, sr = u[0], 0
		}
		for b < len(in) && endAt[b]-sr <= maxChars {
			if bits[b] >= 0 {
				win.count[bits[b]]++
			}
			b++
		}
		skip := a > 0 && (in[a].Pos == in[a-1].Pos || // a CJK bigram starts where its unigram does
			!hasWeight(weight, in[a].Term)) // start at the unit or at a query term
		if !skip && b > a {
			if sc := (passageScore{cover: win.cover(), mass: win.mass()}); sc.better(best) {
				bestS, bestE, best = s, in[b-1].End, sc
			}
		}
		if b > a && bits[a] >= 0 {
			win.count[bits[a]]--
		}
	}
	if bestS < 0 {
		// No whole word fits: cut the unit's start on a character.
		cut, _ := textnorm.Truncate(text[u[0]:u[1]], maxChars)
		return u[0], u[0] + len(cut), passageScore{}
	}
	return bestS, bestE, best
}

func hasWeight(weight map[string]float64, term string) bool {
	_, ok := weight[term]
	return ok
}

// sentences splits text into trimmed, non-empty units at line breaks and
// at sentence ends: '.', '!' or '?' followed by a space and an upper-case
// letter, digit or opening bracket, and the CJK full stops.
func sentences(text string) [][2]int {
	var out [][2]int
	add := func(s, e int) {
		for s < e {
			r, n := utf8.DecodeRuneInString(text[s:])
			if !unicode.IsSpace(r) {
				break
			}
			s += n
		}
		for e > s {
			r, n := utf8.DecodeLastRuneInString(text[s:e])
			if !unicode.IsSpace(r) {
				break
			}
			e -= n
		}
		if e > s {
			out = append(out, [2]int{s, e})
		}
	}
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n' || r == '\r' || r == '\f' || r == 0x2028 || r == 0x2029:
			add(start, i)
			start = i + n
		case r == '。' || r == '！' || r == '？':
			add(start, i+n)
			start = i + n
		case (r == '.' || r == '!' || r == '?') && sentenceFollows(text[i+n:]):
			add(start, i+n)
			start = i + n
		}
		i += n
	}
	add(start, len(text))
	return out
}

// sentenceFollows reports whether s starts with spaces and then what may
// begin a sentence.
func sentenceFollows(s string) bool {
	t := strings.TrimLeft(s, " \t")
	if len(t) == len(s) || t == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || r == '(' || r == '[' || r == '"' || r == '“'
}
