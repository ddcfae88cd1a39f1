// Package agenttest is a scripted language-model endpoint for end-to-end
// tests with unmodified coding agents. It speaks enough of the Gemini API
// (generateContent and streamGenerateContent with alt=sse), of the
// Anthropic Messages API (with SSE streaming) and of the OpenAI Responses
// API (streamed events) for gemini-cli, Claude Code and Codex to run whole
// turns against it, on 127.0.0.1 only. A Script decides each
// reply from the request, so a test can make the agent call our MCP tools in
// a chosen order and check what the agent forwarded to its model.
//
// Every request is decoded into a common form (Request) and kept, so tests
// can assert on what the agent sent: the tool declarations it derived from
// the MCP server's tools/list, the tool results, the prompt.
//
// It is test support, as net/http/httptest is: a host that embeds package
// acp runs its own turns with the real agents against it, offline and
// without a model account, as the SDK's tests and its examples' do.
package agenttest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/grant"
)

// API names the wire protocol of a request.
type API string

// The protocols the endpoint speaks.
const (
	Gemini    API = "gemini"
	Anthropic API = "anthropic"
	OpenAI    API = "openai"
)

// Kind says which of an agent's model calls a request is.
type Kind string

// Kinds of model call. Agents make calls besides the conversation itself:
// gemini-cli asks a router which model to use and whether the model or the
// user speaks next; Claude Code counts tokens and titles the conversation.
const (
	KindTurn  Kind = "turn"  // the conversation: the agent's model turn with tools
	KindAux   Kind = "aux"   // a side call (router, classifier, title, quota check)
	KindCount Kind = "count" // a token count
)

// Request is one model call, decoded.
type Request struct {
	API    API
	Kind   Kind
	Method string
	Path   string // URL path with query
	Model  string
	Stream bool
	// System is the system instruction's text.
	System string
	// Tools are the declarations the agent sent, in order.
	Tools []Tool
	// Messages is the conversation, oldest first.
	Messages []Message
	// Body is the request body as received.
	Body json.RawMessage
}

// Tool is a tool declaration as the agent sent it to its model.
type Tool struct {
	Name        string
	Description string
	// Schema is the declared input schema (Gemini parametersJsonSchema or
	// parameters; Anthropic input_schema).
	Schema json.RawMessage
	// Raw is the whole declaration.
	Raw json.RawMessage
	// Namespace is the namespace the tool was declared in (OpenAI: Codex
	// declares an MCP server's tools as one namespace), or "".
	Namespace string
}

// Role of a message.
const (
	RoleUser  = "user"
	RoleModel = "model"
)

// Message is one message of the conversation: text, tool calls made by the
// model, or tool results sent back by the agent.
type Message struct {
	Role    string
	Text    string // the text parts joined with newlines
	Calls   []Call
	Results []Result
}

// Call is a tool call, made by the model.
type Call struct {
	ID   string
	Name string
	Args map[string]any
}

// Result is a tool result as the agent forwarded it to its model.
type Result struct {
	ID      string // Anthropic tool_use_id
	Name    string // Gemini functionResponse name
	Text    string // the result's text content, or its JSON when it has none
	IsError bool
	Raw     json.RawMessage
}

// Reply is what the scripted model answers: tool calls, or text, or both
// (text first).
type Reply struct {
	Text  string
	Calls []Call
}

// Script decides the reply to a turn request. It is called for KindTurn
// requests only, one at a time.
type Script func(r Request) Reply

// Model is a running scripted endpoint.
type Model struct {
	api    API
	srv    *httptest.Server
	script Script

	mu   sync.Mutex
	reqs []Request
	hook func(context.Context, Request) // called before the reply
	seq  int
}

// New starts an endpoint for the API on 127.0.0.1 with the script.
func New(api API, script Script) *Model {
	m := &Model{api: api, script: script}
	h := http.HandlerFunc(m.serveGemini)
	switch api {
	case Anthropic:
		h = m.serveAnthropic
	case OpenAI:
		h = m.serveOpenAI
	}
	m.srv = httptest.NewUnstartedServer(h)
	// Only the loopback address: the agents under test must reach
	// nothing but this endpoint.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("agenttest: " + err.Error())
	}
	m.srv.Listener = l
	m.srv.Start()
	return m
}

// URL is the base URL of the endpoint (http://127.0.0.1:port).
func (m *Model) URL() string { return m.srv.URL }

// Close stops the endpoint.
func (m *Model) Close() { m.srv.Close() }

