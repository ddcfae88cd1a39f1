package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/researchctx/researchctx/internal/safefs"
)

// MaxLineBytes bounds one JSON-RPC line from the client, newline included.
// The server's requests are a few hundred bytes; a longer line is answered
// with an Invalid Request error and skipped in bounded memory.
const MaxLineBytes = 4 << 20

// The server answers a line that is not a JSON-RPC message itself and goes
// on serving: the SDK's stdio connection would end the session, and every
// call in flight with it, on the first such line. The line filter sits in
// front of the SDK's transport: good lines pass through unchanged, bad ones
// get an error response written under the same lock as the SDK's writes,
// so the two never interleave on stdout.

// lineFilter is the reader the SDK's transport reads the client's lines
// from. It is read by one goroutine (the transport's reader).
type lineFilter struct {
	lr      *safefs.LineReader
	out     *lockedWriter
	log     *slog.Logger
	pending []byte

	ended chan struct{} // closed when the input ends
	once  sync.Once
}

func newLineFilter(in io.Reader, out *lockedWriter, log *slog.Logger) *lineFilter {
	return &lineFilter{
		lr:    safefs.NewLineReader(in, MaxLineBytes),
		out:   out,
		log:   log,
		ended: make(chan struct{}),
	}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.lr.Next()
		switch {
		case err == nil, err == io.ErrUnexpectedEOF:
			// A last line without a newline is still a line.
		case errors.Is(err, safefs.ErrLineTooLong):
			f.reply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: line longer than "+strconv.Itoa(MaxLineBytes>>20)+" MiB")
			continue
		default:
			f.once.Do(func() { close(f.ended) })
			return 0, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if id, code, msg := checkLine(line); code != 0 {
			f.reply(id, code, msg)
			continue
		}
		f.pending = append(append(f.pending[:0], line...), '\n')
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// checkLine returns the JSON-RPC error code and message for a line the
// SDK's transport would fail on, with the request's id when it can be read,
// or code 0 for a good line.
func checkLine(line []byte) (id json.RawMessage, code int, msg string) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON"
	}
	if line[0] == '[' {
		// Batches were removed from MCP in 2025-06-18; the SDK refuses
		// them there by ending the session.
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: batches are not supported"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return requestID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message"
	}
	return nil, 0, ""
}

// requestID returns the id of a JSON object line when it is a valid
// request id (a string or a number), else nil.
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// reply writes an error response for a line the filter refused.
func (f *lineFilter) reply(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: int64(code), Message: msg}})
	if err != nil {
		return
	}
	f.log.Info("refused a client line", "code", code, "err", msg)
	f.out.Write(append(b, '\n'))
}

// lockedWriter serialises writes to the client: each Write is one whole
// message. After Close it writes nothing, so that a call still running
// when Serve returns cannot write to a stream its caller reuses.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

var errClosed = errors.New("the server has stopped")

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errClosed
	}
	return w.w.Write(p)
}

// Close stops further writes; the underlying writer stays open (it is the
// caller's, such as the process's stdout).
func (w *lockedWriter) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	return nil
}
