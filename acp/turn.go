package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	researchctx "github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/usage"
)

// UpdateKind is the kind of a streamed session update.
type UpdateKind string

// The kinds of streamed update. Tool calls are folded whatever route the
// agent reports them by (a tool_call update, a tool_call_update for an id
// not seen before, or the tool call of a permission request): each call
// gives one UpdateToolCall, any number of UpdateToolCallUpdate, and one
// UpdateToolCallEnd, each with the call's state in Update.Call.
const (
	UpdateMessage        UpdateKind = "message"          // a chunk of the agent's answer
	UpdateThought        UpdateKind = "thought"          // a chunk of the agent's reasoning
	UpdateToolCall       UpdateKind = "tool_call"        // a tool call started (first report of its id)
	UpdateToolCallUpdate UpdateKind = "tool_call_update" // a tool call progressed
	UpdateToolCallEnd    UpdateKind = "tool_call_end"    // a tool call ended (completed, failed, denied, or the turn ended)
	UpdateStatus         UpdateKind = "status"           // the agent's status: a retry, an error it reports
	UpdateOther          UpdateKind = "other"            // plans, modes, commands, usage...
)

// Update is one streamed session update of a turn, flattened for display.
type Update struct {
	Kind       UpdateKind
	Text       string // the chunk (message, thought), the tool call's title, or the status line
	ToolCallID string
	Status     CallStatus // tool call status, when known
	Call       *ToolCall  // the tool call's state after this update (tool call kinds only)
	Raw        sdk.SessionUpdate
}

// TurnRequest is one turn.
type TurnRequest struct {
	// Prev is the conversation's session record; nil on the first turn.
	Prev *Record
	// Plan is the resolved plan of the turn; its Vault is the session cwd,
	// its evidence block goes into the prompt.
	Plan *researchctx.Plan
	// Server starts the agentero-context MCP server; required when the
	// plan is in mcp mode.
	Server Server
	// Prompt is the user's message.
	Prompt string
	// Displayed is the conversation the sidebar shows, for the hand-off to
	// a new session.
	Displayed []Message
	// Pool, when set, may serve a prompt-only turn with a warm session.
	Pool *WarmPool
	// OnUpdate, when set, receives the turn's streamed updates in order,
	// one at a time. Updates replayed by session/load are not passed on.
	OnUpdate func(Update)
	// Timeout overrides AgentOptions.TurnTimeout for this turn.
	Timeout time.Duration
}

// TurnResult is what a turn did.
type TurnResult struct {
	Decision Decision
	How      How
	// Session is the session the turn ran in. The host keeps it, or puts
	// it in a WarmPool (which refuses sessions with the server).
	Session *Session
	// Record is the record to keep for the next turn.
	Record Record
	// Previous is the previous record as it must now be kept (Refused set
	// when it was left behind), nil when there was none.
	Previous *Record
	// Refusal says why a resume or load failed, nil when none did.
	Refusal *Refusal
	// Handoff is the hand-over block sent at the top of the prompt, or "".
	Handoff string
	// StopReason is the agent's reason for ending the turn.
	StopReason string
	// Sources are the citation URIs the agent received in this turn, in
	// order of first use (from usage.jsonl); empty, never nil.
	Sources []string
	// Usage is the whole usage of the turn.
	Usage usage.Turn
	// ToolCalls are the turn's tool calls in order of first report, in
	// their final state; empty, never nil.
	ToolCalls []ToolCall
	// SessionMode says how the session mode was pinned.
	SessionMode SessionModeReport
	// Guard says whether the agent is kept to the agentero-context tools
	// in this turn. When it is not, a warning goes to AgentOptions.Logger
	// and the host should show the Problem; with AgentOptions.RequireGuard
	// the turn is refused with ErrUnguarded before the prompt is sent.
	Guard Guard
	// Cancelled is set when the turn was cancelled (by the caller or the
	// turn timeout); StopReason is "cancelled" when the agent confirmed.
	Cancelled bool
}

