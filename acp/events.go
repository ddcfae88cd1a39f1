package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/researchctx/researchctx/usage"
)

// CallStatus is the status of a ToolCall: one of ACP's (pending,
// in_progress, completed, failed) or one of StatusDenied, StatusCancelled
// and StatusUnfinished.
type CallStatus string

// ACP's tool call statuses.
const (
	StatusPending    = CallStatus(sdk.ToolCallStatusPending)
	StatusInProgress = CallStatus(sdk.ToolCallStatusInProgress)
	StatusCompleted  = CallStatus(sdk.ToolCallStatusCompleted)
	StatusFailed     = CallStatus(sdk.ToolCallStatusFailed)
)

// Tool call statuses a ToolCall may end with besides ACP's.
const (
	// StatusDenied: the permission policy did not allow the call.
	StatusDenied CallStatus = "denied"
	// StatusCancelled: the turn was cancelled before the call finished.
	StatusCancelled CallStatus = "cancelled"
	// StatusUnfinished: the turn ended without the agent reporting the
	// call's end.
	StatusUnfinished CallStatus = "unfinished"
)

// Verdict is the permission policy's answer to a call the agent asked
// about (ToolCall.Permission).
type Verdict string

// The two verdicts.
const (
	VerdictAllowed Verdict = "allowed"
	VerdictDenied  Verdict = "denied"
)

// ToolCall is a host's view of one tool call of a turn, folded from every
// route an agent reports calls by: a tool_call update, a tool_call_update
// for an id not seen before (gemini-cli announces calls only so), and the
// tool call of a permission request.
type ToolCall struct {
	ID string `json:"id"`
	// Tool is the bare name of our tool ("context_search") when Ours, else
	// the agent's name for it when sent, else its title.
	Tool   string `json:"tool"`
	Server string `json:"server,omitempty"`
	// Ours is set when Identify recognises one of the three
	// agentero-context tools.
	Ours  bool   `json:"ours"`
	Title string `json:"title,omitempty"`
	Kind  string `json:"kind,omitempty"`
	// Args are the call's arguments (rawInput, the arguments of Codex's
	// MCP invocation, or the JSON arguments an agent shows in its
	// permission request), when sent.
	Args json.RawMessage `json:"args,omitempty"`
	// Status is the last status: pending, in_progress, completed, failed,
	// or StatusDenied, StatusCancelled, StatusUnfinished.
	Status CallStatus `json:"status"`
	// Permission is VerdictAllowed or VerdictDenied when the agent asked,
	// else "".
	Permission Verdict `json:"permission,omitempty"`
	// URIs are the citation URIs an agentero-context call returned: from
	// the call's output when the agent forwards it, else from usage.jsonl
	// at the end of the turn (the n-th completed call of a tool gets the
	// n-th usage line of that tool).
	URIs []string `json:"uris,omitempty"`
}

// ended reports whether the status is final.
func ended(status CallStatus) bool {
	switch status {
	case StatusCompleted, StatusFailed, StatusDenied, StatusCancelled, StatusUnfinished:
		return true
	}
	return false
}

// tracker folds a turn's tool calls and passes updates to the turn's
// handler, one at a time.
type tracker struct {
	// cancelled is closed when the turn is cancelled: a policy still
	// deciding is told through its context, and the request is answered
	// cancelled, as ACP asks of a client after session/cancel.
	cancelled  chan struct{}
	cancelOnce sync.Once

	mu     sync.Mutex
	h      func(Update)
	calls  []*ToolCall
	byID   map[string]*ToolCall
	closed map[string]bool // end event sent
	asked  map[string]bool // identified from a permission request: final
	mode   string          // last current_mode_update
}

func newTracker(h func(Update)) *tracker {
	return &tracker{h: h, byID: map[string]*ToolCall{}, closed: map[string]bool{}, asked: map[string]bool{}, cancelled: make(chan struct{})}
}

func (t *tracker) cancel() { t.cancelOnce.Do(func() { close(t.cancelled) }) }

func (t *tracker) emit(u Update) {
	if t.h != nil {
		t.h(u)
	}
}

// update handles a session update.
func (t *tracker) update(u sdk.SessionUpdate) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case u.ToolCall != nil:
		tc := u.ToolCall
		kind := tc.Kind
		status := tc.Status
		title := tc.Title
		t.observe(sdk.ToolCallUpdate{
			Meta: tc.Meta, Content: tc.Content, Locations: tc.Locations, RawInput: tc.RawInput,
			RawOutput: tc.RawOutput, ToolCallId: tc.ToolCallId, Title: &title,
			Kind: nonEmpty(kind), Status: nonEmpty(status),
		}, u, "", nil)
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		t.observe(sdk.ToolCallUpdate{
			Meta: tc.Meta, Content: tc.Content, Kind: tc.Kind, Locations: tc.Locations,
			RawInput: tc.RawInput, RawOutput: tc.RawOutput, Status: tc.Status, Title: tc.Title,
			ToolCallId: tc.ToolCallId,
		}, u, "", nil)
	default:
		if u.CurrentModeUpdate != nil {
			t.mode = string(u.CurrentModeUpdate.CurrentModeId)
		}
		t.emit(flatUpdate(u))
	}
}

