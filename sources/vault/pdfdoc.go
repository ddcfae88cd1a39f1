package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdfcache"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// pdfFile is the PDF document of a source — a paper's PDF or a loose PDF
// granted as a file — and what both share: the parsed document kept in
// memory and re-extracted only when the file's size or modification time
// changes, the Library's on-disk PDF text cache, and the Document made of
// its pages. It is safe for concurrent use.
type pdfFile struct {
	l   *Library
	rel string // vault-relative path of the PDF

	// mu guards the extraction's result and flight; it is never held while
	// the PDF is extracted, so that a caller waiting for another's
	// extraction can give up when its own context ends.
	mu     sync.Mutex
	stamp  string
	doc    *pdf.Document
	err    error
	flight chan struct{} // non-nil while an extraction runs; closed when it ends

	// The document with its image pages recognised (see recognised).
	// Runs of the engine over the file's pages are coordinated by page,
	// across sources, in the Library's store of recognised pages (ocrWorker.store).
	ocrMu    sync.Mutex
	ocrBase  *pdf.Document
	ocrDoc   *pdf.Document
	ocrNotes map[int]*ocrPage
	ocrDone  bool
	ocrWaits bool  // pages of ocrDoc wait for the engine
	ocrGen   int64 // the library's OCR generation ocrDoc was made at
}

// describe fills the fields of md that are still empty from what the PDF
// shows: the title block (else the Info title, else XMP's), the authors
// (the Info dictionary or the line under the title, else XMP's), the
// abstract under an "Abstract" heading, the page count, the DOI and
// publication year XMP gives, the arXiv id of the first page's arXiv
// stamp, and the figures, tables and algorithms its captions give.
func (f *pdfFile) describe(md *sources.Metadata, doc *pdf.Document, secs []sources.Section) {
	// The catalog's packet only: one elsewhere in the file is an image's
	// or a page's, not the document's.
	x := parseXMP(doc.XMP)
	if x == nil {
		x = &xmpMeta{}
	}
	md.Pages = len(doc.Pages)
	if md.Title == "" {
		md.Title = pdfTitle(doc)
	}
	if len(md.Authors) == 0 {
		md.Authors = textnorm.Lines(doc.Authors)
	}
	if len(md.Authors) == 0 {
		md.Authors = x.Authors
	}
	if md.Abstract == "" {
		md.Abstract = pdfAbstract(doc, secs)
	}
	if md.DOI == "" {
		md.DOI = x.DOI
	}
	if md.ArXivID == "" && len(doc.Pages) > 0 {
		if m := arXivStamp().FindStringSubmatch(doc.Pages[0].Text); m != nil {
			md.ArXivID = m[1]
		}
	}
	if md.Year == 0 {
		md.Year = x.Year
	}
	if md.Figures == nil {
		md.Figures = f.figures(doc)
	}
}

// pdfTitle is the title a PDF shows of itself: its title block, else its
// Info title, else its XMP title; "" when it shows none. It is what the
// Vault learns of the PDF (catalog.Vault.LearnTitle).
func pdfTitle(doc *pdf.Document) string {
	if t := textnorm.Line(doc.Title); t != "" {
		return t
	}
	if x := parseXMP(doc.XMP); x != nil {
		return x.Title
	}
	return ""
}

// document returns the parsed PDF, extracting it only when the file
// changed since the last extraction. Errors name the PDF's vault path; an
// error about the file itself (damaged, encrypted, over a limit) wraps
// sources.ErrUnreadable and the pdf package's error.
func (f *pdfFile) document(ctx context.Context) (*pdf.Document, error) {
	rel := f.rel
	st, err := f.l.v.FS().Stat(rel)
	if err != nil {
		return nil, fsErr(err)
	}
	stamp := fileStamp(st)

	for {
		f.mu.Lock()
		if f.stamp == stamp && (f.doc != nil || f.err != nil) {
			doc, err := f.doc, f.err
			f.mu.Unlock()
			return doc, err
		}
		if f.flight == nil {
			break // with f.mu held: this caller extracts
		}
		// Another caller extracts the file: share its result, but wait
		// no longer than this caller may.
		ch := f.flight
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", rel, ctx.Err())
		}
	}
	ch := make(chan struct{})
	f.flight = ch
	f.mu.Unlock()
	defer func() {
		// Even after a panic, the waiters are let go.
		f.mu.Lock()
		f.flight = nil
		close(ch)
		f.mu.Unlock()
	}()
	if testHookExtract != nil {
		testHookExtract(ctx)
	}
	if st.Size() == 0 {
		// Nothing to extract: said as such (a search lists it in
		// skipped), not taken for a damaged file.
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stamp, f.doc, f.err = stamp, nil, &units.UnreadableError{What: rel, Err: units.ErrEmptyPDF}
		return nil, f.err
	}
	doc, err := f.extract(ctx, rel, st)
	if err == nil {
		f.learnTitle(rel, st, doc)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, safefs.ErrNotRegular) {
			return nil, fsErr(err)
		}
		if units.IsPDFError(err) && !errors.Is(err, pdf.ErrTimeout) {
			err = &units.UnreadableError{What: rel, Err: err}
		} else {
			err = fmt.Errorf("%s: %w", rel, err)
		}
		if ctx.Err() != nil {
			// The caller gave up: that says nothing about the file, so
			// remember nothing, and say so.
			return nil, fmt.Errorf("%s: %w", rel, ctx.Err())
		}
		f.stamp, f.doc, f.err = stamp, nil, err
		return nil, err
	}
	f.stamp, f.doc, f.err = stamp, doc, nil
	return doc, nil
}

