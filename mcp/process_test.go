package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/tools"
)

// These tests run a real server process, the way an agent starts it:
// <exe> --agentero-context-mcp <grant>. The executable is this test binary,
// whose TestMain starts as a host's main does (mcp.ServeIfRequested first):
// no host is built for them.

func TestMain(m *testing.M) {
	// Started by a test as a server: serve and exit. The blocking host of
	// the stop tests serves when its FIFO is named.
	if os.Getenv(blockhostFIFO) != "" {
		serveBlockhost()
	}
	ServeIfRequested(nil)
	os.Exit(m.Run())
}

// serverBinary is the executable the tests start as a server: this test
// binary (see TestMain).
func serverBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a server process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// server is one server process and the client session connected to it.
type server struct {
	cs     *sdk.ClientSession
	cmd    *exec.Cmd
	stderr *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for the exec copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServer starts the server for grant and connects a
// go-sdk client over CommandTransport at the given protocol version (""
// for the newest).
func startServer(t *testing.T, gr, protocol string, env ...string) *server {
	t.Helper()
	exe, args, err := commandFor(serverBinary(t), gr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	s := &server{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "process-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s.cs, err = c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, s.stderr)
	}
	t.Cleanup(func() { s.cs.Close() })
	return s
}

// commandFor is ServerCommandLine for another executable: the host's
// helper builds the command line of the running process, which in a test
// is the test binary, so the same shape is checked by
// TestServerCommandLine.
func commandFor(exe, gr string) (string, []string, error) {
	g, err := filepath.Abs(gr)
	return exe, []string{Flag, g}, err
}

// close ends the session (closing the server's stdin) and returns the
// server's exit error.
func (s *server) close() error {
	err := s.cs.Close()
	if s.cmd.ProcessState == nil {
		return errors.Join(err, errors.New("process not waited for"))
	}
	return err
}

func TestProcessProtocols(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	latest := sdk.SupportedProtocolVersions()[0]
	for _, protocol := range []string{"", "2025-06-18"} {
		name := protocol
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			s := startServer(t, gr, protocol)
			init := s.cs.InitializeResult()
			want := protocol
			if want == "" {
				want = latest
			}
			if init.ProtocolVersion != want {
				t.Errorf("negotiated %q, want %q", init.ProtocolVersion, want)
			}
			if init.ServerInfo.Name != grant.ServerName || init.Instructions == "" {
				t.Errorf("server info %+v, instructions %q", init.ServerInfo, init.Instructions)
			}
			list, err := s.cs.ListTools(context.Background(), nil)
			if err != nil || len(list.Tools) != 3 {
				t.Fatalf("tools/list: %v, %v", list, err)
			}
			for tool, args := range map[string]map[string]any{
				grant.ToolSearch:    {"query": "strided global tokens"},
				grant.ToolRead:      {"target": "papers/2401.01234", "page": 2},
				grant.ToolRelations: {"paper": "papers/2401.01234"},
			} {
				res := call(t, s.cs, tool, args)
				mustOK(t, res)
				if !strings.Contains(text(res), "Budget:") {
					t.Errorf("%s text: %s", tool, text(res))
				}
			}
			if err := s.close(); err != nil {
				t.Errorf("server exit: %v", err)
			}
			if code := s.cmd.ProcessState.ExitCode(); code != ExitOK {
				t.Errorf("exit code %d, want 0", code)
			}
			if e := s.stderr.String(); e != "" {
				t.Errorf("stderr without %s: %q", LogEnv, e)
			}
		})
	}
}

