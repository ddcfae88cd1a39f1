package tools

import (
	"context"
	"fmt"
	"path"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

func (r *reader) metadata(ctx context.Context, doc *sources.Document, out *ReadOutput) error {
	out.Pages = doc.Pages
	if d, ok := r.tg.src.(sources.Describer); ok && r.tg.path == "" {
		m, err := d.Describe(ctx)
		if err != nil {
			return r.mapErr(err, r.path())
		}
		out.Title, out.Authors, out.Year, out.DOI, out.ArXivID = m.Title, m.Authors, m.Year, m.DOI, m.ArXivID
		out.Abstract, _ = textnorm.Truncate(m.Abstract, r.limit)
		if m.Pages > 0 {
			out.Pages = m.Pages
		}
		out.Documents = m.Documents
		out.Figures = figureInfos(m.Figures)
		if m.OCRPages > 0 {
			out.OCR, out.Confidence, out.OCRPages = true, m.OCRConfidence, m.OCRPages
		}
	} else if ok && len(doc.Parts) > 0 && doc.Pages > 0 {
		// A paper's PDF: its figures are the paper's.
		if m, err := d.Describe(ctx); err == nil && len(m.Documents) > 0 && m.Documents[0] == doc.Path {
			out.Figures = figureInfos(m.Figures)
		}
	}
	if out.Title == "" {
		out.Title = path.Base(doc.Path)
	}
	for i, s := range doc.Sections {
		out.Sections = append(out.Sections, SectionInfo{Title: s.Title, Number: sectionNumber(doc, i), Level: s.Level, Page: s.Page})
	}
	out.CitationURI = cite.File(doc.Path)
	r.countMarks(ctx, out)
	return nil
}

func (r *reader) page(doc *sources.Document, n int, out *ReadOutput) error {
	if n < 1 {
		return fmt.Errorf("%w: page mode needs page (1-based)", ErrInvalidArgument)
	}
	for _, p := range doc.Parts {
		if p.Page != n {
			continue
		}
		if p.NoTextLayer {
			why := ""
			if p.Note != "" {
				why = "; " + p.Note
			}
			return fmt.Errorf("%w: no text layer on page %d of %s (an image-only scan%s)", sources.ErrNotFound, n, quoteArg(doc.Path), why)
		}
		if p.Err != nil {
			return fmt.Errorf("page %d of %s could not be extracted: %v", n, quoteArg(doc.Path), r.t.sourceErr(r.tg.conn, r.tg.src.Info().Path, p.Err))
		}
		out.Page, out.PageLabel = n, p.Label
		markOCR(out, p.OCR)
		out.CitationURI = cite.Page(doc.Path, n)
		r.cut(p.Text, out)
		return nil
	}
	if doc.Pages == 0 {
		return fmt.Errorf("%w: %s has no pages; read it with mode full or section", ErrInvalidArgument, quoteArg(doc.Path))
	}
	return fmt.Errorf("%w: page %d of %s (it has %d pages)", sources.ErrNotFound, n, quoteArg(doc.Path), doc.Pages)
}

// cut puts the piece of text from the reader's offset into out, within the
// read limit, and arranges a cursor when more remains.
func (r *reader) cut(text string, out *ReadOutput) {
	if r.offset > len(text) || r.offset < len(text) && !utf8.RuneStart(text[r.offset]) {
		r.offset = 0
	}
	r.whole, r.cutText = text[r.offset:], true
	r.recut(out, r.limit)
}

// recut sets out's text to at most n characters: of the text cut from, from
// the reader's offset, arranging a cursor when more remains; or, for text
// that is not paged (an excerpt's passage), its first n characters.
func (r *reader) recut(out *ReadOutput, n int) {
	if !r.cutText {
		out.Text, _ = textnorm.Truncate(out.Text, n)
		return
	}
	piece, cut := textnorm.Truncate(r.whole, n)
	out.Text = piece
	r.more = cut
	if cut {
		out.Truncated = true
		r.next = r.offset + len(piece)
	}
}

// markOCR marks out as recognised text when o says so.
func markOCR(out *ReadOutput, o *sources.OCR) {
	if o != nil {
		out.OCR, out.Confidence = true, o.Confidence
	}
}
