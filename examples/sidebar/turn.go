package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/usage"
)

// event is one thing the page draws while a turn runs, in order: the plan,
// the session, each tool call as it starts and as it ends, chunks of the
// answer, the agent's status lines, the sources, then done (or an error).
type event struct {
	Seq     int          `json:"seq"`
	Type    string       `json:"type"`
	Text    string       `json:"text,omitempty"`
	Plan    *planOut     `json:"plan,omitempty"`
	Session *sessionView `json:"session,omitempty"`
	Call    *callView    `json:"call,omitempty"`
	Sources *sourcesView `json:"sources,omitempty"`
}

// The event types.
const (
	evQuestion = "question" // Text: the user's question
	evPlan     = "plan"     // the turn's plan
	evSession  = "session"  // how the turn gets its session (sent again once known)
	evCall     = "call"     // a tool call started
	evCallEnd  = "call_end" // a tool call ended
	evMessage  = "message"  // Text: a chunk of the answer
	evStatus   = "status"   // Text: an agent's status line
	evSources  = "sources"  // the turn's sources, from usage.jsonl
	evError    = "error"    // Text: why the turn failed
	evDone     = "done"
)

// sessionView is the session line: whether the turn continued the agent
// session or opened a new one, and why.
type sessionView struct {
	Action  acp.Action `json:"action"`        // new or resume
	How     string     `json:"how,omitempty"` // live, resumed, loaded, new; empty until known
	Reason  acp.Reason `json:"reason"`        // acp's reason
	ID      string     `json:"id,omitempty"`  // the session id, once known
	Server  bool       `json:"server"`        // agentero-context attached
	Handoff string     `json:"handoff,omitempty"`
	Refusal string     `json:"refusal,omitempty"` // why the previous session could not be continued
	Agent   string     `json:"agent"`
}

// turn is one turn of the conversation and its buffered events, so a
// stream that connects late, or again, misses nothing.
type turn struct {
	id       string
	cancel   context.CancelFunc
	finished chan struct{}

	mu      sync.Mutex
	events  []event
	done    bool
	changed chan struct{} // closed and replaced at every event
}

func newTurn(id string, cancel context.CancelFunc) *turn {
	return &turn{id: id, cancel: cancel, finished: make(chan struct{}), changed: make(chan struct{})}
}

// emit appends an event and wakes the streams.
func (t *turn) emit(e event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	e.Seq = len(t.events)
	t.events = append(t.events, e)
	if e.Type == evDone {
		t.done = true
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

// since returns the events from n on (n clamped to the events there
// are), the index after them, whether the turn is done, and a channel
// closed at the next event.
func (t *turn) since(n int) (evs []event, next int, done bool, changed <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n = min(max(n, 0), len(t.events))
	evs = append(evs, t.events[n:]...)
	return evs, len(t.events), t.done, t.changed
}

// snapshot returns every event so far.
func (t *turn) snapshot() []event {
	ev, _, _, _ := t.since(0)
	return ev
}

// askIn is the body of POST /api/turns.
type askIn struct {
	Question string `json:"question"`
	Scope    scope  `json:"scope"`
}

// errCancelled ends a turn cancelled before its agent ran.
var errCancelled = errors.New("the turn was cancelled")

// maxTurns is how many turns the server keeps to show and stream.
const maxTurns = 200

// maxQuestion caps a question, in characters.
const maxQuestion = 4000

// handleAsk starts a turn; the page then streams its events.
func (s *server) handleAsk(w http.ResponseWriter, r *http.Request) {
	var in askIn
	if err := readJSON(r, &in); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	in.Question = strings.TrimSpace(in.Question)
	switch {
	case in.Question == "":
		apiError(w, http.StatusBadRequest, "ask a question first")
		return
	case len([]rune(in.Question)) > maxQuestion:
		apiError(w, http.StatusBadRequest, fmt.Sprintf("the question is longer than %d characters", maxQuestion))
		return
	}
	s.mu.Lock()
	if s.running != nil {
		s.mu.Unlock()
		apiError(w, http.StatusConflict, "a turn is running: wait for it or cancel it")
		return
	}
	s.nextID++
	id := fmt.Sprintf("turn-%d-%d", time.Now().UnixNano(), s.nextID)
	ctx, cancel := context.WithCancel(context.Background())
	t := newTurn(id, cancel)
	s.turns[id] = t
	s.order = append(s.order, t)
	if len(s.order) > maxTurns {
		// The page shows the newest turns; the agent session keeps the
		// conversation (and a new session gets the hand-off of all of it).
		delete(s.turns, s.order[0].id)
		s.order = s.order[1:]
	}
	s.running = t
	s.mu.Unlock()
	go s.runTurn(ctx, t, in)
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id})
}

// turn returns the turn the request's path names, or answers 404.
func (s *server) turn(w http.ResponseWriter, r *http.Request) *turn {
	s.mu.Lock()
	t := s.turns[r.PathValue("id")]
	s.mu.Unlock()
	if t == nil {
		apiError(w, http.StatusNotFound, "no such turn")
	}
	return t
}

