package grant

import (
	"slices"
	"testing"
)

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

// TestDefaultsAreCopies: what Tools, DefaultBudget and MaxBudget return
// belongs to the caller: changing it changes no later scope or budget.
func TestDefaultsAreCopies(t *testing.T) {
	tools := Tools()
	if !slices.IsSorted(tools) || len(tools) != 3 {
		t.Fatalf("Tools() = %v, want the three tools sorted", tools)
	}
	tools[0] = "shell"
	if got := Tools(); slices.Contains(got, "shell") {
		t.Errorf("Tools() = %v after a caller changed an earlier result", got)
	}
	def, max := DefaultBudget(), MaxBudget()
	def.TurnChars, max.TurnChars = 1, 1
	if DefaultBudget().TurnChars == 1 || MaxBudget().TurnChars == 1 {
		t.Error("a caller's change to a returned budget reached a later one")
	}
	if err := DefaultBudget().Validate(); err != nil {
		t.Errorf("DefaultBudget: %v", err)
	}
	if err := MaxBudget().Validate(); err != nil {
		t.Errorf("MaxBudget: %v", err)
	}
}
