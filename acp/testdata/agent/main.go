// Command agent is an ACP agent without a language model, for the session
// package's tests. It advertises the capabilities its flags name, spawns
// every stdio MCP server it is given on session/new, session/load and
// session/resume, lists their tools, and on a prompt calls context_search
// with the last line of the prompt and context_read on the first card. It
// appends what it saw to a JSON-lines report file and copies every line it
// receives to the report file + ".wire".
//
// With -shape claude or -shape gemini it reports its calls and asks for
// permission the way Claude Code's ACP adapter or gemini-cli do (the shapes
// of testdata/permissions); with -permissions FILE it first sends every
// request of such a fixture, as a model steered into running other tools
// would, and "runs" (reports) whatever the host allows.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	resume     = flag.Bool("resume", false, "advertise sessionCapabilities.resume")
	load       = flag.Bool("load", false, "advertise loadSession")
	closeCap   = flag.Bool("close", false, "advertise sessionCapabilities.close")
	refuse     = flag.Bool("refuse", false, "answer resume and load with -32002")
	hangResume = flag.Bool("hang-resume", false, "never answer session/resume")
	hangPrompt = flag.Bool("hang-prompt", false, "never answer session/prompt until cancelled")
	report     = flag.String("report", "", "append events to this JSON-lines file")

	shape          = flag.String("shape", "plain", "how tool calls are reported: plain, claude or gemini")
	permissions    = flag.String("permissions", "", "send the permission requests of this fixture before the tool calls")
	modes          = flag.Bool("modes", false, "offer the session modes default and auto, starting in auto (where nothing is asked)")
	ignoreCancel   = flag.Bool("ignore-cancel", false, "with -hang-prompt: do not answer session/cancel")
	status         = flag.Bool("status", false, "report a retry on stderr and in an extension notification at the start of a prompt")
	refuseInternal = flag.Bool("refuse-internal", false, "answer resume and load with -32603 and the agent's reason in the data")
	noOutput       = flag.Bool("no-output", false, "do not forward tool output in tool call updates")
	replayLate     = flag.Bool("replay-late", false, "replay session/load's history after answering it, as some agents do")
	name           = flag.String("name", "test-agent", "the agent's name in initialize's agentInfo (codex-acp to stand in for Codex)")
	overrides      []string // -c key=value, as codex-acp takes them
	policy         = flag.String("policy", "", "a policy file, as gemini-cli takes it (its content is reported at initialize)")
)

// Event is one line of the report.
type Event struct {
	Event     string            `json:"event"`
	SessionID string            `json:"sessionId,omitempty"`
	Servers   []json.RawMessage `json:"servers,omitempty"`
	Tools     []string          `json:"tools,omitempty"`
	Prompt    string            `json:"prompt,omitempty"`
	URIs      []string          `json:"uris,omitempty"`
	Errors    []string          `json:"errors,omitempty"`
	PID       int               `json:"pid,omitempty"`
	CallID    string            `json:"callId,omitempty"`
	Outcome   string            `json:"outcome,omitempty"`
	Mode      string            `json:"mode,omitempty"`
	Config    []string          `json:"config,omitempty"`
}

type session struct {
	clients []*mcp.ClientSession
	mode    string
	cancel  context.CancelFunc // of the running prompt
	// cancelled is closed when session/cancel for the running prompt has
	// been logged. The SDK also cancels the prompt's context on the
	// client's $/cancel_request, which can arrive first; the prompt waits
	// for the notification so that the report has it before the host,
	// answered, ends the agent.
	cancelled chan struct{}
}

type agent struct {
	conn *acp.AgentSideConnection

	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	next     int
	rep      *os.File
}

func (a *agent) log(e Event) {
	if a.rep == nil {
		return
	}
	data, _ := json.Marshal(e)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rep.Write(append(data, '\n'))
}

