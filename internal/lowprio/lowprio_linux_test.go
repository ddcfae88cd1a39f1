package lowprio_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/lowprio"
)

// statFields returns the fields of /proc/<pid>/stat after the command's
// closing parenthesis (the command may hold spaces): the state first,
// then the parent, the process group, the session; the nice level is the
// 17th.
func statFields(t *testing.T, pid string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	stat := string(b)
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		t.Fatalf("not a stat line: %q", stat)
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 17 {
		t.Fatalf("short stat line: %q", stat)
	}
	return f
}

// niceOf returns the nice field of /proc/<pid>/stat.
func niceOf(t *testing.T, pid string) int {
	t.Helper()
	f := statFields(t, pid)
	n, err := strconv.Atoi(f[16])
	if err != nil {
		t.Fatalf("nice field %q: %v", f[16], err)
	}
	return n
}

// TestStartLowersThePriority: once Start returns, the program runs Nice
// levels below this process (read from its /proc stat while it runs),
// and this process keeps its own priority.
func TestStartLowersThePriority(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep program")
	}
	ours := niceOf(t, "self")
	for i := range 3 {
		cmd := exec.Command("sleep", "30")
		if err := lowprio.Start(cmd); err != nil {
			t.Fatal(err)
		}
		got := niceOf(t, strconv.Itoa(cmd.Process.Pid))
		cmd.Process.Kill()
		cmd.Wait()
		if want := min(ours+lowprio.Nice, 19); got != want {
			t.Errorf("run %d: the program's nice = %d, want %d (ours %d)", i, got, want, ours)
		}
	}
	if n := niceOf(t, "self"); n != ours {
		t.Errorf("this process's nice = %d after the runs, want %d", n, ours)
	}
}

// TestStartFails: a program that cannot start is cmd.Start's error, and
// Run's.
func TestStartFails(t *testing.T) {
	for _, start := range []func(*exec.Cmd) error{lowprio.Start, lowprio.Run} {
		if err := start(exec.Command("/nonexistent/program")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("= %v, want the program's absence", err)
		}
	}
}