func nonEmpty[T ~string](v T) *T {
	if v == "" {
		return nil
	}
	return &v
}

// permission records a permission request and the policy's answer.
func (t *tracker) permission(req sdk.RequestPermissionRequest, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	verdict := VerdictDenied
	if ok {
		verdict = VerdictAllowed
	}
	t.observe(req.ToolCall, sdk.SessionUpdate{}, verdict, req.Options)
}

// observe folds one report of a call into its ToolCall and emits the
// start, update or end event. Called with t.mu held.
func (t *tracker) observe(tc sdk.ToolCallUpdate, raw sdk.SessionUpdate, verdict Verdict, options []sdk.PermissionOption) {
	id := string(tc.ToolCallId)
	c := t.byID[id]
	start := c == nil
	if start {
		c = &ToolCall{ID: id, Status: StatusPending}
		t.byID[id] = c
		t.calls = append(t.calls, c)
	}
	if tc.Title != nil && *tc.Title != "" {
		c.Title = *tc.Title
	}
	if tc.Kind != nil {
		c.Kind = string(*tc.Kind)
	}
	if tc.Status != nil && *tc.Status != "" && !ended(c.Status) {
		c.Status = CallStatus(*tc.Status)
	}
	if tc.RawInput != nil {
		// Codex's rawInput is the MCP invocation: its arguments are the
		// call's.
		in := tc.RawInput
		if inv := codexInvocation(tc); inv != nil {
			in = inv["arguments"]
		} else if el := codexApproval(tc); el != nil {
			meta, _ := el["request"].(map[string]any)["_meta"].(map[string]any)
			in = meta["tool_params"]
		}
		if data, err := json.Marshal(in); err == nil {
			c.Args = data
		}
	} else if c.Args == nil && verdict != "" {
		c.Args = shownArgs(tc)
	}
	// Identity: the permission request is the strictest view and final;
	// before one, an update may name the call, and none may undo ours.
	switch idn := identify(tc, options, verdict != ""); {
	case verdict != "" && !t.asked[id]:
		t.asked[id] = true
		c.Ours = idn.Ours
		if idn.Ours || idn.Tool != "" {
			c.Tool, c.Server = idn.Tool, idn.Server
		}
	case t.asked[id]:
	case idn.Ours || (!c.Ours && idn.Tool != ""):
		c.Ours, c.Tool, c.Server = idn.Ours, idn.Tool, idn.Server
	}
	if !c.Ours && c.Tool == "" {
		c.Tool = c.Title
	}
	if c.Ours {
		for _, u := range outputURIs(tc) {
			if !slices.Contains(c.URIs, u) {
				c.URIs = append(c.URIs, u)
			}
		}
	}
	switch verdict {
	case VerdictAllowed:
		c.Permission = verdict
	case VerdictDenied:
		c.Permission = verdict
		c.Status = StatusDenied
	}
	if t.closed[id] {
		return // nothing after the end
	}
	send := func(kind UpdateKind) {
		out := flatUpdate(raw)
		out.Kind, out.ToolCallID, out.Status, out.Text = kind, id, c.Status, c.Title
		cp := c.clone()
		out.Call = &cp
		t.emit(out)
	}
	if start {
		send(UpdateToolCall)
	}
	switch {
	case ended(c.Status):
		t.closed[id] = true
		send(UpdateToolCallEnd)
	case !start:
		send(UpdateToolCallUpdate)
	}
}

func (c *ToolCall) clone() ToolCall {
	cp := *c
	cp.URIs = slices.Clone(c.URIs)
	cp.Args = slices.Clone(c.Args)
	return cp
}

// finish ends the turn's calls: calls of ours without URIs get them from
// the turn's usage lines, and every call not ended yet gets its end event
// with status (StatusCancelled or StatusUnfinished). It returns the calls.
func (t *tracker) finish(lines []usage.Line, status CallStatus) []ToolCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Lines whose URIs a call already reported are that call's; the
	// others go, in order, to the completed calls of the same tool that
	// reported none.
	claimed := make([]bool, len(lines))
	for _, c := range t.calls {
		if !c.Ours || len(c.URIs) == 0 {
			continue
		}
		for i, l := range lines {
			if !claimed[i] && l.Tool == c.Tool && slices.Equal(l.URIs, c.URIs) {
				claimed[i] = true
				break
			}
		}
	}
	for _, c := range t.calls {
		if !c.Ours || len(c.URIs) > 0 || c.Status == StatusFailed || c.Status == StatusDenied {
			continue
		}
		for i, l := range lines {
			if !claimed[i] && l.Tool == c.Tool {
				claimed[i] = true
				c.URIs = slices.Clone(l.URIs)
				break
			}
		}
	}
	out := make([]ToolCall, 0, len(t.calls))
	for _, c := range t.calls {
		if !t.closed[c.ID] {
			if !ended(c.Status) {
				c.Status = status
			}
			t.closed[c.ID] = true
			cp := c.clone()
			t.emit(Update{Kind: UpdateToolCallEnd, Text: c.Title, ToolCallID: c.ID, Status: c.Status, Call: &cp})
		}
		out = append(out, c.clone())
	}
	return out
}

