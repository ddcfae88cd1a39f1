package scifact

import (
	"math"
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
