//go:build unix

package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, failing the test after 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// errorOf returns the JSON-RPC error message of the response with the
// given id in stdout, "" when there is none.
func errorOf(stdout string, id string) string {
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && string(msg.ID) == id && msg.Error != nil {
			return msg.Error.Message
		}
	}
	return ""
}

// answered reports whether stdout holds a response with the given id.
func answered(stdout string, id string) bool {
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && string(msg.ID) == id {
			return true
		}
	}
	return false
}

const searchLine = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"context_search","arguments":{"query":"gate"}}}`

// startBlockedSearch starts the blocking host bin as the server of the
// sample grant, initializes it and sends a search (id 2) whose source
// blocks on a FIFO; it returns the process, its stdin and its output.
func startBlockedSearch(t *testing.T, bin string, env ...string) (cmd *exec.Cmd, stdin *os.File, stdout, stderr *syncBuffer) {
	t.Helper()
	gr := writeGrant(t, demoRequest(vaultfix.Sample(t)))
	fifo := filepath.Join(t.TempDir(), "block.fifo")
	mkfifo(t, fifo)
	cmd = exec.Command(bin, Flag, gr)
	cmd.Env = append(append(os.Environ(), blockhostFIFO+"="+fifo), env...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = r
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() {
		w.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	fmt.Fprintf(w, "%s\n%s\n%s\n", initializeLine, initializedLine, searchLine)
	waitFor(t, "the initialize response", func() bool { return answered(stdout.String(), "1") })
	return cmd, w, stdout, stderr
}

// TestProcessStopsWithBlockedCall: with a call in flight blocked in
// open(2) on a FIFO (a source that ignores its context), the server still
// ends within its grace on SIGTERM, on SIGINT and on the end of stdin
// (the drain grace then shutdownGrace), with exit code 0, and answers the
// blocked call with an error rather than leaving it unanswered. The drain
// grace is shortened to testDrain in this server: the blocked call waits
// out whatever it is, and the bound checked is the same sum.
func TestProcessStopsWithBlockedCall(t *testing.T) {
	bin := serverBinary(t)
	const testDrain = 500 * time.Millisecond
	for _, how := range []string{"SIGTERM", "SIGINT", "EOF"} {
		t.Run(how, func(t *testing.T) {
			cmd, w, stdout, stderr := startBlockedSearch(t, bin, blockhostDrain+"="+testDrain.String())
			// The search is in flight and stays blocked on the FIFO.
			time.Sleep(300 * time.Millisecond)
			if answered(stdout.String(), "2") {
				t.Fatalf("the blocked call was answered: %s", stdout.String())
			}
			switch how {
			case "SIGTERM":
				cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				cmd.Process.Signal(syscall.SIGINT)
			case "EOF":
				w.Close()
			}
			start := time.Now()
			if code := wait(t, cmd); code != ExitOK {
				t.Errorf("exit code %d, want %d (stderr %q)", code, ExitOK, stderr.String())
			}
			limit := shutdownGrace
			if how == "EOF" {
				limit += testDrain
			}
			if took := time.Since(start); took > limit+3*time.Second {
				t.Errorf("the server took %v to end, want about %v", took, limit)
			}
			if got := errorOf(stdout.String(), "2"); got != "the server stopped before this call finished" {
				t.Errorf("the abandoned call's answer: error %q, want the server's stop (stdout %s)", got, stdout.String())
			}
		})
	}
}

// TestProcessAbandonsStuckCall: a call stuck in a source that ignores its
// context (blocked in open(2) on a FIFO) is answered lateGrace after its
// deadline with a one-line tool error saying it ran out of time, and the
// server goes on: the next call is answered, and the end of stdin ends
// the server at once (no call is left to drain).
func TestProcessAbandonsStuckCall(t *testing.T) {
	bin := serverBinary(t)
	const timeout = 500 * time.Millisecond
	start := time.Now()
	cmd, w, stdout, stderr := startBlockedSearch(t, bin, blockhostTimeout+"="+timeout.String())
	waitFor(t, "the stuck search's answer", func() bool { return answered(stdout.String(), "2") })
	if took := time.Since(start); took < timeout {
		t.Errorf("the stuck search was answered after %v, before its deadline %v", took, timeout)
	}
	if isErr, text := resultOf(stdout.String(), "2"); !isErr || !strings.HasPrefix(text, "the call ran out of time: context_search") || strings.Contains(text, "\n") {
		t.Errorf("the stuck search's answer: isError %v, %q; want one line saying it ran out of time", isErr, text)
	}
	fmt.Fprintf(w, "%s\n", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	waitFor(t, "the next call's answer", func() bool { return answered(stdout.String(), "3") })
	w.Close()
	end := time.Now()
	if code := wait(t, cmd); code != ExitOK {
		t.Errorf("exit code %d, want %d (stderr %q)", code, ExitOK, stderr.String())
	}
	if took := time.Since(end); took > drainGrace {
		t.Errorf("the server took %v to end after stdin ended; an abandoned call must not hold the drain", took)
	}
}

// resultOf returns whether the response with the given id in stdout is a
// tool error, and its text.
func resultOf(stdout, id string) (isError bool, text string) {
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || string(msg.ID) != id || msg.Result == nil {
			continue
		}
		for _, c := range msg.Result.Content {
			text += c.Text
		}
		return msg.Result.IsError, text
	}
	return false, ""
}

// TestProcessCancelledCallDoesNotHoldTheDrain: a call the client cancelled
// (notifications/cancelled) is not waited for at the end of input, even
// when its source ignores the cancellation: the server ends within
// shutdownGrace, not drainGrace.
func TestProcessCancelledCallDoesNotHoldTheDrain(t *testing.T) {
	bin := serverBinary(t)
	cmd, w, _, stderr := startBlockedSearch(t, bin)
	time.Sleep(300 * time.Millisecond)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}`+"\n")
	time.Sleep(100 * time.Millisecond)
	w.Close()
	start := time.Now()
	if code := wait(t, cmd); code != ExitOK {
		t.Errorf("exit code %d, want %d (stderr %q)", code, ExitOK, stderr.String())
	}
	if took := time.Since(start); took > shutdownGrace+(drainGrace-shutdownGrace)/2 {
		t.Errorf("the server took %v to end after a cancelled call; want about %v (the cancelled call is not drained)", took, shutdownGrace)
	}
}

