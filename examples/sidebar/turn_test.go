package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/usage"
)

// TestTurnStream: a turn streams its session, each tool call's start and
// end (a refusal included), the answer and the sources grouped as the SDK
// groups them, each a link the demo serves at its locator.
func TestTurnStream(t *testing.T) {
	s, ts := testServer(t, sampleVault(t), 0)
	sc := scope{
		CurrentPaper: samplePaper,
		Selections:   []researchctx.Selection{{Text: sampleQuote, Page: samplePage}},
		Mentions:     sampleMentions,
	}
	evs := askTurn(t, s, ts, sampleAsk, sc)
	if errs := ofType(evs, evError); len(errs) > 0 {
		t.Fatalf("the turn failed: %s", errs[0].Text)
	}
	// Nothing sent to the page names the vault's absolute root.
	all, err := json.Marshal(evs)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(all), s.cfg.Vault) {
		t.Error("an event names the vault's absolute path")
	}
	// Order: question, plan, session, then calls, answer, sources, done.
	if got := describeEvents(evs[:3]); got != "question plan session " {
		t.Errorf("first events: %s", got)
	}
	starts, ends := ofType(evs, evCall), ofType(evs, evCallEnd)
	if len(starts) < 4 || len(starts) != len(ends) {
		t.Fatalf("%d calls started, %d ended: %s", len(starts), len(ends), describeEvents(evs))
	}
	seen := map[string]int{}
	for _, e := range evs {
		if e.Call == nil {
			continue
		}
		switch e.Type {
		case evCall:
			if e.Call.Status != "running" || seen[e.Call.ID] != 0 {
				t.Errorf("call %s started as %q (seen %d)", e.Call.ID, e.Call.Status, seen[e.Call.ID])
			}
		case evCallEnd:
			if seen[e.Call.ID] != 1 {
				t.Errorf("call %s ended before it started", e.Call.ID)
			}
		}
		seen[e.Call.ID]++
	}
	first := ends[0].Call
	if first.Tool != grant.ToolSearch || first.Status != "completed" || len(first.Items) == 0 || first.Items[0].Link == nil {
		t.Errorf("first call: %+v", first)
	}
	last := ends[len(ends)-1].Call
	if last.Status != "refused" || !strings.Contains(last.Error, "not granted") {
		t.Errorf("last call should be refused as not granted: %+v", last)
	}
	answer := ""
	for _, e := range ofType(evs, evMessage) {
		answer += e.Text
	}
	if !strings.Contains(answer, "#page=") || !strings.Contains(answer, "not in this turn's grant") {
		t.Errorf("answer: %q", answer)
	}
	src := ofType(evs, evSources)
	if len(src) != 1 {
		t.Fatalf("%d sources events", len(src))
	}
	v := src[0].Sources
	var uses []usage.Use
	places := map[usage.Place]int{}
	for _, g := range v.Groups {
		uses = append(uses, g.Use)
		for _, it := range g.Sources {
			places[it.Place]++
			_, frag, _ := strings.Cut(it.URI, "#")
			switch {
			case it.Where == folderListing:
				if it.Href != "" || it.URI != "notes" {
					t.Errorf("listed folder %s opens %q, want the folder the turn listed, not a link", it.URI, it.Href)
				}
				continue
			case it.External:
				if it.Href != it.URI || !strings.HasPrefix(it.Href, "https://") {
					t.Errorf("external source %s opens %q", it.URI, it.Href)
				}
			case !strings.HasPrefix(it.Href, docPrefix):
				t.Errorf("vault source %s opens %q, not the demo's own route", it.URI, it.Href)
			case frag != "" && !strings.HasSuffix(it.Href, "#"+frag):
				t.Errorf("source %s opens %q without its locator", it.URI, it.Href)
			}
			resp, err := ts.Client().Get(ts.URL + strings.SplitN(it.Href, "#", 2)[0])
			if it.External {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("source %s: %s", it.Href, resp.Status)
			}
		}
	}
	if strings.Join(useStrings(uses), ",") != "read,searched,related" {
		t.Errorf("groups %v", uses)
	}
	if places[usage.InGrant] == 0 || places[usage.InLibrary] == 0 || places[usage.Outside] == 0 {
		t.Errorf("places %v: want sources in the grant, in the library and outside", places)
	}
	if v.Calls == 0 || v.Chars == 0 {
		t.Errorf("usage %+v", v)
	}
	// Each group is numbered from 1, a document's pages in page order
	// (the scripted agent reads page 2 before page 1).
	for _, g := range v.Groups {
		lastPage := map[string]int{}
		for i, it := range g.Sources {
			if it.N != i+1 {
				t.Errorf("%s source %d numbered %d", g.Use, i+1, it.N)
			}
			if u, err := cite.Parse(it.URI); err == nil && u.Page > 0 {
				if u.Page < lastPage[u.Path] {
					t.Errorf("%s lists %s after page %d", g.Use, it.URI, lastPage[u.Path])
				}
				lastPage[u.Path] = u.Page
			}
		}
	}
	if want := fmt.Sprintf("%d tool calls logged · %d of %d characters used", v.Calls, v.Chars, v.TurnChars); v.Summary != want {
		t.Errorf("summary %q, want %q", v.Summary, want)
	}
}

