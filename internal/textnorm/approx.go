package textnorm

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// MinQuoteScore is the lowest score at which FindQuote reports a passage
// that is not an exact match, for a quote of ten content words or more;
// a shorter quote needs 0.02 more per word it lacks (MinScoreFor), since
// a few shared words say less. Scores weigh how much of the quote the
// passage holds (recall, 75 %) against how much of the passage is the quote
// (precision, 25 %), on stemmed words, with function words counting a fifth
// of other words. On the shared corpus, quotes perturbed the way models
// quote score 0.68 or more in 95 % of cases and spans of other papers below
// 0.5 in 99 % (docs/benchmarks.md).
const MinQuoteScore = 0.6

// MinScoreFor returns the threshold for a quote with the given number of
// content words (words other than function words).
func MinScoreFor(content int) float64 {
	return MinQuoteScore + 0.02*float64(max(0, 10-content))
}

// minApproxWords is the least number of content words a quote must have
// for an approximate match: with fewer, too many passages look alike, so
// only an exact match counts.
const minApproxWords = 3

const (
	stopWeight   = 0.2
	recallWeight = 0.75 // share of recall in the score; the rest is precision
	maxWindows   = 8    // candidate windows refined per quote
	maxExact     = 64   // pages checked for exact occurrences per quote
	breakSlack   = 80   // tokens of footer and header a passage may skip at a page break
	maxQuoteToks = 400  // a longer quote is matched on its first tokens
	minHintWords = 2    // content words a passage shares with the quote to be a hint
)

// QuoteResult is where FindQuote found a quote.
type QuoteResult struct {
	// Found reports a passage at or above MinQuoteScore (or exact).
	Found bool
	// Exact reports a match of the whole quote after normalisation (Locate).
	Exact bool
	// Score is 1 for an exact match, else the similarity of the passage.
	Score float64
	// Part is the index of the part the passage starts in; Start and End
	// are byte offsets of the passage in that part. A passage that runs
	// onto the next part (across a page break) ends at its last word on
	// the first part, and EndPart says where it ends: at byte EndPartEnd
	// of that part (EndPart is Part, and EndPartEnd End, otherwise).
	Part, Start, End int
	EndPart          int
	EndPartEnd       int
	// Matches counts the exact occurrences seen (0 for an approximate
	// match).
	Matches int
	// Hints are up to three parts, best first, where the closest passages
	// were, when nothing was found.
	Hints []int
}

// QuoteIndex is the tokenised form of a document's parts (its pages) for
// finding quotes. It is immutable and safe for concurrent use.
type QuoteIndex struct {
	parts     []string
	toks      []qtok
	partStart []int // index in toks of each part's first token; one extra at the end
	vocab     map[string]int32
	prefix    []float32 // prefix[i] = summed weights of toks[:i]
	joins     map[int32]int32
}

type qtok struct {
	id         int32 // term id in vocab
	part       int32
	start, end int32 // byte offsets in the part
}

// NewQuoteIndex tokenises parts for FindQuote.
func NewQuoteIndex(parts []string) *QuoteIndex {
	x := &QuoteIndex{parts: parts, vocab: make(map[string]int32), partStart: make([]int, 0, len(parts)+1)}
	n := 0
	for _, p := range parts {
		n += len(p) / 6
	}
	x.toks = make([]qtok, 0, n)
	x.prefix = make([]float32, 1, n+1)
	id := func(term string) int32 {
		if v, ok := x.vocab[term]; ok {
			return v
		}
		v := int32(len(x.vocab))
		x.vocab[term] = v
		return v
	}
	for pi, p := range parts {
		x.partStart = append(x.partStart, len(x.toks))
		toks := Tokens(p)
		for i, t := range toks {
			w := float32(1)
			if t.Stop {
				w = stopWeight
			}
			x.toks = append(x.toks, qtok{id: id(t.Term), part: int32(pi), start: int32(t.Start), end: int32(t.End)})
			x.prefix = append(x.prefix, x.prefix[len(x.prefix)-1]+w)
			if i+1 < len(toks) {
				if m, ok := joined(p, t, toks[i+1], false); ok {
					if x.joins == nil {
						x.joins = make(map[int32]int32)
					}
					x.joins[int32(len(x.toks)-1)] = id(m)
				}
			}
		}
	}
	x.partStart = append(x.partStart, len(x.toks))
	return x
}

