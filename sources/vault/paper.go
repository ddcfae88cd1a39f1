package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

const (
	// paperUnitsVersion changes whenever what goes into a paper's search
	// units changes, so cached indexes built the old way are rebuilt.
	paperUnitsVersion = "paper-units-2"
	// markdownMax caps PAPER.md and NOTES.md: a larger file is neither
	// read nor searched (a search says it was truncated). 4 MiB holds the
	// text of a long book; what costs memory is tokenising, about 40 bytes
	// per byte of text.
	markdownMax = 4 << 20
	// splitMarkdownAt is the size above which a Markdown file is searched
	// as one unit per section rather than as a whole, so that a hit points
	// at the section that matched.
	splitMarkdownAt = 4000
)

// Paper is the source of one paper unit: its PDF (one part per physical
// page), PAPER.md and NOTES.md, its metadata and its layout sidecars. It
// implements sources.Source, sources.Describer and sources.RegionReader and is safe for concurrent
// use.
//
// The parsed PDF is kept in memory and re-extracted only when the file's
// size or modification time changes; the search index is cached on disk
// under the Library's cache folder.
type Paper struct {
	l *Library
	p *catalog.Paper

	pdf    pdfFile          // its PDF, when p.PDF is set
	filter *libindex.Filter // the library index narrowed to this paper, its masks kept between searches

	secMu    sync.Mutex
	secDoc   *pdf.Document // the document secs were found in
	secStamp string        // and the state of layout.json and PAPER.md
	secs     []sources.Section
}

func (l *Library) newPaper(p *catalog.Paper) *Paper {
	return &Paper{l: l, p: p, pdf: pdfFile{l: l, rel: p.PDF}, filter: libindex.KeySet([]string{paperItem + p.Ref})}
}

// pdfDocument returns the paper's parsed PDF (see pdfFile.document).
func (s *Paper) pdfDocument(ctx context.Context) (*pdf.Document, error) {
	if s.p.PDF == "" {
		return nil, fmt.Errorf("%s: no PDF: %w", s.p.Ref, sources.ErrNotFound)
	}
	return s.pdf.document(ctx)
}

// Info returns the paper's ref and title. The title is metadata.json's,
// else the PDF's own (its title block, else its Info or XMP title), else
// PAPER.md's first heading, else the folder name. Info reads no PDF: the
// PDF's title is the one learnt when the source was opened (Library.Open)
// or its PDF last read, kept with the catalogue.
func (s *Paper) Info() sources.Info {
	return sources.Info{Path: s.p.Ref, Kind: grant.KindPaper, Title: knownTitle(s.l.v, s.p)}
}

// findTitle learns the PDF's title within ctx, once: the title of a paper
// whose metadata has none, for Info.
func (s *Paper) findTitle(ctx context.Context) {
	if textnorm.Line(s.p.Meta.Title) != "" || s.p.PDF == "" {
		return
	}
	if _, ok := s.l.v.LearntTitle(s.p.PDF); !ok {
		s.title(ctx)
	}
}

// title returns the best title of the paper; it may extract the PDF,
// within ctx. Every title is one line (textnorm.Line): a title is data,
// and must not pose as a line of the tools' own.
func (s *Paper) title(ctx context.Context) string {
	if t := textnorm.Line(s.p.Meta.Title); t != "" {
		return t
	}
	if s.p.PDF != "" {
		t, ok := s.l.v.LearntTitle(s.p.PDF)
		if !ok {
			if doc, err := s.pdfDocument(ctx); err == nil {
				t = pdfTitle(doc)
			}
		}
		if t != "" {
			return t
		}
	}
	return knownTitle(s.l.v, s.p)
}

// Describe returns the paper's bibliographic metadata: metadata.json where
// it has a field, else what the PDF shows (title, authors), and the PDF's
// page count. A PDF that cannot be read leaves Pages at 0 rather than
// failing: the metadata is still worth having, and Read reports the error.
// The title, authors and identifiers are one line each (textnorm.Line).
func (s *Paper) Describe(ctx context.Context) (*sources.Metadata, error) {
	ctx, end := s.l.calls.Begin(ctx) // the background yields to it
	defer end()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := s.p.Meta
	md := &sources.Metadata{
		Title:    textnorm.Line(m.Title),
		Authors:  textnorm.Lines(m.Authors),
		Year:     m.Year,
		Abstract: strings.TrimSpace(m.Abstract),
		DOI:      textnorm.Line(m.DOI),
		ArXivID:  textnorm.Line(m.ArXivID),
	}
	if md.Year == 0 {
		md.Year = yearOf(m.Date)
	}
	if md.DOI == "" {
		md.DOI = s.p.DOI
	}
	if md.ArXivID == "" {
		md.ArXivID = s.p.ArXiv
	}
	if s.p.PDF != "" {
		md.Documents = append(md.Documents, s.p.PDF)
		doc, err := s.pdfDocument(ctx)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			s.pdf.describe(md, doc, s.pdfSections(ctx, doc))
			s.pdf.describeOCR(ctx, md, doc)
		}
		if listed, err := s.layoutItems(); err == nil {
			md.Figures = paperFigures(listed, md.Figures)
		}
	}
	if md.Title == "" {
		md.Title = s.title(ctx)
	}
	for _, name := range []string{catalog.PaperMDFile, catalog.NotesFile} {
		if rel := s.p.Ref + "/" + name; s.exists(rel) {
			md.Documents = append(md.Documents, rel)
		}
	}
	return md, nil
}

