package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxLineBytes bounds one JSON-RPC line from the client, newline included.
// The server's requests are a few hundred bytes; a longer line is answered
// with an Invalid Request error and skipped in bounded memory.
const maxLineBytes = 4 << 20

// The server answers a line that is not a JSON-RPC message itself and goes
// on serving: the SDK's stdio connection would end the session, and every
// call in flight with it, on the first such line. The line filter sits in
// front of the SDK's transport: good lines pass through unchanged, bad ones
// get an error response written under the same lock as the SDK's writes,
// so the two never interleave on stdout.

// lineFilter is the reader the SDK's transport reads the client's lines
// from. It is read by one goroutine (the transport's reader).
//
// It also holds back the end of the input until every call it passed on
// is answered (see drainGrace): the SDK's connection cancels the calls in
// flight as soon as its reader sees the end, and a client that writes its
// calls and closes stdin at once would get none of them answered.
type lineFilter struct {
	lr      *lineReader
	out     *lockedWriter
	log     *slog.Logger
	pending []byte
	drain   time.Duration // how long the end of input waits for the calls in flight
	stop    <-chan struct{}

	ended chan struct{} // closed when the input ends
	once  sync.Once
}

func newLineFilter(in io.Reader, out *lockedWriter, log *slog.Logger, drain time.Duration, stop <-chan struct{}) *lineFilter {
	return &lineFilter{
		lr:    newLineReader(in, maxLineBytes),
		out:   out,
		log:   log,
		drain: drain,
		stop:  stop,
		ended: make(chan struct{}),
	}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.lr.Next()
		switch {
		case err == nil, err == io.ErrUnexpectedEOF:
			// A last line without a newline is still a line.
		case errors.Is(err, errLineTooLong):
			f.reply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: line longer than "+strconv.Itoa(maxLineBytes>>20)+" MiB")
			continue
		default:
			f.once.Do(func() {
				f.waitCalls()
				close(f.ended)
			})
			return 0, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		m, id, code, msg := checkLine(line)
		if code != 0 {
			f.reply(id, code, msg)
			continue
		}
		f.out.calls.passed(m)
		f.pending = append(append(f.pending[:0], line...), '\n')
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// waitCalls waits until every call passed on is answered, at most
// f.drain, or until the server is told to stop.
func (f *lineFilter) waitCalls() {
	idle := f.out.calls.idle()
	select {
	case <-idle:
		return
	default:
	}
	t := time.NewTimer(f.drain)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
		f.log.Warn("input ended with calls still running after the drain grace", "calls", f.out.calls.count())
	case <-f.stop:
	}
}

// checkLine returns the message of a good line, or the JSON-RPC error code
// and message for a line the SDK's transport would fail on, with the
// request's id when it can be read.
func checkLine(line []byte) (m jsonrpc.Message, id json.RawMessage, code int, msg string) {
	if !json.Valid(line) {
		return nil, nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON"
	}
	if line[0] == '[' {
		// Batches were removed from MCP in 2025-06-18; the SDK refuses
		// them there by ending the session.
		return nil, nil, jsonrpc.CodeInvalidRequest, "Invalid Request: batches are not supported"
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, requestID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message"
	}
	return m, nil, 0, ""
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
// message. After closeBy it writes nothing, so that a call still running
// when Serve returns cannot write to a stream its caller reuses.
//
// A client that stops reading blocks a Write, which then holds the lock
// until the client reads: the server's stop never waits on that lock
// beyond its deadline (see closeBy).
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	closed  bool
	stopped atomic.Bool // set when closeBy gave up on a blocked write: nothing more is written
	calls   calls       // the client's calls not answered yet
}

var (
	errClosed = errors.New("the server has stopped")
	// errBlocked is closeBy's error when a write to the client was still
	// blocked at its deadline: the client reads nothing.
	errBlocked = errors.New("a write to the client is blocked: the client reads nothing")
)

func (w *lockedWriter) Write(p []byte) (int, error) {
	if w.stopped.Load() {
		return 0, errClosed // the lock may be held by a write that never ends
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.stopped.Load() {
		return 0, errClosed
	}
	n, err := w.w.Write(p)
	if err == nil {
		w.calls.written(p)
	}
	return n, err
}

// writeDeadliner is a writer whose blocked writes a deadline ends: an
// *os.File the runtime polls (a pipe or socket opened non-blocking), a
// net.Conn.
type writeDeadliner interface {
	SetWriteDeadline(t time.Time) error
}

// closeBy answers every call still unanswered with an error, so that no
// call the server read goes without an answer, then stops further writes;
// the underlying writer stays open (it is the caller's, such as the
// process's stdout).
//
// It returns by deadline whatever the client does. A write blocked on a
// client that reads nothing is ended at the deadline when the writer
// takes write deadlines (the deadline is cleared again once the writes
// end), else abandoned: it stays blocked until the client reads or closes
// its end, nothing is written after it, and the calls it kept from being
// answered go without an answer; closeBy then returns errBlocked. A
// process exits at once after it, which is what the server does.
func (w *lockedWriter) closeBy(deadline time.Time) error {
	d, cut := w.w.(writeDeadliner)
	cut = cut && d.SetWriteDeadline(deadline) == nil
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.mu.Lock()
		defer w.mu.Unlock()
		if cut {
			defer d.SetWriteDeadline(time.Time{})
		}
		if w.closed {
			return
		}
		w.closed = true
		for _, id := range w.calls.take() {
			if w.stopped.Load() {
				return
			}
			b, err := unfinished(id)
			if err == nil {
				_, err = w.w.Write(b)
			}
			if err != nil {
				return
			}
		}
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		w.stopped.Store(true)
		return errBlocked
	}
}

// unfinished is the error response to a call the server stopped before it
// finished: it read nothing and logged nothing.
func unfinished(id jsonrpc.ID) ([]byte, error) {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id,
		Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server stopped before this call finished"}})
	return append(b, '\n'), err
}

// calls tracks the client's calls (requests with an id) that the line
// filter passed on and no response has answered yet.
type calls struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool
	empty   chan struct{} // closed while pending is empty; nil means closed
}

