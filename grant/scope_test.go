package grant

import "testing"

func TestScopeCovers(t *testing.T) {
	s := &Scope{Sources: []Ref{
		{Kind: KindPaper, Path: "papers/a"},
		{Kind: KindDirectory, Path: "notes"},
		{Kind: KindFile, Path: "reading-list"},
	}}
	tests := []struct {
		path string
		want bool
	}{
		{"papers/a/a.pdf", true},
		{"papers/a", true},
		{"papers/ab/ab.pdf", false},
		{"notes/x/y.md", true},
		{"notes", true},
		{"notesx/y.md", false},
		{"reading-list", true},
		{"reading-list/x", false},
		{"papers/b/b.pdf", false},
	}
	for _, tt := range tests {
		if got := s.Covers(tt.path); got != tt.want {
			t.Errorf("Covers(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