// TestProcessFIFOs: a FIFO at usage.jsonl or .agentero/cache/catalogue.bin
// does not hang a call or the server's start, and a FIFO given as the grant
// is refused at once.
func TestProcessFIFOs(t *testing.T) {
	t.Run("usage.jsonl", func(t *testing.T) {
		vault := vaultfix.Sample(t)
		gr := writeGrant(t, demoRequest(vault))
		mkfifo(t, grant.UsagePath(gr))
		cmd, stdin, stdout, stderr := rawServer(t, []string{Flag, gr})
		fmt.Fprintf(stdin, "%s\n%s\n%s\n", initializeLine, initializedLine, searchLine)
		waitFor(t, "the search's answer", func() bool { return answered(stdout.String(), "2") })
		if !strings.Contains(stdout.String(), `"isError":true`) || !strings.Contains(stdout.String(), "not a regular file") {
			t.Errorf("search with a FIFO as usage log: %s", stdout.String())
		}
		stdin.Close()
		if code := wait(t, cmd); code != ExitOK {
			t.Errorf("exit code %d (stderr %q)", code, stderr.String())
		}
		if strings.Contains(stdout.String(), vault) {
			t.Errorf("stdout names the Vault path")
		}
	})
	t.Run("catalogue.bin", func(t *testing.T) {
		vault := vaultfix.Sample(t)
		mkfifo(t, filepath.Join(vault, ".agentero", "cache", "catalogue.bin"))
		gr := writeGrant(t, demoRequest(vault)) // must not hang either
		cmd, stdin, stdout, stderr := rawServer(t, []string{Flag, gr})
		fmt.Fprintf(stdin, "%s\n%s\n%s\n", initializeLine, initializedLine, searchLine)
		waitFor(t, "the search's answer", func() bool { return answered(stdout.String(), "2") })
		if strings.Contains(stdout.String(), `"isError":true`) {
			t.Errorf("search with a FIFO as catalogue cache: %s", stdout.String())
		}
		stdin.Close()
		if code := wait(t, cmd); code != ExitOK {
			t.Errorf("exit code %d (stderr %q)", code, stderr.String())
		}
	})
	t.Run("grant.json", func(t *testing.T) {
		vault := vaultfix.Sample(t)
		gr := writeGrant(t, demoRequest(vault))
		mkfifo(t, gr)
		cmd, stdin, stdout, stderr := rawServer(t, []string{Flag, gr})
		stdin.WriteString(initializeLine + "\n")
		if code := wait(t, cmd); code != ExitUsage {
			t.Errorf("exit code %d, want %d", code, ExitUsage)
		}
		checkRefusal(t, stderr.String(), stdout.String(), vault, "not a regular file")
	})
}

