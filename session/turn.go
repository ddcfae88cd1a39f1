package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
	researchctx "github.com/researchctx/researchctx"
)

// JSON-RPC error codes after which a resume or load falls back to a new
// session. Any other error does too (SPEC §8); these are the ones real
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
	Timeout bool   // no answer within ResumeTimeout
	Err     error  // the underlying error, nil if the agent supports neither
}

// Error describes the refusal in one line.
func (r *Refusal) Error() string {
	switch {
	case r.Method == "":
		return "the agent can neither resume nor load sessions"
	case r.Timeout:
		return r.Method + ": no answer in time"
	case r.Code != 0:
		return fmt.Sprintf("%s: refused with code %d", r.Method, r.Code)
	}
	return fmt.Sprintf("%s: %v", r.Method, r.Err)
}

// Unwrap returns the agent's error, if any.
func (r *Refusal) Unwrap() error { return r.Err }

// UpdateKind is the kind of a streamed session update.
type UpdateKind string

// The kinds of streamed update.
const (
	UpdateMessage        UpdateKind = "message"          // a chunk of the agent's answer
	UpdateThought        UpdateKind = "thought"          // a chunk of the agent's reasoning
	UpdateToolCall       UpdateKind = "tool_call"        // a tool call started
	UpdateToolCallUpdate UpdateKind = "tool_call_update" // a tool call progressed
	UpdateOther          UpdateKind = "other"            // plans, modes, commands, usage...
)

// Update is one streamed session update of a turn, flattened for display.
type Update struct {
	Kind       UpdateKind
	Text       string // the chunk (message, thought) or the tool call's title
	ToolCallID string
	Status     string // tool call status, when sent
	Raw        acp.SessionUpdate
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
	// OnUpdate, when set, receives the turn's streamed updates in order.
	// Updates replayed by session/load are not passed on.
	OnUpdate func(Update)
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
	Usage researchctx.Usage
}

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
		s, err = a.newSession(ctx, cwd, servers, plan.Fingerprint)
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

	if req.OnUpdate != nil {
		a.client.setHandler(s.id, req.OnUpdate)
		defer a.client.setHandler(s.id, nil)
	}
	resp, err := a.conn.Prompt(ctx, acp.PromptRequest{
		SessionId: s.id,
		Prompt:    []acp.ContentBlock{acp.TextBlock(text)},
	})
	if err != nil {
		return res, a.callError(ctx, ctx, "session/prompt", err)
	}
	res.StopReason = string(resp.StopReason)
	if d.AttachServer {
		gp, err := researchctx.GrantPath(plan.Vault, plan.RuntimeID)
		if err != nil {
			return res, err
		}
		u, err := researchctx.ReadUsage(researchctx.UsagePath(gp), plan.TurnID)
		if err != nil {
			return res, err
		}
		res.Usage = u
		res.Sources = append(res.Sources, u.Sources...)
	}
	return res, nil
}

// reopen continues a session that is not live on this connection: resume
// when advertised, else load when advertised. A refusal (any error or
// timeout of that one request, or neither being advertised) falls back to a
// new session. Only the caller's cancellation or the agent's exit is an
// error.
func (a *Agent) reopen(ctx context.Context, id, cwd string, servers []acp.McpServer) (*Session, How, *Refusal, error) {
	if !a.caps.Resume && !a.caps.Load {
		s, err := a.newSession(ctx, cwd, servers, "")
		return s, HowNew, &Refusal{}, err
	}
	rctx, cancel := context.WithTimeout(ctx, a.cfg.ResumeTimeout)
	defer cancel()
	var (
		method string
		how    How
		err    error
	)
	sid := acp.SessionId(id)
	if a.caps.Resume {
		method, how = "session/resume", HowResumed
		_, err = a.conn.ResumeSession(rctx, acp.ResumeSessionRequest{SessionId: sid, Cwd: cwd, McpServers: servers})
	} else {
		method, how = "session/load", HowLoaded
		// History replayed by the agent is already on screen: updates of
		// this session have no handler while loading, so they are dropped.
		_, err = a.conn.LoadSession(rctx, acp.LoadSessionRequest{SessionId: sid, Cwd: cwd, McpServers: servers})
	}
	if err == nil {
		s := &Session{agent: a, id: sid, server: len(servers) > 0, cwd: cwd}
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
	var re *acp.RequestError
	if !r.Timeout && errors.As(err, &re) {
		r.Code = re.Code
	}
	s, nerr := a.newSession(ctx, cwd, servers, "")
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

// client is the host side of the ACP connection: it streams session updates
// to the running turn's handler and answers permission requests. It offers
// no file-system or terminal access (none is advertised).
type client struct {
	mu         sync.Mutex
	handlers   map[acp.SessionId]func(Update)
	permission func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error)
}

var _ acp.Client = (*client)(nil)

func (c *client) setHandler(id acp.SessionId, h func(Update)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h == nil {
		delete(c.handlers, id)
		return
	}
	c.handlers[id] = h
}

// SessionUpdate passes an update to the handler of its session's turn.
// The SDK delivers notifications one at a time, in order.
func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	h := c.handlers[n.SessionId]
	c.mu.Unlock()
	if h != nil {
		h(flatUpdate(n.Update))
	}
	return nil
}

func flatUpdate(u acp.SessionUpdate) Update {
	out := Update{Kind: UpdateOther, Raw: u}
	switch {
	case u.AgentMessageChunk != nil:
		out.Kind, out.Text = UpdateMessage, blockText(u.AgentMessageChunk.Content)
	case u.AgentThoughtChunk != nil:
		out.Kind, out.Text = UpdateThought, blockText(u.AgentThoughtChunk.Content)
	case u.ToolCall != nil:
		out.Kind, out.Text = UpdateToolCall, u.ToolCall.Title
		out.ToolCallID, out.Status = string(u.ToolCall.ToolCallId), string(u.ToolCall.Status)
	case u.ToolCallUpdate != nil:
		out.Kind, out.ToolCallID = UpdateToolCallUpdate, string(u.ToolCallUpdate.ToolCallId)
		if u.ToolCallUpdate.Title != nil {
			out.Text = *u.ToolCallUpdate.Title
		}
		if u.ToolCallUpdate.Status != nil {
			out.Status = string(*u.ToolCallUpdate.Status)
		}
	}
	return out
}

func blockText(b acp.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return ""
}

func (c *client) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return c.permission(ctx, p)
}

// AllowContextTools is the default permission policy: it allows, once, a
// call of one of the three read-only agentero-context tools (recognised by
// name in the tool call's title) and rejects everything else — the session
// is for reading the granted sources, not for acting on the machine.
func AllowContextTools(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	title := ""
	if p.ToolCall.Title != nil {
		title = *p.ToolCall.Title
	}
	ours := false
	for _, t := range researchctx.Tools {
		if strings.Contains(title, t) {
			ours = true
		}
	}
	want := []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways}
	if ours {
		want = []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce}
	}
	for _, k := range want {
		for _, o := range p.Options {
			if o.Kind == k {
				return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
					Selected: &acp.RequestPermissionOutcomeSelected{OptionId: o.OptionId},
				}}, nil
			}
		}
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
		Cancelled: &acp.RequestPermissionOutcomeCancelled{},
	}}, nil
}

// The host offers no file system or terminal to the agent.

func (c *client) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}

func (c *client) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}

func (c *client) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (c *client) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (c *client) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (c *client) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (c *client) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}
