package main

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/sources/vault"
)

//go:embed web
var webFiles embed.FS

// tokenHeader carries the per-launch token on every state-changing
// request. The page reads the token from its own HTML; it is never put in
// a URL.
const tokenHeader = "X-Sidebar-Token"

// maxBody caps a request body (a question and its scope).
const maxBody = 64 << 10

// runtimeID names the sidebar's grant folder: one conversation.
const runtimeID = "sidebar"

// serverConfig is what newServer needs.
type serverConfig struct {
	Vault  string // absolute
	Sample bool
	Addr   string // host:port the listener is bound to
	Runner agentRunner
}

// server is the sidebar's HTTP host: the page, its JSON API, the turn's
// event stream and the vault's documents.
type server struct {
	cfg    serverConfig
	origin string // http://host:port, the only Origin accepted
	token  string
	mux    *http.ServeMux
	page   *template.Template
	static fs.FS

	resolver *researchctx.Resolver
	// lib is the resolver's: the paper list, the @-mention autocomplete and
	// the document view read the vault through it, as the tools do.
	lib *vault.Library

	mu      sync.Mutex
	conv    conversation
	turns   map[string]*turn
	order   []*turn // every turn of the conversation, oldest first
	running *turn
	nextID  int

	lastScope *scope // the scope of the last plan the page asked for
	treeCache []treeEntry
	treeAt    time.Time
}

func newServer(cfg serverConfig) (*server, error) {
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	res := &researchctx.Resolver{}
	lib, err := res.Library(cfg.Vault)
	if err != nil {
		return nil, fmt.Errorf("opening the vault: %w", err)
	}
	static, err := fs.Sub(webFiles, "web")
	if err != nil {
		return nil, err
	}
	page, err := template.ParseFS(static, "index.html")
	if err != nil {
		return nil, err
	}
	s := &server{
		cfg: cfg, origin: "http://" + cfg.Addr, token: hex.EncodeToString(tok),
		page: page, static: static, resolver: res, lib: lib,
		turns: map[string]*turn{},
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.handlePage)
	m.HandleFunc("GET /static/{name}", s.handleStatic)
	m.HandleFunc("GET /api/state", s.handleState)
	m.HandleFunc("GET /api/complete", s.handleComplete)
	m.HandleFunc("GET /api/text", s.handleText)
	m.HandleFunc("POST /api/plan", s.handlePlan)
	m.HandleFunc("POST /api/turns", s.handleAsk)
	m.HandleFunc("GET /api/turns/{id}/events", s.handleEvents)
	m.HandleFunc("POST /api/turns/{id}/cancel", s.handleCancel)
	m.HandleFunc("GET /doc/{path...}", s.handleDoc)
	s.mux = m
	return s, nil
}

// Close stops the agent and releases the vault.
func (s *server) Close() error {
	s.CancelTurns()
	s.cfg.Runner.Close()
	return s.resolver.Close()
}

// CancelTurns cancels the running turn, if any, and waits for it to end.
func (s *server) CancelTurns() {
	s.mu.Lock()
	t := s.running
	s.mu.Unlock()
	if t != nil {
		t.cancel()
		<-t.finished
	}
}

// ServeHTTP checks every request before routing it: the Host must be the
// address the server is bound to (a page of another site that rebinds its
// name to 127.0.0.1 sends its own name), an Origin, when sent, must be the
// page's own, and a state-changing request must carry the per-launch token
// and JSON. The page's answers are never cached, framed or sent a Referer.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if err := s.check(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Why a request is refused.
var (
	errHost    = errors.New("refused: the Host is not this server's address")
	errOrigin  = errors.New("refused: the request comes from another origin")
	errToken   = errors.New("refused: a state-changing request needs the page's token")
	errType    = errors.New("refused: a state-changing request must be JSON")
	errCrossed = errors.New("refused: a cross-site request")
)

// check applies the rules of ServeHTTP.
func (s *server) check(r *http.Request) error {
	if r.Host != s.cfg.Addr {
		return fmt.Errorf("%w: open %s/", errHost, s.origin)
	}
	if o, ok := r.Header["Origin"]; ok && (len(o) != 1 || o[0] != s.origin) {
		return errOrigin
	}
	// Browsers say where a request comes from; only the page itself may
	// fetch, and other sites may at most navigate to it.
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		if r.Header.Get("Sec-Fetch-Mode") != "navigate" || r.Method != http.MethodGet {
			return errCrossed
		}
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(tokenHeader)), []byte(s.token)) != 1 {
		return errToken
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errType
	}
	return nil
}

// handlePage serves the page with the per-launch token in a meta tag.
func (s *server) handlePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	_ = s.page.Execute(w, struct{ Token string }{s.token})
}

func (s *server) handleStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, err := fs.ReadFile(s.static, name)
	if err != nil || name == "index.html" {
		http.NotFound(w, r)
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(data)
}

// writeJSON writes v as the answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}

// apiError answers with {"error": msg}.
func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// readJSON decodes a request body into v, strictly.
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad request body: %v", err)
	}
	return nil
}

// oneLine folds runs of white space into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