// handleCancel cancels a running turn.
func (s *server) handleCancel(w http.ResponseWriter, r *http.Request) {
	t := s.turn(w, r)
	if t == nil {
		return
	}
	t.cancel()
	writeJSON(w, http.StatusOK, map[string]bool{"cancelled": true})
}

// handleEvents streams a turn's events as Server-Sent Events, from the
// first (or from the Last-Event-ID the browser reconnects with).
func (s *server) handleEvents(w http.ResponseWriter, r *http.Request) {
	t := s.turn(w, r)
	if t == nil {
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		apiError(w, http.StatusInternalServerError, "streaming is not supported")
		return
	}
	n := resumeAt(r.Header.Get("Last-Event-ID"))
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	for {
		evs, next, done, changed := t.since(n)
		for _, e := range evs {
			data, err := json.Marshal(e)
			if err != nil {
				continue
			}
			fmt.Fprintf(w, "id: %d\ndata: %s\n\n", e.Seq, data)
		}
		n = next
		flusher.Flush()
		if done {
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-time.After(15 * time.Second):
			// A comment keeps idle connections open.
			fmt.Fprint(w, ": keep-alive\n\n")
		}
	}
}

// resumeAt returns the index of the first event to stream to a browser
// that reconnects with the Last-Event-ID header h: the one after the id it
// names (since clamps an id past the last event to the next one to come).
// A header that is not an event id — empty, not a decimal number,
// negative, too large for an int — streams from the first event: the
// header is the browser's, and may be anything.
func resumeAt(h string) int {
	id, err := strconv.Atoi(h)
	if err != nil || id < 0 || id == math.MaxInt {
		return 0
	}
	return id + 1
}

// runTurn is a host's turn: Resolve the scope, write the grant, let the
// agent run with the server attached, read the sources back from
// usage.jsonl.
func (s *server) runTurn(ctx context.Context, t *turn, in askIn) {
	defer close(t.finished)
	defer func() {
		s.mu.Lock()
		if s.running == t {
			s.running = nil
		}
		s.mu.Unlock()
		t.cancel()
		t.emit(event{Type: evDone})
	}()
	t.emit(event{Type: evQuestion, Text: in.Question})
	fail := func(err error) {
		t.emit(event{Type: evError, Text: oneLine(err.Error())})
	}
	plan, err := s.resolver.Resolve(ctx, s.request(in.Scope, t.id))
	if err == nil && ctx.Err() != nil {
		// A plan resolved while the turn was being cancelled may lack what
		// it could not look at: it is not used.
		err = errCancelled
	}
	if err != nil {
		fail(err)
		return
	}
	s.mu.Lock()
	prev := s.conv.record
	displayed := append([]acp.Message(nil), s.conv.displayed...)
	s.mu.Unlock()
	t.emit(event{Type: evPlan, Plan: planView(plan, acp.Decide(prev, plan))})
	grantPath, err := plan.WriteGrant()
	if err != nil {
		fail(err)
		return
	}
	tin := &turnInput{plan: plan, grantPath: grantPath, question: in.Question, prev: prev, displayed: displayed}
	if len(in.Scope.Selections) > 0 {
		tin.quote, tin.page = in.Scope.Selections[0].Text, in.Scope.Selections[0].Page
	}
	out, err := s.cfg.Runner.Turn(ctx, tin, t.emit)
	if out != nil {
		s.mu.Lock()
		rec := out.record
		s.conv.record = &rec
		s.conv.displayed = append(s.conv.displayed,
			acp.Message{Role: acp.RoleUser, Text: in.Question},
			acp.Message{Role: acp.RoleAgent, Text: out.answer})
		s.mu.Unlock()
	}
	// The sources are read back whatever happened: a cancelled turn still
	// used what it received.
	if plan.Mode == grant.ModeMCP {
		u, uerr := usage.Read(grant.UsagePath(grantPath), plan.TurnID, &plan.Scope)
		if uerr != nil {
			fail(uerr)
		} else {
			t.emit(event{Type: evSources, Sources: s.sourcesView(ctx, u, plan)})
		}
	} else {
		t.emit(event{Type: evSources, Sources: &sourcesView{Groups: []sourceGroup{}, TurnChars: plan.Budget.TurnChars}})
	}
	if err != nil {
		fail(err)
	}
}

// planView is a plan for the page, without the vault's absolute root.
func planView(p *researchctx.Plan, next acp.Decision) *planOut {
	c := *p
	c.Vault = ""
	return &planOut{Plan: &c, Prompt: p.Prompt(), Next: next}
}

// turnInput is what an agent runner gets for a turn.
type turnInput struct {
	plan      *researchctx.Plan
	grantPath string
	question  string
	prev      *acp.Record
	displayed []acp.Message
	quote     string
	page      int
}

// turnOutput is what a turn leaves for the next one.
type turnOutput struct {
	record acp.Record
	answer string
}

// agentRunner plays turns: the scripted agent or a real ACP agent.
type agentRunner interface {
	// Name says which agent it is, for the page.
	Name() string
	// Turn runs one turn, emitting its session, calls and answer. It
	// returns the session record to keep, also with an error when the
	// turn ran partly.
	Turn(ctx context.Context, in *turnInput, emit func(event)) (*turnOutput, error)
	// Close stops the agent and its servers.
	Close()
}
