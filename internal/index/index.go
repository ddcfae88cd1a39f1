// Package index is the lexical search engine behind context_search: an
// in-memory inverted index over documents with a title and a body, ranked
// by BM25F with a proximity bonus, and a compact on-disk form.
//
// Text goes through textnorm.Tokens, so search is insensitive to case,
// diacritics, compatibility forms and English inflection, and Chinese,
// Japanese and Korean text is matched by character unigrams and bigrams.
// English stopwords are not indexed.
//
// Scoring, for a query term t with query frequency q_t, in a document:
//
//	tf~   = wTitle·tfTitle/(1−bTitle+bTitle·lenTitle/avgTitle)
//	      + wBody·tfBody/(1−bBody+bBody·lenBody/avgBody)
//	score = Σ_t q_t · idf_t · tf~·(k1+1)/(tf~+k1)  +  wSpan · span
//
// with idf_t = ln(1 + (N−df_t+0.5)/(df_t+0.5)) (BM25F; N, df_t and the
// average lengths counted over the documents of the search's Scope), and
// span the largest idf sum of distinct query terms found together within a
// window of a few words: a proximity bonus that favours documents where the
// query's words meet in one phrase or sentence over documents that merely
// contain them. The bonus is computed for the best-ranked candidates only.
// Hits are ordered by score, then key, then document number, so a search
// is deterministic.
package index

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// A Doc is one unit of search: a file, a paper page or a section.
type Doc struct {
	// Key identifies the document stably across builds (for example
	// "notes/a.txt" or "papers/x.pdf#page=3"); ties in score are broken
	// by Key.
	Key string
	// Title is weighted above Body; for a plain text file it is the first
	// line.
	Title string
	Body  string
}

// A Hit is one search result.
type Hit struct {
	// Doc is the document's number: its order of addition.
	Doc int
	Key string
	// Score is the raw ranking score. It is comparable within one index
	// only.
	Score float64
	// Norm is Score divided by the highest score the query could reach in
	// this index, or the Scope searched (every query term matched with
	// saturated frequency and every proximity bonus earned), in [0, 1].
	// Query terms the index has never seen count at the highest idf, so an
	// index that lacks some of the query's words gives lower values. Merge
	// results from several indexes by Norm.
	Norm float64
}

// ErrTooLarge is returned by Add when the index has reached its size limit
// (2³² term positions).
var ErrTooLarge = errors.New("index: too large")

// maxTermLen bounds indexed terms in bytes; longer runs of letters are
// noise (encoded data, broken extraction) and are skipped.
const maxTermLen = 64

// fieldGap separates title and body positions so that a phrase never
// spans the two fields.
const fieldGap = 16

// params are the ranking constants, tuned on the SciFact training claims
// only (see docs/benchmarks.md); the result is flat around these values.
type params struct {
	k1             float64
	wTitle, wBody  float64
	bTitle, bBody  float64
	wSpan          float64 // weight of the best-span bonus
	spanWidth      uint32  // window of the span, in positions
	spanCandidates int     // how many top documents get the bonus
}

var defaults = params{
	k1:     1.2,
	wTitle: 2, wBody: 1,
	bTitle: 0.3, bBody: 0.6,
	wSpan:          0.4,
	spanWidth:      15,
	spanCandidates: 200,
}

// Index is an immutable inverted index. It is safe for concurrent use.
type Index struct {
	p params
	// Document d's key is keyData[keyEnd[d-1]:keyEnd[d]] (from 0 for the
	// first): one string and an array, which a loaded index uses in
	// place, not a string header per document made at open.
	keyData  string
	keyEnd   []uint32
	titleLen []uint32 // indexed tokens per field
	bodyLen  []uint32
	// bodyStart is the first body position of each document: positions
	// below it are the title's.
	bodyStart []uint32
	avgTitle  float64
	avgBody   float64

	// The dictionary: term t is terms[termOff[t]:termOff[t+1]]. Terms
	// ascend in byte order, so a lookup is a binary search and a decoded
	// index needs no map built term by term.
	terms   string
	termOff []uint32
	// Postings of term t are postDoc[postStart[t]:postStart[t+1]].
	// Documents ascend within a term.
	postStart []uint32
	postDoc   []uint32
	// Positions of posting p are pos[posStart[p]:posStart[p+1]],
	// ascending; body positions follow the title's after fieldGap. They
	// give the field frequencies, which are not stored apart.
	posStart []uint32
	pos      []uint32

	// For an index loaded from its binary form: the blocks of terms whose
	// postings and positions are checked on first use, their checksums
	// and their states (blockUnchecked, blockGood, blockBad). nil for an
	// index built in memory.
	blockTerm []uint32
	blockSum  []uint32
	checked   []atomic.Uint32
}

