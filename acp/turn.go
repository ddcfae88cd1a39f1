package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	researchctx "github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/usage"
)

// JSON-RPC error codes after which a resume or load falls back to a new
// session. Any other error does too (docs/contract.md §8); these are the ones real
// agents send.
const (
	CodeMethodNotFound   = -32601 // the agent does not implement the method
	CodeResourceNotFound = -32002 // the agent does not know the session
	CodeAuthRequired     = -32000 // the agent wants authentication first
)

// How says how a turn got its session.
type How string

// The ways a turn gets its session.
const (
	HowLive    How = "live"    // the session was open on this connection
	HowResumed How = "resumed" // session/resume
	HowLoaded  How = "loaded"  // session/load
	HowNew     How = "new"     // session/new
	HowWarm    How = "warm"    // taken from the warm pool
)

// Refusal records why the previous session could not be continued; the
// turn fell back to a new session and the old one is refused for good.
type Refusal struct {
	Method  string // "session/resume" or "session/load"; empty if neither is advertised
	Code    int    // JSON-RPC error code, 0 if none
	Message string // the agent's error message, when it sent one
	Data    any    // the agent's error data, when it sent any
	Timeout bool   // no answer within ResumeTimeout
	Err     error  // the underlying error, nil if the agent supports neither
}

// Error describes the refusal in one line, with the agent's own message
// and data when it sent them.
func (r *Refusal) Error() string {
	switch {
	case r.Method == "":
		return "the agent can neither resume nor load sessions"
	case r.Timeout:
		return r.Method + ": no answer in time"
	case r.Code != 0:
		s := fmt.Sprintf("%s: refused with code %d", r.Method, r.Code)
		if r.Message != "" {
			s += ": " + r.Message
		}
		if d := dataText(r.Data); d != "" {
			s += " (" + d + ")"
		}
		return s
	}
	return fmt.Sprintf("%s: %v", r.Method, r.Err)
}

// dataText renders an error's data on one short line.
func dataText(v any) string {
	if v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		data, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		s = string(data)
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// Unwrap returns the agent's error, if any.
func (r *Refusal) Unwrap() error { return r.Err }

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
	Status     string    // tool call status, when known
	Call       *ToolCall // the tool call's state after this update (tool call kinds only)
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
	// Timeout overrides AgentConfig.TurnTimeout for this turn.
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
	// Mode says how the session mode was pinned.
	Mode ModeReport
	// Guard says whether the agent is kept to the agentero-context tools
	// in this turn. When it is not, a warning goes to AgentConfig.Logger
	// and the host should show the Problem; with AgentConfig.RequireGuard
	// the turn is refused with ErrUnguarded before the prompt is sent.
	Guard Guard
	// Cancelled is set when the turn was cancelled (by the caller or the
	// turn timeout); StopReason is "cancelled" when the agent confirmed.
	Cancelled bool
}

