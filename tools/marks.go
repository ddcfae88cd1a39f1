package tools

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// MarkInfo is one of the user's marks in a marks read: its kind (highlight,
// underline, strikeout, squiggly, note, freetext, ink, stamp or caret), the
// page it is on and the page's printed label when it differs from its
// number, the page text it marks (empty for a note), the user's comment,
// who made it and when, its colour (#rrggbb) and tags, and its citation
// URI (the page's, or the mark's own where its source has one). Text,
// comment and tags are quoted data, like any text of the library.
type MarkInfo struct {
	Kind        sources.MarkKind `json:"kind"`
	Page        int              `json:"page,omitempty"`
	PageLabel   string           `json:"pageLabel,omitempty"`
	Text        string           `json:"text,omitempty"`
	Comment     string           `json:"comment,omitempty"`
	Author      string           `json:"author,omitempty"`
	Created     string           `json:"created,omitempty"`
	Color       string           `json:"color,omitempty"`
	Tags        []string         `json:"tags,omitempty"`
	CitationURI string           `json:"citationUri"`
}

// Bounds of what a mark's label and tags carry: a page label is a few
// characters in any real PDF, a tag a few words.
const (
	maxMarkLabel = 32
	maxMarkTags  = 20
	maxMarkTag   = 80
)

// markColor returns c as #rrggbb in lower case, or "" when it is no such
// colour: the one form a colour takes in a result.
func markColor(c string) string {
	if len(c) != 7 || c[0] != '#' {
		return ""
	}
	for _, r := range c[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return ""
		}
	}
	return strings.ToLower(c)
}

// markTags returns the non-empty tags, each one line within maxMarkTag
// characters, at most maxMarkTags of them.
func markTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if len(out) == maxMarkTags {
			break
		}
		if t, _ = textnorm.Truncate(textnorm.Line(t), maxMarkTag); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// CardMark, on a search card, says the card is one of the user's marks:
// its kind and comment. The card's excerpt is the text it marks (its
// comment for a note) and its URI the page's.
type CardMark struct {
	Kind    sources.MarkKind `json:"kind"`
	Comment string           `json:"comment,omitempty"`
}

// markURI is where a mark is: its own URI when its source gives one that
// names its document and page (a Zotero annotation's), else its PDF's
// page; the file that holds it when it is not on a PDF (the marks file of
// a paper without one).
func markURI(m sources.Mark) string {
	if m.URI != "" {
		if u, err := cite.Parse(m.URI); err == nil && u.Path == m.Path && u.Page == m.Page {
			return m.URI
		}
	}
	if m.Page > 0 && (strings.EqualFold(path.Ext(m.Path), ".pdf") || cite.IsZotero(m.Path)) {
		return cite.Page(m.Path, m.Page)
	}
	return cite.File(m.Path)
}

// marks reads the marks of the target, from the reader's offset (a mark
// index, for a cursor), at most listMax of them.
func (r *reader) marks(ctx context.Context, out *ReadOutput) error {
	mr, ok := r.tg.src.(sources.MarkReader)
	if !ok {
		return fmt.Errorf("%w: %s holds no marks (mode marks reads a paper or a PDF)", ErrInvalidArgument, quoteArg(r.path()))
	}
	ms, err := mr.Marks(ctx, r.tg.path)
	if err != nil {
		return r.mapErr(err, r.path())
	}
	if r.offset < 0 || r.offset > len(ms.Marks) {
		r.offset = 0
	}
	all := ms.Marks[r.offset:]
	if r.listMax > 0 && len(all) > r.listMax {
		all = all[:r.listMax]
	}
	out.Marks = make([]MarkInfo, 0, len(all))
	for _, m := range all {
		label, _ := textnorm.Truncate(textnorm.Line(m.Label), maxMarkLabel)
		if m.Page <= 0 || label == strconv.Itoa(m.Page) {
			label = ""
		}
		out.Marks = append(out.Marks, MarkInfo{
			Kind: m.Kind, Page: m.Page, PageLabel: label, Text: m.Text, Comment: m.Comment,
			Author: m.Author, Created: m.Created, Color: markColor(m.Color), Tags: markTags(m.Tags), CitationURI: markURI(m),
		})
	}
	r.markTotal = len(ms.Marks)
	out.Problems = ms.Problems
	if r.tg.path == "" {
		out.Title = r.tg.src.Info().Title
	}
	out.CitationURI = cite.File(r.path())
	if len(out.Marks) == 0 {
		r.listing = true // nothing read, nothing cited
	}
	r.markCursor(out)
	return nil
}

// cutMarks drops the last mark of a marks read (a cursor goes on from it);
// the one mark left has its comment, then its text, cut by over
// characters instead. It reports whether it cut.
func (r *reader) cutMarks(out *ReadOutput, over int) bool {
	if len(out.Marks) == 0 {
		return false
	}
	if len(out.Marks) > 1 {
		// One at a time: the citation URIs shrink with the marks, and
		// fit measures again.
		out.Marks = out.Marks[:len(out.Marks)-1]
		r.markCursor(out)
		return true
	}
	m := &out.Marks[0]
	if runes(m.Comment, m.Text) == 0 {
		return false
	}
	if c := runes(m.Comment); c > 0 {
		m.Comment, _ = textnorm.Truncate(m.Comment, max(0, c-over))
		return true
	}
	m.Text, _ = textnorm.Truncate(m.Text, max(0, runes(m.Text)-over))
	return true
}

// markCursor arranges the cursor of a marks read whose list ends before
// the document's marks do.
func (r *reader) markCursor(out *ReadOutput) {
	next := r.offset + len(out.Marks)
	r.more, r.next = next < r.markTotal, next
	if r.more {
		out.Truncated = true
	}
}

// citeMarks sets a marks read's citation URIs from the marks it holds.
func (r *reader) citeMarks(out *ReadOutput) {
	var uris []string
	for _, m := range out.Marks {
		if !slices.Contains(uris, m.CitationURI) {
			uris = append(uris, m.CitationURI)
		}
	}
	out.CitationURIs = nil
	switch {
	case len(uris) > 1:
		out.CitationURIs = uris
		fallthrough
	case len(uris) == 1:
		out.CitationURI = uris[0]
	}
}

// countMarks sets a metadata read's MarkCount: how many marks the
// document read holds. A source without marks, or whose marks cannot be
// read, leaves it 0.
func (r *reader) countMarks(ctx context.Context, out *ReadOutput) {
	mr, ok := r.tg.src.(sources.MarkReader)
	if !ok || r.tg.src.Info().Kind == grant.KindDirectory && r.tg.path == "" {
		return
	}
	if ms, err := mr.Marks(ctx, r.tg.path); err == nil {
		out.MarkCount = len(ms.Marks)
	}
}

// cardMark is the CardMark of a hit on one of the researcher's marks, its
// comment cut to a card's excerpt; the zero CardMark for other hits.
func cardMark(h sources.Hit, cardChars int) CardMark {
	if h.Mark == nil {
		return CardMark{}
	}
	comment := h.Mark.Comment
	if cardChars > 0 {
		comment, _ = textnorm.Truncate(comment, cardChars)
	}
	return CardMark{Kind: h.Mark.Kind, Comment: comment}
}