// joined reports whether a and b are the halves of a word hyphenated at a
// line end ("encod-\nings", or a soft hyphen) and returns the whole word's
// term. In a quote a hyphen before any space counts ("encod- ings"), as
// text copied from a rendered page has it.
func joined(s string, a, b Token, quote bool) (string, bool) {
	if b.Start < a.End {
		return "", false // overlapping CJK bigrams
	}
	gap := s[a.End:b.Start]
	rest, soft := "", false
	for _, h := range lineHyphens {
		if r, ok := strings.CutPrefix(gap, h); ok {
			rest, soft = r, h == "\u00ad" || h == "\x02"
			break
		}
	}
	if rest == gap || strings.TrimSpace(rest) != "" {
		return "", false
	}
	if !soft && !strings.Contains(rest, "\n") && !(quote && rest != "") {
		return "", false
	}
	if !isLowerWord(s[a.Start:a.End]) || !isLowerWord(s[b.Start:b.End]) {
		return "", false
	}
	return Stem(Fold(s[a.Start:a.End] + s[b.Start:b.End])), true
}

// isLowerWord reports a word that starts with a lower-case letter, as the
// continuation of a hyphenated word does.
func isLowerWord(w string) bool {
	for _, r := range w {
		return unicode.IsLower(r) || (unicode.IsLetter(r) && !unicode.IsUpper(r))
	}
	return false
}

// quoteTerm is one distinct term of a quote.
type quoteTerm struct {
	count  int
	weight float64
}

// match is a quote term at a token position. A hyphenated word matched
// whole also covers the next token, whose weight is skip.
type match struct {
	pos  int
	slot int
	skip float32
}

// window is a candidate span of matches [l, r] and its score.
type window struct {
	l, r    int // indexes into the matches
	cov     float64
	score   float64
	a, b    int     // refined span: indexes into the matches
	content float64 // content words of the quote in the window
}

// Find locates quote in the index's parts; see FindQuote.
func (x *QuoteIndex) Find(quote string) QuoteResult {
	if len(quote) > maxQuoteBytes {
		cut, _ := Truncate(quote, maxQuoteBytes/4)
		r := x.Find(cut)
		r.Exact, r.Matches = false, 0
		r.Score = min(r.Score, 0.99)
		return r
	}
	qt := Tokens(quote)
	if len(qt) > maxQuoteToks {
		qt = qt[:maxQuoteToks]
	}
	if len(qt) == 0 || len(x.toks) == 0 {
		return x.exactAll(quote)
	}
	// Terms of the quote: a line-end hyphenation in it is joined as in
	// the text.
	slots := map[int32]int{}
	var terms []quoteTerm
	total, content := 0.0, 0.0
	for i := 0; i < len(qt); i++ {
		t := qt[i]
		term, stop := t.Term, t.Stop
		if i+1 < len(qt) {
			if m, ok := joined(quote, t, qt[i+1], true); ok {
				term, stop = m, false
				i++
			}
		}
		w := 1.0
		if stop {
			w = stopWeight
		} else {
			content++
		}
		total += w
		id, ok := x.vocab[term]
		if !ok {
			continue
		}
		s, ok := slots[id]
		if !ok {
			s = len(terms)
			slots[id] = s
			terms = append(terms, quoteTerm{weight: w})
		}
		terms[s].count++
	}
	if content < minApproxWords {
		// Too short to match approximately: only exact occurrences.
		return x.exactAll(quote)
	}
	ms := x.matches(slots)
	if len(ms) == 0 {
		return QuoteResult{}
	}
	n := len(qt)
	span := n + n/3 + 3
	wins := x.windows(ms, terms, span)
	for i := range wins {
		x.refine(&wins[i], ms, terms, span, total)
	}
	slices.SortStableFunc(wins, func(a, b window) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return ms[a.a].pos - ms[b.a].pos
	})
	var res QuoteResult
	if x.exact(quote, wins, ms, &res) {
		return res
	}
	best := wins[0]
	if best.score < MinScoreFor(int(content)) {
		for _, w := range wins {
			p := int(x.toks[ms[w.a].pos].part)
			if w.content >= minHintWords && !slices.Contains(res.Hints, p) && len(res.Hints) < 3 {
				res.Hints = append(res.Hints, p)
			}
		}
		res.Score = best.score
		return res
	}
	a, b := x.toks[ms[best.a].pos], x.toks[ms[best.b].pos]
	// Every word matched yet not an exact match (a symbol differs): still
	// approximate, so below 1.
	res.Found, res.Score = true, min(best.score, 0.99)
	res.Part, res.Start, res.EndPart = int(a.part), int(a.start), int(b.part)
	res.End = int(b.end)
	if ms[best.b].skip > 0 {
		res.End = int(x.toks[ms[best.b].pos+1].end)
	}
	res.EndPartEnd = res.End
	if b.part != a.part {
		// End at the last matched word of the first part.
		for k := best.b; k >= best.a; k-- {
			if t := x.toks[ms[k].pos]; t.part == a.part {
				res.End = int(t.end)
				break
			}
		}
	}
	return res
}

