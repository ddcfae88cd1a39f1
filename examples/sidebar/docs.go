package main

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// maxPDF caps a PDF the demo serves, in bytes.
const maxPDF = 512 << 20

// handleDoc serves a vault document for a source link: a PDF as itself
// (the browser's viewer opens it at the link's #page=N), a text or
// Markdown file as an HTML page with an anchor per heading (the link's
// #section=… lands on it). Every path goes through the library
// (vault.CleanPath, Library.OpenFile), as the tools read documents: a
// clean vault-relative path only (no "..", no absolute path, no NUL or
// backslash), no dot entry and so no .agentero, no symbolic link at any
// element, regular files only. Anything else is not found.
func (s *server) handleDoc(w http.ResponseWriter, r *http.Request) {
	rel, err := vault.CleanPath(r.PathValue("path"))
	if err != nil || rel == "." {
		http.Error(w, "not a vault path", http.StatusBadRequest)
		return
	}
	f, err := s.lib.OpenFile(r.Context(), rel)
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	head := make([]byte, 5)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		http.Error(w, "the file cannot be read", http.StatusInternalServerError)
		return
	}
	if bytes.Equal(head[:n], []byte("%PDF-")) {
		if st.Size() > maxPDF {
			http.Error(w, "the PDF is too large to serve", http.StatusRequestEntityTooLarge)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/pdf")
		h.Set("Content-Disposition", fmt.Sprintf("inline; filename=%q", sanitizeName(path.Base(rel))))
		http.ServeContent(w, r, "", st.ModTime(), f)
		return
	}
	s.serveText(w, r, rel)
}

// sanitizeName keeps a file name printable for a header.
func sanitizeName(n string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' || r > 0x7e {
			return '_'
		}
		return r
	}, n)
}

// textPage is a text or Markdown file as the page shows it: chunks of
// escaped text, each but the first under a heading with its anchor.
type textPage struct {
	Path   string
	Title  string
	Chunks []textChunk
	Note   string
}

// textChunk is a heading (Level 0 for the text before the first one)
// and the text under it.
type textChunk struct {
	Level  int
	Title  string
	Anchor string // the fragment a citation URI's #section= names
	Text   string
}

var textTemplate = template.Must(template.New("text").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{{.Title}}</title><link rel="stylesheet" href="/static/doc.css"></head>
<body><header><span class="path" data-testid="doc-path">{{.Path}}</span><a href="/">back to the sidebar</a></header>
<main>{{if .Note}}<p class="note">{{.Note}}</p>{{end}}{{range .Chunks}}{{if .Level}}<section id="{{.Anchor}}" data-testid="doc-section">
<h2 class="h{{.Level}}"><a href="#{{.Anchor}}">{{.Title}}</a></h2>{{else}}<section>{{end}}
{{if .Text}}<pre>{{.Text}}</pre>{{end}}</section>
{{end}}</main></body></html>
`))

// serveText renders a text file as escaped HTML. The sections are the
// SDK's own (sources.Document.Sections), so each anchor is the label a
// citation URI names.
func (s *server) serveText(w http.ResponseWriter, r *http.Request, rel string) {
	src, err := s.lib.Open(r.Context(), grant.KindFile, rel)
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	doc, err := src.Read(r.Context(), "")
	switch {
	case err != nil && (errors.Is(err, sources.ErrTooLarge)):
		http.Error(w, "the file is too large to show", http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, "not a document the sidebar shows (a PDF, a text or Markdown file)", http.StatusUnsupportedMediaType)
		return
	}
	page := textPage{Path: rel, Title: path.Base(rel)}
	if len(doc.Parts) > 0 {
		page.Chunks = chunks(doc.Parts[0].Text, doc.Sections)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	_ = textTemplate.Execute(w, page)
}

// chunks cuts text at its headings. A heading's own line is left out of
// its chunk's text (the page shows it as a heading); a label that repeats
// gets the anchor of its first heading only.
func chunks(text string, secs []sources.Section) []textChunk {
	out := []textChunk{}
	pos := 0
	first := textChunk{}
	seen := map[string]bool{}
	cur := &first
	for _, sec := range secs {
		if sec.Part != 0 || sec.Offset < pos || sec.Offset > len(text) {
			continue
		}
		cur.Text = strings.Trim(text[pos:sec.Offset], "\n")
		out = append(out, *cur)
		end := strings.IndexByte(text[sec.Offset:], '\n')
		if end < 0 {
			end = len(text) - sec.Offset
		}
		pos = sec.Offset + end
		anchor := "section=" + sec.Title
		if seen[anchor] {
			anchor = ""
		} else {
			seen[anchor] = true
		}
		cur = &textChunk{Level: min(max(sec.Level, 1), 6), Title: sec.Title, Anchor: anchor}
	}
	cur.Text = strings.Trim(text[pos:], "\n")
	out = append(out, *cur)
	if out[0].Text == "" {
		out = out[1:]
	}
	return out
}
