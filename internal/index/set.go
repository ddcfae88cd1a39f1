package index

import (
	"slices"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// A Set searches several indexes (segments) as one. Its collection
// statistics — the document count, each term's document frequency and the
// average field lengths — are those of a Scope: by default the documents a
// search admits, so that no score, rank or passage depends on a document
// the search cannot return. They are summed over the segments, in integers,
// so they do not depend on how the documents are split into segments
// either: a Set of segments scores as one index of the same documents.
type Set struct {
	segs []*Index
	p    params // ranking constants: the defaults, or a tuned Index's own
}

// NewSet returns the Set of segs; a nil segment is left out.
func NewSet(segs ...*Index) *Set {
	s := &Set{p: defaults}
	for _, ix := range segs {
		if ix != nil {
			s.segs = append(s.segs, ix)
		}
	}
	return s
}

// Len returns the number of documents of all the segments.
func (s *Set) Len() int {
	n := 0
	for _, ix := range s.segs {
		n += ix.Len()
	}
	return n
}

// A Scope is the collection a search's statistics are computed over: the
// documents of a Set that a mask admits (read as Search reads allow), their
// number and their average field lengths. Term frequencies are counted
// within it per query. It is immutable and safe for concurrent use; a
// caller searching the same subset often keeps it.
type Scope struct {
	set               *Set
	mask              [][]bool
	n                 int
	avgTitle, avgBody float64
}

// Scope returns the scope of the documents mask admits: mask[i][d] admits
// document d of segment i; a nil mask, or a nil mask[i], admits every
// document of segment i, and a segment past the end of a non-nil mask
// admits none.
func (s *Set) Scope(mask [][]bool) *Scope {
	sc := &Scope{set: s, mask: mask}
	var title, body uint64
	for si, ix := range s.segs {
		m, none := segMask(mask, si)
		if none {
			continue
		}
		for d := range ix.Len() {
			if m == nil || (d < len(m) && m[d]) {
				sc.n++
				title += uint64(ix.titleLen[d])
				body += uint64(ix.bodyLen[d])
			}
		}
	}
	if sc.n > 0 {
		sc.avgTitle, sc.avgBody = float64(title)/float64(sc.n), float64(body)/float64(sc.n)
	}
	return sc
}

// Len returns the number of documents in the scope.
func (sc *Scope) Len() int { return sc.n }

// segMask returns segment si's part of mask: m nil admits every document
// of the segment, none reports that it admits none.
func segMask(mask [][]bool, si int) (m []bool, none bool) {
	if mask == nil {
		return nil, false
	}
	if si >= len(mask) {
		return nil, true
	}
	return mask[si], false
}

// A SetHit is a hit of a Set search: document Hit.Doc of segment Seg (an
// index into the segments given to NewSet, nil ones not counted).
type SetHit struct {
	Seg int
	Hit
}

// Search returns the k best documents for query among those allow admits,
// and the number of admitted documents that matched at least one query
// term, with the statistics of the admitted documents (s.Scope(allow)).
// allow is read as Scope reads its mask.
func (s *Set) Search(query string, k int, allow [][]bool) ([]SetHit, int) {
	return s.Scope(allow).Search(query, k, allow)
}

// Search returns the k best documents for query among those allow admits
// (read as Set.Scope reads its mask), and the number of admitted documents
// that matched at least one query term, scored with the scope's
// statistics. allow should admit documents of the scope only: the scores
// of a document outside it are not bounded by the scope's statistics.
func (sc *Scope) Search(query string, k int, allow [][]bool) ([]SetHit, int) {
	return sc.Query(query).Search(k, allow)
}

// A Query is a query's distinct terms with their idf in a Scope: what a
// search and the passages of its hits both need, worked out once.
type Query struct {
	sc    *Scope
	words []string
	terms [][]queryTerm // per segment, as Set.parseQuery gives them
}

// Query parses query and counts its terms' document frequencies in the
// scope.
func (sc *Scope) Query(query string) *Query {
	words, terms := sc.parseQuery(query)
	return &Query{sc: sc, words: words, terms: terms}
}

// Search is Scope.Search for the parsed query.
func (q *Query) Search(k int, allow [][]bool) ([]SetHit, int) {
	sc, s, terms := q.sc, q.sc.set, q.terms
	if k <= 0 || len(s.segs) == 0 || len(terms) == 0 {
		return nil, 0
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
	top := topHits{n: n, segs: s.segs}
	total := 0
	for si, ix := range s.segs {
		ok, none := segMask(allow, si)
		if none {
			continue
		}
		scores := make([]float64, ix.Len())
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
				tf := ix.fieldTF(d, j, sc.avgTitle, sc.avgBody)
				if scores[d] == 0 {
					matched = append(matched, d)
				}
				scores[d] += w * tf / (tf + p.k1)
			}
		}
		total += len(matched)
		for _, d := range matched {
			top.push(si, int(d), scores[d])
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
	_, _, terms := s.parseQuery(query)
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

// parseQuery returns the distinct terms of query, their query
// frequencies and, for each segment, the same terms as it knows them
// (terms[i] for segment i, in the same order); idf is left unset. A term
// whose block of postings is damaged is read as absent from its segment
// (Damaged reports it): nothing of a damaged block is ever used.
func (s *Set) parseQuery(query string) (words []string, qtf []float64, terms [][]queryTerm) {
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
		return nil, nil, nil
	}
	terms = make([][]queryTerm, max(len(s.segs), 1))
	for si := range terms {
		terms[si] = make([]queryTerm, len(words))
		for i := range words {
			terms[si][i].qtf = qtf[i]
		}
	}
	for si, ix := range s.segs {
		for i, w := range words {
			qt := &terms[si][i]
			qt.id, qt.known = ix.lookup(w)
		}
	}
	return words, qtf, terms
}

// parseQuery is Set.parseQuery with each term's idf in the scope: its
// document frequency counts the scope's documents only, and a term whose
// block is damaged is left out (read as absent from that segment).
func (sc *Scope) parseQuery(query string) ([]string, [][]queryTerm) {
	s := sc.set
	words, qtf, terms := s.parseQuery(query)
	if terms == nil {
		return nil, nil
	}
	df := make([]int, len(qtf))
	for si, ix := range s.segs {
		m, none := segMask(sc.mask, si)
		for i := range terms[si] {
			qt := &terms[si][i]
			if !qt.known {
				continue
			}
			if ix.checkTerm(qt.id) != nil {
				qt.known = false
				continue
			}
			if none {
				continue
			}
			lo, hi := ix.postStart[qt.id], ix.postStart[qt.id+1]
			if m == nil {
				df[i] += int(hi - lo)
				continue
			}
			for _, d := range ix.postDoc[lo:hi] {
				if int(d) < len(m) && m[d] {
					df[i]++
				}
			}
		}
	}
	for i := range qtf {
		w := idf(sc.n, df[i])
		for si := range terms {
			terms[si][i].idf = w
		}
	}
	return words, terms
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
	n    int
	h    []SetHit
	segs []*Index // of the hits' Seg
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

// push offers document d of segment si. A document that ranks below the
// worst one kept is turned away on its score alone: its key (the tie
// break), which a loaded index reads from its file, is looked up only for
// the few that may be kept.
func (t *topHits) push(si, d int, score float64) {
	h := t.h
	if len(h) >= t.n && (len(h) == 0 || score < h[0].Score) {
		return
	}
	x := SetHit{Seg: si, Hit: Hit{Doc: d, Key: t.segs[si].Key(d), Score: score}}
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

// BestPassage is Index.BestPassage with the idf of all the Set's
// documents (s.Scope(nil)).
func (s *Set) BestPassage(text, query string, maxChars int) (start, end int) {
	return Passage(text, s.Scope(nil).Weights(query), maxChars)
}

// Weights returns the idf in the scope of each distinct indexable term of
// query, the weights of Passage: a caller picking passages of several
// texts for one query computes them once.
func (sc *Scope) Weights(query string) map[string]float64 {
	return sc.Query(query).Weights()
}

// Weights is Scope.Weights for the parsed query.
func (q *Query) Weights() map[string]float64 {
	w := make(map[string]float64, len(q.words))
	for i, t := range q.words {
		w[t] = q.terms[0][i].idf
	}
	return w
}

// Passage is Index.BestPassage with each query term's weight given (see
// Scope.Weights).
func Passage(text string, weights map[string]float64, maxChars int) (start, end int) {
	var ix Index // the passage depends on the weights only
	return ix.passage(text, weights, maxChars)
}
