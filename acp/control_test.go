package acp

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx/grant"
)

// recorder keeps a turn's streamed updates.
type recorder struct {
	mu sync.Mutex
	us []Update
}

func (r *recorder) add(u Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.us = append(r.us, u)
}

func (r *recorder) all() []Update {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.us)
}

// checkCallEvents checks that every tool call streamed exactly one start
// first and one end last, and that the end's state is the call's final
// state in the result.
func checkCallEvents(t *testing.T, us []Update, calls []ToolCall) {
	t.Helper()
	byID := map[string][]Update{}
	var order []string
	for _, u := range us {
		switch u.Kind {
		case UpdateToolCall, UpdateToolCallUpdate, UpdateToolCallEnd:
			if u.Call == nil || u.Call.ID != u.ToolCallID {
				t.Fatalf("tool call update without its call: %+v", u)
			}
			if byID[u.ToolCallID] == nil {
				order = append(order, u.ToolCallID)
			}
			byID[u.ToolCallID] = append(byID[u.ToolCallID], u)
		}
	}
	if len(order) != len(calls) {
		t.Fatalf("%d calls streamed, %d in the result", len(order), len(calls))
	}
	for i, c := range calls {
		evs := byID[c.ID]
		if order[i] != c.ID {
			t.Errorf("call %d is %s in the result, %s in the stream", i, c.ID, order[i])
		}
		if evs[0].Kind != UpdateToolCall || evs[len(evs)-1].Kind != UpdateToolCallEnd {
			t.Errorf("call %s: first %s, last %s", c.ID, evs[0].Kind, evs[len(evs)-1].Kind)
		}
		starts, ends := 0, 0
		for _, e := range evs {
			switch e.Kind {
			case UpdateToolCall:
				starts++
			case UpdateToolCallEnd:
				ends++
			}
		}
		if starts != 1 || ends != 1 {
			t.Errorf("call %s: %d starts, %d ends", c.ID, starts, ends)
		}
		if diff := cmp.Diff(c, *evs[len(evs)-1].Call); diff != "" {
			t.Errorf("call %s: end event differs from the result (-result +event):\n%s", c.ID, diff)
		}
	}
}

// TestPolicyEndToEnd runs a turn with a test agent that asks permission as
// Claude Code or gemini-cli do and first sends every recorded request of
// that agent, hostile ones included: only our tools run, the session mode
// is pinned to default, every call streams as start…end, and our calls
// carry the URIs they returned.
func TestPolicyEndToEnd(t *testing.T) {
	t.Parallel()
	for _, agent := range []struct{ shape, fixture string }{{"claude", "claude-code"}, {"gemini", "gemini-cli"}} {
		t.Run(agent.fixture, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			fixture, err := filepath.Abs(filepath.Join("testdata", "permissions", agent.fixture+".json"))
			if err != nil {
				t.Fatal(err)
			}
			a := f.start(AgentOptions{}, "-shape", agent.shape, "-modes", "-permissions", fixture)
			plan, srv := f.plan(false, "notes")
			var rec recorder
			res := turn(t, a, TurnRequest{Plan: plan, Server: srv, Prompt: "attention", OnUpdate: rec.add})
			f.checkSources(res)

			if want := (SessionModeReport{Want: "default", Current: "default", Available: []string{"default", "auto"}, Set: true}); !cmp.Equal(res.SessionMode, want) {
				t.Errorf("mode %+v, want %+v", res.SessionMode, want)
			}
			if ev := f.lastEvent("session/set_mode"); ev.Mode != "default" || ev.SessionID != res.Record.SessionID {
				t.Errorf("set_mode event %+v", ev)
			}

			// What ran: the fixture's calls of our tools and our own two
			// calls; no hostile one.
			var fx permissionFixture
			for _, x := range readFixtures(t) {
				if x.Agent == agent.fixture {
					fx = x
				}
			}
			var wantRan []string
			for _, r := range fx.Requests {
				if r.Want == "allow" {
					wantRan = append(wantRan, r.Name)
				}
			}
			var ran []string
			for _, e := range f.events() {
				if e.Event == "ran" {
					ran = append(ran, e.CallID)
				}
			}
			if diff := cmp.Diff(wantRan, ran); diff != "" {
				t.Errorf("calls the agent ran (-want +got):\n%s", diff)
			}

			// The result: every fixture call, then our two.
			calls := res.ToolCalls
			if len(calls) != len(fx.Requests)+2 {
				t.Fatalf("%d tool calls, want %d: %+v", len(calls), len(fx.Requests)+2, calls)
			}
			for i, r := range fx.Requests {
				c := calls[i]
				if c.ID != string(r.Request.ToolCall.ToolCallId) {
					t.Errorf("call %d id %s, want %s", i, c.ID, r.Request.ToolCall.ToolCallId)
				}
				switch r.Want {
				case "allow":
					if !c.Ours || c.Tool != r.Tool || c.Permission != "allowed" || c.Status != "completed" {
						t.Errorf("%s: %+v", r.Name, c)
					}
				case "deny":
					if c.Ours || c.Permission != "denied" || c.Status != StatusDenied {
						t.Errorf("%s: %+v", r.Name, c)
					}
				}
			}
			ours := calls[len(fx.Requests):]
			for i, tool := range []string{grant.ToolSearch, grant.ToolRead} {
				c := ours[i]
				if !c.Ours || c.Tool != tool || c.Server != grant.ServerName || c.Status != "completed" || c.Permission != "allowed" || len(c.Args) == 0 {
					t.Errorf("our call %d: %+v", i, c)
				}
				// The URIs from the call's output are the ones the server
				// logged for it.
				if diff := cmp.Diff(res.Usage.Lines[i].URIs, c.URIs); diff != "" || len(c.URIs) == 0 {
					t.Errorf("%s URIs (-usage +event):\n%s", tool, diff)
				}
			}
			checkCallEvents(t, rec.all(), calls)
		})
	}
}