// Len returns the number of documents.
func (ix *Index) Len() int { return len(ix.keyEnd) }

// Key returns the key of document d.
func (ix *Index) Key(d int) string {
	start := uint32(0)
	if d > 0 {
		start = ix.keyEnd[d-1]
	}
	return ix.keyData[start:ix.keyEnd[d]]
}

// appendKey adds key k as the next document's.
func (ix *Index) appendKey(keys *strings.Builder, k string) {
	keys.WriteString(k)
	ix.keyEnd = append(ix.keyEnd, uint32(keys.Len()))
}

// A Builder collects documents for an Index. The zero value is ready to
// use.
type Builder struct {
	keys      []string
	titleLen  []uint32
	bodyLen   []uint32
	bodyStart []uint32
	dict      map[string]uint32
	terms     []termPostings
	positions int
}

type termPostings struct {
	doc    []uint32
	posEnd []uint32 // end of each posting's positions in pos
	pos    []uint32
}

// Tokenized is a document with its fields already tokenised. Tokenising is
// most of the cost of adding a document and needs no shared state, so a
// caller may Tokenize documents on other goroutines while one goroutine adds
// them in order.
type Tokenized struct {
	doc         Doc
	title, body []textnorm.Token
}

// Len returns the number of tokens of the document, stop words included.
func (t Tokenized) Len() int { return len(t.title) + len(t.body) }

// Tokenize tokenises doc for AddTokenized.
func Tokenize(doc Doc) Tokenized {
	return Tokenized{doc: doc, title: textnorm.Tokens(doc.Title), body: textnorm.Tokens(doc.Body)}
}

// Add tokenises doc and adds it as the next document number.
func (b *Builder) Add(doc Doc) error { return b.AddTokenized(Tokenize(doc)) }

// AddTokenized adds a document tokenised by Tokenize as the next document
// number; the result is the same as Add's.
func (b *Builder) AddTokenized(td Tokenized) error {
	doc := td.doc
	if b.dict == nil {
		b.dict = make(map[string]uint32)
	}
	d := uint32(len(b.keys))
	type occ struct{ pos []uint32 }
	seen := make(map[uint32]*occ)
	var order []uint32
	add := func(toks []textnorm.Token, base uint32) (n uint32, span uint32) {
		for _, t := range toks {
			span = uint32(t.Pos) + 1
			if t.Stop || len(t.Term) > maxTermLen {
				continue
			}
			id, ok := b.dict[t.Term]
			if !ok {
				id = uint32(len(b.terms))
				b.dict[t.Term] = id
				b.terms = append(b.terms, termPostings{})
			}
			o := seen[id]
			if o == nil {
				o = &occ{}
				seen[id] = o
				order = append(order, id)
			}
			o.pos = append(o.pos, base+uint32(t.Pos))
			n++
		}
		return n, span
	}
	tn, tspan := add(td.title, 0)
	bn, _ := add(td.body, tspan+fieldGap)
	if b.positions+int(tn+bn) > math.MaxUint32 {
		return ErrTooLarge
	}
	b.positions += int(tn + bn)
	for _, id := range order {
		o := seen[id]
		tp := &b.terms[id]
		tp.doc = append(tp.doc, d)
		tp.pos = append(tp.pos, o.pos...)
		tp.posEnd = append(tp.posEnd, uint32(len(tp.pos)))
	}
	b.keys = append(b.keys, doc.Key)
	b.titleLen = append(b.titleLen, tn)
	b.bodyStart = append(b.bodyStart, tspan+fieldGap)
	b.bodyLen = append(b.bodyLen, bn)
	return nil
}

