package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/mcp"
)

// acpRunner drives a real ACP agent through package acp: one agent
// process for the conversation (started again if it exits), each turn
// through Agent.Turn with the agentero-context server attached and the
// strict default permission policy.
type acpRunner struct {
	argv    []string
	auth    string
	timeout time.Duration
	stderr  io.Writer

	mu    sync.Mutex
	agent *acp.Agent
}

func (r *acpRunner) Name() string { return "ACP agent: " + strings.Join(r.argv, " ") }

func (r *acpRunner) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.agent != nil {
		_ = r.agent.Stop()
		r.agent = nil
	}
}

// started returns the running agent, starting it when there is none.
func (r *acpRunner) started(ctx context.Context) (*acp.Agent, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.agent != nil {
		select {
		case <-r.agent.Done():
			_ = r.agent.Stop()
			r.agent = nil
		default:
			return r.agent, nil
		}
	}
	a, err := acp.Start(ctx, acp.AgentOptions{
		Name: filepath.Base(r.argv[0]), Command: r.argv[0], Args: r.argv[1:], Stderr: r.stderr,
		AuthMethod: r.auth, TurnTimeout: r.timeout,
	})
	if err != nil {
		return nil, err
	}
	r.agent = a
	return a, nil
}

// Turn sends the turn to the agent and streams its updates.
func (r *acpRunner) Turn(ctx context.Context, in *turnInput, emit func(event)) (*turnOutput, error) {
	a, err := r.started(ctx)
	if err != nil {
		return nil, err
	}
	exe, args, err := mcp.ServerCommandLine(in.grantPath)
	if err != nil {
		return nil, err
	}
	d := acp.Decide(in.prev, in.plan)
	emit(event{Type: evSession, Session: &sessionView{Action: d.Action, Reason: d.Reason, Server: d.AttachServer, Agent: a.Name()}})
	st := &acpStream{emit: emit}
	res, err := a.Turn(ctx, acp.TurnRequest{
		Prev: in.prev, Plan: in.plan, Server: acp.Server{Command: exe, Args: args},
		Prompt: in.question, Displayed: in.displayed, OnUpdate: st.update,
	})
	if res == nil {
		return nil, err
	}
	// An agent that does not forward our tools' output ends its calls
	// without their citation URIs; the turn matched them from usage.jsonl
	// since (acp.ToolCall.URIs): the calls are drawn again with them.
	for i := range res.ToolCalls {
		if c := &res.ToolCalls[i]; len(c.URIs) > 0 && !st.shownURIs(c.ID) {
			emit(event{Type: evCallEnd, Call: endView(c)})
		}
	}
	sv := &sessionView{Action: res.Decision.Action, How: string(res.How), Reason: res.Decision.Reason, ID: res.Record.SessionID,
		Server: res.Decision.AttachServer, Handoff: res.Handoff, Agent: a.Name()}
	if res.Refusal != nil {
		sv.Refusal = res.Refusal.Error()
	}
	emit(event{Type: evSession, Session: sv})
	if res.StopReason != "" && res.StopReason != "end_turn" {
		emit(event{Type: evStatus, Text: "stop: " + res.StopReason})
	}
	out := &turnOutput{record: res.Record, answer: st.answer()}
	if errors.Is(err, acp.ErrCancelled) {
		return out, fmt.Errorf("the turn was cancelled: %w", err)
	}
	return out, err
}

// acpStream turns acp's updates into the page's events.
type acpStream struct {
	emit func(event)

	mu   sync.Mutex
	msg  strings.Builder
	uris map[string]bool // calls whose end was drawn with URIs
}

// shownURIs reports whether the end of call id was drawn with its URIs.
func (s *acpStream) shownURIs(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uris[id]
}

func (s *acpStream) answer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.msg.String()
}

func (s *acpStream) update(u acp.Update) {
	switch u.Kind {
	case acp.UpdateMessage:
		s.mu.Lock()
		s.msg.WriteString(u.Text)
		s.mu.Unlock()
		s.emit(event{Type: evMessage, Text: u.Text})
	case acp.UpdateStatus:
		s.emit(event{Type: evStatus, Text: demo.Clip(u.Text, 300)})
	case acp.UpdateToolCall:
		c := u.Call
		s.emit(event{Type: evCall, Call: &callView{ID: c.ID, Tool: demo.CallName(c), Args: c.Args, Status: "running", Permission: string(c.Permission)}})
	case acp.UpdateToolCallEnd:
		if len(u.Call.URIs) > 0 {
			s.mu.Lock()
			if s.uris == nil {
				s.uris = map[string]bool{}
			}
			s.uris[u.Call.ID] = true
			s.mu.Unlock()
		}
		s.emit(event{Type: evCallEnd, Call: endView(u.Call)})
	}
}

// endView is an ended call as the page draws it.
func endView(c *acp.ToolCall) *callView {
	v := &callView{ID: c.ID, Tool: demo.CallName(c), Args: c.Args, Status: string(c.Status), Permission: string(c.Permission)}
	if c.Status == acp.StatusDenied {
		v.Error = "denied by the permission policy: only the agentero-context tools may run"
	}
	for _, uri := range c.URIs {
		v.Items = append(v.Items, itemView{Link: link(uri)})
	}
	if len(c.URIs) > 0 {
		v.Summary = fmt.Sprintf("%d citation URIs returned", len(c.URIs))
	}
	return v
}
