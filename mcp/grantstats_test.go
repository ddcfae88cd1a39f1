package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/tools"
)

// TestProcessScoresStayInsideGrant is the score probe against real server
// processes: a server of a grant of the notes folder alone answers the
// same context_search cards (excerpts, order, scores) whether a query word
// occurs in no ungranted file, in five that a server of another grant of
// the same Vault indexed into the shared library index, or in none again
// after they are deleted.
func TestProcessScoresStayInsideGrant(t *testing.T) {
	vault := vaultfix.Sample(t)
	turn := grant.MaxBudget().TurnChars
	grantOf := func(mentions ...string) string {
		return writeGrant(t, researchctx.Request{Vault: vault, RuntimeID: "rt-" + mentions[0], TurnID: "turn-1",
			Mentions: mentions, Budget: &grant.BudgetOverrides{TurnChars: &turn}})
	}
	notes := grantOf("notes")
	private := filepath.Join(vault, "private")
	if err := os.MkdirAll(private, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(private, "keep.md"), []byte("# Kept\n\nnothing to see\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := grantOf("private")
	queries := []string{"slot routing gather", "window width zanzibarite"}
	// search runs q in a new server of gr until the index is complete.
	search := func(gr, q string) *tools.SearchOutput {
		t.Helper()
		s := startServer(t, gr, "")
		defer s.close()
		out := searchIndexed(t, s.cs, map[string]any{"query": q})
		return &out
	}
	probe := func() []*tools.SearchOutput {
		var outs []*tools.SearchOutput
		for _, q := range queries {
			outs = append(outs, search(notes, q))
		}
		return outs
	}
	privateCards := func(q string) int {
		n := 0
		for _, c := range search(other, q).Cards {
			if strings.HasPrefix(c.Path, "private/") {
				n++
			}
		}
		return n
	}
	if n := privateCards("nothing to see"); n != 1 {
		t.Fatalf("the other grant finds %d private files, want 1", n)
	}
	before := probe()
	if len(before[0].Cards) == 0 {
		t.Fatalf("no card for %q in the notes", queries[0])
	}
	for i := range 5 {
		text := fmt.Sprintf("# Private %d\n\nslot routing routing gather zanzibarite window.\n\n%s\n", i, strings.Repeat("routing width ", 2*i+1))
		if err := os.WriteFile(filepath.Join(private, fmt.Sprintf("p%d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := privateCards("routing zanzibarite"); n != 5 {
		t.Fatalf("the other grant finds the probe words in %d private files, want 5", n)
	}
	ignore := cmpopts.IgnoreFields(tools.SearchOutput{}, "Budget")
	if diff := cmp.Diff(before, probe(), ignore); diff != "" {
		t.Fatalf("five ungranted files changed the notes server's results (-before +after):\n%s", diff)
	}
	for i := range 5 {
		if err := os.Remove(filepath.Join(private, fmt.Sprintf("p%d.md", i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := privateCards("routing zanzibarite"); n != 0 {
		t.Fatalf("the deleted files still found: %d", n)
	}
	if diff := cmp.Diff(before, probe(), ignore); diff != "" {
		t.Fatalf("deleting the ungranted files changed the notes server's results (-before +after):\n%s", diff)
	}
}
