package agenttest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseData returns the data payloads of a server-sent event stream, with the
// event names when sent.
func sseData(t *testing.T, resp *http.Response) (events []string, data []map[string]any) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, "event: "):
			events = append(events, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("data %q: %v", line, err)
			}
			data = append(data, m)
		}
	}
	return events, data
}

func TestLoopbackOnly(t *testing.T) {
	m := New(Gemini, func(Request) Reply { return Reply{} })
	defer m.Close()
	u, err := url.Parse(m.URL())
	if err != nil {
		t.Fatal(err)
	}
	if u.Hostname() != "127.0.0.1" {
		t.Errorf("endpoint listens on %s", u.Host)
	}
}

func TestGeminiTurn(t *testing.T) {
	var seen Request
	m := New(Gemini, func(r Request) Reply {
		seen = r
		return Reply{Calls: []Call{{Name: "mcp_agentero-context_context_read", Args: map[string]any{"target": "notes"}}}}
	})
	defer m.Close()
	body := `{"contents":[
	  {"role":"user","parts":[{"text":"earlier question"}]},
	  {"role":"model","parts":[{"text":"earlier answer"}]},
	  {"role":"user","parts":[{"text":"find strided tokens"}]},
	  {"role":"model","parts":[{"thought":true,"text":"thinking"},{"functionCall":{"name":"mcp_agentero-context_context_search","args":{"query":"strided"}}}]},
	  {"role":"user","parts":[{"functionResponse":{"name":"mcp_agentero-context_context_search","response":{"output":"cite: papers/a.pdf#page=2"}}}]},
	  {"role":"model","parts":[{"functionCall":{"name":"mcp_agentero-context_context_read","args":{"target":"papers/x"}}}]},
	  {"role":"user","parts":[{"functionResponse":{"name":"mcp_agentero-context_context_read","response":{"error":"papers/x is not granted"}}}]}],
	 "systemInstruction":{"parts":[{"text":"be brief"}]},
	 "tools":[{"functionDeclarations":[{"name":"mcp_agentero-context_context_search","description":"Search.","parametersJsonSchema":{"type":"object","properties":{"query":{"type":"string"}}}}]}]}`
	resp := post(t, m.URL()+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse", body)
	_, data := sseData(t, resp)
	if len(data) != 1 {
		t.Fatalf("%d chunks", len(data))
	}
	parts := data[0]["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)
	call := parts[0].(map[string]any)["functionCall"].(map[string]any)
	if call["name"] != "mcp_agentero-context_context_read" || call["args"].(map[string]any)["target"] != "notes" {
		t.Errorf("function call %v", call)
	}

	if seen.Kind != KindTurn || !seen.Stream || seen.Model != "gemini-x" || seen.System != "be brief" {
		t.Errorf("request: kind %s stream %v model %s system %q", seen.Kind, seen.Stream, seen.Model, seen.System)
	}
	if d, ok := seen.Tool("context_search"); !ok || d.Description != "Search." || !strings.Contains(string(d.Schema), `"query"`) {
		t.Errorf("declaration %+v", d)
	}
	if _, ok := seen.Tool("search"); ok {
		t.Error("a tool matched by a partial name")
	}
	if got := seen.Prompt(); got != "find strided tokens" {
		t.Errorf("prompt %q", got)
	}
	got := seen.TurnResults()
	want := []Result{
		{Name: "mcp_agentero-context_context_search", Text: "cite: papers/a.pdf#page=2"},
		{Name: "mcp_agentero-context_context_read", Text: "papers/x is not granted", IsError: true},
	}
	for i := range got {
		got[i].Raw = nil
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn results (-want +got):\n%s", diff)
	}
	if seen.Messages[3].Text != "" {
		t.Errorf("a thought was taken as text: %q", seen.Messages[3].Text)
	}
}

// gemini-cli's router and classifiers ask for JSON under a schema; they
// get a valid value (the first enum value) without reaching the script.
func TestGeminiRouter(t *testing.T) {
	m := New(Gemini, func(r Request) Reply {
		t.Errorf("the script was asked for a side call: %s", r.Path)
		return Reply{}
	})
	defer m.Close()
	body := `{"contents":[{"role":"user","parts":[{"text":"which model?"}]}],
	 "generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object",
	   "properties":{"reasoning":{"type":"string"},"model_choice":{"type":"string","enum":["flash","pro"]},"n":{"type":["integer","null"]},
	   "complexity_score":{"type":"INTEGER","description":"Complexity score from 1-100."},"k":{"type":"number","minimum":3}}}}}`
	resp := post(t, m.URL()+"/v1beta/models/router:generateContent", body)
	var out struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	var choice map[string]any
	if err := json.Unmarshal([]byte(out.Candidates[0].Content.Parts[0].Text), &choice); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"reasoning": "scripted", "model_choice": "flash", "n": 1.0, "complexity_score": 1.0, "k": 3.0}, choice); diff != "" {
		t.Errorf("router answer (-want +got):\n%s", diff)
	}
	if rs := m.Requests(); len(rs) != 1 || rs[0].Kind != KindAux || len(m.Turns()) != 0 {
		t.Errorf("requests %+v", rs)
	}
	resp = post(t, m.URL()+"/v1beta/models/x:countTokens", `{}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("countTokens: %s", resp.Status)
	}
}

func TestAnthropicStream(t *testing.T) {
	var seen Request
	m := New(Anthropic, func(r Request) Reply {
		seen = r
		if c, ok := LoadDeferred(r, "context_search", "context_read"); ok {
			return Reply{Text: "Loading.", Calls: []Call{c}}
		}
		return Reply{Text: "done"}
	})
	defer m.Close()
	// Claude Code sends the prompt and its environment reminder as two
	// user messages; our tools are listed by name only, deferred.
	body := `{"model":"claude-x","stream":true,"system":[{"type":"text","text":"sys"}],
	 "tools":[{"name":"ToolSearch","description":"Load tools.","input_schema":{"type":"object"}}],
	 "messages":[
	  {"role":"user","content":[{"type":"text","text":"<available-deferred-tools>mcp__agentero-context__context_search\nmcp__agentero-context__context_read</available-deferred-tools>"},{"type":"text","text":"the question"}]},
	  {"role":"user","content":"# Environment"}]}`
	resp := post(t, m.URL()+"/v1/messages?beta=true", body)
	events, data := sseData(t, resp)
	wantEvents := []string{"message_start",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if diff := cmp.Diff(wantEvents, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	use := data[4]["content_block"].(map[string]any)
	var input map[string]any
	if err := json.Unmarshal([]byte(data[5]["delta"].(map[string]any)["partial_json"].(string)), &input); err != nil {
		t.Fatal(err)
	}
	if use["name"] != ToolSearch || input["query"] != "select:mcp__agentero-context__context_search,mcp__agentero-context__context_read" {
		t.Errorf("tool use %v input %v", use, input)
	}
	if stop := data[7]["delta"].(map[string]any)["stop_reason"]; stop != "tool_use" {
		t.Errorf("stop reason %v", stop)
	}
	if !strings.HasPrefix(seen.Prompt(), "<available-deferred-tools>") || !strings.HasSuffix(seen.Prompt(), "the question\n# Environment") {
		t.Errorf("prompt %q", seen.Prompt())
	}

	// Once ToolSearch has answered, the tools are declared: no second load.
	body = `{"model":"claude-x","stream":false,
	 "tools":[{"name":"ToolSearch","input_schema":{"type":"object"}},{"name":"mcp__agentero-context__context_search","input_schema":{"type":"object"}}],
	 "messages":[{"role":"user","content":"q mcp__agentero-context__context_search"},
	  {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ToolSearch","input":{}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"tool_reference","tool_name":"mcp__agentero-context__context_search"}]}]}]}`
	resp = post(t, m.URL()+"/v1/messages", body)
	var msg struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "done" || msg.StopReason != "end_turn" {
		t.Errorf("message %+v", msg)
	}
	res := seen.TurnResults()
	if len(res) != 1 || res[0].Name != ToolSearch || res[0].Text != "tool_reference:mcp__agentero-context__context_search" {
		t.Errorf("turn results %+v", res)
	}
}

// Side calls are answered without the script: titles (no tools) and the
// prompt suggestion Claude Code asks for after a turn (with tools).
func TestAnthropicSideCalls(t *testing.T) {
	m := New(Anthropic, func(r Request) Reply {
		t.Errorf("the script was asked for a side call: %s", r.Prompt())
		return Reply{}
	})
	defer m.Close()
	post(t, m.URL()+"/v1/messages", `{"model":"h","messages":[{"role":"user","content":"title this"}]}`)
	post(t, m.URL()+"/v1/messages", `{"model":"h","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"[SUGGESTION MODE: Suggest what the user might type next.]"}]}`)
	resp := post(t, m.URL()+"/v1/messages/count_tokens", `{"messages":[]}`)
	var count map[string]int
	if err := json.NewDecoder(resp.Body).Decode(&count); err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	for _, r := range m.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if diff := cmp.Diff([]Kind{KindAux, KindAux, KindCount}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

// A Responses API turn as Codex sends it: developer and context messages
// skipped, the namespace of an MCP server's tools flattened, function
// calls and their outputs paired; the reply streams as created, item
// added and done (a namespaced call goes back in its namespace), completed.
func TestOpenAIResponses(t *testing.T) {
	var seen Request
	m := New(OpenAI, func(r Request) Reply {
		seen = r
		return Reply{Text: "Reading.", Calls: []Call{{Name: "mcp__agentero_context__context_read", Args: map[string]any{"target": "notes"}}}}
	})
	defer m.Close()
	body := `{"model":"gpt-x","stream":true,"instructions":"be precise",
	 "tools":[{"type":"function","name":"exec_command","parameters":{"type":"object"}},
	  {"type":"namespace","name":"mcp__agentero_context","tools":[{"type":"function","name":"context_search","description":"Search.","parameters":{"type":"object","properties":{"query":{"type":"string"}}}},{"type":"function","name":"context_read","parameters":{"type":"object"}}]},
	  {"type":"web_search"}],
	 "input":[
	  {"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>"}]},
	  {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd</environment_context>"}]},
	  {"type":"message","role":"user","content":[{"type":"input_text","text":"find strided tokens"}]},
	  {"type":"function_call","name":"context_search","namespace":"mcp__agentero_context","arguments":"{\"query\":\"strided\"}","call_id":"c1"},
	  {"type":"function_call_output","call_id":"c1","output":"Wall time: 0.01 seconds\nOutput:\n{\"cards\":[{\"citationUri\":\"papers/a.pdf#page=2\"}]}"},
	  {"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat x\"}","call_id":"c2"},
	  {"type":"function_call_output","call_id":"c2","output":"err: unsupported call"}]}`
	resp := post(t, m.URL()+"/v1/responses", body)
	events, data := sseData(t, resp)
	wantEvents := []string{"response.created", "response.output_item.added", "response.output_text.delta", "response.output_item.done",
		"response.output_item.added", "response.output_item.done", "response.completed"}
	if diff := cmp.Diff(wantEvents, events); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	call := data[5]["item"].(map[string]any)
	if call["type"] != "function_call" || call["namespace"] != "mcp__agentero_context" || call["name"] != "context_read" || call["arguments"] != `{"target":"notes"}` {
		t.Errorf("call item %v", call)
	}
	if u := data[6]["response"].(map[string]any)["usage"]; u == nil {
		t.Error("response.completed without usage")
	}
	if seen.Kind != KindTurn || seen.System != "be precise" || seen.Prompt() != "find strided tokens" {
		t.Errorf("request: kind %s, system %q, prompt %q", seen.Kind, seen.System, seen.Prompt())
	}
	var names []string
	for _, tool := range seen.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"exec_command", "mcp__agentero_context__context_search", "mcp__agentero_context__context_read", "web_search"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if _, ok := seen.Tool("context_search"); !ok {
		t.Error("our search tool not matched by its Codex name")
	}
	results := seen.TurnResults()
	if len(results) != 2 || results[0].Name != "mcp__agentero_context__context_search" || results[0].IsError ||
		results[1].Name != "exec_command" || !results[1].IsError {
		t.Fatalf("results %+v", results)
	}
	if got := Citations(results[0].Text); !cmp.Equal(got, []string{"papers/a.pdf#page=2"}) {
		t.Errorf("citations %v", got)
	}
}
