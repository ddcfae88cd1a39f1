package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/tools"
)

// scriptRunner is the built-in agent: no model, the scripted turn of the
// examples (package demo) driven by the question and the selection. Its
// sessions follow the rules a host keeps with a real agent: a session is
// created under the scope's fingerprint with its own agentero-context
// server (this executable, started over stdio); the same fingerprint
// continues it, a changed one leaves it behind (its server stopped) and
// opens a new session that is handed the conversation.
type scriptRunner struct {
	pace   time.Duration
	stderr io.Writer

	mu       sync.Mutex
	sessions map[string]*scriptSession
	next     int
}

// scriptSession is one session of the scripted agent.
type scriptSession struct {
	id          string
	fingerprint string
	mcp         *sdk.ClientSession // nil for a prompt-only session
}

func (r *scriptRunner) Name() string {
	return "scripted (built in: it calls the tools over MCP, no model)"
}

// Close stops every session's server.
func (r *scriptRunner) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, s := range r.sessions {
		if s.mcp != nil {
			s.mcp.Close()
		}
		delete(r.sessions, id)
	}
}

// errNoSession is the scripted agent's refusal of a session it does not
// hold (it keeps sessions only while it runs).
var errNoSession = errors.New("the scripted agent keeps its sessions only while it runs")

// session gets the turn's session as acp.Agent.Turn does: the live one
// when the decision is to continue it, else a new one (with the server
// attached when the plan is in mcp mode).
func (r *scriptRunner) session(ctx context.Context, d acp.Decision, in *turnInput) (s *scriptSession, how acp.How, refusal string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessions == nil {
		r.sessions = map[string]*scriptSession{}
	}
	if d.MarkRefused && in.prev != nil {
		// Left behind: an old session never reads new sources.
		r.dropLocked(in.prev.SessionID)
	}
	if d.Action == acp.ActionResume {
		if live := r.sessions[d.ResumeID]; live != nil && (live.mcp != nil) == d.AttachServer {
			return live, acp.HowLive, "", nil
		}
		refusal = errNoSession.Error()
		r.dropLocked(d.ResumeID)
	}
	r.next++
	s = &scriptSession{id: fmt.Sprintf("scripted-%d", r.next), fingerprint: in.plan.Fingerprint}
	if d.AttachServer {
		if s.mcp, err = connect(ctx, in.grantPath, r.stderr); err != nil {
			return nil, "", "", err
		}
	}
	r.sessions[s.id] = s
	return s, acp.HowNew, refusal, nil
}

func (r *scriptRunner) dropLocked(id string) {
	if s := r.sessions[id]; s != nil {
		if s.mcp != nil {
			s.mcp.Close()
		}
		delete(r.sessions, id)
	}
}

// connect starts this executable as the agentero-context server for the
// grant, as an agent does with the server entry a host attaches, and
// connects to it over stdio. The server lives as long as the session.
func connect(ctx context.Context, grantPath string, stderr io.Writer) (*sdk.ClientSession, error) {
	exe, args, err := mcp.ServerCommandLine(grantPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "sidebar-scripted-agent", Version: mcp.Version}, nil)
	// The connection outlives the turn that opens it: it is the session's.
	cs, err := client.Connect(context.WithoutCancel(ctx), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting the agentero-context server: %w", err)
	}
	return cs, nil
}