func (a *agent) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	caps := acp.AgentCapabilities{LoadSession: *load}
	if *resume {
		caps.SessionCapabilities.Resume = &acp.SessionResumeCapabilities{}
	}
	if *closeCap {
		caps.SessionCapabilities.Close = &acp.SessionCloseCapabilities{}
	}
	e := Event{Event: "initialize", PID: os.Getpid(), Config: overrides}
	if *policy != "" {
		data, err := os.ReadFile(*policy)
		if err != nil {
			return acp.InitializeResponse{}, err
		}
		e.Prompt = string(data)
	}
	a.log(e)
	return acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersionNumber,
		AgentCapabilities: caps,
		AgentInfo:         &acp.Implementation{Name: *name, Version: "1"},
	}, nil
}

func (a *agent) Authenticate(_ context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	a.log(Event{Event: "authenticate", Prompt: string(p.MethodId)})
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	a.next++
	id := acp.SessionId(fmt.Sprintf("sess-%d-%d", os.Getpid(), a.next))
	a.mu.Unlock()
	a.open(ctx, "session/new", id, p.McpServers)
	return acp.NewSessionResponse{SessionId: id, Modes: a.modeState(id)}, nil
}

// modeState offers Claude Code's choice in small: default (asks the host)
// and auto (its own classifier decides, the host is never asked).
func (a *agent) modeState(id acp.SessionId) *acp.SessionModeState {
	if !*modes {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	mode := "auto"
	if s := a.sessions[id]; s != nil && s.mode != "" {
		mode = s.mode
	}
	return &acp.SessionModeState{
		AvailableModes: []acp.SessionMode{{Id: "default", Name: "Default"}, {Id: "auto", Name: "Auto"}},
		CurrentModeId:  acp.SessionModeId(mode),
	}
}

func (a *agent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if !*load {
		return acp.LoadSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionLoad)
	}
	if *refuse {
		return acp.LoadSessionResponse{}, &acp.RequestError{Code: -32002, Message: "Resource not found"}
	}
	if *refuseInternal {
		return acp.LoadSessionResponse{}, internalRefusal
	}
	// Replay the history, as session/load does: before the answer, or
	// just after it.
	replay := func(ctx context.Context) {
		_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText("REPLAYED HISTORY")})
		_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId,
			Update: acp.StartToolCall("replayed-call", "context_search", acp.WithStartStatus(acp.ToolCallStatusCompleted))})
	}
	if *replayLate {
		go func() {
			time.Sleep(20 * time.Millisecond)
			replay(context.Background())
		}()
	} else {
		replay(ctx)
	}
	a.open(ctx, "session/load", p.SessionId, p.McpServers)
	return acp.LoadSessionResponse{}, nil
}

func (a *agent) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	if !*resume {
		return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
	}
	if *hangResume {
		a.log(Event{Event: "session/resume hang", SessionID: string(p.SessionId)})
		<-ctx.Done()
		return acp.ResumeSessionResponse{}, ctx.Err()
	}
	if *refuse {
		return acp.ResumeSessionResponse{}, &acp.RequestError{Code: -32002, Message: "Resource not found"}
	}
	if *refuseInternal {
		return acp.ResumeSessionResponse{}, internalRefusal
	}
	a.open(ctx, "session/resume", p.SessionId, p.McpServers)
	return acp.ResumeSessionResponse{}, nil
}

// internalRefusal is how gemini-cli 0.61.0 refuses its own session/load
// after a restart: an internal error whose data carries the reason.
var internalRefusal = &acp.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"details": "No previous sessions found for this project."}}

// open spawns every stdio server of a session request and lists its tools.
func (a *agent) open(ctx context.Context, method string, id acp.SessionId, servers []acp.McpServer) {
	e := Event{Event: method, SessionID: string(id)}
	s := &session{}
	for _, srv := range servers {
		raw, _ := json.Marshal(srv)
		e.Servers = append(e.Servers, raw)
		if srv.Stdio == nil {
			e.Errors = append(e.Errors, "not a stdio server: "+string(raw))
			continue
		}
		cmd := exec.Command(srv.Stdio.Command, srv.Stdio.Args...)
		cmd.Env = os.Environ()
		for _, v := range srv.Stdio.Env {
			cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
		}
		cmd.Stderr = os.Stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			e.Errors = append(e.Errors, "connect "+srv.Stdio.Name+": "+err.Error())
			continue
		}
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			e.Errors = append(e.Errors, "tools/list: "+err.Error())
		} else {
			for _, t := range tools.Tools {
				e.Tools = append(e.Tools, t.Name)
			}
		}
		s.clients = append(s.clients, cs)
	}
	sort.Strings(e.Tools)
	a.mu.Lock()
	if old := a.sessions[id]; old != nil {
		old.close()
		s.mode = old.mode
	}
	a.sessions[id] = s
	a.mu.Unlock()
	a.log(e)
}

