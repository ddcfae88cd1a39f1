package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/tools"
)

// slow is a source that honours its context and never answers before it
// ends, as a library does whose reads take longer than a call may.
type slow struct{ info sources.Info }

func (s slow) Info() sources.Info { return s.info }

func (s slow) Search(ctx context.Context, _ sources.Query) (*sources.Results, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s slow) Read(ctx context.Context, _ string) (*sources.Document, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s slow) Relations(ctx context.Context) (*sources.Relations, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// callMargin is how much longer than its deadline a call may take to
// return on a loaded machine.
const callMargin = 10 * time.Second

// TestCallDeadline: every call has a deadline of its own
// (Options.CallTimeout) that reaches its sources. A read, a search or a
// relations call of a source that answers only when its context ends
// fails with ErrCallTimeout, in one line naming the tool, soon after the
// deadline; a search over that source and another one answers with the
// other's card, partial, the late source listed as skipped, and logs it;
// the Toolset goes on serving; a caller's own earlier deadline stays
// context.DeadlineExceeded.
func TestCallDeadline(t *testing.T) {
	f := newFixture(t, nil)
	const timeout = 300 * time.Millisecond
	ts, err := tools.Open(context.Background(), f.grant, &tools.Options{
		CallTimeout: timeout,
		Sources: func(context.Context, *grant.Grant, tools.OpenFunc) ([]sources.Source, error) {
			return []sources.Source{
				slow{sources.Info{Path: "papers/2401.01234", Kind: grant.KindPaper}},
				sourcetest.NewMemory(sources.Info{Path: "reading-list", Kind: grant.KindFile},
					sourcetest.TextDocument("reading-list", "Sparse attention reading list.\n")),
			}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	ctx := context.Background()
	for _, tt := range []struct {
		tool string
		call func(ctx context.Context) error
	}{
		{grant.ToolRead, func(ctx context.Context) error {
			_, err := ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Page: 1})
			return err
		}},
		{grant.ToolSearch, func(ctx context.Context) error {
			_, err := ts.Search(ctx, tools.SearchInput{Query: "sparse attention", Source: "papers/2401.01234"})
			return err
		}},
		{grant.ToolRelations, func(ctx context.Context) error {
			_, err := ts.Relations(ctx, tools.RelationsInput{Paper: "papers/2401.01234"})
			return err
		}},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			start := time.Now()
			err := tt.call(ctx)
			if took := time.Since(start); took > timeout+callMargin {
				t.Errorf("the call took %v, its deadline is %v", took, timeout)
			}
			if !errors.Is(err, tools.ErrCallTimeout) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err %v, want ErrCallTimeout (the call's own deadline, not the caller's)", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.tool) || strings.Contains(msg, "\n") || strings.Contains(msg, f.vault) {
				t.Errorf("message %q: want one line naming %s and no path of the machine", msg, tt.tool)
			}
			// A caller's own deadline, earlier than the call's, is still
			// the caller's.
			short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			if err := tt.call(short); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, tools.ErrCallTimeout) {
				t.Errorf("with the caller's earlier deadline: %v, want context.DeadlineExceeded", err)
			}
		})
	}
	if u := usageOf(t, f.grant); u.Calls != 0 {
		t.Errorf("%d calls logged, want none: none handed anything out", u.Calls)
	}

	// A search over both sources answers with what answered in time.
	start := time.Now()
	out, err := ts.Search(ctx, tools.SearchInput{Query: "sparse attention"})
	if took := time.Since(start); took > timeout+callMargin {
		t.Errorf("the search took %v, its deadline is %v", took, timeout)
	}
	if err != nil {
		t.Fatalf("search beside a late source: %v, want its partial result", err)
	}
	if len(out.Cards) != 1 || out.Cards[0].Path != "reading-list" || !out.Partial ||
		len(out.Skipped) != 1 || out.Skipped[0].Path != "papers/2401.01234" || !strings.Contains(out.Skipped[0].Reason, tools.ErrCallTimeout.Error()) {
		t.Errorf("search beside a late source = %+v; want the reading list's card, partial, the late source skipped for time", out)
	}
	// The Toolset goes on serving.
	if _, err := ts.Read(ctx, tools.ReadInput{Target: "reading-list", Mode: tools.ReadFull}); err != nil {
		t.Errorf("read after the timeouts: %v", err)
	}
	if u := usageOf(t, f.grant); u.Calls != 2 {
		t.Errorf("%d calls logged, want 2 (the partial search, the read)", u.Calls)
	}
}

// TestRelationsDeadlineRealLibrary: a relations call whose graph build,
// over a library of real PDFs read without a cache, takes longer than the
// call's deadline stops at the deadline with ErrCallTimeout; a call with
// time enough then answers.
func TestRelationsDeadlineRealLibrary(t *testing.T) {
	pdfs := corpus.Dir(t, "pdfs")
	names, err := filepath.Glob(filepath.Join(pdfs, "arxiv-*.pdf"))
	if err != nil || len(names) < 10 {
		t.Fatalf("corpus PDFs: %d, %v", len(names), err)
	}
	dir := filepath.Join(t.TempDir(), "vault")
	var first string
	for _, name := range names {
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "arxiv-"), ".pdf")
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		unit := filepath.Join(dir, "papers", id)
		if err := os.MkdirAll(unit, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(unit, id+".pdf"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = "papers/" + id
		}
	}
	var res researchctx.Resolver
	t.Cleanup(func() { res.Close() })
	plan, err := res.Resolve(context.Background(), researchctx.Request{Vault: dir, RuntimeID: "rt", TurnID: "turn-1", CurrentPaper: first})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	open := func(timeout time.Duration) *tools.Toolset {
		ts, err := tools.Open(context.Background(), gr, &tools.Options{CallTimeout: timeout, CacheRoot: "-"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ts.Close() })
		return ts
	}
	const timeout = 200 * time.Millisecond
	start := time.Now()
	_, err = open(timeout).Relations(context.Background(), tools.RelationsInput{Paper: first})
	took := time.Since(start)
	if !errors.Is(err, tools.ErrCallTimeout) {
		t.Fatalf("relations over %d uncached PDFs within %v: %v, want ErrCallTimeout", len(names), timeout, err)
	}
	if took > timeout+callMargin {
		t.Errorf("the call took %v, its deadline is %v", took, timeout)
	}
	t.Logf("stopped after %v", took)
	start = time.Now()
	out, err := open(0).Relations(context.Background(), tools.RelationsInput{Paper: first})
	if err != nil {
		t.Fatalf("relations with the default deadline: %v", err)
	}
	t.Logf("answered after %v with %d references", time.Since(start), len(out.References))
	if len(out.References) == 0 {
		t.Errorf("no reference of %s", first)
	}
}
