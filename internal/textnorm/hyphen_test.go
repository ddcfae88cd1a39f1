package textnorm

import "testing"

func TestJoinLine(t *testing.T) {
	for _, tt := range []struct{ line, next, want string }{
		{"perfor-", "mances of", "performances of"},
		{"the stack\u00ad", "ing", "the stacking"},
		{"a me\u2010", "dian", "a median"},
		{"ResNet-", "50 and", "ResNet-50 and"},
		{"Fast R-", "CNN", "Fast R-CNN"},
		{"of AnB+", "over the", "of AnB+ over the"},
		{"x -", "and", "x - and"},
		{"up to 3-", "and", "up to 3- and"},
		{"", "first", "first"},
		{"plain", "text", "plain text"},
	} {
		if got := JoinLine(tt.line, tt.next); got != tt.want {
			t.Errorf("JoinLine(%q, %q) = %q, want %q", tt.line, tt.next, got, tt.want)
		}
	}
}
