package acp

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
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	researchctx "github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/mcp"
)

// Binaries built once per test run: the test agent (testdata/agent) and,
// for the live runs with real agents, the quickchat host executable. The
// fixtures' agentero-context server is this test binary (see server).
var (
	binDir string

	agentOnce sync.Once
	agentBin  string
	agentErr  error

	qcOnce sync.Once
	qcBin  string
	qcErr  error
	qcSkip string
)

func TestMain(m *testing.M) {
	// A host's first line: started as the agentero-context server (by the
	// test agent, for a fixture), serve and exit.
	mcp.ServeIfRequested(nil)
	dir, err := os.MkdirTemp("", "session-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// moduleRoot returns the folder of go.mod, from `go env GOMOD`, asked once:
// every fixture needs it, and each go run costs a process start.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := moduleRootOnce()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

var moduleRootOnce = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == os.DevNull {
		return "", fmt.Errorf("go env GOMOD: %v %s", err, out)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
})

func goBuild(root, out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// testAgent returns the path of the test agent binary.
func testAgent(t *testing.T) string {
	t.Helper()
	root := moduleRoot(t)
	agentOnce.Do(func() {
		agentBin = filepath.Join(binDir, "agent")
		agentErr = goBuild(root, agentBin, "./acp/testdata/agent")
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	return agentBin
}

// serverEnv names a prebuilt agentero-context server (a host executable
// that serves MCP when started with --agentero-context-mcp <grant>) to use
// instead of this test binary or examples/quickchat: integrators can run
// these tests against their own host binary.
const serverEnv = "RESEARCHCTX_SESSION_SERVER"

// server returns the path of the agentero-context server the fixtures
// attach: the executable serverEnv names, or else this test binary, whose
// TestMain begins as a host's main does (mcp.ServeIfRequested), so that no
// host is built for them.
func server(t testing.TB) string {
	t.Helper()
	if os.Getenv(serverEnv) != "" {
		return quickchat(t)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// quickchat returns the path of the agentero-context server: the quickchat
// binary, built once. While the example does not exist the test is skipped;
// once it exists, a failed build fails the test.
func quickchat(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(serverEnv); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	root := moduleRoot(t)
	qcOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(root, "examples", "quickchat")); err != nil {
			qcSkip = "examples/quickchat does not exist yet: no agentero-context server to run end to end"
			return
		}
		qcBin = filepath.Join(binDir, "quickchat")
		// Built inside its own module, so that it builds with and without
		// the workspace.
		qcErr = goBuild(filepath.Join(root, "examples"), qcBin, "./quickchat")
	})
	if qcSkip != "" {
		t.Skip(qcSkip)
	}
	if qcErr != nil {
		t.Fatal(qcErr)
	}
	return qcBin
}

// fixture is a small Vault with two plain-text directories.
type fixture struct {
	t      *testing.T
	vault  string
	server string // the agentero-context server's executable
	report string // the test agent's report file
	turn   int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, server: server(t), vault: t.TempDir()}
	files := map[string]string{
		"notes/attention.md": "# Attention\n\nThe Transformer replaces recurrence with self-attention over all positions.\n",
		"notes/rnn.txt":      "Recurrent networks process tokens one at a time; attention looks at every token.\n",
		"notes/misc.txt":     "Unrelated shopping list: eggs, flour.\n",
		"other/graphs.md":    "# Graphs\n\nGraph attention networks apply attention to neighbourhoods.\n",
	}
	for p, content := range files {
		full := filepath.Join(f.vault, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.report = filepath.Join(t.TempDir(), "report.jsonl")
	return f
}

// plan resolves a turn mentioning the paths and writes its grant.
func (f *fixture) plan(remote bool, mentions ...string) (*researchctx.Plan, Server) {
	f.t.Helper()
	f.turn++
	p, err := researchctx.Resolve(context.Background(), researchctx.Request{
		Vault:     f.vault,
		RuntimeID: "rt1",
		TurnID:    fmt.Sprintf("turn-%d", f.turn),
		Remote:    remote,
		Mentions:  mentions,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	if len(p.Dropped) > 0 {
		f.t.Fatalf("dropped: %+v", p.Dropped)
	}
	gp, err := p.WriteGrant()
	if err != nil {
		f.t.Fatal(err)
	}
	return p, Server{Command: f.server, Args: []string{"--agentero-context-mcp", gp}}
}

// start starts the test agent with the flags, stopping it at cleanup and
// checking that its process group is gone.
func (f *fixture) start(cfg AgentOptions, flags ...string) *Agent {
	f.t.Helper()
	var stderr bytes.Buffer
	cfg.Command = testAgent(f.t)
	cfg.Args = append(flags, "-report", f.report)
	cfg.Stderr = &lockedWriter{w: &stderr}
	if cfg.Name == "" {
		cfg.Name = "test-agent"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := Start(ctx, cfg)
	if err != nil {
		f.t.Fatalf("Start: %v\nagent stderr:\n%s", err, stderr.String())
	}
	f.t.Cleanup(func() {
		if err := a.Stop(); err != nil {
			f.t.Errorf("Stop: %v", err)
		}
		if groupAlive(a.pgid) {
			f.t.Errorf("process group %d still alive after Stop", a.pgid)
		}
		if f.t.Failed() {
			f.t.Logf("agent stderr:\n%s", stderr.String())
		}
	})
	return a
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// agentEvent is a line of the test agent's report.
type agentEvent struct {
	Event     string            `json:"event"`
	SessionID string            `json:"sessionId"`
	Servers   []json.RawMessage `json:"servers"`
	Tools     []string          `json:"tools"`
	Prompt    string            `json:"prompt"`
	URIs      []string          `json:"uris"`
	Errors    []string          `json:"errors"`
	CallID    string            `json:"callId"`
	Outcome   string            `json:"outcome"`
	Mode      string            `json:"mode"`
	PID       int               `json:"pid"`
	Config    []string          `json:"config"`
}

func (f *fixture) events() []agentEvent {
	f.t.Helper()
	data, err := os.ReadFile(f.report)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		f.t.Fatal(err)
	}
	var out []agentEvent
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e agentEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			f.t.Fatalf("report line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// lastEvent returns the last event of the kind, failing if there is none.
func (f *fixture) lastEvent(kind string) agentEvent {
	f.t.Helper()
	evs := f.events()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Event == kind {
			return evs[i]
		}
	}
	f.t.Fatalf("no %s event in the agent's report: %+v", kind, evs)
	return agentEvent{}
}

func (f *fixture) count(kind string) int {
	n := 0
	for _, e := range f.events() {
		if e.Event == kind {
			n++
		}
	}
	return n
}

// wireParams returns the raw params of every request with the method that
// the agent received.
func (f *fixture) wireParams(method string) []json.RawMessage {
	f.t.Helper()
	data, err := os.ReadFile(f.report + ".wire")
	if err != nil {
		f.t.Fatal(err)
	}
	var out []json.RawMessage
	for _, line := range bytes.Split(data, []byte("\n")) {
		var msg struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &msg) == nil && msg.Method == method {
			out = append(out, msg.Params)
		}
	}
	return out
}

var allTools = []string{"context_read", "context_search", "paper_relations"}

func turn(t *testing.T, a *Agent, req TurnRequest) *TurnResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := a.Turn(ctx, req)
	if err != nil {
		t.Fatalf("Turn: %v", err)
	}
	return res
}

// checkSources checks the end-to-end contract: the turn's sources read from
// usage.jsonl equal the URIs the agent received from the tools.
func (f *fixture) checkSources(res *TurnResult) {
	f.t.Helper()
	ev := f.lastEvent("prompt")
	if len(ev.Errors) > 0 {
		f.t.Fatalf("agent tool errors: %v", ev.Errors)
	}
	if len(ev.URIs) == 0 {
		f.t.Fatalf("the agent received no citation URIs")
	}
	if diff := cmp.Diff(ev.URIs, res.Sources); diff != "" {
		f.t.Errorf("turn sources differ from the URIs the agent received (-agent +sources):\n%s", diff)
	}
}

func TestEndToEnd(t *testing.T) {
	f := newFixture(t)
	baseline := runtime.NumGoroutine()
	a := f.start(AgentOptions{}, "-resume")
	if got := a.Capabilities(); !got.Resume || got.Load || got.AgentName != "test-agent" {
		t.Errorf("capabilities = %+v", got)
	}

	plan, srv := f.plan(false, "notes")
	if plan.Mode != grant.ModeMCP {
		t.Fatalf("plan mode %s", plan.Mode)
	}
	var updates []Update
	res := turn(t, a, TurnRequest{Plan: plan, Server: srv, Prompt: "attention", OnUpdate: func(u Update) { updates = append(updates, u) }})
	if res.How != HowNew || res.Handoff != "" || res.Refusal != nil || res.Previous != nil {
		t.Errorf("first turn: how %s, hand-off %q, refusal %v, previous %v", res.How, res.Handoff, res.Refusal, res.Previous)
	}
	if res.StopReason != "end_turn" {
		t.Errorf("stop reason %q", res.StopReason)
	}
	f.checkSources(res)
	if res.Usage.Calls != 2 {
		t.Errorf("usage calls = %d, want 2", res.Usage.Calls)
	}

	// The agent spawned our server from the entry and listed its tools.
	opened := f.lastEvent("session/new")
	if diff := cmp.Diff(allTools, opened.Tools); diff != "" {
		t.Errorf("tools listed by the agent (-want +got):\n%s", diff)
	}
	wantEntry := map[string]any{"name": "agentero-context", "command": srv.Command, "args": []any{srv.Args[0], srv.Args[1]}, "env": []any{}}
	checkWireServers(t, f.wireParams("session/new"), []map[string]any{wantEntry})

	// The prompt carried the evidence block and the user's message last.
	if p := f.lastEvent("prompt").Prompt; !strings.Contains(p, researchctx.ReferenceLine) || !strings.HasSuffix(p, "attention") {
		t.Errorf("prompt does not carry the evidence block and the message:\n%s", p)
	}
	// Updates streamed in order: two tool calls, then the answer.
	var kinds []string
	for _, u := range updates {
		kinds = append(kinds, string(u.Kind)+":"+u.Text)
	}
	wantKinds := []string{"tool_call:context_search", "tool_call_end:context_search", "tool_call:context_read", "tool_call_end:context_read", "message:sources: " + strings.Join(res.Sources, " ")}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("streamed updates (-want +got):\n%s", diff)
	}

	// Same scope next turn: the live session continues, nothing reopened.
	prev := res.Record
	plan2, srv2 := f.plan(false, "notes")
	if plan2.Fingerprint != plan.Fingerprint {
		t.Fatal("same scope, different fingerprint")
	}
	res2 := turn(t, a, TurnRequest{Prev: &prev, Plan: plan2, Server: srv2, Prompt: "recurrence"})
	if res2.How != HowLive || res2.Record.SessionID != prev.SessionID || res2.Handoff != "" {
		t.Errorf("second turn: how %s, session %s (was %s), hand-off %q", res2.How, res2.Record.SessionID, prev.SessionID, res2.Handoff)
	}
	f.checkSources(res2)
	if n := f.count("session/new") + f.count("session/resume"); n != 1 {
		t.Errorf("%d sessions opened, want 1", n)
	}

	// Stop ends the agent and the servers it spawned (same group).
	pgid := a.pgid
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	if groupAlive(pgid) {
		t.Fatalf("process group %d alive after Stop", pgid)
	}
	checkGoroutines(t, baseline)
	if _, err := a.Turn(context.Background(), TurnRequest{Prev: &res2.Record, Plan: plan2, Server: srv2}); !errors.Is(err, ErrStopped) {
		t.Errorf("Turn after Stop: %v, want ErrStopped", err)
	}
}

// checkGoroutines waits for the goroutine count to fall back to baseline
// (the connection's goroutines end once the agent's stdout is closed).
// The agent is a child process whose exit the test cannot wait on here:
// the deadline is generous, for a busy machine; a leak never ends.
func checkGoroutines(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines after Stop, %d before Start:\n%s", runtime.NumGoroutine(), baseline, buf[:runtime.Stack(buf, true)])
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkWireServers checks the mcpServers of every request as the agent
// received them: exactly the entries, with empty lists and never null.
func checkWireServers(t *testing.T, params []json.RawMessage, want []map[string]any) {
	t.Helper()
	if len(params) == 0 {
		t.Fatal("no request on the wire")
	}
	for _, p := range params {
		var got struct {
			McpServers *[]map[string]any `json:"mcpServers"`
		}
		if err := json.Unmarshal(p, &got); err != nil {
			t.Fatal(err)
		}
		if got.McpServers == nil {
			t.Fatalf("mcpServers missing or null: %s", p)
		}
		if diff := cmp.Diff(want, *got.McpServers); diff != "" {
			t.Errorf("mcpServers on the wire (-want +got):\n%s\nraw: %s", diff, p)
		}
	}
}

// A previous session from another agent process is reopened according to
// the capabilities of the new one.
func TestReopen(t *testing.T) {
	tests := []struct {
		name        string
		flags       []string
		wantHow     How
		wantMethod  string // session/resume or session/load on the wire, "" for none
		wantRefusal *Refusal
	}{
		{name: "resume advertised: resumed", flags: []string{"-resume", "-load"}, wantHow: HowResumed, wantMethod: "session/resume"},
		{name: "no resume, load advertised: loaded", flags: []string{"-load"}, wantHow: HowLoaded, wantMethod: "session/load"},
		{name: "loaded, history replayed after the answer", flags: []string{"-load", "-replay-late"}, wantHow: HowLoaded, wantMethod: "session/load"},
		{name: "neither advertised: new", flags: nil, wantHow: HowNew, wantRefusal: &Refusal{}},
		{name: "resume refused with -32002: new", flags: []string{"-resume", "-refuse"}, wantHow: HowNew, wantMethod: "session/resume",
			wantRefusal: &Refusal{Method: "session/resume", Code: CodeResourceNotFound}},
		{name: "load refused with -32002: new", flags: []string{"-load", "-refuse"}, wantHow: HowNew, wantMethod: "session/load",
			wantRefusal: &Refusal{Method: "session/load", Code: CodeResourceNotFound}},
		{name: "resume hangs: timeout, new", flags: []string{"-resume", "-hang-resume"}, wantHow: HowNew, wantMethod: "session/resume",
			wantRefusal: &Refusal{Method: "session/resume", Timeout: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Agent and server processes, a Vault of their own; the time
			// bounds are generous.
			t.Parallel()
			f := newFixture(t)
			// Turn 1 in a first agent process, which then exits.
			first := f.start(AgentOptions{})
			plan, srv := f.plan(false, "notes")
			res := turn(t, first, TurnRequest{Plan: plan, Server: srv, Prompt: "attention",
				Displayed: nil})
			if err := first.Stop(); err != nil {
				t.Fatal(err)
			}
			prev := res.Record
			displayed := []Message{{RoleUser, "attention"}, {RoleAgent, "First answer about attention and recurrence."}, {RoleUser, "recurrence"}}

			// Turn 2 in a new process with the capabilities under test.
			a := f.start(AgentOptions{ResumeTimeout: time.Second}, tt.flags...)
			plan2, srv2 := f.plan(false, "notes")
			var updates []Update
			start := time.Now()
			res2 := turn(t, a, TurnRequest{Prev: &prev, Plan: plan2, Server: srv2, Prompt: "recurrence", Displayed: displayed,
				OnUpdate: func(u Update) { updates = append(updates, u) }})
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("turn took %v", elapsed)
			}
			if res2.How != tt.wantHow {
				t.Errorf("how = %s, want %s", res2.How, tt.wantHow)
			}
			f.checkSources(res2)

			got := res2.Refusal
			if got != nil {
				got = &Refusal{Method: got.Method, Code: got.Code, Timeout: got.Timeout}
			}
			if diff := cmp.Diff(tt.wantRefusal, got); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
			refused := tt.wantRefusal != nil
			if res2.Previous == nil || res2.Previous.Refused != refused || res2.Previous.SessionID != prev.SessionID {
				t.Errorf("previous record = %+v, want refused=%v", res2.Previous, refused)
			}
			if refused {
				if res2.Record.SessionID == prev.SessionID {
					t.Errorf("refused session id kept")
				}
				// A new session replacing the old one gets the hand-off once.
				if !strings.Contains(res2.Handoff, "First answer about attention") || strings.Count(f.lastEvent("prompt").Prompt, HandoffHeader) != 1 {
					t.Errorf("hand-off missing from the new session's prompt:\n%s", f.lastEvent("prompt").Prompt)
				}
				// The refused record is never resumed again.
				if d := Decide(res2.Previous, plan2); d.Action != ActionNew {
					t.Errorf("refused record decided %s", d.Action)
				}
			} else {
				if res2.Record.SessionID != prev.SessionID || res2.Handoff != "" {
					t.Errorf("reopened as %s with hand-off %q", res2.Record.SessionID, res2.Handoff)
				}
				if strings.Contains(f.lastEvent("prompt").Prompt, HandoffHeader) {
					t.Errorf("hand-off sent to a continued session")
				}
			}
			// The server is attached on whichever request reopened the
			// session, and on the fallback session/new.
			wantEntry := map[string]any{"name": "agentero-context", "command": srv2.Command, "args": []any{srv2.Args[0], srv2.Args[1]}, "env": []any{}}
			if tt.wantMethod != "" {
				checkWireServers(t, f.wireParams(tt.wantMethod), []map[string]any{wantEntry})
			}
			if tt.wantHow == HowNew {
				checkWireServers(t, f.wireParams("session/new"), []map[string]any{wantEntry})
			} else {
				ev := f.lastEvent(tt.wantMethod)
				if diff := cmp.Diff(allTools, ev.Tools); diff != "" {
					t.Errorf("tools after %s (-want +got):\n%s", tt.wantMethod, diff)
				}
			}
			// History replayed by session/load is not streamed as new
			// output, nor counted among the turn's tool calls, even when
			// the agent replays it after answering.
			for _, u := range updates {
				if strings.Contains(u.Text, "REPLAYED") {
					t.Errorf("replayed history streamed: %+v", u)
				}
			}
			for _, c := range res2.ToolCalls {
				if c.ID == "replayed-call" {
					t.Errorf("replayed tool call counted: %+v", c)
				}
			}
		})
	}
}

func TestFingerprintChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.start(AgentOptions{}, "-resume", "-close")
	plan, srv := f.plan(false, "notes")
	res := turn(t, a, TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	f.checkSources(res)
	old := res.Session

	// The user widens the scope: a new fingerprint.
	plan2, srv2 := f.plan(false, "notes", "other")
	if plan2.Fingerprint == plan.Fingerprint {
		t.Fatal("wider scope, same fingerprint")
	}
	displayed := []Message{
		{RoleUser, "attention"},
		{RoleAgent, "Self-attention replaces recurrence in the Transformer."},
		{RoleUser, "graphs"},
	}
	res2 := turn(t, a, TurnRequest{Prev: &res.Record, Plan: plan2, Server: srv2, Prompt: "graphs", Displayed: displayed})
	if res2.How != HowNew || res2.Record.SessionID == res.Record.SessionID {
		t.Fatalf("scope change: how %s, session %s (old %s)", res2.How, res2.Record.SessionID, res.Record.SessionID)
	}
	if res2.Previous == nil || !res2.Previous.Refused || !old.Refused() {
		t.Errorf("old session not marked refused: record %+v, session refused %v", res2.Previous, old.Refused())
	}
	if res2.Record.Fingerprint != plan2.Fingerprint {
		t.Errorf("new record fingerprint %s, want %s", res2.Record.Fingerprint, plan2.Fingerprint)
	}
	f.checkSources(res2)
	prompt := f.lastEvent("prompt").Prompt
	if strings.Count(prompt, HandoffHeader) != 1 || strings.Count(prompt, "Self-attention replaces recurrence") != 1 {
		t.Errorf("hand-off not present exactly once:\n%s", prompt)
	}
	if strings.Count(prompt, "graphs") != strings.Count(plan2.Prompt(), "graphs")+1 {
		t.Errorf("the current message is pasted twice:\n%s", prompt)
	}
	// The old session was closed (the agent advertises close), so its
	// server is gone with it.
	if ev := f.lastEvent("session/close"); ev.SessionID != res.Record.SessionID {
		t.Errorf("closed %s, want %s", ev.SessionID, res.Record.SessionID)
	}
	// The old session never goes to the warm pool.
	var pool WarmPool
	if err := pool.Put(old); !errors.Is(err, ErrPoolRefused) && !errors.Is(err, ErrPoolServer) {
		t.Errorf("Put(old) = %v", err)
	}

	// Next turn, same wider scope: continues without a second hand-off.
	plan3, srv3 := f.plan(false, "notes", "other")
	res3 := turn(t, a, TurnRequest{Prev: &res2.Record, Plan: plan3, Server: srv3, Prompt: "attention", Displayed: append(displayed, Message{RoleAgent, "x"})})
	if res3.How != HowLive || res3.Handoff != "" {
		t.Errorf("third turn: how %s, hand-off %q", res3.How, res3.Handoff)
	}
	if strings.Contains(f.lastEvent("prompt").Prompt, HandoffHeader) {
		t.Errorf("hand-off sent twice")
	}
	f.checkSources(res3)
}

func TestPromptOnlyTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.start(AgentOptions{}, "-resume")
	var pool WarmPool
	ctx := context.Background()

	warm, err := a.Warm(ctx, f.vault)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Put(warm); err != nil {
		t.Fatal(err)
	}

	// An mcp turn never takes the warm session.
	plan, srv := f.plan(false, "notes")
	res := turn(t, a, TurnRequest{Plan: plan, Server: srv, Prompt: "attention", Pool: &pool})
	if res.How != HowNew || pool.Len() != 1 {
		t.Errorf("mcp turn: how %s, pool %d", res.How, pool.Len())
	}
	if err := pool.Put(res.Session); !errors.Is(err, ErrPoolServer) {
		t.Errorf("Put(session with server) = %v, want ErrPoolServer", err)
	}

	// A remote turn is prompt-only: the warm session serves it, no server.
	plan2, srv2 := f.plan(true, "notes")
	if plan2.Mode != grant.ModePromptOnly {
		t.Fatalf("mode %s", plan2.Mode)
	}
	res2 := turn(t, a, TurnRequest{Prev: &res.Record, Plan: plan2, Server: srv2, Prompt: "what is attention?", Pool: &pool})
	if res2.How != HowWarm || res2.Session != warm || pool.Len() != 0 {
		t.Errorf("prompt-only turn: how %s, pool %d", res2.How, pool.Len())
	}
	if res2.Sources == nil || len(res2.Sources) != 0 {
		t.Errorf("prompt-only sources = %#v, want empty", res2.Sources)
	}
	p := f.lastEvent("prompt")
	// No evidence in this turn: the notice has nothing "above" to point at.
	if !strings.Contains(p.Prompt, researchctx.NoContextLine) {
		t.Errorf("prompt-only prompt lacks the no-context line:\n%s", p.Prompt)
	}
	if len(p.URIs) != 0 {
		t.Errorf("agent read %v in a prompt-only turn", p.URIs)
	}
	// The warm session was created with an empty list, not null.
	checkWireServers(t, f.wireParams("session/new")[:1], []map[string]any{})

	// A prompt-only turn without a warm session opens one without server.
	res3 := turn(t, a, TurnRequest{Prev: &res2.Record, Plan: plan2, Server: Server{}, Prompt: "more", Pool: &pool})
	if res3.How != HowLive {
		t.Errorf("same prompt-only scope: how %s", res3.How)
	}
	if err := pool.Put(res3.Session); err != nil {
		t.Errorf("Put(prompt-only session) = %v", err)
	}
	other, err := a.Warm(ctx, f.vault)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Put(other); !errors.Is(err, ErrPoolOccupied) {
		t.Errorf("second warm session for the same agent and cwd: %v, want ErrPoolOccupied", err)
	}
	// The mcp scope comes back: a new session with the server; the pooled
	// session, now left behind, is refused and never handed out again.
	plan4, srv4 := f.plan(false, "notes")
	res4 := turn(t, a, TurnRequest{Prev: &res3.Record, Plan: plan4, Server: srv4, Prompt: "attention", Pool: &pool})
	if res4.How != HowNew || !res4.Session.HasServer() {
		t.Errorf("back to mcp: how %s", res4.How)
	}
	f.checkSources(res4)
	if s := pool.Take(PoolKey{Agent: a.Name(), Cwd: f.vault}, plan2); s != nil {
		t.Errorf("refused session handed out of the pool")
	}
	if err := pool.Put(res3.Session); !errors.Is(err, ErrPoolRefused) {
		t.Errorf("Put(refused) = %v, want ErrPoolRefused", err)
	}
}

func TestStartErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Start(ctx, AgentOptions{}); !errors.Is(err, ErrAgent) {
		t.Errorf("no command: %v", err)
	}
	if _, err := Start(ctx, AgentOptions{Command: filepath.Join(t.TempDir(), "missing")}); !errors.Is(err, ErrAgent) {
		t.Errorf("missing command: %v", err)
	}
	// A process that never speaks ACP and ignores SIGTERM, with a child
	// that ignores it too: initialize times out, and the whole group is
	// killed before Start returns.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	_, err = Start(ctx, AgentOptions{
		Command:     sh,
		Args:        []string{"-c", "echo $$ > " + pidFile + "; trap '' TERM; (trap '' TERM; sleep 60) & sleep 60"},
		InitTimeout: 300 * time.Millisecond,
		StopTimeout: 300 * time.Millisecond,
	})
	if !errors.Is(err, ErrAgent) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("silent agent: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("silent agent took %v", d)
	}
	data, rerr := os.ReadFile(pidFile)
	var pid int
	if _, serr := fmt.Sscan(string(data), &pid); rerr != nil || serr != nil || pid <= 0 {
		t.Fatalf("pid file: %q %v %v", data, rerr, serr)
	}
	if groupAlive(pid) {
		t.Errorf("process group %d of the silent agent is alive", pid)
	}
	// A process that exits at once.
	if _, err := Start(ctx, AgentOptions{Command: sh, Args: []string{"-c", "exit 3"}}); !errors.Is(err, ErrStopped) {
		t.Errorf("exiting agent: %v, want ErrStopped", err)
	}
}

func TestTurnErrors(t *testing.T) {
	f := newFixture(t)
	a := f.start(AgentOptions{}, "-hang-prompt")
	if _, err := a.Warm(context.Background(), "relative"); !errors.Is(err, ErrTurn) {
		t.Errorf("relative cwd: %v", err)
	}
	if _, err := a.Turn(context.Background(), TurnRequest{}); !errors.Is(err, ErrTurn) {
		t.Errorf("no plan: %v", err)
	}
	plan, _ := f.plan(false, "notes")
	if _, err := a.Turn(context.Background(), TurnRequest{Plan: plan, Server: Server{Command: "quickchat"}}); !errors.Is(err, ErrServer) {
		t.Errorf("relative server command: %v", err)
	}
	// A prompt that never ends is cancelled with the caller's context
	// (session/cancel, answered with the stop reason cancelled); the
	// session and its record are still returned.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := a.Turn(ctx, TurnRequest{Plan: plan, Server: Server{Command: f.server, Args: []string{"--agentero-context-mcp", "grant"}}, Prompt: "x"})
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hanging prompt: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("hanging prompt returned after %v", d)
	}
	if res == nil || res.Record.SessionID == "" || res.Record.Fingerprint != plan.Fingerprint {
		t.Errorf("hanging prompt result: %+v", res)
	}
}