// status emits an agent status event.
func (t *tracker) status(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.emit(Update{Kind: UpdateStatus, Text: text})
}

// shownArgs returns the JSON arguments an agent shows in a permission
// request's content (gemini-cli), or nil.
func shownArgs(tc sdk.ToolCallUpdate) json.RawMessage {
	for _, c := range tc.Content {
		if c.Content == nil || c.Content.Content.Text == nil {
			continue
		}
		text := strings.TrimSpace(c.Content.Content.Text.Text)
		var m map[string]any
		if json.Unmarshal([]byte(text), &m) == nil && m != nil {
			return json.RawMessage(text)
		}
	}
	return nil
}

// citeLine finds "cite: URI" in a text rendering of our tools.
var citeLine = regexp.MustCompile(`(?:^|\s)cite: (\S+)`)

// outputURIs returns the citation URIs in a call's output: citationUri
// fields of rawOutput or of JSON content, else the "cite:" lines of the
// text rendering outside quoted document text.
func outputURIs(tc sdk.ToolCallUpdate) []string {
	var out []string
	if tc.RawOutput != nil {
		if data, err := json.Marshal(tc.RawOutput); err == nil {
			var v any
			if json.Unmarshal(data, &v) == nil {
				walkURIs(v, &out)
				if len(out) > 0 {
					return out
				}
				// Some agents forward the MCP content blocks as rawOutput.
				var texts []string
				collectTexts(v, &texts)
				for _, s := range texts {
					out = append(out, textURIs(s)...)
				}
				if len(out) > 0 {
					return out
				}
			}
		}
	}
	for _, c := range tc.Content {
		if c.Content == nil || c.Content.Content.Text == nil {
			continue
		}
		out = append(out, textURIs(c.Content.Content.Text.Text)...)
	}
	return out
}

// textURIs reads URIs from a text block: JSON output's citationUri fields,
// else the rendering's cite lines outside the quote fences.
func textURIs(s string) []string {
	var out []string
	var v any
	if json.Unmarshal([]byte(strings.TrimSpace(s)), &v) == nil {
		walkURIs(v, &out)
		return out
	}
	fence := false
	for line := range strings.Lines(s) {
		trim := strings.TrimSpace(line)
		switch {
		case fence:
			if trim == ">>>" {
				fence = false
			}
		case strings.HasPrefix(trim, "<<<quoted text"):
			fence = true
		default:
			for _, m := range citeLine.FindAllStringSubmatch(line, -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// walkURIs collects citationUri values, depth first, in document order of
// arrays (map keys sorted for a stable order).
func walkURIs(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		if u, ok := v["citationUri"].(string); ok && u != "" {
			*out = append(*out, u)
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			walkURIs(v[k], out)
		}
	case []any:
		for _, x := range v {
			walkURIs(x, out)
		}
	}
}

// collectTexts gathers the "text" fields of content blocks.
func collectTexts(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["text"].(string); ok {
			*out = append(*out, s)
		}
		for _, x := range v {
			collectTexts(x, out)
		}
	case []any:
		for _, x := range v {
			collectTexts(x, out)
		}
	}
}

// statusLine picks the stderr lines that tell the host about the agent's
// state: retries, rate limits, failures.
var statusLine = regexp.MustCompile(`(?i)\b(retry|retrying|attempt [0-9]+ failed|rate.?limit|quota|overloaded|error|failed)\b`)

// statusWriter passes the agent's stderr on and streams its status lines
// to the running turns.
type statusWriter struct {
	w io.Writer // may be nil

	mu      sync.Mutex
	c       *client // set once the client exists
	partial []byte
}

func (s *statusWriter) setClient(c *client) {
	s.mu.Lock()
	s.c = c
	s.mu.Unlock()
}

func (s *statusWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	c := s.c
	s.partial = append(s.partial, p...)
	var lines []string
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, strings.TrimSpace(string(s.partial[:i])))
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) > 4096 {
		// A line without end: keep the head for matching, drop the rest.
		lines = append(lines, strings.TrimSpace(string(s.partial[:4096])))
		s.partial = s.partial[:0]
	}
	s.mu.Unlock()
	if c != nil {
		for _, l := range lines {
			if l == "" || !statusLine.MatchString(l) {
				continue
			}
			if r := []rune(l); len(r) > 300 {
				l = string(r[:300]) + "…"
			}
			for _, t := range c.running() {
				t.status(l)
			}
		}
	}
	if s.w == nil {
		return len(p), nil
	}
	return s.w.Write(p)
}
