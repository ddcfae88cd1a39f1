package index

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// BestPassage returns the span text[start:end] (byte offsets) that best
// answers query in at most maxChars characters: the run of consecutive
// sentences covering the largest idf-weighted share of the query's
// distinct terms, with idf from the index. The passage starts at a
// sentence or line boundary when a whole sentence fits, preferring one
// that itself holds query terms; otherwise it is cut at word boundaries
// around the query terms. Without any query term in text, it is the
// beginning of text. The span is verbatim and never splits a character.
func (ix *Index) BestPassage(text, query string, maxChars int) (start, end int) {
	return bestPassage(text, ix.queryWeights(query), maxChars)
}

// BestPassage is Index.BestPassage with the Set's idf.
func (s *Set) BestPassage(text, query string, maxChars int) (start, end int) {
	w := map[string]float64{}
	for _, t := range textnorm.Tokens(query) {
		if t.Stop || len(t.Term) > maxTermLen {
			continue
		}
		df := 0
		for _, ix := range s.segs {
			if id, ok := ix.lookup(t.Term); ok {
				df += int(ix.postStart[id+1] - ix.postStart[id])
			}
		}
		w[t.Term] = math.Log(1 + (float64(s.n)-float64(df)+0.5)/(float64(df)+0.5))
	}
	return bestPassage(text, w, maxChars)
}

// bestPassage is BestPassage given each query term's weight.
func bestPassage(text string, weight map[string]float64, maxChars int) (start, end int) {
	if maxChars <= 0 || strings.TrimSpace(text) == "" {
		return 0, 0
	}
	units := sentences(text)
	toks := textnorm.Tokens(text)

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
	cover := func(from, to int) float64 {
		seen := make(map[int]bool)
		sum := 0.0
		for k := from; k <= to; k++ {
			for _, b := range unitTerms[k] {
				if !seen[b] {
					seen[b] = true
					sum += weights[b]
				}
			}
		}
		return sum
	}

	// Character counts up to each unit's start and end, so that a
	// window's length is a subtraction rather than a count.
	startRunes := make([]int, len(units))
	endRunes := make([]int, len(units))
	at, runes := 0, 0
	for k, un := range units {
		runes += utf8.RuneCountInString(text[at:un[0]])
		startRunes[k] = runes
		runes += utf8.RuneCountInString(text[un[0]:un[1]])
		endRunes[k] = runes
		at = un[1]
	}
	bestScore := -1.0
	j := 0
	for i := range units {
		if endRunes[i]-startRunes[i] > maxChars {
			// A sentence longer than the cap: the best cut inside it.
			s, e, sc := cut(text, units[i], toks, weight, maxChars)
			if sc > bestScore {
				bestScore, start, end = sc, s, e
			}
			continue
		}
		// The window's end only moves forward as its start does.
		j = max(j, i)
		for j+1 < len(units) && endRunes[j+1]-startRunes[i] <= maxChars {
			j++
		}
		// The window's own coverage, with a smaller reward for opening
		// on a sentence that holds query terms itself.
		sc := cover(i, j) + 0.5*cover(i, i)
		if sc > bestScore {
			bestScore, start, end = sc, units[i][0], units[j][1]
		}
	}
	return start, end
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
func cut(text string, u [2]int, toks []textnorm.Token, weight map[string]float64, maxChars int) (int, int, float64) {
	var in []textnorm.Token
	for _, t := range toks {
		if t.Start >= u[0] && t.End <= u[1] {
			in = append(in, t)
		}
	}
	bestS, bestE, best := -1, -1, -1.0
	for a := range in {
		if a > 0 && in[a].Pos == in[a-1].Pos {
			continue // a CJK bigram starts where its unigram does
		}
		if _, ok := weight[in[a].Term]; !ok && a > 0 {
			continue // start at the unit or at a query term
		}
		s := in[a].Start
		if a == 0 {
			s = u[0]
		}
		seen := map[string]bool{}
		sc, e := 0.0, -1
		runes, counted := 0, s // characters of text[s:counted]
		for b := a; b < len(in); b++ {
			if in[b].End > counted {
				runes += utf8.RuneCountInString(text[counted:in[b].End])
				counted = in[b].End
			} else if in[b].End < counted {
				runes, counted = utf8.RuneCountInString(text[s:in[b].End]), in[b].End
			}
			if runes > maxChars {
				break
			}
			e = in[b].End
			if w, ok := weight[in[b].Term]; ok && !seen[in[b].Term] && !in[b].Stop {
				seen[in[b].Term] = true
				sc += w
			}
		}
		if e > s && sc > best {
			bestS, bestE, best = s, e, sc
		}
	}
	if bestS < 0 {
		// No whole word fits: cut the unit's start on a character.
		cut, _ := textnorm.Truncate(text[u[0]:u[1]], maxChars)
		return u[0], u[0] + len(cut), 0
	}
	return bestS, bestE, best
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
