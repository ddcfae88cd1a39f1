package mcp

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/usage"
)

// TestProcessLedgerFlood fills the grant's usage.jsonl with reservation
// records that no call settles, held by a process that still runs (this
// test's parent), and calls a real server: under the 64 MiB a look reads,
// the calls are answered and the budget is exact; past it, a call fails
// closed at once with an error that says the budget cannot be checked, and
// nothing is appended.
func TestProcessLedgerFlood(t *testing.T) {
	// A server process and a vault of its own; the times it logs are no
	// bound.
	t.Parallel()
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	log := grant.UsagePath(gr)
	host, _ := os.Hostname()
	flood := func(n int, turn string) int64 {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		for i := range n {
			fmt.Fprintf(w, `{"at":"2026-01-01T00:00:00Z","reserve":{"id":"flood-%s-%d","turnId":%q,"chars":0,"pid":%d,"host":%q}}`+"\n", turn, i, turn, os.Getppid(), host)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		f.Close()
		return st.Size()
	}
	flood(200_000, "turn-1")
	s := startServer(t, gr, "")
	call := func() (*sdk.CallToolResult, time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		start := time.Now()
		res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: grant.ToolRead, Arguments: map[string]any{"target": "papers/2401.01234"}})
		if err != nil {
			t.Fatal(err)
		}
		return res, time.Since(start)
	}
	var took []time.Duration
	for range 5 {
		res, d := call()
		if res.IsError {
			t.Fatalf("call under the cap: %s", text(res))
		}
		took = append(took, d)
	}
	u, err := usage.Read(log, "turn-1", nil)
	if err != nil || u.Calls != 5 {
		t.Errorf("usage after 5 calls: %+v, %v", u, err)
	}
	t.Logf("200,000 open reservations: calls took %v (the first reads them)", took)

	size := flood(700_000, "turn-1")
	res, d := call()
	if !res.IsError || !strings.Contains(text(res), "budget cannot be checked") {
		t.Errorf("call after a flood of %d MiB: %s", size>>20, text(res))
	}
	if st, _ := os.Stat(log); st.Size() != size {
		t.Errorf("the refused call appended %d bytes", st.Size()-size)
	}
	t.Logf("a flood past the cap: refused in %v: %s", d, text(res))
}