// Index freezes the documents added so far into an Index. The Builder
// should not be used afterwards.
func (b *Builder) Index() *Index {
	ix := &Index{
		p:         defaults,
		titleLen:  b.titleLen,
		bodyLen:   b.bodyLen,
		bodyStart: b.bodyStart,
	}
	var keys strings.Builder
	ix.keyEnd = make([]uint32, 0, len(b.keys))
	for _, k := range b.keys {
		ix.appendKey(&keys, k)
	}
	ix.keyData = keys.String()
	sorted := make([]string, 0, len(b.dict))
	size := 0
	for t := range b.dict {
		sorted = append(sorted, t)
		size += len(t)
	}
	slices.Sort(sorted)
	var terms strings.Builder
	terms.Grow(size)
	ix.termOff = make([]uint32, 1, len(sorted)+1)
	var np, npos int
	for _, t := range sorted {
		terms.WriteString(t)
		ix.termOff = append(ix.termOff, uint32(terms.Len()))
		tp := &b.terms[b.dict[t]]
		np += len(tp.doc)
		npos += len(tp.pos)
	}
	ix.terms = terms.String()
	ix.postStart = make([]uint32, 0, len(b.terms)+1)
	ix.postDoc = make([]uint32, 0, np)
	ix.posStart = make([]uint32, 0, np+1)
	ix.pos = make([]uint32, 0, npos)
	for _, t := range sorted {
		tp := &b.terms[b.dict[t]]
		ix.postStart = append(ix.postStart, uint32(len(ix.postDoc)))
		base := uint32(len(ix.pos))
		prev := uint32(0)
		for j := range tp.doc {
			ix.posStart = append(ix.posStart, base+prev)
			prev = tp.posEnd[j]
		}
		ix.postDoc = append(ix.postDoc, tp.doc...)
		ix.pos = append(ix.pos, tp.pos...)
		*tp = termPostings{} // release as we go
	}
	ix.postStart = append(ix.postStart, uint32(len(ix.postDoc)))
	ix.posStart = append(ix.posStart, uint32(len(ix.pos)))
	ix.finish()
	*b = Builder{}
	return ix
}

// finish computes the derived statistics.
func (ix *Index) finish() {
	var t, bd float64
	for d := range ix.Len() {
		t += float64(ix.titleLen[d])
		bd += float64(ix.bodyLen[d])
	}
	if n := float64(ix.Len()); n > 0 {
		ix.avgTitle, ix.avgBody = t/n, bd/n
	}
}

// Build indexes docs in order; document numbers are slice indexes.
// Documents beyond the size limit are left out.
func Build(docs []Doc) *Index {
	var b Builder
	for _, d := range docs {
		if b.Add(d) != nil {
			break
		}
	}
	return b.Index()
}

// lookup returns the number of term t, if the index holds it. In an
// index read from a file, it looks among the blocks' first terms, then in
// the one block that may hold t, checked first (see checkBlock): a block
// found damaged gives its first term, as if t were there, so that the
// caller's checkTerm sees the damage rather than a term missing.
func (ix *Index) lookup(t string) (uint32, bool) {
	if ix.checked == nil {
		// Built in memory: one search over all the terms.
		i, ok := sort.Find(len(ix.termOff)-1, func(i int) int { return strings.Compare(t, ix.term(uint32(i))) })
		return uint32(i), ok
	}
	nb := len(ix.blockTerm) - 1
	b := sort.Search(nb, func(b int) bool { return strings.Compare(ix.term(ix.blockTerm[b]), t) > 0 }) - 1
	if b < 0 {
		return 0, false
	}
	lo, hi := ix.blockTerm[b], ix.blockTerm[b+1]
	if ix.checkBlock(b) != nil {
		return lo, true
	}
	i, ok := sort.Find(int(hi-lo), func(i int) int { return strings.Compare(t, ix.term(lo+uint32(i))) })
	return lo + uint32(i), ok
}

