package tools

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

func (r *reader) full(doc *sources.Document, out *ReadOutput) error {
	ft := fullText(doc)
	if ft.ocrN > 0 {
		markOCR(out, &sources.OCR{Confidence: math.Round(ft.ocrSum/float64(ft.ocrN)*100) / 100})
	}
	text := ft.text
	for _, sp := range ft.spans {
		r.addSpan(text, sp.start, sp.end, sp.uri)
	}
	r.cut(text, out)
	// Cite the page the piece starts on, so the source is precise.
	firstPage := 0
	if doc.Pages > 0 {
		firstPage = pageAt(text, r.offset)
	}
	if firstPage > 0 {
		out.CitationURI = cite.Page(doc.Path, firstPage)
	} else {
		out.CitationURI = cite.File(doc.Path)
	}
	return nil
}

// fullDoc is a document's text as full mode gives it: its parts one after
// another, each page under its "[page N]" marker.
type fullDoc struct {
	text   string
	starts []int // where each part starts in text
	spans  []span
	ocrSum float64 // the confidences of recognised pages
	ocrN   int
}

func fullText(doc *sources.Document) fullDoc {
	var b strings.Builder
	var ft fullDoc
	for _, p := range doc.Parts {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		ft.starts = append(ft.starts, b.Len())
		if p.Page > 0 {
			fmt.Fprintf(&b, "[page %d]\n", p.Page)
		}
		switch {
		case p.NoTextLayer && p.Note != "":
			fmt.Fprintf(&b, "(no text layer on this page; %s)", p.Note)
		case p.NoTextLayer:
			b.WriteString("(no text layer on this page)")
		case p.Err != nil:
			b.WriteString("(this page could not be extracted)")
		default:
			// Every page whose text the piece holds is cited, not
			// only the one it starts on.
			uri := cite.File(doc.Path)
			if p.Page > 0 {
				uri = cite.Page(doc.Path, p.Page)
			}
			if p.OCR != nil {
				ft.ocrSum += p.OCR.Confidence
				ft.ocrN++
			}
			start := b.Len()
			b.WriteString(p.Text)
			ft.spans = append(ft.spans, span{start, b.Len(), uri})
		}
	}
	ft.text = b.String()
	return ft
}

// pendingPages returns the pages of doc whose text is not at hand (no text
// layer, not recognised) and that the piece full mode returns from the
// reader's offset, within its limit, would show.
func (r *reader) pendingPages(doc *sources.Document) []int {
	ft := fullText(doc)
	offset := r.offset
	if offset > len(ft.text) || offset < len(ft.text) && !utf8.RuneStart(ft.text[offset]) {
		offset = 0 // as cut does
	}
	piece, _ := textnorm.Truncate(ft.text[offset:], r.limit)
	end := offset + len(piece)
	var out []int
	for i, p := range doc.Parts {
		partEnd := len(ft.text)
		if i+1 < len(ft.starts) {
			partEnd = ft.starts[i+1]
		}
		if p.Page > 0 && p.NoTextLayer && p.OCR == nil && ft.starts[i] <= end && partEnd > offset {
			out = append(out, p.Page)
		}
	}
	return out
}

// pageAt returns the page whose "[page N]" marker last precedes offset.
func pageAt(text string, offset int) int {
	i := strings.LastIndex(text[:min(offset+len("[page "), len(text))], "[page ")
	if i < 0 {
		return 1
	}
	rest := text[i+len("[page "):]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return 1
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil {
		return 1
	}
	return n
}

// readFull reads the document at p of a source with slow pages for full
// mode: first with what is at hand, then, one at a time, the first page
// that the piece returned would show and that is not ready, until the
// piece shows none: a page's text, once recognised, is longer or shorter
// than its note, which moves the piece's end. Pages beyond the piece are
// not waited for: they are recognised when a later cursor reaches them
// (or by the source in the background).
func (r *reader) readFull(ctx context.Context, pr sources.PageReader, p string) (*sources.Document, error) {
	doc, err := pr.ReadPages(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	var asked []int
	for range doc.Parts { // each round asks for one page more
		next := 0
		for _, n := range r.pendingPages(doc) {
			if !slices.Contains(asked, n) {
				next = n
				break
			}
		}
		if next == 0 || ctx.Err() != nil {
			break
		}
		asked = append(asked, next)
		slices.Sort(asked)
		if doc, err = pr.ReadPages(ctx, p, slices.Clone(asked)); err != nil {
			return nil, err
		}
	}
	return doc, nil
}
