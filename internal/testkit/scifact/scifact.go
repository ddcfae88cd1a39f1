// Package scifact loads the SciFact retrieval benchmark (abstracts and
// claims as JSON lines) and scores rankings of it: nDCG@k and Recall@k, a
// plain BM25 baseline to compare against, and whether a quoted passage
// holds a rationale sentence. It serves the index's quality test and the
// scifacteval command; the data itself is test material, never shipped.
package scifact

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// An Abstract is one corpus document.
type Abstract struct {
	ID        string   `json:"doc_id"`
	Title     string   `json:"title"`
	Sentences []string `json:"sentences"`
}

// FileText returns the abstract as a text file would hold it: the title
// line, then one sentence per line.
func (a Abstract) FileText() string {
	var b strings.Builder
	b.WriteString(a.Title)
	b.WriteByte('\n')
	for _, s := range a.Sentences {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}

// SentenceSpans returns the byte spans of the sentences in FileText.
func (a Abstract) SentenceSpans() [][2]int {
	off := len(a.Title) + 1
	spans := make([][2]int, len(a.Sentences))
	for i, s := range a.Sentences {
		spans[i] = [2]int{off, off + len(s)}
		off += len(s) + 1
	}
	return spans
}

// A Claim is one query with its relevance judgements.
type Claim struct {
	ID    int    `json:"id"`
	Claim string `json:"claim"`
	// Docs maps an evidence document to its rationale sentence indexes.
	Docs map[string][]int `json:"docs"`
	// Cited lists the relevant documents.
	Cited []string `json:"cited"`
}

// Relevant returns the set of relevant document ids.
func (c Claim) Relevant() map[string]bool {
	m := make(map[string]bool, len(c.Cited))
	for _, d := range c.Cited {
		m[d] = true
	}
	return m
}

// Load reads corpus.jsonl and claims_train.jsonl from dir.
func Load(dir string) ([]Abstract, []Claim, error) {
	docs, err := readLines[Abstract](filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	claims, err := readLines[Claim](filepath.Join(dir, "claims_train.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	return docs, claims, nil
}

func readLines[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scifact: %w", err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("scifact: %s line %d: %w", filepath.Base(path), n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("scifact: %s: %w", filepath.Base(path), err)
	}
	return out, nil
}

// NDCG returns nDCG@k of a ranking of document ids with binary relevance.
func NDCG(ranked []string, relevant map[string]bool, k int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		if relevant[id] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	ideal := 0.0
	for i := range min(k, len(relevant)) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// Recall returns the share of relevant documents among the first k.
func Recall(ranked []string, relevant map[string]bool, k int) float64 {
	if len(relevant) == 0 {
		return 0
	}
	n := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if relevant[id] {
			n++
		}
	}
	return float64(n) / float64(len(relevant))
}

// BM25 is the reference baseline: Okapi BM25 (k1 0.9, b 0.4, Lucene's
// idf) over title and abstract as one field, with lower-cased runs of
// letters and digits as terms — no stemming, no stopwords.
type BM25 struct {
	ids      []string
	lens     []float64
	avg      float64
	postings map[string][]posting
}

type posting struct {
	doc int
	tf  float64
}

// NewBM25 indexes the abstracts.
func NewBM25(docs []Abstract) *BM25 {
	b := &BM25{postings: map[string][]posting{}}
	total := 0.0
	for i, d := range docs {
		toks := SimpleTokens(d.Title + " " + strings.Join(d.Sentences, " "))
		tf := map[string]float64{}
		for _, t := range toks {
			tf[t]++
		}
		terms := make([]string, 0, len(tf))
		for t := range tf {
			terms = append(terms, t)
		}
		sort.Strings(terms)
		for _, t := range terms {
			b.postings[t] = append(b.postings[t], posting{i, tf[t]})
		}
		b.ids = append(b.ids, d.ID)
		b.lens = append(b.lens, float64(len(toks)))
		total += float64(len(toks))
	}
	if len(docs) > 0 {
		b.avg = total / float64(len(docs))
	}
	return b
}

// Search returns the ids of the k best abstracts for query: by score,
// then by id.
func (b *BM25) Search(query string, k int) []string {
	const k1, bb = 0.9, 0.4
	if k <= 0 {
		return []string{}
	}
	n := float64(len(b.ids))
	// Scores in a slice, and the k best kept in order as they are found:
	// a map and a sort of every scored abstract were most of the gates'
	// baseline time, for the same ranking.
	scores := make([]float64, len(b.ids))
	scored := make([]bool, len(b.ids))
	var docs []int
	for _, t := range SimpleTokens(query) {
		ps := b.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			if !scored[p.doc] {
				scored[p.doc] = true
				docs = append(docs, p.doc)
			}
			scores[p.doc] += idf * p.tf * (k1 + 1) / (p.tf + k1*(1-bb+bb*b.lens[p.doc]/b.avg))
		}
	}
	before := func(d, e int) bool {
		if scores[d] != scores[e] {
			return scores[d] > scores[e]
		}
		return b.ids[d] < b.ids[e]
	}
	best := make([]int, 0, k+1)
	for _, d := range docs {
		if len(best) == k && !before(d, best[k-1]) {
			continue
		}
		i := len(best)
		for i > 0 && before(d, best[i-1]) {
			i--
		}
		best = slices.Insert(best, i, d)
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]string, 0, len(best))
	for _, d := range best {
		out = append(out, b.ids[d])
	}
	return out
}

// SimpleTokens lower-cases s and splits it into runs of letters and
// digits.
func SimpleTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Covers reports whether the passage [start, end) of an abstract's
// FileText holds one of the rationale sentences whole, or lies within one
// that is longer than the passage.
func Covers(a Abstract, rationale []int, start, end int) bool {
	spans := a.SentenceSpans()
	for _, i := range rationale {
		if i < 0 || i >= len(spans) {
			continue
		}
		s := spans[i]
		if start <= s[0] && s[1] <= end {
			return true
		}
		if s[0] <= start && end <= s[1] {
			return true
		}
	}
	return false
}