// term returns the text of term t.
func (ix *Index) term(t uint32) string { return ix.terms[ix.termOff[t]:ix.termOff[t+1]] }

// idf returns the inverse document frequency of a term in df documents.
func (ix *Index) idf(df int) float64 { return idf(ix.Len(), df) }

// idf is BM25's inverse document frequency of a term in df of n documents.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// queryTerm is a distinct indexed term of a query.
type queryTerm struct {
	id    uint32
	known bool // in the index
	qtf   float64
	idf   float64
}

// Search returns the k best documents for query and the number of
// documents that matched at least one query term.
func (ix *Index) Search(query string, k int) ([]Hit, int) {
	set := &Set{segs: []*Index{ix}, p: ix.p}
	sc := &Scope{set: set, n: ix.Len(), avgTitle: ix.avgTitle, avgBody: ix.avgBody}
	sh, total := sc.Search(query, k, nil)
	if sh == nil {
		return nil, total
	}
	hits := make([]Hit, len(sh))
	for i, h := range sh {
		hits[i] = h.Hit
	}
	return hits, total
}

// fieldTF returns the length-normalised, field-weighted frequency of
// posting j (of document d), given the collection's average field lengths.
func (ix *Index) fieldTF(d, j uint32, avgTitle, avgBody float64) float64 {
	p := ix.p
	// Title positions come first; most postings have none, so this loop
	// rarely runs more than one test.
	pos := ix.pos[ix.posStart[j]:ix.posStart[j+1]]
	t := 0
	for t < len(pos) && pos[t] < ix.bodyStart[d] {
		t++
	}
	tf := 0.0
	if t > 0 {
		tf += p.wTitle * float64(t) / (1 - p.bTitle + p.bTitle*float64(ix.titleLen[d])/max(avgTitle, 1))
	}
	if b := len(pos) - t; b > 0 {
		tf += p.wBody * float64(b) / (1 - p.bBody + p.bBody*float64(ix.bodyLen[d])/max(avgBody, 1))
	}
	return tf
}

// positions returns the positions of term id in document d, or nil.
func (ix *Index) positions(id, d uint32) []uint32 {
	lo, hi := ix.postStart[id], ix.postStart[id+1]
	docs := ix.postDoc[lo:hi]
	i := sort.Search(len(docs), func(i int) bool { return docs[i] >= d })
	if i == len(docs) || docs[i] != d {
		return nil
	}
	j := lo + uint32(i)
	return ix.pos[ix.posStart[j]:ix.posStart[j+1]]
}

// spanHit is one occurrence of query term number term at pos.
type spanHit struct {
	pos  uint32
	term int
}

// bestSpan returns the largest idf sum of distinct query terms that occur
// together within spanWidth positions of document d. buf and count are
// scratch space reused across documents.
func (ix *Index) bestSpan(d uint32, terms []queryTerm, buf *[]spanHit, count []int) float64 {
	hs := (*buf)[:0]
	for i, qt := range terms {
		if !qt.known {
			continue
		}
		for _, x := range ix.positions(qt.id, d) {
			hs = append(hs, spanHit{x, i})
		}
	}
	*buf = hs
	slices.SortFunc(hs, func(a, b spanHit) int {
		if a.pos != b.pos {
			return cmp.Compare(a.pos, b.pos)
		}
		return cmp.Compare(a.term, b.term)
	})
	clear(count)
	best, cur := 0.0, 0.0
	lo := 0
	for _, h := range hs {
		if count[h.term] == 0 {
			cur += terms[h.term].idf
		}
		count[h.term]++
		for hs[lo].pos+ix.p.spanWidth < h.pos {
			t := hs[lo].term
			count[t]--
			if count[t] == 0 {
				cur -= terms[t].idf
			}
			lo++
		}
		best = max(best, cur)
	}
	return best
}