// SetHook sets a function called with each turn request before it is
// answered, with the HTTP request's context (done when the agent drops the
// connection); nil clears it. A test uses it to hold a turn open.
func (m *Model) SetHook(f func(context.Context, Request)) {
	m.mu.Lock()
	m.hook = f
	m.mu.Unlock()
}

// Requests returns the requests received so far.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.reqs...)
}

// Turns returns the KindTurn requests received so far.
func (m *Model) Turns() []Request {
	var out []Request
	for _, r := range m.Requests() {
		if r.Kind == KindTurn {
			out = append(out, r)
		}
	}
	return out
}

func (m *Model) record(r Request) (Script, func(context.Context, Request), int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, r)
	m.seq++
	return m.script, m.hook, m.seq
}

// answer records r and returns the scripted reply to it, with its
// sequence number: a fixed one for a side call (KindAux), else the
// script's, after the hook has seen the request.
func (m *Model) answer(ctx context.Context, r Request) (Reply, int) {
	script, hook, seq := m.record(r)
	if r.Kind == KindAux {
		return Reply{Text: "Scripted reply."}, seq
	}
	if hook != nil {
		hook(ctx, r)
	}
	return script(r), seq
}

// Tool returns the declaration of the tool (see MatchTool), or false.
func (r Request) Tool(tool string) (Tool, bool) {
	for _, t := range r.Tools {
		if MatchTool(t.Name, tool) {
			return t, true
		}
	}
	return Tool{}, false
}

// MatchTool reports whether the name an agent gave a tool is our tool on
// the agentero-context server: the bare name, or the name prefixed with
// the server's as agents do ("mcp__agentero-context__context_read" for
// Claude Code, "mcp_agentero-context_context_read" for gemini-cli,
// "mcp__agentero_context__context_read" for Codex, which keeps only
// letters, digits and underscores in a namespace).
func MatchTool(name, tool string) bool {
	codex := "mcp__" + strings.ReplaceAll(grant.ServerName, "-", "_") + "__" + tool
	switch name {
	case tool, "mcp__" + grant.ServerName + "__" + tool, "mcp_" + grant.ServerName + "_" + tool, grant.ServerName + "__" + tool, codex:
		return true
	}
	return false
}

// LastUser returns the index of the message that starts the current turn:
// the first of the last run of user messages that carry text and no tool
// results (Claude Code sends the prompt and its environment reminder as
// two user messages), or -1.
func (r Request) LastUser() int {
	at := -1
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		isPrompt := m.Role == RoleUser && m.Text != "" && len(m.Results) == 0
		switch {
		case isPrompt:
			at = i
		case at >= 0:
			return at
		}
	}
	return at
}

// TurnResults returns the tool results sent since the user's last text
// message, with the name of the call each answers.
func (r Request) TurnResults() []Result {
	names := map[string]string{}
	var out []Result
	for _, m := range r.Messages[max(r.LastUser(), 0):] {
		for _, c := range m.Calls {
			names[c.ID] = c.Name
		}
		for _, res := range m.Results {
			if res.Name == "" {
				res.Name = names[res.ID]
			}
			out = append(out, res)
		}
	}
	return out
}

// Prompt returns the text of the user's messages that start the current
// turn, joined with newlines.
func (r Request) Prompt() string {
	i := r.LastUser()
	if i < 0 {
		return ""
	}
	var texts []string
	for _, m := range r.Messages[i:] {
		if m.Role != RoleUser || m.Text == "" || len(m.Results) > 0 {
			break
		}
		texts = append(texts, m.Text)
	}
	return strings.Join(texts, "\n")
}

// ToolSearch is the name of Claude Code's tool that loads deferred tools:
// MCP tools are not declared to the model until it asks for them.
const ToolSearch = "ToolSearch"

// LoadDeferred returns the ToolSearch call that loads the tools, when the
// request offers ToolSearch and declares none of them yet. The tools' full
// names ("mcp__<server>__<tool>") are taken from the request, which lists
// the deferred tools by name.
func LoadDeferred(r Request, tools ...string) (Call, bool) {
	if _, ok := r.Tool(ToolSearch); !ok {
		return Call{}, false
	}
	for _, t := range tools {
		if _, ok := r.Tool(t); ok {
			return Call{}, false
		}
	}
	var names []string
	for _, t := range tools {
		re := regexp.MustCompile(`mcp__[A-Za-z0-9_-]+?__` + regexp.QuoteMeta(t) + `\b`)
		if n := re.Find(r.Body); n != nil {
			names = append(names, string(n))
		}
	}
	if len(names) == 0 {
		return Call{}, false
	}
	return Call{Name: ToolSearch, Args: map[string]any{"query": "select:" + strings.Join(names, ","), "max_results": len(names)}}, true
}