// ModeReport says how the session mode of a turn was pinned
// (AgentConfig.Mode).
type ModeReport struct {
	Want      string   `json:"want,omitempty"`      // the mode asked for; empty with KeepMode
	Current   string   `json:"current,omitempty"`   // the agent's mode when the prompt was sent
	Available []string `json:"available,omitempty"` // the modes the agent offers
	Set       bool     `json:"set,omitempty"`       // session/set_mode was sent and accepted
	// Problem says why the wanted mode is not in force: the agent offers
	// no session modes, does not offer this one, or refused to switch.
	// Empty when it is (or KeepMode is set).
	Problem string `json:"problem,omitempty"`
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

	res.Mode = a.pinMode(ctx, s)
	res.Guard = a.turnGuard(res.Mode)
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

// pinMode switches the session to AgentConfig.Mode when the agent offers
// modes and is in another one.
func (a *Agent) pinMode(ctx context.Context, s *Session) ModeReport {
	s.mu.Lock()
	rep := ModeReport{Want: a.cfg.Mode, Current: s.mode, Available: slices.Clone(s.modes)}
	s.mu.Unlock()
	switch {
	case a.cfg.KeepMode:
		rep.Want = ""
		return rep
	case len(rep.Available) == 0:
		rep.Problem = "the agent offers no session modes"
		return rep
	case !slices.Contains(rep.Available, rep.Want):
		rep.Problem = fmt.Sprintf("the agent offers no mode %q (it offers %s)", rep.Want, strings.Join(rep.Available, ", "))
		return rep
	case rep.Current == rep.Want:
		return rep
	}
	mctx, cancel := context.WithTimeout(ctx, a.cfg.OpenTimeout)
	defer cancel()
	if _, err := a.conn.SetSessionMode(mctx, sdk.SetSessionModeRequest{SessionId: s.id, ModeId: sdk.SessionModeId(rep.Want)}); err != nil {
		rep.Problem = a.callError(ctx, mctx, "session/set_mode", err).Error()
		return rep
	}
	s.mu.Lock()
	s.mode = rep.Want
	s.mu.Unlock()
	rep.Current, rep.Set = rep.Want, true
	return rep
}

// reopen continues a session that is not live on this connection: resume
// when advertised, else load when advertised. A refusal (any error or
// timeout of that one request, or neither being advertised) falls back to a
// new session. Only the caller's cancellation or the agent's exit is an
// error.
func (a *Agent) reopen(ctx context.Context, id, cwd string, servers []sdk.McpServer) (*Session, How, *Refusal, error) {
	if !a.caps.Resume && !a.caps.Load {
		s, err := a.newSession(ctx, cwd, servers)
		return s, HowNew, &Refusal{}, err
	}
	rctx, cancel := context.WithTimeout(ctx, a.cfg.ResumeTimeout)
	defer cancel()
	var (
		method string
		how    How
		err    error
	)
	sid := sdk.SessionId(id)
	var modes *sdk.SessionModeState
	if a.caps.Resume {
		method, how = "session/resume", HowResumed
		var r sdk.ResumeSessionResponse
		r, err = a.conn.ResumeSession(rctx, sdk.ResumeSessionRequest{SessionId: sid, Cwd: cwd, McpServers: servers, Meta: a.sessionMeta()})
		modes = r.Modes
	} else {
		method, how = "session/load", HowLoaded
		// History replayed by the agent is already on screen: updates of
		// this session have no handler while loading, so they are dropped,
		// including those that come after the answer (settleLoad).
		a.client.beginLoad(sid)
		var r sdk.LoadSessionResponse
		r, err = a.conn.LoadSession(rctx, sdk.LoadSessionRequest{SessionId: sid, Cwd: cwd, McpServers: servers, Meta: a.sessionMeta()})
		modes = r.Modes
		if err == nil {
			a.client.settleLoad(ctx, sid)
		} else {
			a.client.endLoad(sid)
		}
	}
	if err == nil {
		s := &Session{agent: a, id: sid, server: len(servers) > 0, cwd: cwd}
		s.setModes(modes)
		a.add(s)
		return s, how, nil, nil
	}
	if ctx.Err() != nil {
		return nil, "", nil, fmt.Errorf("%w: %s: %w", ErrAgent, method, ctx.Err())
	}
	if cerr := a.checkRunning(); cerr != nil {
		return nil, "", nil, cerr
	}
	r := &Refusal{Method: method, Err: err, Timeout: rctx.Err() != nil}
	var re *sdk.RequestError
	if !r.Timeout && errors.As(err, &re) {
		r.Code, r.Message, r.Data = re.Code, re.Message, re.Data
	}
	s, nerr := a.newSession(ctx, cwd, servers)
	if nerr != nil {
		return nil, "", r, nerr
	}
	return s, HowNew, r, nil
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

// client is the host side of the ACP connection: it folds session updates
// and permission requests into the running turn's tracker and answers
// permission requests with the policy. It offers no file-system or
// terminal access (none is advertised).
type client struct {
	mu         sync.Mutex
	trackers   map[sdk.SessionId]*tracker
	loads      map[sdk.SessionId]time.Time // sessions being loaded: when an update last came
	permission Policy
	onMode     func(sdk.SessionId, string)
}

// A loaded session's history may still be streaming after session/load is
// answered (gemini-cli replays it without waiting): the first prompt waits
// until the session has been silent for replayQuiet, at most replayMax,
// and what came meanwhile is dropped as history.
const (
	replayQuiet = 200 * time.Millisecond
	replayMax   = 3 * time.Second
)

// beginLoad starts dropping a session's updates as replayed history.
func (c *client) beginLoad(id sdk.SessionId) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loads == nil {
		c.loads = map[sdk.SessionId]time.Time{}
	}
	c.loads[id] = time.Now()
}

// endLoad ends beginLoad.
func (c *client) endLoad(id sdk.SessionId) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.loads, id)
}

