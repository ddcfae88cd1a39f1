package usage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/researchctx/researchctx/grant"
)

// Budget of the ledger property test.
const (
	ledgerTurn  = 50_000
	ledgerCalls = 12 // parallel calls per process
)

// ledgerClient is a child process of TestLedgerProcesses: ledgerCalls
// parallel calls each reserve up to 4,000 characters, "build" a result of a
// random size within the reservation, and settle it (or, one in five,
// fail and release). It prints the characters it handed out.
func ledgerClient(path string) int {
	l := Open(path)
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	failed := false
	for i := range ledgerCalls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, _, err := l.Reserve(context.Background(), "t", ledgerTurn, 4000)
			if errors.Is(err, ErrTurnSpent) {
				return
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				mu.Lock()
				failed = true
				mu.Unlock()
				return
			}
			time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
			if i%5 == 4 {
				if err := r.Release(); err != nil {
					fmt.Fprintln(os.Stderr, err)
				}
				return
			}
			n := 1 + rand.IntN(r.Chars())
			if _, err := r.Settle("context_read", []string{fmt.Sprintf("p%d.pdf#page=%d", os.Getpid(), i)}, n); err != nil {
				fmt.Fprintln(os.Stderr, err)
				mu.Lock()
				failed = true
				mu.Unlock()
				return
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(total)
	if failed {
		return 1
	}
	return 0
}

// N processes × M parallel calls on one usage log never hand out more than
// the turn's budget, and the log sums exactly to what they handed out.
func TestLedgerProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	const procs = 8
	outs := make([]string, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "RESEARCHCTX_LEDGER_CLIENT="+path)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			outs[i] = string(out)
			if err != nil {
				errs[i] = fmt.Errorf("client %d: %v: %s", i, err, stderr.String())
			}
		}()
	}
	wg.Wait()
	returned := 0
	for i := range procs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		n, err := strconv.Atoi(strings.TrimSpace(outs[i]))
		if err != nil {
			t.Fatalf("client %d printed %q", i, outs[i])
		}
		returned += n
	}
	u, err := Read(path, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if returned > ledgerTurn || u.Chars != returned || u.Skipped != 0 {
		t.Errorf("handed out %d, logged %d (%d skipped), budget %d", returned, u.Chars, u.Skipped, ledgerTurn)
	}
	// 8 × 12 calls of up to 4,000 ask for far more than the budget: the
	// turn must end spent, not stop early.
	if returned < ledgerTurn/2 {
		t.Errorf("handed out only %d of %d", returned, ledgerTurn)
	}
}

// Goroutines sharing one Log, and several Logs in one process,
// are exact too. Run with -race.
func TestLedgerGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	logs := []*Log{Open(path), Open(path), Open(path)}
	const turn = 10_000
	var mu sync.Mutex
	returned := 0
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, _, err := logs[i%3].Reserve(context.Background(), "t", turn, 700)
			if errors.Is(err, ErrTurnSpent) {
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
			n := r.Chars()
			if i%3 == 0 {
				n /= 2
			}
			if _, err := r.Settle("context_search", nil, n); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			returned += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	u, err := Read(path, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if returned > turn || u.Chars != returned || returned < turn*3/4 {
		t.Errorf("handed out %d, logged %d, budget %d", returned, u.Chars, turn)
	}
}

// appendRaw appends lines to the log as another writer would.
func appendRaw(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

func reserveLine(id, turn string, chars, pid int, host string) string {
	b, _ := json.Marshal(map[string]any{"at": time.Now().UTC(), "reserve": reserveRecord{ID: id, TurnID: turn, Chars: chars, PID: pid, Host: host}})
	return string(b) + "\n"
}

func TestLedgerStaleReservations(t *testing.T) {
	host, _ := os.Hostname()
	// A process that has exited: its pid is free.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	tests := []struct {
		name  string
		line  string
		spent bool
	}{
		{"process gone", reserveLine("x-1", "t", 1000, dead, host), false},
		{"earlier process with this pid", reserveLine("x-2", "t", 1000, os.Getpid(), host), false},
		{"released", reserveLine("x-3", "t", 1000, os.Getpid(), host) + `{"release":"x-3"}` + "\n", false},
		{"other host", reserveLine("x-4", "t", 1000, os.Getpid(), host+"-elsewhere"), true},
		{"other turn", reserveLine("x-5", "u", 1000, os.Getpid(), host+"-elsewhere"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), grant.UsageFile)
			appendRaw(t, path, tt.line)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			r, used, err := Open(path).Reserve(ctx, "t", 1000, 1000)
			if tt.spent {
				if !errors.Is(err, ErrTurnSpent) || used != 1000 {
					t.Fatalf("Reserve = %v, used %d; want spent", err, used)
				}
				return
			}
			if err != nil || r.Chars() != 1000 || used != 0 {
				t.Fatalf("Reserve = %v, used %d; want the whole budget", err, used)
			}
			if u, _ := Read(path, "t", nil); u.Skipped != 0 || u.Calls != 0 {
				t.Errorf("reservation records read as calls: %+v", u)
			}
		})
	}
}

