package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Anthropic Messages API wire types, as much as the endpoint reads.
type antRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	System   json.RawMessage   `json:"system"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type antBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     map[string]any  `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	ToolName  string          `json:"tool_name"` // tool_reference
}

type antTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// suggestionMode opens the side request in which Claude Code asks its model
// to predict the user's next message.
const suggestionMode = "[SUGGESTION MODE"

// serveAnthropic answers POST /v1/messages and /v1/messages/count_tokens.
func (m *Model) serveAnthropic(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r := Request{API: Anthropic, Method: hr.Method, Path: hr.URL.RequestURI(), Body: body}
	switch hr.URL.Path {
	case "/v1/messages/count_tokens":
		r.Kind = KindCount
		m.record(r)
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
		return
	case "/v1/messages":
	default:
		m.record(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}`)
		return
	}
	var ar antRequest
	if err := json.Unmarshal(body, &ar); err != nil {
		m.record(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request body"}}`)
		return
	}
	r.Model, r.Stream = ar.Model, ar.Stream
	r.System = antText(ar.System)
	for _, raw := range ar.Tools {
		var t antTool
		_ = json.Unmarshal(raw, &t)
		r.Tools = append(r.Tools, Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema, Raw: raw})
	}
	for _, msg := range ar.Messages {
		r.Messages = append(r.Messages, antMessage(msg.Role, msg.Content))
	}
	// Titles, quota checks and other side calls come without tools; the
	// prompt suggestion Claude Code asks for after a turn comes with them.
	r.Kind = KindAux
	if len(r.Tools) > 0 && !strings.Contains(r.Prompt(), suggestionMode) {
		r.Kind = KindTurn
	}
	reply, seq := m.answer(hr.Context(), r)
	m.writeAnthropic(w, r, reply, seq)
}

func antText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []antBlock
	_ = json.Unmarshal(raw, &blocks)
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func antMessage(role string, content json.RawMessage) Message {
	msg := Message{Role: RoleUser}
	if role == "assistant" {
		msg.Role = RoleModel
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		msg.Text = s
		return msg
	}
	var blocks []antBlock
	_ = json.Unmarshal(content, &blocks)
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case "tool_use":
			msg.Calls = append(msg.Calls, Call{ID: b.ID, Name: b.Name, Args: b.Input})
		case "tool_result":
			msg.Results = append(msg.Results, antResult(b))
		}
	}
	msg.Text = strings.Join(texts, "\n")
	return msg
}

// antResult flattens a tool_result: its text blocks joined, or the names of
// the tools a tool_reference block loads (ToolSearch's answer).
func antResult(b antBlock) Result {
	res := Result{ID: b.ToolUseID, IsError: b.IsError, Raw: b.Content}
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		res.Text = s
		return res
	}
	var blocks []antBlock
	_ = json.Unmarshal(b.Content, &blocks)
	var texts []string
	for _, c := range blocks {
		switch c.Type {
		case "text":
			texts = append(texts, c.Text)
		case "tool_reference":
			texts = append(texts, "tool_reference:"+c.ToolName)
		}
	}
	res.Text = strings.Join(texts, "\n")
	return res
}

// writeAnthropic sends the reply as a message, streamed as server-sent
// events when the request asked for a stream.
func (m *Model) writeAnthropic(w http.ResponseWriter, r Request, reply Reply, seq int) {
	model := r.Model
	if model == "" {
		model = "claude-scripted"
	}
	var blocks []map[string]any
	if reply.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": reply.Text})
	}
	for i, c := range reply.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%04d_%d", seq, i), "name": c.Name, "input": args})
	}
	stop := "end_turn"
	if len(reply.Calls) > 0 {
		stop = "tool_use"
	}
	id := fmt.Sprintf("msg_%04d", seq)
	usage := map[string]any{"input_tokens": 10, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !r.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
