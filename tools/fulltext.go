package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/sources"
)

func (r *reader) full(doc *sources.Document, out *ReadOutput) error {
	var b strings.Builder
	var spans []span
	firstPage := 0
	var ocrSum float64 // the confidences of recognised pages
	ocrN := 0
	for _, p := range doc.Parts {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
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
				ocrSum += p.OCR.Confidence
				ocrN++
			}
			start := b.Len()
			b.WriteString(p.Text)
			spans = append(spans, span{start, b.Len(), uri})
		}
	}
	if ocrN > 0 {
		markOCR(out, &sources.OCR{Confidence: math.Round(ocrSum/float64(ocrN)*100) / 100})
	}
	text := b.String()
	for _, sp := range spans {
		r.addSpan(text, sp.start, sp.end, sp.uri)
	}
	r.cut(text, out)
	// Cite the page the piece starts on, so the source is precise.
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