// Without the pinned mode, an agent in its auto mode never asks: the
// hostile calls run. This is why Turn pins the mode.
func TestKeepModeRunsUnasked(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fixture, _ := filepath.Abs(filepath.Join("testdata", "permissions", "claude-code.json"))
	a := f.start(AgentOptions{KeepSessionMode: true}, "-shape", "claude", "-modes", "-permissions", fixture)
	plan, srv := f.plan(false, "notes")
	res := turn(t, a, TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if res.SessionMode.Want != "" || res.SessionMode.Current != "auto" || res.SessionMode.Set {
		t.Errorf("mode %+v", res.SessionMode)
	}
	if f.count("ran") <= 2 || f.count("permission") != 0 {
		t.Errorf("auto mode: %d ran, %d asked", f.count("ran"), f.count("permission"))
	}
}

// An agent that offers no session modes: the turn runs and says so.
func TestNoModes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.start(AgentOptions{}, "-shape", "gemini")
	plan, srv := f.plan(false, "notes")
	res := turn(t, a, TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if res.SessionMode.Problem != "the agent offers no session modes" || res.SessionMode.Set {
		t.Errorf("mode %+v", res.SessionMode)
	}
	f.checkSources(res)
	if a.cfg.SessionMode != DefaultSessionMode {
		t.Errorf("mode config %q", a.cfg.SessionMode)
	}
	a2 := f.start(AgentOptions{SessionMode: "plan"}, "-modes")
	res2 := turn(t, a2, TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if !strings.Contains(res2.SessionMode.Problem, `no mode "plan"`) || res2.SessionMode.Current != "auto" {
		t.Errorf("unknown mode: %+v", res2.SessionMode)
	}
}

// An agent that does not forward tool output: our calls get their URIs
// from usage.jsonl at the end of the turn.
func TestCallURIsFromUsage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.start(AgentOptions{}, "-shape", "gemini", "-no-output")
	plan, srv := f.plan(false, "notes")
	var rec recorder
	res := turn(t, a, TurnRequest{Plan: plan, Server: srv, Prompt: "attention", OnUpdate: rec.add})
	f.checkSources(res)
	if len(res.ToolCalls) != 2 || len(res.Usage.Lines) != 2 {
		t.Fatalf("calls %+v, usage lines %d", res.ToolCalls, len(res.Usage.Lines))
	}
	for i, c := range res.ToolCalls {
		if diff := cmp.Diff(res.Usage.Lines[i].URIs, c.URIs); diff != "" || len(c.URIs) == 0 {
			t.Errorf("call %d URIs (-usage +call):\n%s", i, diff)
		}
	}
	// While the turn ran, the ends carried no URIs; the result has them.
	checkCallEventsLoose(t, rec.all(), res.ToolCalls)
}

// checkCallEventsLoose checks start…end per call without comparing the
// final state (URIs filled in after the end event). Calls may interleave:
// the SDK does not order a permission request after an earlier
// notification.
func checkCallEventsLoose(t *testing.T, us []Update, calls []ToolCall) {
	t.Helper()
	got := map[string][]string{}
	for _, u := range us {
		if u.Call != nil {
			got[u.ToolCallID] = append(got[u.ToolCallID], string(u.Kind))
		}
	}
	if len(got) != len(calls) {
		t.Errorf("%d calls streamed, %d in the result", len(got), len(calls))
	}
	for _, c := range calls {
		evs := got[c.ID]
		if len(evs) < 2 || evs[0] != string(UpdateToolCall) || evs[len(evs)-1] != string(UpdateToolCallEnd) {
			t.Errorf("call %s events %v", c.ID, evs)
		}
	}
}

// waitEvent waits for the test agent to report an event.
func (f *fixture) waitEvent(kind string) { f.t.Helper(); f.waitEvents(kind, 1) }

// waitEvents waits for the test agent to report n events of a kind. The
// agent logs a notification (session/cancel) in its handler, which the
// SDK may run after the prompt it cancelled has already been answered.
// The report is a file the agent's process appends to, with nothing in
// this process to wait on: it is read again every 10 ms.
func (f *fixture) waitEvents(kind string, n int) {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for f.count(kind) < n {
		if time.Now().After(deadline) {
			f.t.Fatalf("%d %s events, want %d", f.count(kind), kind, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCancel: the caller cancels a running turn; the host sends
// session/cancel (not only a JSON-RPC request cancel), the agent answers
// the prompt with the stop reason cancelled, and the session goes on.
func TestCancel(t *testing.T) {
	f := newFixture(t)
	a := f.start(AgentOptions{}, "-hang-prompt", "-resume")
	plan, srv := f.plan(false, "notes")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		f.waitEvent("prompt hang")
		cancel()
	}()
	start := time.Now()
	res, err := a.Turn(ctx, TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Turn: %v, want ErrCancelled and context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if res == nil || !res.Cancelled || res.StopReason != "cancelled" || res.Record.SessionID == "" || res.Record.Refused {
		t.Fatalf("result %+v", res)
	}
	f.waitEvents("session/cancel", 1)
	if f.count("session/cancel") != 1 || f.count("prompt cancelled") != 1 {
		t.Errorf("agent saw %d session/cancel, %d cancelled prompts", f.count("session/cancel"), f.count("prompt cancelled"))
	}
	if n := len(f.wireParams("$/cancel_request")); n != 0 {
		t.Errorf("%d $/cancel_request sent: the agent confirmed, nothing to drop", n)
	}

	// The session is still the conversation's: the next turn continues it,
	// and the turn timeout cancels it the same way.
	plan2, srv2 := f.plan(false, "notes")
	res2, err := a.Turn(context.Background(), TurnRequest{Prev: &res.Record, Plan: plan2, Server: srv2, Prompt: "again", Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "turn timeout") {
		t.Fatalf("timed-out turn: %v", err)
	}
	if res2.How != HowLive || res2.Record.SessionID != res.Record.SessionID || res2.StopReason != "cancelled" {
		t.Errorf("second turn: how %s, session %s, stop %q", res2.How, res2.Record.SessionID, res2.StopReason)
	}
	f.waitEvents("session/cancel", 2)
}

// An agent that never confirms a cancel: the wait is bounded by CancelWait.
func TestCancelUnconfirmed(t *testing.T) {
	f := newFixture(t)
	a := f.start(AgentOptions{CancelWait: 300 * time.Millisecond, TurnTimeout: 200 * time.Millisecond}, "-hang-prompt", "-ignore-cancel")
	plan, srv := f.plan(false, "notes")
	start := time.Now()
	res, err := a.Turn(context.Background(), TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not confirm") {
		t.Fatalf("Turn: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("unconfirmed cancel took %v", d)
	}
	if res == nil || !res.Cancelled || res.StopReason != "" || res.Record.SessionID == "" {
		t.Errorf("result %+v", res)
	}
	f.waitEvent("session/cancel")
}

// The agent's retries (on stderr) and extension notifications stream as
// status events of the running turn.
func TestStatusEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var stderr bytes.Buffer
	a := f.start(AgentOptions{Stderr: &lockedWriter{w: &stderr}}, "-status")
	plan, srv := f.plan(false, "notes")
	var rec recorder
	res := turn(t, a, TurnRequest{Plan: plan, Server: srv, Prompt: "attention", OnUpdate: rec.add})
	f.checkSources(res)
	var status []string
	for _, u := range rec.all() {
		if u.Kind == UpdateStatus {
			status = append(status, u.Text)
		}
	}
	joined := strings.Join(status, "\n")
	if !strings.Contains(joined, "Attempt 1 failed with status 429. Retrying with backoff...") ||
		!strings.Contains(joined, "_test/status") || !strings.Contains(joined, "model overloaded, retrying") {
		t.Errorf("status events:\n%s", joined)
	}
}

// A refused load keeps the agent's message and data (gemini-cli 0.61.0
// refuses its own load after a restart with an internal error).
func TestRefusalMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.start(AgentOptions{})
	plan, srv := f.plan(false, "notes")
	res := turn(t, first, TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	a := f.start(AgentOptions{}, "-load", "-refuse-internal")
	plan2, srv2 := f.plan(false, "notes")
	res2 := turn(t, a, TurnRequest{Prev: &res.Record, Plan: plan2, Server: srv2, Prompt: "recurrence"})
	r := res2.Refusal
	if r == nil || r.Method != "session/load" || r.Code != -32603 || r.Message != "Internal error" {
		t.Fatalf("refusal %+v", r)
	}
	if diff := cmp.Diff(map[string]any{"details": "No previous sessions found for this project."}, r.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	want := `session/load: refused with code -32603: Internal error ({"details":"No previous sessions found for this project."})`
	if r.Error() != want {
		t.Errorf("refusal line %q, want %q", r.Error(), want)
	}
	if res2.How != HowNew {
		t.Errorf("how %s", res2.How)
	}
	f.checkSources(res2)
}

// A policy still deciding when the turn is cancelled (a host asking its
// user) is told through its context, and the agent gets the cancelled
// outcome, as ACP asks of a client after session/cancel.
func TestCancelPendingPermission(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	asked := make(chan struct{})
	policyErr := make(chan error, 1)
	a := f.start(AgentOptions{CancelWait: 5 * time.Second, Permission: func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		close(asked)
		<-ctx.Done()
		policyErr <- ctx.Err()
		return Answer(req, true), nil // too late: the turn was cancelled
	}}, "-shape", "claude")
	plan, srv := f.plan(false, "notes")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-asked
		cancel()
	}()
	res, err := a.Turn(ctx, TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("Turn: %v", err)
	}
	select {
	case perr := <-policyErr:
		if !errors.Is(perr, context.Canceled) {
			t.Errorf("policy context: %v", perr)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the policy was never told")
	}
	f.waitEvent("permission")
	if ev := f.lastEvent("permission"); ev.Outcome != "cancelled" {
		t.Errorf("the agent got %q, want cancelled", ev.Outcome)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Status != StatusDenied || res.ToolCalls[0].Permission != "denied" {
		t.Errorf("calls %+v", res.ToolCalls)
	}
	if f.count("prompt") != 1 || len(f.lastEvent("prompt").URIs) != 0 {
		t.Errorf("the agent read after the cancel: %+v", f.lastEvent("prompt"))
	}
}
