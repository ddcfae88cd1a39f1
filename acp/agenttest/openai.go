package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// OpenAI Responses API wire types, as much as the endpoint reads. Codex
// sends the conversation as a list of items (messages, function calls and
// their outputs) and its tools as functions, custom (free-form) tools, or
// namespaces of functions (an MCP server's tools).
type oaiRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	Instructions string            `json:"instructions"`
	Tools        []json.RawMessage `json:"tools"`
	Input        []json.RawMessage `json:"input"`
}

type oaiTool struct {
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Parameters  json.RawMessage   `json:"parameters"`
	Tools       []json.RawMessage `json:"tools"` // a namespace's functions
}

type oaiItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"` // custom tool call
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

// serveOpenAI answers POST /v1/responses (or /responses) with a streamed
// response; any other path is recorded and answered 404.
func (m *Model) serveOpenAI(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r := Request{API: OpenAI, Method: hr.Method, Path: hr.URL.RequestURI(), Body: body}
	if hr.Method != http.MethodPost || !strings.HasSuffix(hr.URL.Path, "/responses") {
		m.record(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","code":"not_found","message":"not scripted"}}`)
		return
	}
	var or oaiRequest
	if err := json.Unmarshal(body, &or); err != nil {
		m.record(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","message":"bad request body"}}`)
		return
	}
	r.Model, r.Stream, r.System = or.Model, or.Stream, or.Instructions
	for _, raw := range or.Tools {
		r.Tools = append(r.Tools, oaiTools(raw)...)
	}
	names := map[string]string{} // call id → the name the endpoint gives the call
	for _, raw := range or.Input {
		var it oaiItem
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Type {
		case "message":
			role := RoleUser
			if it.Role == "assistant" {
				role = RoleModel
			}
			// Codex sends its permissions and environment as developer
			// messages and its AGENTS.md context as user messages in
			// tags; only the user's own text starts a turn.
			if it.Role == "developer" || it.Role == "system" {
				continue
			}
			text := oaiText(it.Content)
			if role == RoleUser && (strings.HasPrefix(text, "<environment_context>") || strings.HasPrefix(text, "# AGENTS.md")) {
				continue
			}
			r.Messages = append(r.Messages, Message{Role: role, Text: text})
		case "function_call", "custom_tool_call":
			name := joinNamespace(it.Namespace, it.Name)
			names[it.CallID] = name
			args := map[string]any{}
			if it.Type == "function_call" {
				_ = json.Unmarshal([]byte(it.Arguments), &args)
			} else {
				args["input"] = it.Input
			}
			r.Messages = append(r.Messages, Message{Role: RoleModel, Calls: []Call{{ID: it.CallID, Name: name, Args: args}}})
		case "function_call_output", "custom_tool_call_output":
			res := Result{ID: it.CallID, Name: names[it.CallID], Raw: it.Output}
			res.Text, res.IsError = oaiOutput(it.Output)
			r.Messages = append(r.Messages, Message{Role: RoleUser, Results: []Result{res}})
		}
	}
	r.Kind = KindAux
	if len(r.Tools) > 0 {
		r.Kind = KindTurn
	}
	reply, seq := m.answer(hr.Context(), r)
	writeOpenAI(w, r, reply, seq)
}

// joinNamespace names a call of a namespaced tool "<namespace>__<name>",
// as Codex names an MCP tool (mcp__<server>__<tool>), unless the name
// already carries the namespace.
func joinNamespace(ns, name string) string {
	if ns == "" || strings.HasPrefix(name, ns) {
		return name
	}
	return strings.TrimSuffix(ns, "__") + "__" + name
}

// oaiTools flattens one tool declaration: a function or custom tool is one
// Tool, a namespace one Tool per function (named as joinNamespace does),
// built-in tools (web_search, local_shell...) one Tool named by their type.
func oaiTools(raw json.RawMessage) []Tool {
	var t oaiTool
	_ = json.Unmarshal(raw, &t)
	switch t.Type {
	case "namespace":
		var out []Tool
		for _, sub := range t.Tools {
			for _, st := range oaiTools(sub) {
				st.Namespace = t.Name
				st.Name = joinNamespace(t.Name, st.Name)
				out = append(out, st)
			}
		}
		return out
	case "function", "custom":
		return []Tool{{Name: t.Name, Description: t.Description, Schema: t.Parameters, Raw: raw}}
	}
	name := t.Name
	if name == "" {
		name = t.Type
	}
	return []Tool{{Name: name, Description: t.Description, Raw: raw}}
}

// toolType returns the type of a tool declaration ("function", "custom",
// "namespace"...).
func toolType(raw json.RawMessage) string {
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &t)
	return t.Type
}

// oaiText joins the text of a message's content parts.
func oaiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// oaiOutput flattens a function call's output: a string, or a list of
// content items whose texts are joined. Codex marks a failed MCP call by
// its text (the tool's error result) only, so IsError is read from the
// structured result when the text is one ({"isError": true}) or from
// Codex's own prefix for a call that did not run.
func oaiOutput(raw json.RawMessage) (string, bool) {
	text := oaiText(raw)
	if text == "" && len(raw) > 0 && raw[0] != '"' && raw[0] != '[' {
		text = string(raw)
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	isErr := json.Unmarshal([]byte(text), &res) == nil && res.IsError
	return text, isErr || strings.HasPrefix(text, "err: ")
}

// writeOpenAI streams the reply as a Responses API event stream: the
// response created, each output item added and done (the text as a
// message, each call as a function call, or a custom tool call for a
// free-form tool, whose input is Args["input"]), and the response
// completed.
func writeOpenAI(w http.ResponseWriter, r Request, reply Reply, seq int) {
	model := r.Model
	if model == "" {
		model = "gpt-scripted"
	}
	id := fmt.Sprintf("resp_%04d", seq)
	var items []map[string]any
	if reply.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%04d", seq), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}}})
	}
	for i, c := range reply.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		b, _ := json.Marshal(args)
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%04d_%d", seq, i), "status": "completed",
			"call_id": fmt.Sprintf("call_%04d_%d", seq, i), "name": c.Name, "arguments": string(b)}
		for _, t := range r.Tools {
			switch {
			case t.Name != c.Name:
			case t.Namespace != "":
				item["namespace"] = t.Namespace
				item["name"] = strings.TrimPrefix(strings.TrimPrefix(c.Name, t.Namespace), "__")
			case toolType(t.Raw) == "custom":
				// A free-form tool (Codex's apply_patch) takes its input
				// as one string.
				in, _ := args["input"].(string)
				item = map[string]any{"type": "custom_tool_call", "id": item["id"], "status": "completed",
					"call_id": item["call_id"], "name": c.Name, "input": in}
			}
		}
		items = append(items, item)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	n := 0
	event := func(typ string, data map[string]any) {
		data["type"] = typ
		data["sequence_number"] = n
		n++
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	resp := map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}
	event("response.created", map[string]any{"response": resp})
	for i, it := range items {
		added := map[string]any{}
		for k, v := range it {
			added[k] = v
		}
		added["status"] = "in_progress"
		event("response.output_item.added", map[string]any{"output_index": i, "item": added})
		if it["type"] == "message" {
			event("response.output_text.delta", map[string]any{"output_index": i, "content_index": 0, "item_id": it["id"], "delta": reply.Text})
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	done := map[string]any{"id": id, "object": "response", "model": model, "status": "completed", "output": items,
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 20}}
	event("response.completed", map[string]any{"response": done})
}
