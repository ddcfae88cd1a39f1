package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
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