func TestProcessConcurrentCalls(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	s := startServer(t, gr, "")
	calls := []struct {
		tool string
		args map[string]any
	}{
		{grant.ToolSearch, map[string]any{"query": "slot routing"}},
		{grant.ToolRead, map[string]any{"target": "papers/2401.01234", "page": 1}},
		{grant.ToolRead, map[string]any{"target": "notes"}},
		{grant.ToolRelations, map[string]any{"paper": "papers/2403.05678"}},
		{grant.ToolRead, map[string]any{"target": "papers/vision/resnet-like"}}, // refused
	}
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			c := calls[i%len(calls)]
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
			switch {
			case err != nil:
				errs <- fmt.Errorf("%s: %v", c.tool, err)
			case res.IsError != (i%len(calls) == 4):
				errs <- fmt.Errorf("%s %v: isError %v: %s", c.tool, c.args, res.IsError, text(res))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if u := turnUsage(t, gr, "turn-1"); u.Calls != n-n/len(calls) || u.Skipped != 0 {
		t.Errorf("usage: %d lines (%d skipped), want %d", u.Calls, u.Skipped, n-n/len(calls))
	}
}

// TestProcessSharedBudget: two server processes on one grant (two agent
// sessions of one turn) draw on one turn budget.
func TestProcessSharedBudget(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	req := demoRequest(vault)
	const turnChars = 5000
	req.Budget = &grant.BudgetOverrides{TurnChars: intp(turnChars), ReadChars: intp(1500)}
	gr := writeGrant(t, req)
	a := startServer(t, gr, "")
	b := startServer(t, gr, "")

	read := func(s *server, page int) (*tools.ReadOutput, string) {
		res := call(t, s.cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234", "page": page})
		if res.IsError {
			return nil, text(res)
		}
		var out tools.ReadOutput
		decode(t, res, &out)
		return &out, ""
	}
	first, msg := read(a, 1)
	if first == nil {
		t.Fatal(msg)
	}
	second, msg := read(b, 2)
	if second == nil {
		t.Fatal(msg)
	}
	if second.Budget.Used <= first.Budget.Used {
		t.Errorf("server B reports %d used after A used %d: budget not shared", second.Budget.Used, first.Budget.Used)
	}
	spent := false
	for i := range 20 {
		s := a
		if i%2 == 1 {
			s = b
		}
		out, msg := read(s, 1+i%3)
		if out == nil {
			if !strings.HasPrefix(msg, tools.ErrBudgetSpent.Error()) {
				t.Fatalf("call %d: %s", i, msg)
			}
			spent = true
			break
		}
	}
	if !spent {
		t.Fatal("budget never spent")
	}
	// Both servers now refuse.
	for _, s := range []*server{a, b} {
		if out, msg := read(s, 3); out != nil || !strings.HasPrefix(msg, tools.ErrBudgetSpent.Error()) {
			t.Errorf("after the budget was spent: %q", msg)
		}
	}
	if u := turnUsage(t, gr, "turn-1"); u.Chars > turnChars {
		t.Errorf("two servers handed out %d characters, budget %d", u.Chars, turnChars)
	}
}

func TestProcessGrantChanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(t *testing.T, vault, gr string)
	}{
		{"deleted", func(t *testing.T, vault, gr string) {
			if err := os.Remove(gr); err != nil {
				t.Fatal(err)
			}
		}},
		{"fingerprint rewritten", func(t *testing.T, vault, gr string) { forgeFingerprint(t, gr) }},
		{"scope changed", func(t *testing.T, vault, gr string) { rewriteGrant(t, vault) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vault := vaultfix.Sample(t)
			gr := writeGrant(t, demoRequest(vault))
			s := startServer(t, gr, "")
			mustOK(t, call(t, s.cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234"}))
			before := turnUsage(t, gr, "turn-1").Calls
			tt.change(t, vault, gr)
			for tool, args := range validArgs {
				res := call(t, s.cs, tool, args)
				if !res.IsError || text(res) != tools.ErrGrantChanged.Error() {
					t.Errorf("%s: isError %v, %q", tool, res.IsError, text(res))
				}
			}
			if after := turnUsage(t, gr, "turn-1").Calls; after != before {
				t.Errorf("%d usage lines after the grant changed, want %d", after, before)
			}
		})
	}
}

func TestProcessMalformedArguments(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	s := startServer(t, writeGrant(t, demoRequest(vault)), "")
	for _, c := range []struct {
		tool string
		args any
	}{
		{grant.ToolSearch, map[string]any{"query": 42}},
		{grant.ToolSearch, map[string]any{"q": "x"}},
		{grant.ToolRead, map[string]any{"target": "papers/2401.01234", "page": "two"}},
		{grant.ToolRead, map[string]any{}},
		{grant.ToolRelations, map[string]any{"paper": "papers/2401.01234", "limit": true}},
		{grant.ToolRelations, json.RawMessage(`"papers/2401.01234"`)},
	} {
		res, err := s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Errorf("%s %v: protocol error %v", c.tool, c.args, err)
			continue
		}
		if !res.IsError {
			t.Errorf("%s %v: accepted", c.tool, c.args)
		}
	}
	// The session survives bad calls.
	mustOK(t, call(t, s.cs, grant.ToolSearch, map[string]any{"query": "gate"}))
}

// rawServer starts a server with plain pipes, for tests that
// speak the wire protocol by hand.
func rawServer(t *testing.T, args []string, env ...string) (cmd *exec.Cmd, stdin *os.File, stdout, stderr *syncBuffer) {
	t.Helper()
	cmd = exec.Command(serverBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
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
	return cmd, w, stdout, stderr
}

// wait waits for cmd to exit, failing the test when it hangs.
func wait(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("server did not exit")
	}
	return cmd.ProcessState.ExitCode()
}

const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// TestProcessMalformedLines: a line that is not a JSON-RPC message gets a
// JSON-RPC error response (-32700 for text that is not JSON, -32600 for
// JSON that is not a message, a batch or an over-long line) and the server
// keeps serving: every call in flight and every call after it is answered,
// no response is half-written or interleaved, no usage line is torn, and
// the server exits 0 when stdin ends.
func TestProcessMalformedLines(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	cmd, stdin, stdout, stderr := rawServer(t, []string{Flag, gr})
	lines := []string{initializeLine, initializedLine}
	want := map[string]int{"1": 0} // id -> error code, 0 for a result
	for i := range 10 {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"context_read","arguments":{"target":"papers/2401.01234","mode":"full"}}}`, i+2))
		want[fmt.Sprint(i+2)] = 0
	}
	bad := []struct{ line, id string }{
		{"this is not JSON-RPC", "null"},
		{`{"jsonrpc":"2.0","id":50,"method":`, "null"},            // cut JSON
		{`{"jsonrpc":"1.0","id":51,"method":"tools/list"}`, "51"}, // wrong version
		{`{"id":"s52","params":{}}`, `"s52"`},                     // neither request nor response
		{`[{"jsonrpc":"2.0","id":53,"method":"tools/list"}]`, "null"},
		{`{"jsonrpc":"2.0","id":54,"method":"tools/list","x":"` + strings.Repeat("a", maxLineBytes) + `"}`, "null"},
		{"\x00\xff\xfe", "null"},
	}
	nulls := 0
	for i, b := range bad {
		lines = append(lines, b.line)
		// Calls between the bad lines must still be served.
		id := 60 + i
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
		want[fmt.Sprint(id)] = 0
		if b.id == "null" {
			nulls++
		} else {
			want[b.id] = -32600
		}
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"context_search","arguments":{"query":"gate"}}}`)
	want["99"] = 0
	if _, err := stdin.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	// Read responses until every id is answered, then end stdin.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		got := strings.Count(stdout.String(), "\n")
		if got >= len(want)+nulls {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stdin.Close()
	if code := wait(t, cmd); code != ExitOK {
		t.Errorf("exit code %d, want %d (stderr %q)", code, ExitOK, stderr.String())
	}
	got := map[string]int{}
	gotNulls := map[int]int{}
	served := 0
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
			Result *struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Errorf("stdout line is not JSON: %.200q", sc.Text())
			continue
		}
		code := 0
		if msg.Error != nil {
			code = msg.Error.Code
		}
		if string(msg.ID) == "null" {
			gotNulls[code]++
			continue
		}
		if n, err := strconv.Atoi(string(msg.ID)); err == nil && (n >= 2 && n <= 11 || n == 99) && msg.Result != nil && !msg.Result.IsError {
			served++ // a tool call that returned text, and so logged a usage line
		}
		if _, dup := got[string(msg.ID)]; dup {
			t.Errorf("id %s answered twice", msg.ID)
		}
		got[string(msg.ID)] = code
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers by id (-want +got):\n%s", diff)
	}
	// Not JSON, cut JSON and invalid UTF-8 are parse errors; the batch and
	// the over-long line are invalid requests.
	if diff := cmp.Diff(map[int]int{-32700: 3, -32600: 2}, gotNulls); diff != "" {
		t.Errorf("errors without an id, by code (-want +got):\n%s", diff)
	}
	// Parallel reads may spend the turn's budget before the last ones; each
	// call that returned text logged exactly one whole line.
	if u := turnUsage(t, gr, "turn-1"); u.Skipped != 0 || u.Calls != served || served == 0 {
		t.Errorf("usage: %d calls, %d torn lines; want %d calls (one per served tool call), none torn", u.Calls, u.Skipped, served)
	}
}