// ErrCancelled is wrapped by the error of a turn that was cancelled by the
// caller's context or the turn timeout. The result is still returned: the
// session and its record stay valid and resumable.
var ErrCancelled = errors.New("turn cancelled")

// ErrTurn is wrapped by errors about a malformed TurnRequest.
var ErrTurn = errors.New("invalid turn")

// Turn runs one turn: it decides (Decide), gets the session — the live one,
// else session/resume when advertised, else session/load when advertised,
// each within ResumeTimeout and falling back to session/new on any error or
// timeout (a refusal) — attaches the agentero-context server on whichever
// of these it sends when the plan is in mcp mode, sends the prompt (the
// hand-over block once for a new session that replaces an old one, the
// plan's evidence block, then the user's message), and at the end reads the
// turn's sources from usage.jsonl.
//
// When the prompt itself fails, Turn returns the result so far (the session
// and its record are valid) with the error. Turns of different sessions may
// run at once; a session runs one turn at a time.
func (a *Agent) Turn(ctx context.Context, req TurnRequest) (*TurnResult, error) {
	plan := req.Plan
	if plan == nil {
		return nil, fmt.Errorf("%w: no plan", ErrTurn)
	}
	if plan.Vault == "" {
		return nil, fmt.Errorf("%w: plan has no vault", ErrTurn)
	}
	if err := a.checkRunning(); err != nil {
		return nil, err
	}
	d := Decide(req.Prev, plan)
	servers, err := d.McpServers(req.Server)
	if err != nil {
		return nil, err
	}
	cwd := plan.Vault
	res := &TurnResult{Decision: d, Sources: []string{}}
	if req.Prev != nil {
		p := *req.Prev
		res.Previous = &p
	}
	leaveBehind := func() {
		res.Previous.Refused = true
		a.forget(ctx, res.Previous.SessionID)
	}
	if d.MarkRefused && res.Previous != nil && res.Previous.SessionID != "" {
		leaveBehind()
	}

	var s *Session
	switch {
	case d.Action == ActionResume:
		if live := a.live(d.ResumeID); live != nil && !live.Refused() && live.server == d.AttachServer {
			s, res.How = live, HowLive
			break
		}
		var refusal *Refusal
		s, res.How, refusal, err = a.reopen(ctx, d.ResumeID, cwd, servers)
		if err != nil {
			return nil, err
		}
		if refusal != nil {
			res.Refusal = refusal
			leaveBehind()
		}
	case d.UseWarmPool && req.Pool != nil:
		if w := req.Pool.Take(PoolKey{Agent: a.cfg.Name, Cwd: cwd}, plan); w != nil {
			if w.agent == a && !w.server {
				s, res.How = w, HowWarm
			} else {
				_ = req.Pool.Put(w) // not ours to use: leave it for its agent
			}
		}
	}
	if s == nil {
		s, err = a.newSession(ctx, cwd, servers)
		if err != nil {
			return nil, err
		}
		res.How = HowNew
	}
	s.mu.Lock()
	s.fingerprint = plan.Fingerprint
	s.mu.Unlock()
	res.Session = s
	res.Record = s.Record()

	body := joinBlocks(plan.Prompt(), strings.TrimSpace(req.Prompt))
	if (res.How == HowNew || res.How == HowWarm) && res.Previous != nil && res.Previous.SessionID != "" {
		res.Handoff = Handoff(req.Displayed, body)
	}
	text := joinBlocks(res.Handoff, body)

	res.SessionMode = a.pinMode(ctx, s)
	res.Guard = a.turnGuard(res.SessionMode)
	if !res.Guard.Kept && a.cfg.RequireGuard {
		res.ToolCalls = []ToolCall{}
		return res, fmt.Errorf("%w: %s", ErrUnguarded, res.Guard.Problem)
	}

	if !res.Guard.Kept {
		a.logger().Warn(guardWarning(res.Guard), "agent", res.Guard.Agent, "session", string(s.id))
	}

	tr := newTracker(req.OnUpdate)
	a.client.setTracker(s.id, tr)
	defer a.client.setTracker(s.id, nil)
	timeout := a.cfg.TurnTimeout
	if req.Timeout > 0 {
		timeout = req.Timeout
	}
	resp, cause, err := a.prompt(ctx, s.id, text, timeout, tr.cancel)
	res.StopReason = string(resp.StopReason)
	res.Cancelled = cause != nil
	endStatus := StatusUnfinished
	if res.Cancelled {
		endStatus = StatusCancelled
	}
	if err == nil && d.AttachServer {
		gp, gerr := grant.Path(plan.Vault, plan.RuntimeID)
		if gerr != nil {
			err = gerr
		} else if u, uerr := usage.Read(grant.UsagePath(gp), plan.TurnID, &plan.Scope); uerr != nil {
			err = uerr
		} else {
			res.Usage = u
			res.Sources = append(res.Sources, u.URIs()...)
		}
	}
	res.ToolCalls = tr.finish(res.Usage.Lines, endStatus)
	if err != nil {
		return res, err
	}
	return res, nil
}

