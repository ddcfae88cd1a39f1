package scifact

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMetrics(t *testing.T) {
	rel := map[string]bool{"a": true, "b": true}
	tests := []struct {
		name         string
		ranked       []string
		ndcg, recall float64
	}{
		{"perfect", []string{"a", "b", "c"}, 1, 1},
		{"none", []string{"c", "d"}, 0, 0},
		{"second only", []string{"c", "a"}, (1 / math.Log2(3)) / (1 + 1/math.Log2(3)), 0.5},
		{"empty ranking", nil, 0, 0},
	}
	for _, tt := range tests {
		if got := NDCG(tt.ranked, rel, 10); math.Abs(got-tt.ndcg) > 1e-12 {
			t.Errorf("%s: NDCG = %v, want %v", tt.name, got, tt.ndcg)
		}
		if got := Recall(tt.ranked, rel, 10); got != tt.recall {
			t.Errorf("%s: Recall = %v, want %v", tt.name, got, tt.recall)
		}
	}
	if got := NDCG([]string{"a"}, nil, 10); got != 0 {
		t.Errorf("NDCG without relevant documents = %v", got)
	}
}

func TestFileTextAndCovers(t *testing.T) {
	a := Abstract{ID: "1", Title: "T", Sentences: []string{"One.", "Two two."}}
	text := a.FileText()
	if text != "T\nOne.\nTwo two.\n" {
		t.Fatalf("FileText = %q", text)
	}
	var got []string
	for _, s := range a.SentenceSpans() {
		got = append(got, text[s[0]:s[1]])
	}
	if diff := cmp.Diff([]string{"One.", "Two two."}, got); diff != "" {
		t.Errorf("SentenceSpans (-want +got):\n%s", diff)
	}
	if !Covers(a, []int{1}, 2, len(text)) || Covers(a, []int{1}, 0, 6) || !Covers(a, []int{1}, 8, 11) || Covers(a, []int{7}, 0, len(text)) {
		t.Error("Covers disagrees with the sentence spans")
	}
}

func TestBM25(t *testing.T) {
	b := NewBM25([]Abstract{
		{ID: "x", Title: "Graphene", Sentences: []string{"Sheets of graphene."}},
		{ID: "y", Title: "Proteins", Sentences: []string{"Folding."}},
	})
	if diff := cmp.Diff([]string{"x"}, b.Search("graphene sheets", 10)); diff != "" {
		t.Errorf("Search (-want +got):\n%s", diff)
	}
}

// TestBM25Ranking checks Search's k best against scoring every abstract
// from its own tokens and sorting them all, on abstracts made to tie.
func TestBM25Ranking(t *testing.T) {
	words := []string{"cell", "graphene", "protein", "fold", "sheet", "tumour", "gene"}
	var docs []Abstract
	for i := range 60 {
		// Every seventh abstract repeats an earlier one under a new id, so
		// scores tie and the id decides.
		j := i - i%7
		var s []string
		for w := range 3 + j%5 {
			s = append(s, words[(j*3+w*w)%len(words)])
		}
		docs = append(docs, Abstract{ID: fmt.Sprintf("d%02d", 59-i), Title: words[j%len(words)], Sentences: []string{strings.Join(s, " ") + "."}})
	}
	b := NewBM25(docs)
	want := func(query string, k int) []string {
		const k1, bb = 0.9, 0.4
		q := SimpleTokens(query)
		lens, total := make([]float64, len(docs)), 0.0
		tfs := make([]map[string]float64, len(docs))
		df := map[string]float64{}
		for i, d := range docs {
			toks := SimpleTokens(d.Title + " " + strings.Join(d.Sentences, " "))
			lens[i], total = float64(len(toks)), total+float64(len(toks))
			tfs[i] = map[string]float64{}
			for _, tok := range toks {
				if tfs[i][tok] == 0 {
					df[tok]++
				}
				tfs[i][tok]++
			}
		}
		n, avg := float64(len(docs)), total/float64(len(docs))
		type scored struct {
			id    string
			score float64
		}
		var all []scored
		for i := range docs {
			s, hit := 0.0, false
			for _, tok := range q {
				if tf := tfs[i][tok]; tf > 0 {
					idf := math.Log(1 + (n-df[tok]+0.5)/(df[tok]+0.5))
					s += idf * tf * (k1 + 1) / (tf + k1*(1-bb+bb*lens[i]/avg))
					hit = true
				}
			}
			if hit {
				all = append(all, scored{docs[i].ID, s})
			}
		}
		sort.Slice(all, func(i, j int) bool {
			if all[i].score != all[j].score {
				return all[i].score > all[j].score
			}
			return all[i].id < all[j].id
		})
		out := []string{}
		for _, s := range all[:min(max(k, 0), len(all))] {
			out = append(out, s.id)
		}
		return out
	}
	for _, query := range []string{"graphene", "cell protein fold", "gene gene sheet", "tumour cell graphene protein", "absent", ""} {
		for _, k := range []int{0, 1, 3, 10, 100} {
			if diff := cmp.Diff(want(query, k), b.Search(query, k)); diff != "" {
				t.Errorf("Search(%q, %d) (-want +got):\n%s", query, k, diff)
			}
		}
	}
}
