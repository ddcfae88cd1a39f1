package textnorm

import "testing"

func TestWordF1(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"The pooled summary", "the pooled summary", 1},
		{"attention heads", "Attention head", 1}, // folded and stemmed
		{"a b", "", 0},
		{"sparse attention", "dense retrieval", 0},
		{"sparse attention blocks", "sparse attention", 0.8}, // p 2/3, r 1
	}
	for _, tt := range tests {
		if got := WordF1(tt.a, tt.b); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("WordF1(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
