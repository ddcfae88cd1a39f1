package tools_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
)

// probeQueries mix words the granted notes hold with words only the
// ungranted files come to hold.
var probeQueries = []string{"slot routing gather scatter", "routing", "window width zanzibarite", "seeds noise kernels"}

// TestScoresStayInsideGrant is the score probe: with only the notes folder
// granted, the same queries answer the same cards — excerpts, order, scores,
// truncation — whether a query word occurs in no ungranted file, in five
// (indexed in the shared library index by another grant of the same
// Vault), in five changed again (their old documents dead in old
// segments), or after those files are deleted.
func TestScoresStayInsideGrant(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(vault); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(vault, "private")
	writeFiles := func(text func(i int) string) {
		t.Helper()
		if err := os.MkdirAll(private, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if err := os.WriteFile(filepath.Join(private, fmt.Sprintf("p%d.md", i)), []byte(text(i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	notes := probeGrant(t, vault, "notes")
	probe := func() []*tools.SearchOutput {
		t.Helper()
		var outs []*tools.SearchOutput
		for _, q := range probeQueries {
			outs = append(outs, completeSearch(t, notes, q))
		}
		return outs
	}
	same := func(step string, want, got []*tools.SearchOutput) {
		t.Helper()
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(tools.SearchOutput{}, "Budget")); diff != "" {
			t.Fatalf("%s changed the notes grant's results (-before +after):\n%s", step, diff)
		}
	}
	before := probe() // nothing outside the notes is indexed yet
	if len(before[0].Cards) == 0 || len(before[1].Cards) == 0 {
		t.Fatalf("the probe queries find nothing in the notes: %+v", before)
	}

	writeFiles(func(i int) string {
		return fmt.Sprintf("# Private %d\n\nUnrelated text about budgets and travel.\n", i)
	})
	other := probeGrant(t, vault, "private", "papers")
	// seen searches the other grant, so the shared index takes in its
	// files, and returns how many cards come from the private folder.
	seen := func(q string) int {
		n := 0
		for _, c := range completeSearch(t, other, q).Cards {
			if strings.HasPrefix(c.Path, "private/") {
				n++
			}
		}
		return n
	}
	if n := seen("unrelated budgets travel"); n != 5 {
		t.Fatalf("the other grant finds %d private files, want 5", n)
	}
	zero := probe()
	same("indexing the other grant's files", before, zero)

	for round, extra := range []string{"", " window width kernels"} {
		writeFiles(func(i int) string {
			return fmt.Sprintf("# Private %d\n\nrouting routing slot gather zanzibarite seeds%s.\n\n%s\n", i, extra, strings.Repeat("routing scatter noise ", 3*i+1))
		})
		if n := seen("routing zanzibarite"); n != 5 {
			t.Fatalf("round %d: the other grant finds the probe words in %d private files, want 5", round, n)
		}
		same(fmt.Sprintf("round %d: the query words in five ungranted files", round), before, probe())
	}

	for i := range 5 {
		if err := os.Remove(filepath.Join(private, fmt.Sprintf("p%d.md", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(private, "keep.md"), []byte("# Kept\n\nnothing to see\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := seen("routing zanzibarite"); n != 0 {
		t.Fatalf("the deleted files still found: %d", n)
	}
	same("deleting the ungranted files", before, probe())
}

// probeGrant writes a grant of mentions on vault with a large turn budget
// and returns its path.
func probeGrant(t *testing.T, vault string, mentions ...string) string {
	t.Helper()
	turn := grant.MaxBudget().TurnChars
	var res researchctx.Resolver
	defer res.Close()
	plan, err := res.Resolve(context.Background(), researchctx.Request{
		Vault: vault, RuntimeID: "rt-" + mentions[0], TurnID: "turn-1", Mentions: mentions,
		Budget: &grant.BudgetOverrides{TurnChars: &turn},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Sources) != len(mentions) {
		t.Fatalf("granted %v, dropped %v", plan.Sources, plan.Dropped)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	return gr
}

// completeSearch searches q in a new Toolset over gr (a new process's
// view of the shared index) and repeats until the index holds what the
// grant covers.
func completeSearch(t *testing.T, gr, q string) *tools.SearchOutput {
	t.Helper()
	ctx := context.Background()
	ts, err := tools.Open(ctx, gr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	return indexedSearch(t, ts, tools.SearchInput{Query: q})
}

// indexedSearch repeats a search until its answer is complete: on a busy
// machine the first answers may come from a partial index.
func indexedSearch(t *testing.T, ts *tools.Toolset, in tools.SearchInput) *tools.SearchOutput {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := ts.Search(context.Background(), in)
		if err != nil {
			t.Fatalf("search %q: %v", in.Query, err)
		}
		if out.Indexing.Total == 0 {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("search %q: indexing never ended (%+v)", in.Query, out.Indexing)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNamedSourceScoresAsGrant checks that a search naming one granted
// source, or a paper inside a granted folder, scores its cards with the
// whole grant's statistics: each card it shares with the search of every
// source has the same score there, which is not always the score of the
// source's statistics alone.
func TestNamedSourceScoresAsGrant(t *testing.T) {
	max := grant.MaxBudget()
	f := newFixture(t, &grant.BudgetOverrides{TurnChars: &max.TurnChars})
	ctx := context.Background()
	type at struct {
		path, section string
		page          int
	}
	shared, differ := 0, 0
	for _, q := range []string{"attention window tokens", "slot routing", "strided global tokens"} {
		all, err := f.ts.Search(ctx, tools.SearchInput{Query: q, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		score := map[at]float64{}
		for _, c := range all.Cards {
			score[at{c.Path, c.Section, c.Page}] = c.Score
		}
		// The granted sources, and papers inside the granted folder
		// (served through their own sources).
		refs := []string{"papers/vision/patch-tokens", "papers/vision/resnet-like"}
		for _, src := range f.ts.Sources() {
			refs = append(refs, src.Info().Path)
		}
		for _, ref := range refs {
			one, err := f.ts.Search(ctx, tools.SearchInput{Query: q, Source: ref, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			own := map[at]float64{}
			for _, src := range f.ts.Sources() {
				if src.Info().Path != ref {
					continue
				}
				alone, err := src.Search(ctx, sources.Query{Text: q, Limit: 50})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range alone.Hits {
					own[at{h.Path, h.Section, h.Page}] = h.Score
				}
			}
			for _, c := range one.Cards {
				k := at{c.Path, c.Section, c.Page}
				if s, ok := own[k]; ok && math.Abs(s-c.Score) > 0.001 {
					differ++
				}
				s, ok := score[k]
				if !ok {
					continue
				}
				shared++
				if s != c.Score {
					t.Errorf("%q: %s p.%d §%q scores %v in %s's own search, %v in the grant's", q, c.Path, c.Page, c.Section, c.Score, ref, s)
				}
			}
		}
	}
	if shared == 0 || differ == 0 {
		t.Errorf("%d cards in both searches, %d scored otherwise by their source's statistics alone: the test proves nothing", shared, differ)
	}
}