func (s *session) close() {
	for _, c := range s.clients {
		c.Close()
	}
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionId]
	var pctx context.Context
	var cancel context.CancelFunc
	var cancelSeen chan struct{}
	if s != nil {
		pctx, cancel = context.WithCancel(ctx)
		s.cancel = cancel
		s.cancelled = make(chan struct{})
		cancelSeen = s.cancelled
	}
	a.mu.Unlock()
	if s == nil {
		return acp.PromptResponse{}, &acp.RequestError{Code: -32002, Message: "Resource not found"}
	}
	defer cancel()
	if *replayLate {
		// A prompt that takes a while, as a model's does: a late replay
		// lands inside it unless the host waited for the replay to end.
		time.Sleep(300 * time.Millisecond)
	}
	if *status {
		fmt.Fprintln(os.Stderr, "Attempt 1 failed with status 429. Retrying with backoff...")
		_ = a.conn.NotifyExtension(ctx, "_test/status", map[string]any{"sessionId": p.SessionId, "message": "model overloaded, retrying"})
		// A retry waits before trying again.
		time.Sleep(100 * time.Millisecond)
	}
	if *hangPrompt {
		a.log(Event{Event: "prompt hang", SessionID: string(p.SessionId)})
		if *ignoreCancel {
			// The SDK cancels the request's context on session/cancel
			// too: an agent that never confirms waits for nothing.
			<-a.conn.Done()
		} else {
			<-pctx.Done()
			select {
			case <-cancelSeen:
			case <-a.conn.Done():
			case <-time.After(5 * time.Second):
			}
		}
		a.log(Event{Event: "prompt cancelled", SessionID: string(p.SessionId)})
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	e := Event{Event: "prompt", SessionID: string(p.SessionId), Prompt: text.String(), URIs: []string{}}
	seen := map[string]bool{}
	add := func(uris []string) {
		for _, u := range uris {
			if !seen[u] {
				seen[u] = true
				e.URIs = append(e.URIs, u)
			}
		}
	}
	a.mu.Lock()
	mode := s.mode
	if *modes && mode == "" {
		mode = "auto"
	}
	a.mu.Unlock()
	if *permissions != "" {
		a.hostile(pctx, p.SessionId, mode)
	}
	if len(s.clients) > 0 {
		cs := s.clients[0]
		query := lastLine(text.String())
		uris, errText := a.call(pctx, cs, p.SessionId, mode, 1, "context_search", map[string]any{"query": query})
		add(uris)
		if errText != "" {
			e.Errors = append(e.Errors, "context_search: "+errText)
		}
		if len(uris) > 0 {
			more, errText := a.call(pctx, cs, p.SessionId, mode, 2, "context_read", map[string]any{"target": uris[0]})
			add(more)
			if errText != "" {
				e.Errors = append(e.Errors, "context_read: "+errText)
			}
		}
	}
	a.log(e)
	a.update(ctx, p.SessionId, acp.UpdateAgentMessageText("sources: "+strings.Join(e.URIs, " ")))
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// call makes one call of our tools, reported in the agent's shape.
func (a *agent) call(ctx context.Context, cs *mcp.ClientSession, sid acp.SessionId, mode string, n int, tool string, args map[string]any) ([]string, string) {
	argText, _ := json.Marshal(args)
	var id acp.ToolCallId
	switch *shape {
	case "claude":
		id = acp.ToolCallId(fmt.Sprintf("toolu_%02d%s", n, strings.Repeat("x", 20)))
		name := "mcp__agentero-context__" + tool
		a.update(ctx, sid, acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
			ToolCallId: id, Title: name, Kind: acp.ToolKindOther, Status: acp.ToolCallStatusPending, RawInput: args,
			Content: []acp.ToolCallContent{}, Meta: map[string]any{"claudeCode": map[string]any{"toolName": name}},
		}})
		if mode != "auto" {
			title := name
			kind := acp.ToolKindOther
			pending := acp.ToolCallStatusPending
			ok := a.ask(ctx, acp.RequestPermissionRequest{SessionId: sid, ToolCall: acp.ToolCallUpdate{
				ToolCallId: id, Title: &title, Kind: &kind, Status: &pending, RawInput: args, Content: []acp.ToolCallContent{},
				Meta: map[string]any{"claudeCode": map[string]any{"toolName": name, "mcpServer": map[string]any{"name": "agentero-context", "source": "dynamic"}}},
			}, Options: []acp.PermissionOption{
				{OptionId: "allow-once", Name: "Yes", Kind: acp.PermissionOptionKindAllowOnce},
				{OptionId: "allow-with-updates", Name: "Yes, and don't ask again for " + name + " commands", Kind: acp.PermissionOptionKindAllowAlways},
				{OptionId: "reject", Name: "No", Kind: acp.PermissionOptionKindRejectOnce},
			}}, string(id))
			if !ok {
				a.update(ctx, sid, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed),
					acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("User refused permission to run tool"))})))
				return nil, "permission denied"
			}
		}
	case "gemini":
		// As gemini-cli's core/turn.js names calls: "<function>__<function>_<millis>_<n>".
		fn := "mcp_agentero-context_" + tool
		id = acp.ToolCallId(fmt.Sprintf("%s__%s_%d_%d", fn, fn, 1796069084449+n, n))
		title := tool + " (agentero-context MCP Server)"
		kind := acp.ToolKindOther
		pending := acp.ToolCallStatusPending
		if mode != "yolo" {
			ok := a.ask(ctx, acp.RequestPermissionRequest{SessionId: sid, ToolCall: acp.ToolCallUpdate{
				ToolCallId: id, Title: &title, Kind: &kind, Status: &pending, Locations: []acp.ToolCallLocation{},
				Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(string(argText)))},
			}, Options: []acp.PermissionOption{
				{OptionId: "proceed_always_server", Name: "Allow all server tools for this session", Kind: acp.PermissionOptionKindAllowAlways},
				{OptionId: "proceed_always_tool", Name: "Allow tool for this session", Kind: acp.PermissionOptionKindAllowAlways},
				{OptionId: "proceed_once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
				{OptionId: "cancel", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
			}}, string(id))
			if !ok {
				// gemini-cli sends nothing more for a call the user refused.
				return nil, "permission denied"
			}
		}
	default:
		id = acp.ToolCallId(fmt.Sprintf("call-%d", n))
		a.update(ctx, sid, acp.StartToolCall(id, tool, acp.WithStartStatus(acp.ToolCallStatusInProgress)))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	uris, errText := result(res, err)
	opts := []acp.ToolCallUpdateOpt{acp.WithUpdateStatus(acp.ToolCallStatusCompleted)}
	if errText != "" {
		opts[0] = acp.WithUpdateStatus(acp.ToolCallStatusFailed)
	}
	if *shape != "plain" && !*noOutput && res != nil {
		var content []acp.ToolCallContent
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				content = append(content, acp.ToolContent(acp.TextBlock(t.Text)))
			}
		}
		opts = append(opts, acp.WithUpdateContent(content))
	}
	if *shape == "gemini" {
		title := tool + " (agentero-context MCP Server)"
		opts = append(opts, acp.WithUpdateTitle(title), acp.WithUpdateKind(acp.ToolKindOther))
	}
	a.update(ctx, sid, acp.UpdateToolCall(id, opts...))
	return uris, errText
}

