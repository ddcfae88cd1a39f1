package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/samplevault"
)

// TestMain lets the test binary be the agentero-context server: the
// scripted agent starts os.Executable() with --agentero-context-mcp, as
// the sidebar executable starts itself.
func TestMain(m *testing.M) {
	mcp.ServeIfRequested(nil)
	code := m.Run()
	chromeStop()
	os.Exit(code)
}

// sampleVault extracts the embedded sample vault to a temporary folder.
func sampleVault(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// testServer serves a sidebar on vault at a loopback port, with the
// scripted agent pacing its calls by pace.
func testServer(t *testing.T, vault string, pace time.Duration) (*server, *httptest.Server) {
	t.Helper()
	return runnerServer(t, vault, &scriptRunner{pace: pace, stderr: os.Stderr})
}

// runnerServer serves a sidebar on vault whose turns the runner plays.
func runnerServer(t *testing.T, vault string, r agentRunner) (*server, *httptest.Server) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	s, err := newServer(serverConfig{Vault: vault, Sample: true, Addr: ts.Listener.Addr().String(), Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}

// post sends a state-changing request as the page does: JSON, the token,
// the page's own Origin.
func post(t *testing.T, s *server, ts *httptest.Server, path string, body any) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(tokenHeader, s.token)
	req.Header.Set("Origin", s.origin)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// askTurn starts a turn and returns its events, read from the event
// stream until done.
func askTurn(t *testing.T, s *server, ts *httptest.Server, question string, sc scope) []event {
	t.Helper()
	resp := post(t, s, ts, "/api/turns", askIn{Question: question, Scope: sc})
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /api/turns: %s", resp.Status)
	}
	var started struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&started); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/turns/"+started.ID+"/events", nil)
	es, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Body.Close()
	if ct := es.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("event stream Content-Type %q", ct)
	}
	var evs []event
	sc2 := bufio.NewScanner(es.Body)
	sc2.Buffer(make([]byte, 1<<20), 8<<20)
	for sc2.Scan() {
		line := sc2.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		evs = append(evs, e)
		if e.Type == evDone {
			return evs
		}
	}
	t.Fatalf("the event stream ended without done (%v) after %d events", sc2.Err(), len(evs))
	return nil
}

// ofType returns the events of one type.
func ofType(evs []event, typ string) []event {
	var out []event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// lastSession is the turn's final session line.
func lastSession(t *testing.T, evs []event) *sessionView {
	t.Helper()
	ss := ofType(evs, evSession)
	if len(ss) == 0 {
		t.Fatal("no session event")
	}
	return ss[len(ss)-1].Session
}

func describeEvents(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s ", e.Type)
	}
	return b.String()
}
