package index

import (
	"slices"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// A Set searches several indexes (segments) as one. The collection
// statistics — the document count, each term's document frequency and the
// average field lengths — are those of all the segments together, so a
// score does not depend on how the documents are split into segments nor
// on which of them a search admits: the scores of searches over different
// subsets of one Set are comparable. Documents a search does not admit
// still count in the statistics, as deleted documents do in Lucene until
// their segment is merged.
type Set struct {
	segs              []*Index
	n                 int
	avgTitle, avgBody float64
	p                 params // ranking constants: the defaults, or a tuned Index's own
}

// NewSet returns the Set of segs; a nil segment is left out.
func NewSet(segs ...*Index) *Set {
	s := &Set{p: defaults}
	var t, b float64
	for _, ix := range segs {
		if ix == nil {
			continue
		}
		s.segs = append(s.segs, ix)
		s.n += len(ix.keys)
		for d := range ix.keys {
			t += float64(ix.titleLen[d])
			b += float64(ix.bodyLen[d])
		}
	}
	if s.n > 0 {
		s.avgTitle, s.avgBody = t/float64(s.n), b/float64(s.n)
	}
	return s
}

// Len returns the number of documents of all the segments.
func (s *Set) Len() int { return s.n }

// A SetHit is a hit of a Set search: document Hit.Doc of segment Seg (an
// index into the segments given to NewSet, nil ones not counted).
type SetHit struct {
	Seg int
	Hit
}

// Search returns the k best documents for query among those allow admits,
// and the number of admitted documents that matched at least one query
// term. allow[i][d] admits document d of segment i; a nil allow, or a nil
// allow[i], admits every document of segment i, and a segment past the end
// of a non-nil allow admits none.
func (s *Set) Search(query string, k int, allow [][]bool) ([]SetHit, int) {
	if k <= 0 || s.n == 0 {
		return nil, 0
	}
	terms := s.parseQuery(query)
	if len(terms) == 0 {
		return nil, 0
	}
	// A term whose block is damaged is read as absent from its segment
	// (Damaged reports it): nothing of a damaged block is ever used.
	for si, ix := range s.segs {
		for i := range terms[si] {
			if qt := &terms[si][i]; qt.known && ix.checkTerm(qt.id) != nil {
				qt.known = false
			}
		}
	}
	p := s.p
	maxScore := 0.0
	for _, qt := range terms[0] {
		maxScore += qt.qtf*qt.idf*(p.k1+1) + p.wSpan*qt.idf
	}
	// Only the best n hits can be returned or get the span bonus: keep
	// them in a bounded heap rather than sorting every match.
	n := k
	if len(terms[0]) > 1 {
		n = max(k, p.spanCandidates)
	}
	top := topHits{n: n}
	total := 0
	for si, ix := range s.segs {
		var ok []bool
		if allow != nil {
			if si >= len(allow) {
				continue
			}
			ok = allow[si]
		}
		scores := make([]float64, len(ix.keys))
		var matched []uint32
		for _, qt := range terms[si] {
			if !qt.known {
				continue
			}
			w := qt.qtf * qt.idf * (p.k1 + 1)
			for j := ix.postStart[qt.id]; j < ix.postStart[qt.id+1]; j++ {
				d := ix.postDoc[j]
				if ok != nil && (int(d) >= len(ok) || !ok[d]) {
					continue
				}
				tf := ix.fieldTF(d, j, s.avgTitle, s.avgBody)
				if scores[d] == 0 {
					matched = append(matched, d)
				}
				scores[d] += w * tf / (tf + p.k1)
			}
		}
		total += len(matched)
		for _, d := range matched {
			top.push(SetHit{Seg: si, Hit: Hit{Doc: int(d), Key: ix.keys[d], Score: scores[d]}})
		}
	}
	hits := top.h
	sortSetHits(hits)
	if len(terms[0]) > 1 {
		n := len(hits)
		var buf []spanHit
		count := make([]int, len(terms[0]))
		for i := range hits[:n] {
			h := &hits[i]
			h.Score += p.wSpan * s.segs[h.Seg].bestSpan(uint32(h.Doc), terms[h.Seg], &buf, count)
		}
		sortSetHits(hits[:n])
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	for i := range hits {
		if maxScore > 0 {
			hits[i].Norm = min(1, hits[i].Score/maxScore)
		}
	}
	return hits, total
}

// Damaged checks the blocks a search for query reads and returns the
// segments (as numbered in SetHit.Seg) where one of them is damaged. A
// caller that must not answer from part of the index checks this before
// or after Search; a block is checked once, so the second call is cheap.
func (s *Set) Damaged(query string) []int {
	terms := s.parseQuery(query)
	var bad []int
	for si, ix := range s.segs {
		if si >= len(terms) {
			break
		}
		for _, qt := range terms[si] {
			if qt.known && ix.checkTerm(qt.id) != nil {
				bad = append(bad, si)
				break
			}
		}
	}
	return bad
}

// parseQuery returns the distinct terms of query as each segment knows
// them (terms[i] for segment i, in the same order), with the Set's idf.
func (s *Set) parseQuery(query string) [][]queryTerm {
	var words []string
	var qtf []float64
	byTerm := map[string]int{}
	for _, t := range textnorm.Tokens(query) {
		if t.Stop || len(t.Term) > maxTermLen {
			continue
		}
		i, ok := byTerm[t.Term]
		if !ok {
			i = len(words)
			byTerm[t.Term] = i
			words = append(words, t.Term)
			qtf = append(qtf, 0)
		}
		qtf[i]++
	}
	if len(words) == 0 {
		return nil
	}
	terms := make([][]queryTerm, max(len(s.segs), 1))
	df := make([]int, len(words))
	for si, ix := range s.segs {
		terms[si] = make([]queryTerm, len(words))
		for i, w := range words {
			qt := &terms[si][i]
			qt.id, qt.known = ix.lookup(w)
			if qt.known {
				df[i] += int(ix.postStart[qt.id+1] - ix.postStart[qt.id])
			}
		}
	}
	if len(s.segs) == 0 {
		terms[0] = make([]queryTerm, len(words))
	}
	for i := range words {
		w := idf(s.n, df[i])
		for si := range terms {
			terms[si][i].idf = w
			terms[si][i].qtf = qtf[i]
		}
	}
	return terms
}

func sortSetHits(hits []SetHit) {
	slices.SortFunc(hits, func(a, b SetHit) int {
		switch {
		case before(&a, &b):
			return -1
		case before(&b, &a):
			return 1
		}
		return 0
	})
}

// topHits keeps the n best hits pushed (in sortSetHits order) in a heap
// whose root is the worst of them.
type topHits struct {
	n int
	h []SetHit
}

// before reports whether a ranks before b.
func before(a, b *SetHit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Key != b.Key {
		return a.Key < b.Key
	}
	if a.Seg != b.Seg {
		return a.Seg < b.Seg
	}
	return a.Doc < b.Doc
}

func (t *topHits) push(x SetHit) {
	h := t.h
	if len(h) < t.n {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			parent := (i - 1) / 2
			if !before(&h[parent], &h[i]) {
				break
			}
			h[parent], h[i] = h[i], h[parent]
			i = parent
		}
		t.h = h
		return
	}
	if len(h) == 0 || !before(&x, &h[0]) {
		return
	}
	h[0] = x
	for i := 0; ; {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && before(&h[worst], &h[l]) {
			worst = l
		}
		if r < len(h) && before(&h[worst], &h[r]) {
			worst = r
		}
		if worst == i {
			break
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
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
		w[t.Term] = idf(s.n, df)
	}
	var ix Index // the passage depends on the weights only
	return ix.passage(text, w, maxChars)
}