// checkRefusal checks a server that refused to start: one line on stderr
// saying why, naming no Vault path, and nothing on stdout.
func checkRefusal(t *testing.T, stderr, stdout, vault, why string) {
	t.Helper()
	if !strings.HasPrefix(stderr, grant.ServerName+": ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, why) {
		t.Errorf("stderr %q, want one line saying %q", stderr, why)
	}
	if strings.Contains(stderr, vault) {
		t.Errorf("stderr names the Vault path: %q", stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing", stdout)
	}
}

// TestProcessGrantPlace: the server starts only on a grant in its place in
// the vault it names; every other grant is refused with exit code 2 and one
// line on stderr.
func TestProcessGrantPlace(t *testing.T) {
	vaultA := vaultfix.Sample(t)
	vaultB := vaultfix.Sample(t)
	grantA := writeGrant(t, demoRequest(vaultA))
	data, err := os.ReadFile(grantA)
	if err != nil {
		t.Fatal(err)
	}
	var g grant.Grant
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	put := func(path string, g grant.Grant, tail string) string {
		t.Helper()
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, tail...), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	root := g
	root.Vault = "/"
	// A real grant of vault B, and a copy of it inside vault A.
	reqB := demoRequest(vaultB)
	reqB.RuntimeID = "rt-b"
	var grantB grant.Grant
	if b, err := os.ReadFile(writeGrant(t, reqB)); err != nil || json.Unmarshal(b, &grantB) != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	linkDir := filepath.Join(vaultA, ".agentero", "context-sessions", "rt-link")
	os.MkdirAll(linkDir, 0o700)
	if err := os.Symlink(grantA, filepath.Join(linkDir, "grant.json")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, why string
	}{
		{"grant in a temporary folder naming /", put(filepath.Join(tmp, "grant.json"), root, ""), "a grant is read only at"},
		{"vault layout in a temporary folder naming /", put(filepath.Join(tmp, ".agentero", "context-sessions", g.RuntimeID, "grant.json"), root, ""), "not in the vault it names"},
		{"grant in vault A naming vault B", put(filepath.Join(vaultA, ".agentero", "context-sessions", "rt-b", "grant.json"), grantB, ""), "not in the vault it names"},
		{"grant symlink", filepath.Join(linkDir, "grant.json"), "symbolic link"},
		{"trailing JSON", put(grantA, g, "\n{}\n"), "something follows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, stdin, stdout, stderr := rawServer(t, []string{Flag, tt.path})
			stdin.WriteString(initializeLine + "\n")
			if code := wait(t, cmd); code != ExitUsage {
				t.Errorf("exit code %d, want %d (stderr %q)", code, ExitUsage, stderr.String())
			}
			checkRefusal(t, stderr.String(), stdout.String(), vaultA, tt.why)
			if strings.Contains(stderr.String(), vaultB) || strings.Contains(stderr.String(), tmp) {
				t.Errorf("stderr names a machine path: %q", stderr.String())
			}
		})
	}

	t.Run(".agentero symlink", func(t *testing.T) {
		vault := vaultfix.Sample(t)
		// The private folder moved outside the vault, a link left in its
		// place.
		out := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.Rename(filepath.Join(vault, ".agentero"), out); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		os.MkdirAll(out, 0o755)
		if err := os.Chmod(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(out, filepath.Join(vault, ".agentero")); err != nil {
			t.Fatal(err)
		}
		before := tree(t, out)
		var r researchctx.Resolver
		defer r.Close()
		plan, err := r.Resolve(t.Context(), demoRequest(vault))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plan.WriteGrant(); err == nil || !strings.Contains(err.Error(), "symbolic link") || strings.Contains(err.Error(), vault) {
			t.Errorf("WriteGrant through a .agentero link: %v", err)
		}
		if st, _ := os.Stat(out); st.Mode().Perm() != 0o755 {
			t.Errorf("the link's target was chmodded to %v", st.Mode().Perm())
		}
		if diff := cmp.Diff(before, tree(t, out)); diff != "" {
			t.Errorf("files written at the link's target (-before +after):\n%s", diff)
		}
		// A grant reached through the link is refused too.
		real := filepath.Join(out, "context-sessions", g.RuntimeID, "grant.json")
		g2 := g
		g2.Vault = vault
		put(real, g2, "")
		cmd, stdin, stdout, stderr := rawServer(t, []string{Flag, filepath.Join(vault, ".agentero", "context-sessions", g.RuntimeID, "grant.json")})
		stdin.WriteString(initializeLine + "\n")
		if code := wait(t, cmd); code != ExitUsage {
			t.Errorf("exit code %d, want %d", code, ExitUsage)
		}
		checkRefusal(t, stderr.String(), stdout.String(), vault, "symbolic link")
	})
}

// tree lists the paths under dir.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}