// TestProcessExitCodes: the host entry point's contract on the command line.
func TestProcessExitCodes(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	remote := demoRequest(vault)
	remote.RuntimeID, remote.Remote = "rt-remote", true
	var r researchctx.Resolver
	plan, err := r.Resolve(context.Background(), remote)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	promptOnly, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(vault, ".agentero", "context-sessions", "rt-garbage", "grant.json")
	if err := os.MkdirAll(filepath.Dir(garbage), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(garbage, []byte(`{"version": 1, "vault": `), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		args  []string
		input string
		code  int
	}{
		{"EOF at once", []string{Flag, gr}, "", ExitOK},
		{"initialize then EOF", []string{Flag, gr}, initializeLine + "\n" + initializedLine + "\n", ExitOK},
		{"no grant path", []string{Flag}, "", ExitUsage},
		{"empty grant path", []string{Flag, ""}, "", ExitUsage},
		{"extra argument", []string{Flag, gr, "more"}, "", ExitUsage},
		{"missing grant", []string{Flag, filepath.Join(vault, ".agentero", "context-sessions", "rt-none", "grant.json")}, initializeLine + "\n", ExitUsage},
		{"invalid grant", []string{Flag, garbage}, initializeLine + "\n", ExitUsage},
		{"prompt-only grant", []string{Flag, promptOnly}, initializeLine + "\n", ExitUsage},
		{"a directory as grant", []string{Flag, vault}, initializeLine + "\n", ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, stdin, stdout, stderr := rawServer(t, tt.args)
			stdin.WriteString(tt.input)
			stdin.Close()
			if code := wait(t, cmd); code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if tt.code == ExitUsage {
				e := stderr.String()
				if !strings.HasPrefix(e, grant.ServerName+": ") || strings.Count(e, "\n") != 1 || strings.Contains(e, vault) {
					t.Errorf("stderr %q, want one line naming no Vault path", e)
				}
				if stdout.String() != "" {
					t.Errorf("stdout %q, want nothing", stdout.String())
				}
			}
		})
	}

	t.Run("not requested", func(t *testing.T) {
		// Without the flag the host runs as itself (here: this test
		// binary, asked to run no test); nothing speaks MCP.
		cmd, stdin, stdout, _ := rawServer(t, []string{"-test.run=^$"})
		stdin.WriteString(initializeLine + "\n")
		stdin.Close()
		wait(t, cmd)
		if strings.Contains(stdout.String(), `"jsonrpc"`) {
			t.Errorf("served MCP without the flag: %s", stdout.String())
		}
	})
}

// TestProcessLogging: logging is off by default and goes to stderr, never
// stdout, when LogEnv asks for it.
func TestProcessLogging(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	s := startServer(t, gr, "", LogEnv+"=debug")
	mustOK(t, call(t, s.cs, grant.ToolSearch, map[string]any{"query": "gate"}))
	call(t, s.cs, grant.ToolRead, map[string]any{"target": "papers/vision/resnet-like"})
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	e := s.stderr.String()
	if !strings.Contains(e, "level=") {
		t.Errorf("stderr with %s=debug: %q", LogEnv, e)
	}
}