// yearOf returns the year a date such as "2024-03-01" or "2024" starts
// with, or 0.
func yearOf(date string) int {
	date = strings.TrimSpace(date)
	if len(date) < 4 {
		return 0
	}
	y, err := strconv.Atoi(date[:4])
	if err != nil || y < 1000 {
		return 0
	}
	return y
}

// exists reports whether rel is a regular file in the Vault.
func (s *Paper) exists(rel string) bool {
	st, err := s.l.v.FS().Stat(rel)
	return err == nil && st.Mode().IsRegular()
}

// Read returns one document of the paper. path "" (or the paper folder, or
// the PDF's path) is the PDF, one part per physical page; for a paper
// without a PDF it is PAPER.md, else NOTES.md. The paths of PAPER.md and
// NOTES.md return that file as one part with its Markdown headings as
// sections. Any other path in the paper folder is sources.ErrNotFound; a path
// outside it is sources.ErrOutside.
func (s *Paper) Read(ctx context.Context, p string) (*sources.Document, error) {
	return s.read(ctx, p, nil, true)
}

// ReadPages implements sources.PageReader: the PDF's scanned pages are
// recognised only among pages; the others the OCR cache does not hold say
// they are not recognised yet, and are recognised in the background.
func (s *Paper) ReadPages(ctx context.Context, p string, pages []int) (*sources.Document, error) {
	return s.read(ctx, p, pages, false)
}

// read is Read with the pages the engine may be given (all: every page).
func (s *Paper) read(ctx context.Context, p string, pages []int, all bool) (*sources.Document, error) {
	ctx, end := s.l.calls.Begin(ctx) // the background yields to it
	defer end()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := s.resolve(p)
	if err != nil {
		return nil, err
	}
	switch rel {
	case s.p.PDF:
		return s.readPDF(ctx, pages, all)
	case s.p.Ref + "/" + catalog.PaperMDFile, s.p.Ref + "/" + catalog.NotesFile:
		return s.readMarkdown(ctx, rel)
	}
	return nil, fmt.Errorf("%s: %w", rel, sources.ErrNotFound)
}

// resolve maps a Read path to the vault-relative path of the document it
// names.
func (s *Paper) resolve(p string) (string, error) {
	if p == "" || p == s.p.Ref {
		return s.mainDocument()
	}
	rel, err := catalog.Clean(p)
	if err != nil {
		return "", outsideErr(p, s.p.Ref)
	}
	if rel == s.p.Ref {
		return s.mainDocument()
	}
	if !strings.HasPrefix(rel, s.p.Ref+"/") {
		return "", outsideErr(rel, s.p.Ref)
	}
	return rel, nil
}

// mainDocument returns the path Read("") reads.
func (s *Paper) mainDocument() (string, error) {
	if s.p.PDF != "" {
		return s.p.PDF, nil
	}
	for _, name := range []string{catalog.PaperMDFile, catalog.NotesFile} {
		if rel := s.p.Ref + "/" + name; s.exists(rel) {
			return rel, nil
		}
	}
	return "", fmt.Errorf("%s: no PDF, %s or %s: %w", s.p.Ref, catalog.PaperMDFile, catalog.NotesFile, sources.ErrNotFound)
}

// readPDF returns the PDF as a Document: one part per physical page, the
// printed page label where the PDF has one that differs from the page
// number, and the sections (see pdfSections).
func (s *Paper) readPDF(ctx context.Context, pages []int, all bool) (*sources.Document, error) {
	doc, err := s.pdfDocument(ctx)
	if err != nil {
		return nil, err
	}
	if all {
		pages = allPages(doc)
	}
	doc = s.pdf.recognised(ctx, doc, pages)
	s.pdf.queueOCR(paperItem+s.p.Ref, doc)
	return s.pdf.read(doc, s.title(ctx), s.cachedSections(ctx, doc)), nil
}

// fileStamp describes the state of a file: its size, modification time
// and identity (see the package's fileStamp), or that it is absent.
func (s *Paper) fileStamp(rel string) string { return statStamp(s.l.v.FS(), rel, rel) }

// readMarkdown returns PAPER.md or NOTES.md as a one-part document.
func (s *Paper) readMarkdown(ctx context.Context, rel string) (*sources.Document, error) {
	text, err := s.l.v.FS().ReadText(rel, markdownMax)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", rel, sources.ErrNotFound)
		}
		return nil, err
	}
	doc := &sources.Document{
		Path:  rel,
		Title: s.title(ctx),
		Parts: []sources.Part{{Location: sources.Location{Path: rel}, Text: text}},
	}
	doc.Sections = units.MarkdownSections(text, 0)
	return doc, nil
}

