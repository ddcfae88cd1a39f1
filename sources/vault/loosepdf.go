package vault

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// pdfUnitsVersion changes whenever what goes into a loose PDF's search
// units changes, so cached indexes built the old way are rebuilt.
const pdfUnitsVersion = "pdf-units-2"

// PDF is a PDF granted as a file: a download, an attachment, a folder of
// PDFs without the papers/ layout. It is a document with pages, like a
// paper's PDF and through the same machinery (the in-memory document, the
// PDF text cache, the library index): its pages are searched and cited by
// page, its sections come from its outline or its detected headings, and
// its metadata from the document itself (the first page's title block, the
// Info dictionary's title and author, the XMP packet), and its figures,
// tables and algorithms from their captions. It implements sources.Source,
// sources.Describer and sources.RegionReader and is safe for concurrent use. A PDF that cannot be read
// (damaged, encrypted, over a limit) is an error wrapping sources.ErrUnreadable.
type PDF struct {
	lib    *Library
	ref    string
	pdf    pdfFile
	filter *libindex.Filter // the library index narrowed to this PDF, its masks kept between searches

	secMu  sync.Mutex
	secDoc *pdf.Document // the document secs were found in
	secs   []sources.Section
}

func (l *Library) newPDF(ref string) *PDF {
	return &PDF{lib: l, ref: ref, pdf: pdfFile{l: l, rel: ref}, filter: libindex.KeySet([]string{pdfItem + ref})}
}

// isPDF reports whether a file name is a PDF by its extension.
func isPDF(p string) bool { return strings.EqualFold(path.Ext(p), ".pdf") }

// Info implements sources.Source. The title is the PDF's own once the
// Vault has learnt it, else the file's name: Info does not parse the PDF
// (Describe and Read give the document's own title, and learn it).
func (s *PDF) Info() sources.Info {
	title, _ := s.lib.v.LearntTitle(s.ref)
	if title == "" {
		title = textnorm.Line(path.Base(s.ref))
	}
	return sources.Info{Path: s.ref, Kind: grant.KindFile, Title: title}
}

// Read implements sources.Source: "" or the PDF's own path give its pages.
func (s *PDF) Read(ctx context.Context, p string) (*sources.Document, error) {
	return s.read(ctx, p, nil, true)
}

// ReadPages implements sources.PageReader, as Paper.ReadPages does.
func (s *PDF) ReadPages(ctx context.Context, p string, pages []int) (*sources.Document, error) {
	return s.read(ctx, p, pages, false)
}

// read is Read with the pages the engine may be given (all: every page).
func (s *PDF) read(ctx context.Context, p string, pages []int, all bool) (*sources.Document, error) {
	ctx, end := s.lib.calls.Begin(ctx) // the background yields to it
	defer end()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.own(p); err != nil {
		return nil, err
	}
	doc, err := s.pdf.document(ctx)
	if err != nil {
		return nil, err
	}
	if all {
		pages = allPages(doc)
	}
	doc = s.pdf.recognised(ctx, doc, pages)
	s.pdf.queueOCR(pdfItem+s.ref, doc)
	return s.pdf.read(doc, s.title(doc), s.sections(doc)), nil
}

// own checks that a Read path names the PDF itself.
func (s *PDF) own(p string) error {
	if p == "" || p == s.ref {
		return nil
	}
	if rel, err := catalog.Clean(p); err != nil || rel != s.ref {
		return outsideErr(p, s.ref)
	}
	return nil
}

// title is the document's title (the first page's title block, else the
// Info title, else XMP's), else the file's name.
func (s *PDF) title(doc *pdf.Document) string {
	if t := pdfTitle(doc); t != "" {
		return t
	}
	return textnorm.Line(path.Base(s.ref))
}

// sections returns the PDF's own sections (see ownSections), found once
// per parsed document. The caller gets its own copy.
func (s *PDF) sections(doc *pdf.Document) []sources.Section {
	s.secMu.Lock()
	defer s.secMu.Unlock()
	if s.secDoc != doc {
		s.secs, s.secDoc = oneLineTitles(ownSections(doc)), doc
	}
	return append([]sources.Section(nil), s.secs...)
}

// Describe implements sources.Describer: the title, authors, abstract and page
// count the PDF itself shows, and the DOI and publication year of its XMP
// metadata.
func (s *PDF) Describe(ctx context.Context) (*sources.Metadata, error) {
	ctx, end := s.lib.calls.Begin(ctx) // the background yields to it
	defer end()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc, err := s.pdf.document(ctx)
	if err != nil {
		return nil, err
	}
	md := &sources.Metadata{Documents: []string{s.ref}}
	s.pdf.describe(md, doc, s.sections(doc)) // the title as title gives it, but for the file name
	s.pdf.describeOCR(ctx, md, doc)
	if md.Title == "" {
		md.Title = textnorm.Line(path.Base(s.ref))
	}
	return md, nil
}

// Search implements sources.Source: the PDF's pages, through the library index
// filtered to it (see indexer.search). A PDF that cannot be read is
// the search's error, so that a search over it alone does not look like
// one that found nothing.
func (s *PDF) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	ctx, end := s.lib.calls.Begin(ctx) // the background yields to it
	defer end()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := s.lib.v.FS().Stat(s.ref)
	if err != nil {
		return nil, fsErr(err)
	}
	key := pdfItem + s.ref
	res, err := s.lib.idx.search(ctx, []libindex.Item{{Key: key, Stamp: pdfStamp(st)}}, s.filter, q)
	if err != nil {
		return nil, err
	}
	if _, failure, ok := s.lib.idx.index().Snapshot().Status(key); ok && failure != "" && len(res.Hits) == 0 {
		// The index keeps the failure as text; the document gives it
		// typed (from memory or from the PDF cache, without a parse).
		if _, err := s.pdf.document(ctx); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// pdfStamp is a loose PDF's stamp in the library index.
func pdfStamp(info fs.FileInfo) string {
	// The extractor's version too: its text changes rebuild the units.
	return pdfUnitsVersion + ":pdf-" + strconv.Itoa(pdf.Version) + ":" + fileStamp(info)
}

// units returns the search units of the PDF, one per page with text, and
// the failure of a PDF that cannot be read (no units then). Only an
// interrupted extraction is an error: it says nothing about the file.
func (s *PDF) units(ctx context.Context) (us []units.Unit, failure, err error) {
	doc, err := s.pdf.document(ctx)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, pdf.ErrTimeout) {
			return nil, nil, err
		}
		return nil, err, nil
	}
	title := s.title(doc)
	us, _ = s.pdf.units(s.pdf.indexed(ctx, pdfItem+s.ref, doc), title)
	return append(units.Split(us), units.OfMarks(pdfMarks(s.ref, doc), title)...), nil, nil
}

// releasePDF drops the parsed PDF once the index has its text (see
// Paper.releasePDF).
func (s *PDF) releasePDF() {
	s.pdf.release()
	s.secMu.Lock()
	s.secDoc, s.secs = nil, nil
	s.secMu.Unlock()
}
