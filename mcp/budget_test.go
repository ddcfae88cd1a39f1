package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/tools"
)

// TestProcessBudgetExact: N server processes on one grant, each answering M
// calls in parallel, never hand out more than the turn's budget, and the
// usage log sums exactly to the characters the results hold.
func TestProcessBudgetExact(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	req := demoRequest(vault)
	const turnChars = 30_000
	req.Budget = &grant.BudgetOverrides{TurnChars: intp(turnChars), ReadChars: intp(3000)}
	gr := writeGrant(t, req)
	const procs, calls = 4, 10
	servers := make([]*server, procs)
	for i := range servers {
		servers[i] = startServer(t, gr, "")
	}
	type job struct {
		tool string
		args map[string]any
		out  func() interface{ Chars() int }
	}
	jobs := []job{
		{grant.ToolRead, map[string]any{"target": "papers/2401.01234", "mode": "full"}, func() interface{ Chars() int } { return &tools.ReadOutput{} }},
		{grant.ToolRead, map[string]any{"target": "papers/2401.01234"}, func() interface{ Chars() int } { return &tools.ReadOutput{} }},
		{grant.ToolRead, map[string]any{"target": "notes"}, func() interface{ Chars() int } { return &tools.ReadOutput{} }},
		{grant.ToolSearch, map[string]any{"query": "attention tokens"}, func() interface{ Chars() int } { return &tools.SearchOutput{} }},
		{grant.ToolRelations, map[string]any{"paper": "papers/2401.01234"}, func() interface{ Chars() int } { return &tools.RelationsOutput{} }},
	}
	var mu sync.Mutex
	returned, ok, spent := 0, 0, 0
	var wg sync.WaitGroup
	for p, s := range servers {
		for c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j := jobs[(p+c)%len(jobs)]
				res, err := s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: j.tool, Arguments: j.args})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Errorf("%s: protocol error %v", j.tool, err)
				case res.IsError && strings.HasPrefix(text(res), tools.ErrBudgetSpent.Error()):
					spent++
				case res.IsError:
					t.Errorf("%s: %s", j.tool, text(res))
				default:
					out := j.out()
					data, _ := json.Marshal(res.StructuredContent)
					if err := json.Unmarshal(data, out); err != nil {
						t.Errorf("%s: %v", j.tool, err)
						return
					}
					ok++
					returned += out.Chars()
				}
			}()
		}
	}
	wg.Wait()
	u := turnUsage(t, gr, "turn-1")
	t.Logf("%d calls answered, %d refused; %d characters returned, %d logged", ok, spent, returned, u.Chars)
	if returned > turnChars || u.Chars != returned || u.Calls != ok || u.Skipped != 0 {
		t.Errorf("%d processes × %d calls returned %d characters in %d results; the log holds %d in %d calls (%d skipped); budget %d",
			procs, calls, returned, ok, u.Chars, u.Calls, u.Skipped, turnChars)
	}
	if spent == 0 {
		t.Error("no call was refused: the test does not exhaust the budget")
	}
}

// panicToolset is a host's Toolset wrapper with a bug in Read.
type panicToolset struct{ Backend }

func (p panicToolset) Read(ctx context.Context, in tools.ReadInput) (*tools.ReadOutput, error) {
	if in.Target == "boom" {
		var out *tools.ReadOutput
		_ = out.Target // nil dereference: a runtime panic
	}
	return p.Backend.Read(ctx, in)
}

// A panic under a tool handler is an isError result and a log line; the
// server keeps serving.
func TestHandlerRecovers(t *testing.T) {
	gr := writeGrant(t, demoRequest(vaultfix.Sample(t)))
	ts, err := tools.Open(context.Background(), gr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	var log strings.Builder
	var mu sync.Mutex
	cs := connect(t, NewServer(panicToolset{ts}, &ServerOptions{Logger: newLockedLogger(&mu, &log)}), nil)
	res := call(t, cs, grant.ToolRead, map[string]any{"target": "boom"})
	if !res.IsError || !strings.Contains(text(res), "internal error") {
		t.Fatalf("panicking call = %v %q", res.IsError, text(res))
	}
	mustOK(t, call(t, cs, grant.ToolRead, map[string]any{"target": "notes"}))
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(log.String(), "panic") {
		t.Errorf("panic not logged: %s", log.String())
	}
}

// newLockedLogger logs text to b, under mu.
func newLockedLogger(mu *sync.Mutex, b *strings.Builder) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{mu, b}, nil))
}

type logWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