// A log whose chars are huge, negative or past int64 saturates: the turn is
// spent, never wrapped to a fresh budget.
func TestLedgerSaturates(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	huge := fmt.Sprintf(`{"turnId":"t","tool":"context_read","uris":[],"chars":%d}`+"\n", int64(math.MaxInt64/3))
	appendRaw(t, path, huge, huge, huge, huge,
		`{"turnId":"t","tool":"context_read","uris":[],"chars":-5}`+"\n",
		`{"turnId":"t","tool":"context_read","uris":[],"chars":1e30}`+"\n")
	u, err := Read(path, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Chars != math.MaxInt || u.Calls != 4 || u.Skipped != 2 {
		t.Errorf("usage = %+v, want saturated chars in 4 calls, 2 skipped", u)
	}
	if _, _, err := Open(path).Reserve(context.Background(), "t", 60_000, 100); !errors.Is(err, ErrTurnSpent) {
		t.Errorf("Reserve on a saturated turn = %v", err)
	}
	sums := map[string]int{}
	if _, err := sumTurns(path, 0, sums); err != nil || sums["t"] != math.MaxInt {
		t.Errorf("sumTurns = %v, %v", sums, err)
	}
}

// A writer that died mid-line leaves a torn tail: the next record starts a
// line of its own, so no record is lost to the torn one.
func TestLedgerTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	appendRaw(t, path, `{"turnId":"t","tool":"context_re`)
	l := Open(path)
	r, _, err := l.Reserve(context.Background(), "t", 1000, 300)
	if err != nil {
		t.Fatal(err)
	}
	// Another process must see the reservation despite the torn line.
	// It would wait for the call in flight; told to stop waiting, it
	// takes what remains.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if r2, used, err := Open(path).Reserve(ctx, "t", 1000, 1000); err != nil || used != 300 || r2.Chars() != 700 {
		t.Fatalf("second reader: used %d, %v, %v; want the reservation of 300 seen and 700 reserved", used, r2, err)
	}
	if _, err := r.Settle("context_read", []string{"a.md"}, 120); err != nil {
		t.Fatal(err)
	}
	u, err := Read(path, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Calls != 1 || u.Chars != 120 || u.Skipped != 1 {
		t.Errorf("usage = %+v, want 1 call of 120 and the torn line skipped", u)
	}
}

// Parallel calls near the end of a turn: a call that wants more than
// remains while another holds a reservation waits for it to settle, and
// gets what it wants from what that one left, not the sliver that was
// free when it asked. With nothing in flight, it takes what remains.
func TestLedgerWaitsForCallsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), grant.UsageFile)
		l := Open(path)
		first, _, err := l.Reserve(context.Background(), "t", 1000, 800)
		if err != nil {
			t.Fatal(err)
		}
		// In the bubble the clock moves only when every goroutine waits: the
		// first call settles while the second waits for it, whatever the load.
		settled := make(chan error, 1)
		go func() {
			time.Sleep(50 * time.Millisecond)
			_, err := first.Settle("context_search", []string{"a.md"}, 100)
			settled <- err
		}()
		second, used, err := l.Reserve(context.Background(), "t", 1000, 600)
		if err := <-settled; err != nil {
			t.Fatal(err)
		}
		if err != nil || second.Chars() != 600 || used != 100 {
			t.Fatalf("second call: %v after %d used, %v; want 600 reserved after the first settled at 100", second, used, err)
		}
		if _, err := second.Settle("context_read", []string{"b.md"}, 600); err != nil {
			t.Fatal(err)
		}
		// 300 remain and nothing else is in flight: a call wanting more gets
		// them at once.
		third, used, err := l.Reserve(context.Background(), "t", 1000, 1000)
		if err != nil || third.Chars() != 300 || used != 700 {
			t.Errorf("third call: %v after %d used, %v; want the 300 that remain", third, used, err)
		}
	})
}

// A result larger than its reservation is refused and not logged.
func TestLedgerSettleOverReservation(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	l := Open(path)
	r, _, err := l.Reserve(context.Background(), "t", 1000, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Settle("context_read", nil, 101); err == nil {
		t.Fatal("settled past the reservation")
	}
	if _, err := r.Settle("context_read", nil, 50); err == nil {
		t.Fatal("settled twice")
	}
	r2, used, err := l.Reserve(context.Background(), "t", 1000, 1000)
	if err != nil || used != 0 || r2.Chars() != 1000 {
		t.Errorf("after a refused settle: used %d, reserved %v, %v", used, r2, err)
	}
	if u, _ := Read(path, "t", nil); u.Calls != 0 {
		t.Errorf("usage = %+v", u)
	}
}

// A context already cancelled or past its deadline reserves nothing: the
// error is the context's, and the log holds no line of it.
func TestReserveRefusesEndedContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), grant.UsageFile)
	l := Open(path)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, stop := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer stop()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"past its deadline", expired, context.DeadlineExceeded},
	} {
		r, _, err := l.Reserve(tt.ctx, "t", 10_000, 700)
		if !errors.Is(err, tt.want) || r != nil {
			t.Errorf("%s: Reserve = %v, %v; want nothing and %v", tt.name, r, err, tt.want)
		}
	}
	if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
		t.Errorf("the log holds %q, want nothing", data)
	}
	if r, _, err := l.Reserve(context.Background(), "t", 10_000, 700); err != nil || r == nil {
		t.Errorf("with a live context: %v, %v; want a reservation", r, err)
	}
}
