package mcp

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// BenchmarkWriteTrackedResponse measures what the drain's bookkeeping adds
// to writing a large tool result (about 100,000 characters) while a call is
// pending: decoding the response to learn its id.
func BenchmarkWriteTrackedResponse(b *testing.B) {
	result, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": strings.Repeat("quoted page text ", 6000)}}})
	id, _ := jsonrpc.MakeID(float64(7))
	line, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: result})
	line = append(line, '\n')
	req, _ := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`))
	w := &lockedWriter{w: io.Discard}
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		w.calls.passed(req)
		if _, err := w.Write(line); err != nil {
			b.Fatal(err)
		}
	}
}

// TestResponseID: the drain learns which call a written line answers from
// its id alone, for ids of either type, whatever the order of the fields;
// a request or a notification answers nothing.
func TestResponseID(t *testing.T) {
	num, _ := jsonrpc.MakeID(float64(7))
	str, _ := jsonrpc.MakeID("a-7")
	tests := []struct {
		line string
		want jsonrpc.ID
		ok   bool
		req  string // the id as the request sent it
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, num, true, `7`},
		{`{"jsonrpc":"2.0","result":{"content":[]},"id":7}`, num, true, `7`},
		{`{"jsonrpc":"2.0","id":"a-7","error":{"code":-32603,"message":"x"}}`, str, true, `"a-7"`},
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, jsonrpc.ID{}, false, ""},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, jsonrpc.ID{}, false, ""},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, jsonrpc.ID{}, false, ""},
		{`not json`, jsonrpc.ID{}, false, ""},
	}
	for _, tt := range tests {
		got, ok := responseID([]byte(tt.line))
		if ok != tt.ok || got != tt.want {
			t.Errorf("responseID(%s) = %v, %v; want %v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
		// The id matches the one the SDK decodes from the request.
		if ok {
			req, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","method":"tools/call","id":` + tt.req + `}`))
			if err != nil {
				t.Fatal(err)
			}
			if r := req.(*jsonrpc.Request); r.ID != got {
				t.Errorf("responseID(%s) = %v, the request decodes to %v", tt.line, got, r.ID)
			}
		}
	}
}