// prompt sends session/prompt and waits for its answer. When ctx ends or
// the timeout passes first, it calls onCancel (pending permission requests
// are then answered cancelled), sends session/cancel (ACP's cancellation,
// which the agent answers with the stop reason cancelled) and waits up to
// CancelWait for that answer before giving up on the request. cause is the
// reason of a cancellation, nil when the turn was not cancelled.
func (a *Agent) prompt(ctx context.Context, id sdk.SessionId, text string, timeout time.Duration, onCancel func()) (resp sdk.PromptResponse, cause, err error) {
	// The request's own context is not the caller's: cancelling it would
	// make the SDK drop the request (and send $/cancel_request) before the
	// agent has confirmed the cancellation.
	pctx, pcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer pcancel()
	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := a.conn.Prompt(pctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		done <- answer{r, err}
	}()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case r := <-done:
		if r.err != nil {
			return r.resp, nil, a.callError(ctx, pctx, "session/prompt", r.err)
		}
		return r.resp, nil, nil
	case <-ctx.Done():
		cause = context.Cause(ctx)
	case <-expired:
		cause = fmt.Errorf("no answer within the turn timeout of %v: %w", timeout, context.DeadlineExceeded)
	}
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.CancelWait)
	defer ccancel()
	onCancel()
	if cerr := a.conn.Cancel(cctx, sdk.CancelNotification{SessionId: id}); cerr != nil {
		if err := a.checkRunning(); err != nil {
			return resp, cause, err
		}
	}
	select {
	case r := <-done:
		if r.err == nil {
			if r.resp.StopReason == sdk.StopReasonCancelled {
				return r.resp, cause, fmt.Errorf("%w: %w", ErrCancelled, cause)
			}
			// The agent finished the turn before it saw the cancel.
			return r.resp, cause, fmt.Errorf("%w: %w (the agent ended the turn with %s)", ErrCancelled, cause, r.resp.StopReason)
		}
		if err := a.checkRunning(); err != nil {
			return r.resp, cause, err
		}
		return r.resp, cause, fmt.Errorf("%w: %w (the agent answered the cancel with an error: %v)", ErrCancelled, cause, r.err)
	case <-cctx.Done():
		pcancel()
		return resp, cause, fmt.Errorf("%w: %w (the agent did not confirm within %v)", ErrCancelled, cause, a.cfg.CancelWait)
	case <-a.conn.Done():
		return resp, cause, fmt.Errorf("%w: session/prompt: %s exited or closed its connection", ErrStopped, a.cfg.Name)
	}
}

// joinBlocks joins the non-empty blocks with a blank line.
func joinBlocks(blocks ...string) string {
	var out []string
	for _, b := range blocks {
		if b = strings.TrimRight(b, "\n"); strings.TrimSpace(b) != "" {
			out = append(out, b)
		}
	}
	return strings.Join(out, "\n\n")
}