// Search finds the paper's passages: one unit per PDF page with text, and
// NOTES.md and PAPER.md as a whole or, when long, section by section.
// PAPER.md, derived from the PDF, is searched only when the PDF does not
// give text for every page (no PDF, a damaged file, a scan). A PDF that
// cannot be read leaves its pages out; the Markdown files are still
// searched.
func (s *Paper) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	ctx, end := s.l.calls.Begin(ctx) // the background yields to it
	defer end()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The library index, filtered to this paper (see indexer.search).
	key := paperItem + s.p.Ref
	res, err := s.l.idx.search(ctx, []libindex.Item{{Key: key, Stamp: s.stamp()}}, s.filter, q)
	if err != nil {
		return nil, err
	}
	res.Truncated = res.Truncated || s.oversized()
	return res, nil
}

// oversized reports a PAPER.md or NOTES.md above markdownMax, which the
// search units leave out.
func (s *Paper) oversized() bool {
	for _, name := range []string{catalog.PaperMDFile, catalog.NotesFile} {
		if st, err := s.l.v.FS().Stat(s.p.Ref + "/" + name); err == nil && st.Size() > markdownMax {
			return true
		}
	}
	return false
}

// stamp identifies the state of everything the search units are built
// from.
func (s *Paper) stamp() string {
	// The extractor's version too: its text changes rebuild the units.
	parts := []string{paperUnitsVersion, "pdf-" + strconv.Itoa(pdf.Version), s.p.Ref}
	// The paper's files are stat'ed through one handle on its folder,
	// under the same rules (a strict view: no link, no unsafe name), not
	// each walked down from the Vault's root: five files cost some fifteen
	// system calls instead of fifty. A folder that cannot be opened so
	// (gone, or a link) stamps each file as before.
	dir, err := s.l.v.FS().Sub(s.p.Ref)
	if err == nil {
		defer dir.Close()
	}
	for _, rel := range []string{s.p.PDF, s.p.Ref + "/" + catalog.PaperMDFile, s.p.Ref + "/" + catalog.NotesFile, s.p.Ref + "/" + catalog.MetadataFile, s.p.Ref + "/" + MarksFile} {
		if rel == "" {
			parts = append(parts, "-")
			continue
		}
		if in, ok := strings.CutPrefix(rel, s.p.Ref+"/"); ok && err == nil {
			parts = append(parts, statStamp(dir, in, rel))
			continue
		}
		parts = append(parts, s.fileStamp(rel))
	}
	return stampOf(parts...)
}

// statStamp is the stamp of the file at rel, stat'ed as name in fsys.
func statStamp(fsys *safefs.FS, name, rel string) string {
	st, err := fsys.Stat(name)
	if err != nil {
		return rel + ":absent"
	}
	return rel + ":" + fileStamp(st)
}

// units builds the search units of the paper.
func (s *Paper) units(ctx context.Context) ([]units.Unit, error) {
	title := s.title(ctx)
	var out []units.Unit
	pdfComplete := false // every PDF page has text
	var marks []sources.Mark
	if s.p.PDF != "" {
		doc, err := s.pdfDocument(ctx)
		switch {
		case err == nil:
			out, pdfComplete = s.pdf.units(s.pdf.indexed(ctx, paperItem+s.p.Ref, doc), title)
			marks = pdfMarks(s.p.PDF, doc)
		case ctx.Err() != nil, errors.Is(err, pdf.ErrTimeout):
			// Not a property of the file: fail rather than cache an
			// index without the PDF.
			return nil, err
		}
	}
	for _, name := range []string{catalog.PaperMDFile, catalog.NotesFile} {
		if name == catalog.PaperMDFile && pdfComplete {
			// PAPER.md is text derived from the PDF: when every page
			// has its own text, searching both would return each
			// passage twice, and the PDF page is what a card cites.
			continue
		}
		rel := s.p.Ref + "/" + name
		text, err := s.l.v.FS().ReadText(rel, markdownMax)
		if err != nil {
			continue
		}
		out = append(out, markdownUnits(rel, title, text)...)
	}
	out = units.Split(out)
	// The marks, as Marks reads them: a malformed marks file has none.
	at := s.p.PDF
	if at == "" {
		at = s.p.Ref + "/" + MarksFile
	}
	own, _ := s.fileMarks(at)
	return append(out, units.OfMarks(mergeMarks(marks, own), title)...), nil
}

// markdownUnits returns a Markdown file as one unit, or one unit per
// section when it is long.
func markdownUnits(rel, title, text string) []units.Unit {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	hs := units.MarkdownSections(text, 0)
	if len(text) <= splitMarkdownAt || len(hs) == 0 {
		return []units.Unit{{Loc: sources.Location{Path: rel}, Title: title, Text: text}}
	}
	var out []units.Unit
	if pre := text[:hs[0].Offset]; strings.TrimSpace(pre) != "" {
		out = append(out, units.Unit{Loc: sources.Location{Path: rel}, Title: title, Text: pre})
	}
	for i, h := range hs {
		end := len(text)
		if i+1 < len(hs) {
			end = hs[i+1].Offset
		}
		out = append(out, units.Unit{Loc: sources.Location{Path: rel, Section: h.Title}, Title: title, Text: text[h.Offset:end]})
	}
	return out
}
