package main

import (
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources/vault"
)

// The sample vault's starting scope and question: quickchat's demo turn
// (package demo).
const (
	samplePaper = demo.SamplePaper
	samplePage  = demo.SamplePage
	sampleQuote = demo.SampleQuote
	sampleAsk   = demo.SampleAsk
)

var sampleMentions = demo.SampleMentions()

// scope is what the user is looking at, as the page sends it.
type scope struct {
	CurrentPaper string                  `json:"currentPaper"`
	Selections   []researchctx.Selection `json:"selections"`
	Mentions     []string                `json:"mentions"`
}

// request is the Request of a turn (or of a plan preview) for scope.
func (s *server) request(sc scope, turnID string) researchctx.Request {
	return researchctx.Request{
		Vault: s.cfg.Vault, RuntimeID: runtimeID, TurnID: turnID,
		CurrentPaper: sc.CurrentPaper, Selections: sc.Selections, Mentions: sc.Mentions,
	}
}

// conversation is the sidebar's one conversation: the agent session record
// the next turn decides from, and the messages the page displayed, for the
// hand-off to a new session.
type conversation struct {
	record    *acp.Record
	displayed []acp.Message
}

// paperItem is a paper of the vault, for the current-paper picker.
type paperItem struct {
	Ref   string `json:"ref"`
	Title string `json:"title"`
	PDF   string `json:"pdf,omitempty"`
}

// stateOut is the page's starting state.
type stateOut struct {
	Vault   string      `json:"vault"`
	Sample  bool        `json:"sample"`
	Agent   string      `json:"agent"`
	Papers  []paperItem `json:"papers"`
	Scope   scope       `json:"scope"`
	Ask     string      `json:"ask"`
	History [][]event   `json:"history"`
	Running string      `json:"running,omitempty"`
}

func (s *server) handleState(w http.ResponseWriter, r *http.Request) {
	out := stateOut{Vault: "your vault", Sample: s.cfg.Sample, Agent: s.cfg.Runner.Name(), Papers: []paperItem{}, History: [][]event{}}
	if s.cfg.Sample {
		out.Vault = "the embedded sample vault"
		out.Scope = scope{
			CurrentPaper: samplePaper,
			Selections:   []researchctx.Selection{{Text: sampleQuote, Page: samplePage}},
			Mentions:     sampleMentions,
		}
		out.Ask = sampleAsk
	}
	papers, err := s.lib.Papers(r.Context())
	if err != nil {
		apiError(w, http.StatusInternalServerError, "reading the vault's catalogue failed")
		return
	}
	for _, p := range papers {
		// The title the plan, the cards and context_read give.
		t := path.Base(p.Path)
		if it, err := s.lib.Stat(r.Context(), p.Path); err == nil {
			t = s.lib.Title(r.Context(), it)
		}
		out.Papers = append(out.Papers, paperItem{Ref: p.Path, Title: t, PDF: p.PDF})
	}
	s.mu.Lock()
	if s.lastScope != nil {
		// A reload shows the scope the page last had.
		out.Scope = *s.lastScope
	}
	for _, t := range s.order {
		out.History = append(out.History, t.snapshot())
	}
	if s.running != nil {
		out.Running = s.running.id
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// treeEntry is a vault path the user may @-mention.
type treeEntry struct {
	Path  string     `json:"path"`
	Kind  grant.Kind `json:"kind"`
	Title string     `json:"title,omitempty"`
}

// Limits of the autocomplete walk and answer.
const (
	treeFiles   = 20000
	treeDepth   = 12
	treeMatches = 12
	treeTTL     = 10 * time.Second
)

// tree returns the vault's visible folders and files (the library's walk:
// what the tools may read, so no dot entries, no .agentero, no symbolic
// link), with paper folders marked, cached for a few seconds.
func (s *server) tree(r *http.Request) ([]treeEntry, error) {
	s.mu.Lock()
	if s.treeAt.Add(treeTTL).After(time.Now()) {
		t := s.treeCache
		s.mu.Unlock()
		return t, nil
	}
	s.mu.Unlock()
	var out []treeEntry
	_, err := s.lib.Walk(r.Context(), ".", treeDepth, treeFiles, func(it *vault.Item) error {
		e := treeEntry{Path: it.Path, Kind: it.Kind}
		if it.Kind == grant.KindPaper {
			e.Title = it.Paper.Title // as far as known without reading the PDF
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.treeCache, s.treeAt = out, time.Now()
	s.mu.Unlock()
	return out, nil
}

// handleComplete answers the @-mention autocomplete: the vault paths (and
// paper titles) that contain every word of q, shortest paths first. The
// paths the scope already holds (each x parameter: the current paper and
// every mention) are not offered, nor anything inside them, which they
// already grant.
func (s *server) handleComplete(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(r.URL.Query().Get("q")), "@"))
	var inScope []string
	for _, x := range r.URL.Query()["x"] {
		if x = mentionPath(x); x != "" {
			inScope = append(inScope, x)
		}
	}
	tree, err := s.tree(r)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "listing the vault failed")
		return
	}
	words := strings.Fields(q)
	var hits []treeEntry
	for _, e := range tree {
		if within(e.Path, inScope) {
			continue
		}
		hay := strings.ToLower(e.Path + " " + e.Title)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, e)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		// A path that starts with the query, then the shallower one.
		pa, pb := strings.HasPrefix(strings.ToLower(a.Path), q), strings.HasPrefix(strings.ToLower(b.Path), q)
		if pa != pb {
			return pa
		}
		return strings.Count(a.Path, "/") < strings.Count(b.Path, "/")
	})
	if len(hits) > treeMatches {
		hits = hits[:treeMatches]
	}
	if hits == nil {
		hits = []treeEntry{}
	}
	writeJSON(w, http.StatusOK, hits)
}