// settleLoad waits, after session/load was answered, for the replay of
// the session's history to end (see replayQuiet), then ends beginLoad.
func (c *client) settleLoad(ctx context.Context, id sdk.SessionId) {
	defer c.endLoad(id)
	start := time.Now()
	c.mu.Lock()
	c.loads[id] = start // the answer is the last sign of life so far
	c.mu.Unlock()
	for {
		c.mu.Lock()
		last := c.loads[id]
		c.mu.Unlock()
		wait := replayQuiet - time.Since(last)
		if wait <= 0 || time.Since(start) >= replayMax {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(min(wait, replayMax-time.Since(start))):
		}
	}
}

var _ sdk.Client = (*client)(nil)

func (c *client) setTracker(id sdk.SessionId, t *tracker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t == nil {
		delete(c.trackers, id)
		return
	}
	c.trackers[id] = t
}

func (c *client) tracker(id sdk.SessionId) *tracker {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.trackers[id]
}

// running returns the trackers of the running turns.
func (c *client) running() []*tracker {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*tracker, 0, len(c.trackers))
	for _, t := range c.trackers {
		out = append(out, t)
	}
	return out
}

// SessionUpdate passes an update to the tracker of its session's turn.
// The SDK delivers notifications one at a time, in order.
func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	if m := n.Update.CurrentModeUpdate; m != nil && c.onMode != nil {
		c.onMode(n.SessionId, string(m.CurrentModeId))
	}
	c.mu.Lock()
	t := c.trackers[n.SessionId]
	if _, loading := c.loads[n.SessionId]; loading {
		c.loads[n.SessionId] = time.Now()
	}
	c.mu.Unlock()
	if t != nil {
		t.update(n.Update)
	}
	return nil
}

// HandleExtensionMethod receives the agent's extension notifications
// ("_vendor/...") and streams those naming a session with a running turn
// as status events. No extension request is implemented.
func (c *client) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	var p struct {
		SessionID sdk.SessionId `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) == nil && p.SessionID != "" {
		if t := c.tracker(p.SessionID); t != nil {
			t.status(method + " " + dataText(json.RawMessage(params)))
		}
	}
	return nil, sdk.NewMethodNotFound(method)
}

func flatUpdate(u sdk.SessionUpdate) Update {
	out := Update{Kind: UpdateOther, Raw: u}
	switch {
	case u.AgentMessageChunk != nil:
		out.Kind, out.Text = UpdateMessage, blockText(u.AgentMessageChunk.Content)
	case u.AgentThoughtChunk != nil:
		out.Kind, out.Text = UpdateThought, blockText(u.AgentThoughtChunk.Content)
	}
	return out
}

func blockText(b sdk.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return ""
}

// RequestPermission answers with the policy and records the request's
// tool call (and the answer) in the running turn's tool calls.
func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	t := c.tracker(p.SessionId)
	if t != nil {
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-t.cancelled:
				cancel()
			case <-pctx.Done():
			}
		}()
		ctx = pctx
	}
	resp, err := c.permission(ctx, p)
	if t != nil {
		select {
		case <-t.cancelled:
			// After session/cancel every pending request is answered
			// cancelled, whatever the policy said.
			resp, err = sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
		default:
		}
		t.permission(p, err == nil && allowed(p, resp))
	}
	return resp, err
}

// The host offers no file system or terminal to the agent.

func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsReadTextFile)
}

func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsWriteTextFile)
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}

func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}

func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}

func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}

func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}
