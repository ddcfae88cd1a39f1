package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/tools"
)

// Every mode on an empty document — a 0-byte file in a granted folder, a
// granted empty plain file, an empty NOTES.md and PAPER.md, a layout region
// with no text — answers with a result or a clear error, never a panic
// (which the tool boundary would turn into ErrInternal).
func TestEmptyText(t *testing.T) {
	prep := func(vault string) {
		for _, p := range []string{"notes/empty.md", "empty", "papers/2401.01234/NOTES.md", "papers/2401.01234/PAPER.md"} {
			if err := os.WriteFile(filepath.Join(vault, p), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// A region with no text, no title and an empty box.
		layout := filepath.Join(vault, "papers/2401.01234/source/layout.json")
		data, err := os.ReadFile(layout)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		regions, _ := doc["regions"].([]any)
		doc["regions"] = append(regions, map[string]any{
			"id": "p1-empty", "pageIndex": 0, "kind": "paragraph", "title": "", "text": "",
			"bbox": map[string]any{"x": 0, "y": 0, "w": 0, "h": 0},
		})
		if data, err = json.Marshal(doc); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(layout, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixtureWith(t, nil, prep, "notes", "empty")
	ctx := context.Background()
	targets := []string{"notes/empty.md", "empty", "papers/2401.01234/NOTES.md", "papers/2401.01234/PAPER.md"}
	modes := []tools.ReadInput{
		{Mode: tools.ReadMetadata},
		{Mode: tools.ReadExcerpt, Quote: "attention"},
		{Mode: tools.ReadSection, Section: "Introduction"},
		{Mode: tools.ReadPage, Page: 1},
		{Mode: tools.ReadRegion, Region: "figure-1"},
		{Mode: tools.ReadFull},
	}
	for _, target := range targets {
		for _, in := range modes {
			in.Target = target
			t.Run(target+"/"+string(in.Mode), func(t *testing.T) {
				out, err := f.ts.Read(ctx, in)
				if errors.Is(err, tools.ErrInternal) {
					t.Fatalf("internal error: %v", err)
				}
				if in.Mode == tools.ReadFull {
					if err != nil || out.Text != "" || out.Truncated || out.NextCursor != "" {
						t.Fatalf("full read of an empty file = %+v, %v; want empty text", out, err)
					}
				}
				if err == nil && out.Chars() > f.plan.Budget.ReadChars {
					t.Errorf("charge %d", out.Chars())
				}
			})
		}
	}
	t.Run("empty region", func(t *testing.T) {
		for _, in := range []tools.ReadInput{
			{Target: "papers/2401.01234", Mode: tools.ReadRegion, Region: "p1-empty"},
			{Target: "papers/2401.01234#region=p1-empty"},
		} {
			out, err := f.ts.Read(ctx, in)
			if err != nil {
				t.Fatalf("%+v: %v", in, err)
			}
			if out.Text != "" || out.Region != "p1-empty" || out.Truncated {
				t.Errorf("empty region read = %+v", out)
			}
		}
	})
	t.Run("cursor past an empty text", func(t *testing.T) {
		// A cursor handed out for a long file that is now empty.
		ts, err := tools.Open(ctx, f.grant, &tools.Options{MaxResultChars: 300})
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
		long, err := ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Mode: tools.ReadFull})
		if err != nil || long.NextCursor == "" {
			t.Fatalf("full read: %v, cursor %q", err, long.NextCursor)
		}
		if err := os.WriteFile(filepath.Join(f.vault, "papers/2401.01234/2401.01234.pdf"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ts.Read(ctx, tools.ReadInput{Cursor: long.NextCursor}); errors.Is(err, tools.ErrInternal) {
			t.Fatalf("internal error: %v", err)
		}
	})
	if u := usageOf(t, f.grant); u.Skipped != 0 {
		t.Errorf("usage %+v", u)
	}
}

// panicky is a connector source with a bug: every call panics.
type panicky struct{ info sources.Info }

func (p panicky) Info() sources.Info { return p.info }
func (p panicky) Search(context.Context, sources.Query) (*sources.Results, error) {
	panic("search bug")
}
func (p panicky) Read(context.Context, string) (*sources.Document, error) {
	var m map[string]int
	//lint:ignore SA5000 the panic is the point
	m["boom"]++ // a nil map write: a runtime panic, like a real bug
	return nil, nil
}

// A source that panics fails the call with ErrInternal and a log line; the
// reservation is released, nothing is logged as used, the server goes on.
func TestRecoverAtToolBoundary(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	var logged strings.Builder
	var mu sync.Mutex
	ts, err := tools.Open(ctx, f.grant, &tools.Options{
		Logger: newTestLogger(&mu, &logged),
		Sources: func(context.Context, *grant.Grant, tools.OpenFunc) ([]sources.Source, error) {
			return []sources.Source{
				panicky{sources.Info{Path: "notes", Kind: grant.KindDirectory}},
				sourcetest.NewMemory(sources.Info{Path: "reading-list", Kind: grant.KindFile},
					sourcetest.TextDocument("reading-list", "Sparse attention reading list.\n")),
			}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	calls := []func() error{
		func() error {
			_, err := ts.Read(ctx, tools.ReadInput{Target: "notes/ideas.txt", Mode: tools.ReadFull})
			return err
		},
		func() error {
			_, err := ts.Search(ctx, tools.SearchInput{Query: "attention", Source: "notes"})
			return err
		},
	}
	for i, call := range calls {
		if err := call(); !errors.Is(err, tools.ErrInternal) {
			t.Errorf("call %d: %v, want ErrInternal", i, err)
		}
	}
	// The healthy source still answers, in the same Toolset, and a search
	// over both sources still gives its card.
	out, err := ts.Search(ctx, tools.SearchInput{Query: "sparse attention"})
	if err != nil || len(out.Cards) != 1 || !out.Partial || len(out.Skipped) != 1 || out.Skipped[0].Path != "notes" {
		t.Fatalf("search beside a panicking source = %+v, %v; want its card, partial, the failed source skipped", out, err)
	}
	mu.Lock()
	log := logged.String()
	mu.Unlock()
	if strings.Count(log, "panic") < 3 || !strings.Contains(log, "search bug") {
		t.Errorf("panics not logged:\n%s", log)
	}
	u := usageOf(t, f.grant)
	if u.Calls != 1 || u.Chars != out.Chars() {
		t.Errorf("usage after failed calls = %+v, want only the search's %d characters", u, out.Chars())
	}
	// No reservation of a failed call holds the budget.
	data, err := os.ReadFile(grant.UsagePath(f.grant))
	if err != nil {
		t.Fatal(err)
	}
	if r, rel := strings.Count(string(data), `"reserve":`), strings.Count(string(data), `"release":`); r != 3 || rel != 2 {
		t.Errorf("%d reservations and %d releases in the log, want 3 and 2:\n%s", r, rel, data)
	}
}

// A listing names what a folder holds: it is charged, and the citation URI
// it hands out (the folder's) is logged, as every URI a result hands out.
func TestListingIsLogged(t *testing.T) {
	f := newFixture(t, nil)
	out, err := f.ts.Read(context.Background(), tools.ReadInput{Target: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Entries) == 0 || out.CitationURI != "notes" {
		t.Fatalf("listing %+v, want entries and the folder's citation URI", out)
	}
	u := usageOf(t, f.grant)
	if u.Calls != 1 || len(u.Sources) != 1 || u.Sources[0].URI != out.CitationURI || u.Chars != out.Chars() || out.Budget.Used != out.Chars() {
		t.Errorf("listing logged %+v (charge %d, report %+v), want one call citing %q", u, out.Chars(), out.Budget, out.CitationURI)
	}
}

// A file too large to search is skipped, and the search says it is partial,
// not that more matched.
func TestSearchSkipSetsPartial(t *testing.T) {
	prep := func(vault string) {
		big := strings.Repeat("padding words for a file too large to index\n", 3<<20/44)
		if err := os.WriteFile(filepath.Join(vault, "notes/huge.md"), []byte("zymurgy appears here\n"+big), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixtureWith(t, nil, prep)
	out, err := f.ts.Search(context.Background(), tools.SearchInput{Query: "zymurgy", Source: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Partial || out.Truncated {
		t.Errorf("search that skipped an oversized file: partial %v, truncated %v, %d cards; want partial, not truncated", out.Partial, out.Truncated, len(out.Cards))
	}
}

// Metadata, section lists, entries, cards and relation cards are all
// charged, and what a call logs is exactly what it returned.
func TestEverythingIsCharged(t *testing.T) {
	turn := 1000
	f := newFixture(t, &grant.BudgetOverrides{TurnChars: &turn})
	ctx := context.Background()
	returned := 0
	for i := range 10 {
		out, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234"})
		if errors.Is(err, tools.ErrBudgetSpent) {
			if i == 0 {
				t.Fatalf("first metadata read refused: %v", err)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && (out.Title == "" || len(out.Sections) == 0 && !out.Truncated) {
			t.Errorf("metadata = %+v", out)
		}
		returned += out.Chars()
		if out.Budget.Used != returned {
			t.Errorf("call %d reports %d used, %d returned", i, out.Budget.Used, returned)
		}
	}
	u := usageOf(t, f.grant)
	if u.Chars != returned || returned > turn {
		t.Errorf("logged %d, returned %d, budget %d", u.Chars, returned, turn)
	}

	g := newFixture(t, nil)
	rel, err := g.ts.Relations(ctx, tools.RelationsInput{Paper: "papers/2401.01234"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.ts.Search(ctx, tools.SearchInput{Query: "attention"})
	if err != nil {
		t.Fatal(err)
	}
	excerpts := 0
	for _, c := range s.Cards {
		excerpts += len([]rune(c.Excerpt))
	}
	if s.Chars() <= excerpts || rel.Chars() == 0 {
		t.Errorf("search charge %d (excerpts %d), relations charge %d", s.Chars(), excerpts, rel.Chars())
	}
	if u := usageOf(t, g.grant); u.Chars != rel.Chars()+s.Chars() || s.Budget.Used != u.Chars {
		t.Errorf("logged %d, returned %d + %d, report %+v", u.Chars, rel.Chars(), s.Chars(), s.Budget)
	}
}

// A section list far larger than a read is cut to the read's cap, and the
// log holds what was returned, not the list's full size.
func TestHugeSectionListIsCut(t *testing.T) {
	prep := func(vault string) {
		var b strings.Builder
		for i := range 20000 {
			fmt.Fprintf(&b, "## Heading number %d of a very long outline\n\nbody\n\n", i)
		}
		if err := os.WriteFile(filepath.Join(vault, "papers/2401.01234/PAPER.md"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixtureWith(t, nil, prep)
	out, err := f.ts.Read(context.Background(), tools.ReadInput{Target: "papers/2401.01234/PAPER.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Sections) == 0 || len(out.Sections) >= 20000 || !out.Truncated || out.Chars() > f.plan.Budget.ReadChars {
		t.Errorf("%d sections, charge %d, truncated %v; want a cut list within %d", len(out.Sections), out.Chars(), out.Truncated, f.plan.Budget.ReadChars)
	}
	if u := usageOf(t, f.grant); u.Chars != out.Chars() {
		t.Errorf("logged %d, returned %d", u.Chars, out.Chars())
	}
}

// Parallel calls of several Toolsets on one grant (each with its own view
// of the log, as separate processes have) never exceed the turn budget, and
// the log sums exactly to what they returned. Run with -race.
func TestParallelBudgetExact(t *testing.T) {
	turn, read := 20000, 2500
	f := newFixture(t, &grant.BudgetOverrides{TurnChars: &turn, ReadChars: &read})
	ctx := context.Background()
	sets := []*tools.Toolset{f.ts}
	for range 2 {
		ts, err := tools.Open(ctx, f.grant, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
		sets = append(sets, ts)
	}
	var mu sync.Mutex
	returned, ok, spent := 0, 0, 0
	var wg sync.WaitGroup
	for i := range 36 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts := sets[i%len(sets)]
			var n int
			var err error
			switch i % 4 {
			case 0:
				var o *tools.ReadOutput
				if o, err = ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Mode: tools.ReadFull}); err == nil {
					n = o.Chars()
				}
			case 1:
				var o *tools.ReadOutput
				if o, err = ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234"}); err == nil {
					n = o.Chars()
				}
			case 2:
				var o *tools.SearchOutput
				if o, err = ts.Search(ctx, tools.SearchInput{Query: "attention tokens"}); err == nil {
					n = o.Chars()
				}
			case 3:
				var o *tools.RelationsOutput
				if o, err = ts.Relations(ctx, tools.RelationsInput{Paper: "papers/2401.01234"}); err == nil {
					n = o.Chars()
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
				returned += n
			case errors.Is(err, tools.ErrBudgetSpent):
				spent++
			default:
				t.Errorf("call %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	u := usageOf(t, f.grant)
	if returned > turn || u.Chars != returned || u.Calls != ok {
		t.Errorf("returned %d in %d calls, logged %d in %d, budget %d", returned, ok, u.Chars, u.Calls, turn)
	}
	if spent == 0 || returned < turn/2 {
		t.Errorf("%d calls refused, %d of %d characters returned: the budget was not used up", spent, returned, turn)
	}
}

// newTestLogger logs text to b, under mu.
func newTestLogger(mu *sync.Mutex, b *strings.Builder) *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{mu, b}, nil))
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