// learnTitle has the Vault learn the title doc shows. A scan shows none
// before OCR, which learns its own (see recognisedBy): its title learnt
// from OCR is kept for the same file.
func (f *pdfFile) learnTitle(rel string, st fs.FileInfo, doc *pdf.Document) {
	t := pdfTitle(doc)
	if t == "" && slices.ContainsFunc(doc.Pages, func(p pdf.Page) bool { return p.NoTextLayer }) {
		if _, ok := f.l.v.LearntTitle(rel); ok {
			return
		}
	}
	f.l.v.LearnTitle(rel, st, t)
}

// testHookExtract, when set (by a test), runs as an extraction starts.
var testHookExtract func(ctx context.Context)

// release drops the parsed document kept in memory (see Paper.releasePDF);
// a failure is kept.
func (f *pdfFile) release() {
	f.mu.Lock()
	if f.doc != nil {
		f.stamp, f.doc = "", nil
	}
	f.mu.Unlock()
	f.ocrMu.Lock()
	f.ocrBase, f.ocrDoc, f.ocrNotes, f.ocrDone = nil, nil, nil, false
	f.ocrMu.Unlock()
}

// read returns doc as a Document titled title: one part per physical
// page, with the printed page label where the PDF has one that differs
// from the page number, and the given sections.
func (f *pdfFile) read(doc *pdf.Document, title string, secs []sources.Section) *sources.Document {
	out := &sources.Document{
		Path:     f.rel,
		Title:    title,
		Pages:    len(doc.Pages),
		Parts:    make([]sources.Part, len(doc.Pages)),
		Sections: secs,
	}
	for i, pg := range doc.Pages {
		part := sources.Part{
			Location:    sources.Location{Path: f.rel, Page: i + 1, Label: pageLabel(doc, i)},
			Text:        pg.Text,
			NoTextLayer: pg.NoTextLayer,
		}
		if pg.Err != nil {
			part.Err = &units.UnreadableError{What: fmt.Sprintf("%s page %d", f.rel, i+1), Err: pg.Err}
		}
		f.markPart(doc, i+1, &part)
		out.Parts[i] = part
	}
	return out
}

// units returns the search units of doc's pages that have text, one per
// page, and whether every page has text.
func (f *pdfFile) units(doc *pdf.Document, title string) (us []units.Unit, complete bool) {
	complete = len(doc.Pages) > 0
	for i, pg := range doc.Pages {
		if pg.Err != nil || strings.TrimSpace(pg.Text) == "" {
			complete = false
			continue
		}
		us = append(us, units.Unit{Loc: sources.Location{Path: f.rel, Page: i + 1, Label: pageLabel(doc, i)}, Title: title, Text: pg.Text})
	}
	return us, complete
}

// extract reads the text layer of the PDF at rel, through the Library's
// on-disk PDF cache when there is one. A cache that cannot be used (a
// read-only disk, say) costs speed, not the document: the file is then
// extracted directly.
func (f *pdfFile) extract(ctx context.Context, rel string, st fs.FileInfo) (*pdf.Document, error) {
	open := fileOpener(f.l.v.FS(), rel)
	if dir := f.l.cachePath("pdf"); dir != "" {
		c := pdfcache.Cache{Dir: dir}
		doc, err := c.Extract(ctx, pdfcache.FileInfo{Path: rel, Size: st.Size(), ModTime: st.ModTime(), ID: safefs.FileID(st)}, open)
		if err == nil || ctx.Err() != nil || units.IsPDFError(err) {
			return doc, err
		}
	}
	r, size, closer, err := open()
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return pdf.Extract(ctx, r, size, nil)
}

// pageLabel returns the printed label of physical page i (0-based) when the
// PDF has one that differs from the physical number, else "".
func pageLabel(doc *pdf.Document, i int) string {
	if i >= len(doc.Labels) {
		return ""
	}
	l := textnorm.Line(doc.Labels[i])
	if l == "" || l == strconv.Itoa(i+1) {
		return ""
	}
	return l
}

// maxAbstract bounds an abstract taken from the PDF, in characters.
const maxAbstract = 3000

// pdfAbstract returns the text under an "Abstract" heading of the PDF's
// first two pages, up to the next heading on that page, or "".
func pdfAbstract(doc *pdf.Document, secs []sources.Section) string {
	for i, sec := range secs {
		if sec.Part > 1 || sec.Part >= len(doc.Pages) || !strings.EqualFold(strings.TrimSpace(sec.Title), "abstract") {
			continue
		}
		text := doc.Pages[sec.Part].Text
		start := sec.Offset
		if start < 0 || start > len(text) {
			continue
		}
		if nl := strings.IndexByte(text[start:], '\n'); nl >= 0 {
			start += nl + 1
		} else {
			return ""
		}
		end := len(text)
		if i+1 < len(secs) && secs[i+1].Part == sec.Part && secs[i+1].Offset > start {
			end = secs[i+1].Offset
		}
		abs, _ := textnorm.Truncate(strings.Join(strings.Fields(text[start:end]), " "), maxAbstract)
		return abs
	}
	return ""
}