// matches lists the token positions holding a quote term, in order. A
// hyphenated word split over two tokens matches as one when the quote has
// the whole word and not both halves.
func (x *QuoteIndex) matches(slots map[int32]int) []match {
	// slotOf is indexed by term id; ids the quote lacks map to -1.
	slotOf := make([]int32, len(x.vocab))
	for i := range slotOf {
		slotOf[i] = -1
	}
	for id, s := range slots {
		slotOf[id] = int32(s)
	}
	var ms []match
	for i := 0; i < len(x.toks); i++ {
		if j, ok := x.joins[int32(i)]; ok && i+1 < len(x.toks) {
			if s := slotOf[j]; s >= 0 && (slotOf[x.toks[i].id] < 0 || slotOf[x.toks[i+1].id] < 0) {
				ms = append(ms, match{pos: i, slot: int(s), skip: x.prefix[i+2] - x.prefix[i+1]})
				i++
				continue
			}
		}
		if s := slotOf[x.toks[i].id]; s >= 0 {
			ms = append(ms, match{pos: i, slot: int(s)})
		}
	}
	return ms
}

// windows slides a window of span tokens over the matches and returns the
// best non-overlapping windows by weighted coverage of the quote's terms.
func (x *QuoteIndex) windows(ms []match, terms []quoteTerm, span int) []window {
	cnt := make([]int, len(terms))
	var all []window
	cov, content := 0.0, 0.0
	l := 0
	for r, m := range ms {
		if cnt[m.slot] < terms[m.slot].count {
			cov += terms[m.slot].weight
			if terms[m.slot].weight == 1 {
				content++
			}
		}
		cnt[m.slot]++
		for ms[r].pos-ms[l].pos >= span {
			s := ms[l].slot
			cnt[s]--
			if cnt[s] < terms[s].count {
				cov -= terms[s].weight
				if terms[s].weight == 1 {
					content--
				}
			}
			l++
		}
		all = append(all, window{l: l, r: r, cov: cov, content: content})
	}
	slices.SortStableFunc(all, func(a, b window) int {
		switch {
		case a.cov > b.cov:
			return -1
		case a.cov < b.cov:
			return 1
		}
		return 0
	})
	floor := 0.3 * all[0].cov
	var out []window
	for _, w := range all {
		if w.cov < floor || len(out) == maxWindows {
			break
		}
		overlaps := false
		for _, o := range out {
			if ms[w.l].pos <= ms[o.r].pos && ms[o.l].pos <= ms[w.r].pos {
				overlaps = true
				break
			}
		}
		if !overlaps {
			out = append(out, w)
		}
	}
	return out
}

// refine finds the sub-span of matches around w with the best score. The
// search reaches a window beyond w, and across a page break far
// enough to skip the page's footer and the next page's header, which do
// not count against the passage.
func (x *QuoteIndex) refine(w *window, ms []match, terms []quoteTerm, span int, total float64) {
	lo, hi := ms[w.l].pos-span, ms[w.r].pos+span
	if p := int(x.toks[ms[w.r].pos].part); p+1 < len(x.parts) && hi >= x.partStart[p+1]-span {
		hi = max(hi, x.partStart[p+1]+span+breakSlack)
	}
	if p := int(x.toks[ms[w.l].pos].part); p > 0 && lo <= x.partStart[p]+span {
		lo = min(lo, x.partStart[p]-span-breakSlack)
	}
	i := w.l
	for i > 0 && ms[i-1].pos >= lo {
		i--
	}
	j := w.r
	for j+1 < len(ms) && ms[j+1].pos <= hi {
		j++
	}
	cnt := make([]int, len(terms))
	w.score, w.a, w.b = -1, w.l, w.l
	for a := i; a <= j; a++ {
		clear(cnt)
		got, excess := 0.0, float32(0)
		prev := ms[a].pos
		for b := a; b <= j; b++ {
			m := ms[b]
			if m.pos-ms[a].pos > 3*span {
				break
			}
			if x.toks[m.pos].part != x.toks[prev].part {
				// A page break: its footer and header are not part of
				// the passage.
				excess += max(0, x.prefix[m.pos]-x.prefix[prev+1]-1)
			}
			prev = m.pos
			if cnt[m.slot] < terms[m.slot].count {
				got += terms[m.slot].weight
			}
			cnt[m.slot]++
			end := m.pos + 1
			if m.skip > 0 {
				end++
				excess += m.skip
			}
			width := float64(x.prefix[end] - x.prefix[ms[a].pos] - excess)
			s := recallWeight*got/total + (1-recallWeight)*min(1, got/max(width, 1e-9))
			if s > w.score {
				w.score, w.a, w.b = s, a, b
			}
		}
	}
}