func useStrings(us []usage.Use) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = string(u)
	}
	return out
}

// TestTurnSessions: the same scope continues the session; a changed scope
// opens a new one, says why, and hands it the conversation so far.
func TestTurnSessions(t *testing.T) {
	s, ts := testServer(t, sampleVault(t), 0)
	sc := scope{CurrentPaper: samplePaper, Mentions: []string{"notes"}}

	s1 := lastSession(t, askTurn(t, s, ts, "What did the slot routing results show?", sc))
	if s1.Action != acp.ActionNew || s1.Reason != acp.ReasonFirst || s1.ID == "" || !s1.Server || s1.Handoff != "" {
		t.Fatalf("first turn: %+v", s1)
	}
	s2 := lastSession(t, askTurn(t, s, ts, "And the limitations?", sc))
	if s2.Action != acp.ActionResume || s2.How != string(acp.HowLive) || s2.ID != s1.ID || s2.Handoff != "" {
		t.Fatalf("same scope: %+v, want session %s continued", s2, s1.ID)
	}
	sc.Mentions = append(sc.Mentions, "reading-list")
	evs := askTurn(t, s, ts, "What is on the reading list?", sc)
	s3 := lastSession(t, evs)
	if s3.Action != acp.ActionNew || s3.Reason != acp.ReasonScopeChanged || s3.ID == s1.ID {
		t.Fatalf("changed scope: %+v, want a new session", s3)
	}
	if !strings.HasPrefix(s3.Handoff, acp.HandoffHeader) || !strings.Contains(s3.Handoff, "And the limitations?") {
		t.Errorf("the new session's hand-off:\n%s", s3.Handoff)
	}
	// The plan said so before the turn ran: the plan event's next decision.
	if p := ofType(evs, evPlan); len(p) != 1 || p[0].Plan.Next.Action != acp.ActionNew || p[0].Plan.Next.Reason != acp.ReasonScopeChanged {
		t.Errorf("plan event: %+v", p)
	}
	// The left-behind session's server is stopped: only the new one is live.
	r := s.cfg.Runner.(*scriptRunner)
	r.mu.Lock()
	_, old := r.sessions[s1.ID]
	_, cur := r.sessions[s3.ID]
	r.mu.Unlock()
	if old || !cur {
		t.Errorf("sessions kept: old %v, new %v", old, cur)
	}
	// Removing the mention is a scope change again.
	sc.Mentions = sc.Mentions[:1]
	s4 := lastSession(t, askTurn(t, s, ts, "Back to the notes.", sc))
	if s4.Action != acp.ActionNew || s4.Reason != acp.ReasonScopeChanged || s4.ID == s3.ID {
		t.Errorf("scope changed back: %+v", s4)
	}
}

// TestPromptOnly: with nothing in scope the turn is prompt-only: no tools
// attached, no calls, an answer that says so, no sources.
func TestPromptOnly(t *testing.T) {
	s, ts := testServer(t, sampleVault(t), 0)
	evs := askTurn(t, s, ts, "Hello?", scope{Mentions: []string{"nowhere"}})
	ss := lastSession(t, evs)
	if ss.Server {
		t.Errorf("session %+v: a prompt-only turn attaches no server", ss)
	}
	if n := len(ofType(evs, evCall)); n != 0 {
		t.Errorf("%d tool calls in a prompt-only turn", n)
	}
	src := ofType(evs, evSources)
	if len(src) != 1 || len(src[0].Sources.Groups) != 0 {
		t.Errorf("sources %+v", src)
	}
}

