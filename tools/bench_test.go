package tools_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/tools"
)

// BenchmarkReadCall is one context_read of a page, end to end in one
// process: grant check, budget, read, usage log. The grant is rewritten
// with a new turn id every 100 calls (same scope, fresh budget), as a host
// does per turn; that rewrite is not timed.
func BenchmarkReadCall(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		b.Fatal(err)
	}
	read, turn := 1000, grant.MaxBudget().TurnChars
	plan, err := researchctx.Resolve(context.Background(), researchctx.Request{
		Vault: dir, RuntimeID: "bench", TurnID: "t0", CurrentPaper: "papers/2401.01234",
		Budget: &grant.BudgetOverrides{ReadChars: &read, TurnChars: &turn},
	})
	if err != nil {
		b.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		b.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ts.Close()
	ctx := context.Background()
	in := tools.ReadInput{Target: "papers/2401.01234", Page: 1}
	if _, err := ts.Read(ctx, in); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if i%100 == 99 {
			b.StopTimer()
			plan.TurnID = "t" + strconv.Itoa(i)
			if _, err := plan.WriteGrant(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if _, err := ts.Read(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