// Turn plays the scripted turn in the session the rules give it.
func (r *scriptRunner) Turn(ctx context.Context, in *turnInput, emit func(event)) (*turnOutput, error) {
	d := acp.Decide(in.prev, in.plan)
	s, how, refusal, err := r.session(ctx, d, in)
	if err != nil {
		return nil, err
	}
	sv := &sessionView{Action: d.Action, How: string(how), Reason: d.Reason, ID: s.id, Server: s.mcp != nil, Refusal: refusal, Agent: "scripted"}
	body := strings.TrimSpace(in.plan.Prompt() + "\n\n" + in.question)
	if how == acp.HowNew && in.prev != nil && in.prev.SessionID != "" {
		sv.Handoff = acp.Handoff(in.displayed, body)
	}
	emit(event{Type: evSession, Session: sv})
	out := &turnOutput{record: acp.Record{SessionID: s.id, Fingerprint: s.fingerprint}}
	if s.mcp == nil {
		out.answer = "This turn is prompt-only: nothing in the scope could be granted, so no tools are attached. " +
			"Add the current paper, a selection or an @-mention to let the agent read."
		emit(event{Type: evMessage, Text: out.answer})
		return out, nil
	}
	a := &scriptAnswer{}
	n := 0
	demo.Script(ctx, demo.Turn{Plan: in.plan, Ask: in.question, Quote: in.quote, Page: in.page},
		func(ctx context.Context, tool string, args map[string]any, note string) any {
			n++
			raw, _ := json.Marshal(args)
			c := &callView{ID: fmt.Sprintf("call-%d", n), Tool: tool, Args: raw, Note: note, Status: "running"}
			emit(event{Type: evCall, Call: c})
			// A model takes a while over each call; the pause lets the
			// page show the call running, as it does with a real agent.
			pause(ctx, r.pace)
			res, err := s.mcp.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
			end := *c
			var result any
			switch {
			case err != nil:
				end.Status, end.Error = "failed", oneLine(err.Error())
				if ctx.Err() != nil {
					end.Status = string(acp.StatusCancelled)
				}
			case res.IsError:
				end.Status, end.Error = "refused", toolText(res)
			default:
				end.Status = "completed"
				result = res.StructuredContent
				callResult(&end, tool, result)
				a.add(tool, result)
			}
			emit(event{Type: evCallEnd, Call: &end})
			if end.Status == "refused" {
				a.refused = append(a.refused, fmt.Sprintf("%v", args["target"]))
			}
			return result
		})
	out.answer = a.text()
	// The answer streams in chunks, as a model's does.
	for _, chunk := range strings.SplitAfter(out.answer, "\n") {
		if chunk == "" {
			continue
		}
		emit(event{Type: evMessage, Text: chunk})
		pause(ctx, r.pace/6)
	}
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("the turn was cancelled: %w", acp.ErrCancelled)
	}
	return out, nil
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// toolText is a tool error's one line.
func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return oneLine(b.String())
}

// scriptAnswer composes the scripted agent's answer from what its calls
// returned: it quotes, with each quote's citation URI, and says what it
// could not read. It has no model: it does not reason about the text.
type scriptAnswer struct {
	quotes  []string
	seen    map[string]bool
	refused []string
}

// maxAnswerQuotes bounds the quotes of an answer.
const maxAnswerQuotes = 3

func (a *scriptAnswer) quote(text, uri string) {
	if a.seen == nil {
		a.seen = map[string]bool{}
	}
	text = demo.Clip(oneLine(text), 140)
	if text == "" || uri == "" || a.seen[uri] || len(a.quotes) >= maxAnswerQuotes {
		return
	}
	a.seen[uri] = true
	a.quotes = append(a.quotes, fmt.Sprintf("- “%s” (%s)", text, uri))
}

func (a *scriptAnswer) add(tool string, result any) {
	switch tool {
	case grant.ToolSearch:
		var out tools.SearchOutput
		if demo.Decode(result, &out) {
			for _, c := range out.Cards {
				a.quote(c.Excerpt, c.CitationURI)
			}
		}
	case grant.ToolRead:
		var out tools.ReadOutput
		if demo.Decode(result, &out) && out.Text != "" {
			a.quote(out.Text, out.CitationURI)
		}
	}
}

func (a *scriptAnswer) text() string {
	var b strings.Builder
	if len(a.quotes) == 0 {
		b.WriteString("The granted sources returned nothing for this question.\n")
	} else {
		b.WriteString("Here is what the granted sources say (a scripted agent: it quotes what the tools returned, it does not reason):\n")
		for _, q := range a.quotes {
			b.WriteString(q + "\n")
		}
	}
	for _, r := range a.refused {
		fmt.Fprintf(&b, "I could not read %s: it is not in this turn's grant.\n", r)
	}
	return strings.TrimRight(b.String(), "\n")
}
