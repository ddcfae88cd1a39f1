package usage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/safefs"

	"github.com/researchctx/researchctx/grant"
)

// writeFlood appends n reservation records of turn, of 0 characters each
// unless chars says otherwise, held by pid on host (the pid of a running
// process, so none is dropped as gone), then returns the log's size.
func writeFlood(t testing.TB, path, turn, host string, pid, n, chars int) int64 {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		fmt.Fprintf(w, `{"at":"2026-01-01T00:00:00Z","reserve":{"id":"flood-%s-%d-%d","turnId":%q,"chars":%d,"pid":%d,"host":%q}}`+"\n", host, pid, i, turn, chars, pid, host)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	return st.Size()
}

// deadPID returns the pid of a process that has ended.
func deadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestLedgerFlood fills a log with reservation records a call never
// settles — held by a running process of this machine, by processes that
// are gone and by another machine — and checks that the budget still
// counts exactly what they hold, that the gone ones are dropped, and that
// a log that grew past the 64 MiB a look reads fails the call closed with
// a clear error and appends nothing.
func TestLedgerFlood(t *testing.T) {
	host, _ := os.Hostname()
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	writeFlood(t, path, "t", host, os.Getppid(), 30_000, 0)  // live, 0 characters each
	writeFlood(t, path, "t", host, deadPID(t), 30_000, 5)    // gone: dropped
	writeFlood(t, path, "t", "other-machine", 4242, 10, 100) // counted until the turn ends
	writeFlood(t, path, "old", host, os.Getppid(), 30_000, 1000)
	l := Open(path)
	ctx := context.Background()
	r, used, err := l.Reserve(ctx, "t", 10_000, 500)
	if err != nil {
		t.Fatal(err)
	}
	if used != 1000 || r.Chars() != 500 {
		t.Errorf("first reserve: used %d, reserved %d; want 1000 held by the other machine, 500", used, r.Chars())
	}
	if _, err := r.Settle(grant.ToolRead, nil, 200); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		r, _, err := l.Reserve(ctx, "t", 10_000, 500)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Settle(grant.ToolRead, nil, 100); err != nil {
			t.Fatal(err)
		}
	}
	if _, used, _ = l.Reserve(ctx, "t", 10_000, 1); used != 1000+200+10*100 {
		t.Errorf("used %d, want %d", used, 1000+200+10*100)
	}
	if _, ok := l.pending.turns["t"][procKey{host, os.Getppid()}]; !ok {
		t.Error("the live process's reservations were dropped")
	}
	if n := len(l.pending.turns["t"]); n != 3 {
		t.Errorf("%d processes hold reservations of the turn, want 3 (live, other machine, this one)", n)
	}

	// A flood past what one look reads: the call fails closed.
	size := writeFlood(t, path, "t", host, os.Getppid(), maxUsageRead/100, 0)
	_, _, err = l.Reserve(ctx, "t", 10_000, 500)
	if !errors.Is(err, safefs.ErrTooLarge) {
		t.Fatalf("reserve after a flood of %d MiB: %v, want ErrTooLarge", size>>20, err)
	}
	if st, _ := os.Stat(path); st.Size() != size {
		t.Errorf("the refused call appended %d bytes", st.Size()-size)
	}
	fresh := Open(path)
	if _, _, err := fresh.Reserve(ctx, "t", 10_000, 500); !errors.Is(err, safefs.ErrTooLarge) {
		t.Errorf("a new process on a log of %d MiB: %v, want ErrTooLarge", size>>20, err)
	}
	t.Logf("flood of %d MiB refused: %v", size>>20, err)
}

// BenchmarkLedgerFlood measures a call (reserve, then settle) on a log
// holding 400,000 open reservations of the call's own turn by a process
// that still runs, after the first look has read them.
func BenchmarkLedgerFlood(b *testing.B) {
	host, _ := os.Hostname()
	path := filepath.Join(b.TempDir(), grant.UsageFile)
	size := writeFlood(b, path, "t", host, os.Getppid(), 400_000, 0)
	l := Open(path)
	ctx := context.Background()
	start := time.Now()
	r, _, err := l.Reserve(ctx, "t", 1<<40, 10)
	if err != nil {
		b.Fatal(err)
	}
	r.Release()
	first := time.Since(start)
	for b.Loop() {
		r, _, err := l.Reserve(ctx, "t", 1<<40, 10)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Settle(grant.ToolRead, nil, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(first.Milliseconds()), "first-ms")
	b.ReportMetric(float64(size>>20), "log-MiB")
}