// mentionPath is a mention as the scope compares it: without the @, the
// spaces around it or a trailing slash.
func mentionPath(p string) string {
	return strings.TrimRight(strings.TrimPrefix(strings.TrimSpace(p), "@"), "/")
}

// within reports whether p is one of the paths or lies inside one of them.
func within(p string, paths []string) bool {
	p = mentionPath(p)
	for _, q := range paths {
		if p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// pageText is one page of the document view.
type pageText struct {
	Page int    `json:"page"`
	Text string `json:"text"`
}

// textOut is the current paper's text for the document view, where the
// user selects a passage.
type textOut struct {
	Paper string     `json:"paper"`
	Path  string     `json:"path"`
	Title string     `json:"title"`
	Href  string     `json:"href,omitempty"`
	Pages []pageText `json:"pages"`
	Note  string     `json:"note,omitempty"`
}

// maxViewChars caps the document view's text.
const maxViewChars = 400000

// handleText answers the document view: the text of the paper ?paper=REF,
// page by page, from the SDK's own text layer.
func (s *server) handleText(w http.ResponseWriter, r *http.Request) {
	ref, err := vault.CleanPath(r.URL.Query().Get("paper"))
	if err != nil {
		apiError(w, http.StatusBadRequest, "not a vault path")
		return
	}
	if it, err := s.lib.Stat(r.Context(), ref); err != nil || it.Kind != grant.KindPaper {
		apiError(w, http.StatusNotFound, fmt.Sprintf("%s is not a paper of this vault", ref))
		return
	}
	src, err := s.lib.Open(r.Context(), grant.KindPaper, ref)
	if err != nil {
		apiError(w, http.StatusNotFound, oneLine(err.Error()))
		return
	}
	doc, err := src.Read(r.Context(), "")
	if err != nil {
		apiError(w, http.StatusUnprocessableEntity, oneLine(err.Error()))
		return
	}
	out := textOut{Paper: ref, Path: doc.Path, Title: doc.Title, Pages: []pageText{}}
	if doc.Path != "" {
		out.Href = docHref(doc.Path, "")
	}
	n := 0
	for _, part := range doc.Parts {
		text := part.Text
		if part.NoTextLayer {
			text = "(this page is an image: it has no text layer)"
		}
		if n+len(text) > maxViewChars {
			out.Note = "the rest of the document is left out of this view"
			break
		}
		n += len(text)
		out.Pages = append(out.Pages, pageText{Page: max(part.Page, 1), Text: text})
	}
	writeJSON(w, http.StatusOK, out)
}

// planOut is a plan as the page shows it: what the next turn may read, its
// prompt block, and how the next turn would get its session.
type planOut struct {
	Plan   *researchctx.Plan `json:"plan"`
	Prompt string            `json:"prompt"`
	Next   acp.Decision      `json:"next"`
}

// handlePlan resolves the scope the page shows, without writing a grant:
// the plan beside the chips.
func (s *server) handlePlan(w http.ResponseWriter, r *http.Request) {
	var sc scope
	if err := readJSON(r, &sc); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	plan, err := s.resolver.Resolve(r.Context(), s.request(sc, "preview"))
	if err != nil {
		apiError(w, http.StatusBadRequest, oneLine(err.Error()))
		return
	}
	s.mu.Lock()
	next := acp.Decide(s.conv.record, plan)
	s.lastScope = &sc
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, planView(plan, next))
}
