package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The demo runs as a subprocess, as a user runs it, and starts itself as
// the MCP server. That executable is this test binary: started with
// asQuickchat set (the tests set it for every process they start), its
// TestMain is quickchat's main, so that no quickchat is built for the
// tests. The benchmark and the live runs with real agents run a quickchat
// built once (builtQuickchat).
var (
	binDir string
	bin    string
)

// asQuickchat, set to 1 in its environment, makes this test binary run as
// quickchat.
const asQuickchat = "QUICKCHAT_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asQuickchat) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "quickchat-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	if bin, err = os.Executable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Inherited by every process the tests start: quickchat, and the
	// server it starts of itself, directly or through an agent.
	os.Setenv(asQuickchat, "1")
	return m.Run()
}

// The quickchat binary, built on first use.
var (
	builtOnce sync.Once
	builtBin  string
	builtErr  error
)

// builtQuickchat builds quickchat once, for what measures or exercises
// the executable a user runs: the benchmark of its start-up, and the live
// runs with real agents.
func builtQuickchat(tb testing.TB) string {
	tb.Helper()
	builtOnce.Do(func() {
		builtBin = filepath.Join(binDir, "quickchat")
		if out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput(); err != nil {
			builtErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtErr != nil {
		tb.Fatal(builtErr)
	}
	return builtBin
}

// The session package's test ACP agent (no language model), built on first
// use.
var (
	agentOnce sync.Once
	agentBin  string
	agentErr  error
)

func testAgent(t *testing.T) string {
	t.Helper()
	agentOnce.Do(func() {
		agentBin = filepath.Join(binDir, "agent")
		out, err := exec.Command("go", "build", "-o", agentBin, "../../acp/testdata/agent").CombinedOutput()
		if err != nil {
			agentErr = fmt.Errorf("go build the test agent: %v\n%s", err, out)
		}
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	return agentBin
}

// result is what a run of the binary printed and its exit code.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary with args and stdin, with TMPDIR set to tmp (where
// the sample vault is extracted), and fails the test if it does not finish
// within 30 s.
func run(t *testing.T, tmp, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "NO_COLOR=", "RESEARCHCTX_MCP_LOG=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("quickchat %s: no exit within 30 s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out.String(), errb.String())
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("quickchat %s: %v", strings.Join(args, " "), err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// mustRun is run that requires exit code 0.
func mustRun(t *testing.T, tmp, stdin string, args ...string) result {
	t.Helper()
	r := run(t, tmp, stdin, args...)
	if r.code != 0 {
		t.Fatalf("quickchat %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// checkOneLineError checks the shape of a user error: exit code 1, nothing
// on stdout, one line on stderr that starts with "quickchat: " and contains
// want.
func checkOneLineError(t *testing.T, r result, want string) {
	t.Helper()
	if r.code != 1 {
		t.Errorf("exit code %d, want 1", r.code)
	}
	if r.stdout != "" {
		t.Errorf("stdout not empty:\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "quickchat: ") || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr is not one line starting with \"quickchat: \":\n%q", r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q does not say %q", r.stderr, want)
	}
}