// TestAskRefusals: an empty question, a too long one and a second turn
// while one runs are refused with a clear error.
func TestAskRefusals(t *testing.T) {
	s, ts := testServer(t, sampleVault(t), 0)
	for _, q := range []string{"", "   ", strings.Repeat("x", maxQuestion+1)} {
		resp := post(t, s, ts, "/api/turns", askIn{Question: q})
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("question of %d chars: %s", len(q), resp.Status)
		}
	}
	resp := post(t, s, ts, "/api/turns", map[string]any{"question": "x", "unknown": 1})
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown field: %s", resp.Status)
	}
}

// TestCancel: a cancelled turn ends at once with its sources so far and
// says so; the session takes the next turn.
func TestCancel(t *testing.T) {
	s, ts := testServer(t, sampleVault(t), 5*time.Second)
	resp := post(t, s, ts, "/api/turns", askIn{Question: "slot routing", Scope: scope{CurrentPaper: samplePaper}})
	var started struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&started); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s.mu.Lock()
	turn := s.turns[started.ID]
	s.mu.Unlock()
	// Cancelled while its first call shows as running.
	for deadline := time.Now().Add(20 * time.Second); len(ofType(turn.snapshot(), evCall)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no call started in 20 s: %s", describeEvents(turn.snapshot()))
		}
	}
	begin := time.Now()
	resp = post(t, s, ts, "/api/turns/"+started.ID+"/cancel", struct{}{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("cancel: %s", resp.Status)
	}
	<-turn.finished
	if d := time.Since(begin); d > 4*time.Second {
		t.Errorf("the cancelled turn took %s to end", d)
	}
	evs := turn.snapshot()
	errs := ofType(evs, evError)
	if len(errs) != 1 || !strings.Contains(errs[0].Text, "cancelled") {
		t.Errorf("errors %+v, want one saying cancelled", errs)
	}
	if len(ofType(evs, evSources)) != 1 || evs[len(evs)-1].Type != evDone {
		t.Errorf("events: %s", describeEvents(evs))
	}
	s.cfg.Runner.(*scriptRunner).pace = 0
	if ss := lastSession(t, askTurn(t, s, ts, "again", scope{CurrentPaper: samplePaper})); ss.Action != acp.ActionResume {
		t.Errorf("after a cancel: %+v, want the session continued", ss)
	}
}

// TestEventStreamResume: a browser that reconnects with Last-Event-ID gets
// the events after that id. A header that names no event never breaks the
// stream (a negative one, or one that overflows when incremented, used to
// panic the handler): one that is not a decimal number, negative or too
// large streams from the first event, and an id past the last event
// streams from the next one to come (none here: the turn is done).
func TestEventStreamResume(t *testing.T) {
	s, ts := testServer(t, sampleVault(t), 0)
	all := askTurn(t, s, ts, sampleAsk, scope{CurrentPaper: samplePaper})
	n := len(all)
	var id string
	s.mu.Lock()
	for k := range s.turns {
		id = k
	}
	s.mu.Unlock()
	for _, tt := range []struct {
		header string
		first  int // the first event's seq; n when none is sent
	}{
		{"", 0},
		{"0", 1},
		{"2", 3},
		{strconv.Itoa(n - 1), n},
		{strconv.Itoa(n + 5), n},
		{"-1", 0},
		{"-5", 0},
		{"-9223372036854775808", 0},
		{"9223372036854775807", 0},
		{"99999999999999999999", 0},
		{"abc", 0},
		{"3abc", 0},
		{"1e3", 0},
	} {
		t.Run(tt.header, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/turns/"+id+"/events", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.header != "" {
				req.Header.Set("Last-Event-ID", tt.header)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %s", resp.Status)
			}
			// The stream ends cleanly once the done event is sent (a
			// panic would cut it).
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("the stream broke: %v after %q", err, body)
			}
			var seqs []int
			for line := range strings.Lines(string(body)) {
				data, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "data: ")
				if !ok {
					continue
				}
				var e event
				if err := json.Unmarshal([]byte(data), &e); err != nil {
					t.Fatalf("event %q: %v", data, err)
				}
				seqs = append(seqs, e.Seq)
			}
			var want []int
			for i := tt.first; i < n; i++ {
				want = append(want, i)
			}
			if !slices.Equal(seqs, want) {
				t.Errorf("events %v, want %v", seqs, want)
			}
		})
	}
}