// passed notes a message passed on to the SDK: a call is pending until
// answered; a cancellation notice ends the call it names (the SDK does not
// answer a cancelled call).
func (c *calls) passed(m jsonrpc.Message) {
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.IsCall():
		if c.pending == nil {
			c.pending = map[jsonrpc.ID]bool{}
		}
		if len(c.pending) == 0 {
			c.empty = make(chan struct{})
		}
		// A duplicate id is refused by the SDK with an answer of its own
		// that names no id: the first call stays the one pending.
		c.pending[req.ID] = true
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.done(id)
			}
		}
	}
}

// written notes a message written to the client: a response answers its
// call.
func (c *calls) written(p []byte) {
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n == 0 {
		return
	}
	if id, ok := responseID(p); ok {
		c.mu.Lock()
		c.done(id)
		c.mu.Unlock()
	}
}

// responseID returns the id of a JSON-RPC response line without decoding
// its result: the SDK writes the id before the result, so the scan stops
// there. A request (it has a method) or a line without an id is not a
// response.
func responseID(line []byte) (jsonrpc.ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonrpc.ID{}, false
	}
	var id json.RawMessage
	answer := false // a result or an error was seen
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}, false
		}
		switch key, _ := t.(string); key {
		case "method":
			return jsonrpc.ID{}, false
		case "id":
			if dec.Decode(&id) != nil {
				return jsonrpc.ID{}, false
			}
		case "result", "error":
			answer = true
			if id != nil {
				return makeID(id)
			}
			fallthrough
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return jsonrpc.ID{}, false
			}
		}
	}
	if !answer || id == nil {
		return jsonrpc.ID{}, false
	}
	return makeID(id)
}

// makeID turns a raw request id (a string or a number) into an ID equal to
// the one the SDK decodes from the same request.
func makeID(raw json.RawMessage) (jsonrpc.ID, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil && id.IsValid()
}

// done ends the pending call id; c.mu is held.
func (c *calls) done(id jsonrpc.ID) {
	if !c.pending[id] {
		return
	}
	delete(c.pending, id)
	if len(c.pending) == 0 {
		close(c.empty)
		c.empty = nil
	}
}

// idle returns a channel closed once no call is pending.
func (c *calls) idle() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.empty == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return c.empty
}

func (c *calls) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// take returns the pending calls, in no order, and forgets them.
func (c *calls) take() []jsonrpc.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]jsonrpc.ID, 0, len(c.pending))
	for id := range c.pending {
		ids = append(ids, id)
	}
	clear(c.pending)
	if c.empty != nil {
		close(c.empty)
		c.empty = nil
	}
	return ids
}