// exact looks for exact occurrences on the pages of the candidate windows
// that hold the whole quote, and fills res with the first one.
func (x *QuoteIndex) exact(quote string, wins []window, ms []match, res *QuoteResult) bool {
	var pages []int
	for _, w := range wins {
		// An exact occurrence matches every word and nothing else.
		if w.score < 0.99 || len(pages) >= maxExact {
			continue
		}
		// Every page the window touches: a window near a page break
		// may have hidden one on the other page.
		for _, k := range []int{w.l, w.r, w.a, w.b} {
			if p := int(x.toks[ms[k].pos].part); !slices.Contains(pages, p) {
				pages = append(pages, p)
			}
		}
	}
	slices.Sort(pages)
	for _, p := range pages {
		if found := Locate(x.parts[p], quote); len(found) > 0 {
			if !res.Found {
				*res = QuoteResult{Found: true, Exact: true, Score: 1, Part: p, EndPart: p, Start: found[0].Start, End: found[0].End, EndPartEnd: found[0].End}
			}
			res.Matches += len(found)
		}
	}
	return res.Found
}

// exactAll looks for exact occurrences of a quote too short (or without
// words) to match approximately, on every part.
func (x *QuoteIndex) exactAll(quote string) QuoteResult {
	var res QuoteResult
	for p, text := range x.parts {
		found := Locate(text, quote)
		if len(found) == 0 {
			continue
		}
		if !res.Found {
			res = QuoteResult{Found: true, Exact: true, Score: 1, Part: p, EndPart: p, Start: found[0].Start, End: found[0].End, EndPartEnd: found[0].End}
		}
		res.Matches += len(found)
	}
	return res
}

// maxQuoteBytes bounds the quote FindQuote reads: a longer quote is
// located by its beginning and is never reported as exact.
const maxQuoteBytes = 16 << 10

// FindQuote finds the passage of parts (a document's pages, in order) that
// best matches quote, as a model quotes: words dropped, added or changed,
// other inflections, ligatures and line-end hyphenation, a clause moved,
// table cells in another order, a sentence across a page break. An exact
// occurrence (as Locate finds it) wins, the first in reading order; else
// the best-scoring passage when it reaches the threshold (MinScoreFor). A quote with
// fewer than three content words matches only exactly.
//
// The tokenised parts are cached for the documents used most recently, so
// repeated quotes against one document cost little.
func FindQuote(parts []string, quote string) QuoteResult {
	return cachedIndex(parts).Find(quote)
}

// indexCache keeps the QuoteIndexes of recently used documents, keyed by a
// hash of their text.
var indexCache struct {
	mu   sync.Mutex
	seed maphash.Seed
	keys []uint64
	idx  []*QuoteIndex
}

// The cache holds at most indexCacheSize documents and, beyond the newest
// one, indexCacheTokens tokens in all (about 16 bytes each).
const (
	indexCacheSize   = 8
	indexCacheTokens = 4 << 20
)

func init() { indexCache.seed = maphash.MakeSeed() }

func cachedIndex(parts []string) *QuoteIndex {
	var h maphash.Hash
	h.SetSeed(indexCache.seed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0)
	}
	key := h.Sum64()
	c := &indexCache
	c.mu.Lock()
	if i := slices.Index(c.keys, key); i >= 0 && slices.Equal(c.idx[i].parts, parts) {
		x := c.idx[i]
		// Move to the front: the oldest falls off the end.
		copy(c.keys[1:i+1], c.keys[:i])
		copy(c.idx[1:i+1], c.idx[:i])
		c.keys[0], c.idx[0] = key, x
		c.mu.Unlock()
		return x
	}
	c.mu.Unlock()
	x := NewQuoteIndex(slices.Clone(parts))
	c.mu.Lock()
	c.keys = slices.Insert(c.keys, 0, key)
	c.idx = slices.Insert(c.idx, 0, x)
	n, tokens := 1, len(x.toks)
	for n < len(c.idx) && n < indexCacheSize && tokens+len(c.idx[n].toks) <= indexCacheTokens {
		tokens += len(c.idx[n].toks)
		n++
	}
	clear(c.idx[n:]) // let the dropped indexes go
	c.keys, c.idx = c.keys[:n], c.idx[:n]
	c.mu.Unlock()
	return x
}
