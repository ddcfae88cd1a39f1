package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Gemini API wire types, as much of them as the endpoint reads or writes.
type gemContent struct {
	Role  string    `json:"role,omitempty"`
	Parts []gemPart `json:"parts"`
}

type gemPart struct {
	Text             string       `json:"text,omitempty"`
	Thought          bool         `json:"thought,omitempty"`
	FunctionCall     *gemCall     `json:"functionCall,omitempty"`
	FunctionResponse *gemResponse `json:"functionResponse,omitempty"`
}

type gemCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type gemResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type gemRequest struct {
	Contents          []gemContent    `json:"contents"`
	SystemInstruction json.RawMessage `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

type gemDecl struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
	Parameters           json.RawMessage `json:"parameters"`
}

// serveGemini answers POST /v1beta/models/{model}:{method}.
func (m *Model) serveGemini(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	path := hr.URL.Path
	model, method, _ := strings.Cut(path[strings.LastIndex(path, "/")+1:], ":")
	r := Request{API: Gemini, Method: hr.Method, Path: hr.URL.RequestURI(), Model: model, Body: body,
		Stream: method == "streamGenerateContent"}
	var gr gemRequest
	if method == "countTokens" {
		r.Kind = KindCount
		m.record(r)
		writeJSON(w, map[string]any{"totalTokens": len(body) / 4})
		return
	}
	if method != "generateContent" && method != "streamGenerateContent" {
		m.record(r)
		http.Error(w, `{"error":{"code":404,"message":"not scripted","status":"NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	if err := json.Unmarshal(body, &gr); err != nil {
		m.record(r)
		http.Error(w, `{"error":{"code":400,"message":"bad request body","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	r.System = gemSystem(gr.SystemInstruction)
	for _, t := range gr.Tools {
		for _, raw := range t.FunctionDeclarations {
			var d gemDecl
			_ = json.Unmarshal(raw, &d)
			schema := d.ParametersJSONSchema
			if len(schema) == 0 {
				schema = d.Parameters
			}
			r.Tools = append(r.Tools, Tool{Name: d.Name, Description: d.Description, Schema: schema, Raw: raw})
		}
	}
	for _, c := range gr.Contents {
		r.Messages = append(r.Messages, gemMessage(c))
	}
	var reply Reply
	schema := gr.GenerationConfig.ResponseJSONSchema
	if len(schema) == 0 {
		schema = gr.GenerationConfig.ResponseSchema
	}
	switch {
	case len(r.Tools) > 0:
		r.Kind = KindTurn
		reply, _ = m.answer(hr.Context(), r)
	case len(schema) > 0 || gr.GenerationConfig.ResponseMimeType == "application/json":
		// The router and the classifiers ask for JSON under a schema:
		// fill it (the first enum value: "flash", "user").
		r.Kind = KindAux
		m.record(r)
		b, _ := json.Marshal(fillSchema(schema))
		reply = Reply{Text: string(b)}
	default:
		r.Kind = KindAux
		m.record(r)
		reply = Reply{Text: "ok"}
	}
	resp := gemReply(reply, model)
	if !r.Stream {
		writeJSON(w, resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	b, _ := json.Marshal(resp)
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

func gemSystem(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var c gemContent
	_ = json.Unmarshal(raw, &c)
	return gemMessage(c).Text
}

func gemMessage(c gemContent) Message {
	msg := Message{Role: RoleUser}
	if c.Role == "model" {
		msg.Role = RoleModel
	}
	var texts []string
	for _, p := range c.Parts {
		switch {
		case p.FunctionCall != nil:
			msg.Calls = append(msg.Calls, Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
		case p.FunctionResponse != nil:
			msg.Results = append(msg.Results, gemResult(p.FunctionResponse))
		case p.Text != "" && !p.Thought:
			texts = append(texts, p.Text)
		}
	}
	msg.Text = strings.Join(texts, "\n")
	return msg
}

// gemResult flattens a functionResponse: gemini-cli sends {"output": text}
// for a result and {"error": text} for a failed call.
func gemResult(fr *gemResponse) Result {
	res := Result{ID: fr.ID, Name: fr.Name, Raw: fr.Response}
	var obj map[string]any
	if json.Unmarshal(fr.Response, &obj) == nil {
		if s, ok := obj["error"].(string); ok {
			res.Text, res.IsError = s, true
			return res
		}
		if s, ok := obj["output"].(string); ok {
			res.Text = s
			return res
		}
	}
	res.Text = string(fr.Response)
	return res
}

func gemReply(r Reply, model string) map[string]any {
	parts := []map[string]any{}
	if r.Text != "" {
		parts = append(parts, map[string]any{"text": r.Text})
	}
	for _, c := range r.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}})
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  model,
	}
}

// fillSchema returns a value valid under a (JSON or OpenAPI-style) schema:
// every property, the first enum value for enums, the minimum (else 1) for
// numbers.
func fillSchema(raw json.RawMessage) any {
	var s struct {
		Type       any                        `json:"type"`
		Enum       []any                      `json:"enum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
		Minimum    *float64                   `json:"minimum"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return map[string]any{}
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	typ, _ := s.Type.(string)
	if list, ok := s.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch strings.ToLower(typ) {
	case "string":
		return "scripted"
	case "number", "integer":
		// The minimum, else 1: gemini-cli's numerical router wants a
		// complexity score of 1 to 100 without saying so in the schema;
		// 1 routes to the small model.
		if s.Minimum != nil {
			return *s.Minimum
		}
		return 1
	case "boolean":
		return false
	case "array":
		if len(s.Items) == 0 {
			return []any{}
		}
		return []any{fillSchema(s.Items)}
	}
	out := map[string]any{}
	for k, v := range s.Properties {
		out[k] = fillSchema(v)
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
