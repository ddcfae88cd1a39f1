package lowprio_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/lowprio"
)

// autogroups reports whether the kernel shares the cores between
// sessions first.
func autogroups() bool {
	b, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	return err == nil && strings.TrimSpace(string(b)) == "1"
}

// running runs script with sh under RunContext and ctx, and returns the
// pid the script writes to the file named by $1 (dir/pid) once it is
// there (within a bound only a program that never starts reaches), and
// a function that waits for RunContext's result. The program is killed
// when the test ends.
func running(t *testing.T, ctx context.Context, dir, script string) (pid string, result func() error) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, "sh", "-c", script, "sh", pidFile)
	cmd.WaitDelay = 2 * time.Second
	done := make(chan error, 1)
	go func() { done <- lowprio.RunContext(ctx, cmd) }()
	result = sync.OnceValue(func() error { return <-done })
	t.Cleanup(func() {
		cancel()
		result()
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b)), result
		}
	}
	t.Fatal("the program did not start")
	return "", nil
}

// TestRunContextSession: a program run while no call is in flight is in
// a session of its own where the cores are shared between sessions
// first; one run while a call is, or under a context that says nothing
// of calls, is in this process's session, lowprio.Nice levels below it.
// Each leads its own process group. What is read is the program's /proc
// stat while it runs.
func TestRunContextSession(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	ours := statFields(t, "self")
	oursNice := niceOf(t, "self")
	tests := []struct {
		name string
		ctx  context.Context
		own  bool
	}{
		{"no call in flight", lowprio.WithCalls(context.Background(), func() bool { return false }), autogroups()},
		{"a call in flight", lowprio.WithCalls(context.Background(), func() bool { return true }), false},
		{"calls untold", context.Background(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pid, _ := running(t, tc.ctx, t.TempDir(), `echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 60`)
			f := statFields(t, pid)
			if f[2] != pid {
				t.Errorf("the program's process group = %s, want its own (%s)", f[2], pid)
			}
			if tc.own {
				if f[3] != pid {
					t.Errorf("the program's session = %s, want its own (%s)", f[3], pid)
				}
				return
			}
			if f[3] != ours[3] {
				t.Errorf("the program's session = %s, want ours (%s)", f[3], ours[3])
			}
			if got, want := niceOf(t, pid), min(oursNice+lowprio.Nice, 19); got != want {
				t.Errorf("the program's nice = %d, want %d (ours %d)", got, want, oursNice)
			}
		})
	}
}

// TestRunContextSessionFollowsCalls: the session group of a program run
// while no call is in flight is ranked lowprio.Nice levels below the
// others once a call is, and back at their level once none is (read from
// the program's /proc autogroup while it runs).
func TestRunContextSessionFollowsCalls(t *testing.T) {
	if !autogroups() {
		t.Skip("the cores are not shared between sessions first")
	}
	var calls atomic.Bool
	pid, _ := running(t, lowprio.WithCalls(context.Background(), calls.Load), t.TempDir(), `echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 60`)
	if f, err := os.OpenFile("/proc/"+pid+"/autogroup", os.O_WRONLY, 0); err != nil {
		t.Skipf("a session group's rank cannot be set here: %v", err)
	} else {
		f.Close()
	}
	group := func() string {
		b, err := os.ReadFile("/proc/" + pid + "/autogroup")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	// The kernel takes a change of a group's rank a tenth of a second
	// after another (any process's): a bound well past that.
	waitFor := func(want string) {
		t.Helper()
		got := group()
		for deadline := time.Now().Add(20 * time.Second); !strings.HasSuffix(got, want) && time.Now().Before(deadline); got = group() {
			time.Sleep(20 * time.Millisecond)
		}
		if !strings.HasSuffix(got, want) {
			t.Fatalf("the program's session group is %q, want %q", got, want)
		}
	}
	waitFor(" nice 0")
	calls.Store(true)
	waitFor(" nice " + strconv.Itoa(lowprio.Nice))
	calls.Store(false)
	waitFor(" nice 0")
}

// TestRunContextKillsTheGroup: when the context of the program's command
// ends, the program and what it started are killed, in its own session
// or in ours, and RunContext returns.
func TestRunContextKillsTheGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	tests := []struct {
		name  string
		calls func() bool
	}{
		{"no call in flight", func() bool { return false }},
		{"a call in flight", func() bool { return true }},
		{"calls untold", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.calls != nil {
				ctx = lowprio.WithCalls(ctx, tc.calls)
			}
			// The child's pid, then the program's.
			dir := t.TempDir()
			pid, done := running(t, ctx, dir, `sleep 60 & echo $! > "$1.child"; echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; wait`)
			b, err := os.ReadFile(filepath.Join(dir, "pid.child"))
			if err != nil {
				t.Fatal(err)
			}
			child := strings.TrimSpace(string(b))
			cancel()
			returned := make(chan struct{})
			go func() {
				done()
				close(returned)
			}()
			select {
			case <-returned:
			case <-time.After(30 * time.Second):
				t.Fatal("RunContext did not return after its context ended")
			}
			for _, p := range []string{pid, child} {
				if !gone(p) {
					t.Errorf("process %s still runs", p)
				}
			}
		})
	}
}

// gone reports whether process pid has ended (reaped, or a zombie of a
// parent not this process) within a bound that only one left running
// reaches.
func gone(pid string) bool {
	n, err := strconv.Atoi(pid)
	if err != nil {
		return false
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(n, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if s := string(b); err == nil && strings.Contains(s[strings.LastIndexByte(s, ')')+1:], " Z ") {
			return true
		}
	}
	return false
}
