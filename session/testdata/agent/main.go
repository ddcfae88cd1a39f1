// Command agent is an ACP agent without a language model, for the session
// package's tests. It advertises the capabilities its flags name, spawns
// every stdio MCP server it is given on session/new, session/load and
// session/resume, lists their tools, and on a prompt calls context_search
// with the last line of the prompt and context_read on the first card. It
// appends what it saw to a JSON-lines report file and copies every line it
// receives to the report file + ".wire".
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
}

type session struct {
	clients []*mcp.ClientSession
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
	a.log(Event{Event: "initialize", PID: os.Getpid()})
	return acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersionNumber,
		AgentCapabilities: caps,
		AgentInfo:         &acp.Implementation{Name: "test-agent", Version: "1"},
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
	return acp.NewSessionResponse{SessionId: id}, nil
}

func (a *agent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if !*load {
		return acp.LoadSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionLoad)
	}
	if *refuse {
		return acp.LoadSessionResponse{}, &acp.RequestError{Code: -32002, Message: "Resource not found"}
	}
	// Replay the history, as session/load does.
	_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText("REPLAYED HISTORY")})
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
	a.open(ctx, "session/resume", p.SessionId, p.McpServers)
	return acp.ResumeSessionResponse{}, nil
}

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
	a.mu.Unlock()
	if s == nil {
		return acp.PromptResponse{}, &acp.RequestError{Code: -32002, Message: "Resource not found"}
	}
	if *hangPrompt {
		a.log(Event{Event: "prompt hang", SessionID: string(p.SessionId)})
		<-ctx.Done()
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
	if len(s.clients) > 0 {
		cs := s.clients[0]
		query := lastLine(text.String())
		a.update(ctx, p.SessionId, acp.StartToolCall("call-1", "context_search", acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_search", Arguments: map[string]any{"query": query}})
		uris, errText := result(res, err)
		add(uris)
		if errText != "" {
			e.Errors = append(e.Errors, "context_search: "+errText)
		}
		a.update(ctx, p.SessionId, acp.UpdateToolCall("call-1", acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
		if len(uris) > 0 {
			a.update(ctx, p.SessionId, acp.StartToolCall("call-2", "context_read", acp.WithStartStatus(acp.ToolCallStatusInProgress)))
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_read", Arguments: map[string]any{"target": uris[0]}})
			more, errText := result(res, err)
			add(more)
			if errText != "" {
				e.Errors = append(e.Errors, "context_read: "+errText)
			}
			a.update(ctx, p.SessionId, acp.UpdateToolCall("call-2", acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
		}
	}
	a.log(e)
	a.update(ctx, p.SessionId, acp.UpdateAgentMessageText("sources: "+strings.Join(e.URIs, " ")))
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
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

func (a *agent) Cancel(context.Context, acp.CancelNotification) error { return nil }

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

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}

func main() {
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