// ask sends a permission request and reports its outcome.
func (a *agent) ask(ctx context.Context, req acp.RequestPermissionRequest, name string) bool {
	// The request outlives session/cancel, as in ACP: the client answers
	// every pending permission request with the cancelled outcome, and the
	// agent waits for that answer rather than dropping its own request.
	resp, err := a.conn.RequestPermission(context.WithoutCancel(ctx), req)
	outcome := "cancelled"
	ok := false
	if err != nil {
		outcome = "error: " + err.Error()
	} else if resp.Outcome.Selected != nil {
		outcome = string(resp.Outcome.Selected.OptionId)
		for _, o := range req.Options {
			if o.OptionId == resp.Outcome.Selected.OptionId {
				ok = o.Kind == acp.PermissionOptionKindAllowOnce || o.Kind == acp.PermissionOptionKindAllowAlways
			}
		}
	}
	a.log(Event{Event: "permission", SessionID: string(req.SessionId), CallID: name, Outcome: outcome})
	return ok
}

// hostile sends every request of the -permissions fixture, as a model
// steered by text in a paper would make the agent do, and reports as "ran"
// each call the host allowed (or that was never asked, in auto mode).
func (a *agent) hostile(ctx context.Context, sid acp.SessionId, mode string) {
	data, err := os.ReadFile(*permissions)
	if err != nil {
		a.log(Event{Event: "error", Errors: []string{err.Error()}})
		return
	}
	var f struct {
		Requests []struct {
			Name    string                       `json:"name"`
			Request acp.RequestPermissionRequest `json:"request"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		a.log(Event{Event: "error", Errors: []string{err.Error()}})
		return
	}
	for _, r := range f.Requests {
		req := r.Request
		req.SessionId = sid
		ran := mode == "auto"
		if !ran {
			ran = a.ask(ctx, req, r.Name)
		}
		if ran {
			a.log(Event{Event: "ran", SessionID: string(sid), CallID: r.Name})
			a.update(ctx, sid, acp.UpdateToolCall(req.ToolCall.ToolCallId, acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
		}
	}
}

func (a *agent) update(ctx context.Context, id acp.SessionId, u acp.SessionUpdate) {
	_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: id, Update: u})
}

// result returns the citation URIs of a tool result, in order, or its
// error text.
func result(res *mcp.CallToolResult, err error) ([]string, string) {
	if err != nil {
		return nil, err.Error()
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				msg = append(msg, t.Text)
			}
		}
		return nil, strings.Join(msg, " ")
	}
	data, _ := json.Marshal(res.StructuredContent)
	var v any
	_ = json.Unmarshal(data, &v)
	var uris []string
	walk(v, &uris)
	return uris, ""
}

// walk collects citationUri values depth first, arrays in order.
func walk(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		if u, ok := v["citationUri"].(string); ok && u != "" {
			*out = append(*out, u)
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(v[k], out)
		}
	case []any:
		for _, x := range v {
			walk(x, out)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func (a *agent) Cancel(_ context.Context, p acp.CancelNotification) error {
	a.log(Event{Event: "session/cancel", SessionID: string(p.SessionId)})
	if *ignoreCancel {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[p.SessionId]; s != nil && s.cancel != nil {
		s.cancel()
		if s.cancelled != nil {
			close(s.cancelled)
			s.cancelled = nil
		}
	}
	return nil
}

func (a *agent) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionId]
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	if s != nil {
		s.close()
	}
	a.log(Event{Event: "session/close", SessionID: string(p.SessionId)})
	return acp.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (a *agent) SetSessionMode(_ context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	if !*modes {
		return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
	}
	if p.ModeId != "default" && p.ModeId != "auto" {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"modeId": p.ModeId})
	}
	a.mu.Lock()
	if s := a.sessions[p.SessionId]; s != nil {
		s.mode = string(p.ModeId)
	}
	a.mu.Unlock()
	a.log(Event{Event: "session/set_mode", SessionID: string(p.SessionId), Mode: string(p.ModeId)})
	return acp.SetSessionModeResponse{}, nil
}

func main() {
	flag.Func("c", "a configuration override key=value, as codex-acp takes them (reported at initialize)", func(v string) error {
		overrides = append(overrides, v)
		return nil
	})
	flag.Parse()
	log.SetFlags(0)
	a := &agent{sessions: map[acp.SessionId]*session{}}
	var in io.Reader = os.Stdin
	if *report != "" {
		f, err := os.OpenFile(*report, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		a.rep = f
		wire, err := os.OpenFile(*report+".wire", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		in = io.TeeReader(os.Stdin, wire)
	}
	a.conn = acp.NewAgentSideConnection(a, os.Stdout, in)
	<-a.conn.Done()
	a.mu.Lock()
	for _, s := range a.sessions {
		s.close()
	}
	a.mu.Unlock()
}
