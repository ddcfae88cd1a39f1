package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/vault"
)

// Files of a paper unit that the paper source reads besides its PDF.
const (
	layoutFile      = "source/layout.json"
	layoutIndexFile = "source/layout-index.json"
)

const (
	// paperUnitsVersion changes whenever what goes into a paper's search
	// units changes, so cached indexes built the old way are rebuilt.
	paperUnitsVersion = "paper-units-1"
	// markdownMax caps PAPER.md and NOTES.md: a larger file is neither
	// read nor searched (a search says it was truncated). 4 MiB holds the
	// text of a long book; what costs memory is tokenising, about 40 bytes
	// per byte of text.
	markdownMax = 4 << 20
	// layoutMax caps layout.json and layout-index.json.
	layoutMax = 32 << 20
	// splitMarkdownAt is the size above which a Markdown file is searched
	// as one unit per section rather than as a whole, so that a hit points
	// at the section that matched.
	splitMarkdownAt = 4000
	// maxDetectedHeadings bounds headings guessed from font sizes, which
	// on a badly typeset PDF could otherwise be every other line.
	maxDetectedHeadings = 300
)

// Paper is the source of one paper unit: its PDF (one part per physical
// page), PAPER.md and NOTES.md, its metadata and its layout sidecars. It
// implements Source, Describer and RegionReader and is safe for concurrent
// use.
//
// The parsed PDF is kept in memory and re-extracted only when the file's
// size or modification time changes; the search index is cached on disk
// under the Library's cache folder.
type Paper struct {
	l *Library
	p *vault.Paper

	mu       sync.Mutex // held while the PDF is extracted, so readers share one extraction
	pdfStamp string
	pdfDoc   *pdf.Document
	pdfErr   error

	secMu    sync.Mutex
	secDoc   *pdf.Document // the document secs were found in
	secStamp string        // and the state of layout.json and PAPER.md
	secs     []Section
}

func (l *Library) newPaper(p *vault.Paper) *Paper {
	return &Paper{l: l, p: p}
}

// Info returns the paper's ref and title. The title is metadata.json's,
// else the largest text on the PDF's first page, else PAPER.md's first
// heading, else the folder name.
func (s *Paper) Info() Info {
	return Info{Ref: s.p.Ref, Kind: KindPaper, Title: s.title(context.Background())}
}

// title returns the best title of the paper; it may extract the PDF.
// Every title is one line (textnorm.Line): a title is data, and must not
// pose as a line of the tools' own.
func (s *Paper) title(ctx context.Context) string {
	if t := textnorm.Line(s.p.Meta.Title); t != "" {
		return t
	}
	if s.p.PDF != "" {
		if doc, err := s.pdfDocument(ctx); err == nil {
			if t := textnorm.Line(doc.Title); t != "" {
				return t
			}
		}
	}
	if t := s.p.Title(); t != "" {
		return t
	}
	return textnorm.Line(path.Base(s.p.Ref))
}

// Describe returns the paper's bibliographic metadata: metadata.json where
// it has a field, else what the PDF shows (title, authors), and the PDF's
// page count. A PDF that cannot be read leaves Pages at 0 rather than
// failing: the metadata is still worth having, and Read reports the error.
// The title, authors and identifiers are one line each (textnorm.Line).
func (s *Paper) Describe(ctx context.Context) (*Metadata, error) {
	m := s.p.Meta
	md := &Metadata{
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
			md.Pages = len(doc.Pages)
			if md.Title == "" {
				md.Title = textnorm.Line(doc.Title)
			}
			if len(md.Authors) == 0 {
				md.Authors = textnorm.Lines(doc.Authors)
			}
			if md.Abstract == "" {
				md.Abstract = pdfAbstract(doc, s.pdfSections(ctx, doc))
			}
		}
	}
	if md.Title == "" {
		md.Title = s.title(ctx)
	}
	for _, name := range []string{vault.PaperMDFile, vault.NotesFile} {
		if rel := s.p.Ref + "/" + name; s.exists(rel) {
			md.Documents = append(md.Documents, rel)
		}
	}
	return md, nil
}

// maxAbstract bounds an abstract taken from the PDF, in characters.
const maxAbstract = 3000

// pdfAbstract returns the text under an "Abstract" heading of the PDF's
// first two pages, up to the next heading on that page, or "".
func pdfAbstract(doc *pdf.Document, secs []Section) string {
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
// sections. Any other path in the paper folder is ErrNotFound; a path
// outside it is ErrOutside.
func (s *Paper) Read(ctx context.Context, p string) (*Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := s.resolve(p)
	if err != nil {
		return nil, err
	}
	switch rel {
	case s.p.PDF:
		return s.readPDF(ctx)
	case s.p.Ref + "/" + vault.PaperMDFile, s.p.Ref + "/" + vault.NotesFile:
		return s.readMarkdown(ctx, rel)
	}
	return nil, fmt.Errorf("%s: %w", rel, ErrNotFound)
}

// resolve maps a Read path to the vault-relative path of the document it
// names.
func (s *Paper) resolve(p string) (string, error) {
	if p == "" || p == s.p.Ref {
		return s.mainDocument()
	}
	rel, err := vault.Clean(p)
	if err != nil {
		// The input may be an absolute path of the machine: do not echo it.
		return "", fmt.Errorf("%s: path is %w", s.p.Ref, ErrOutside)
	}
	if rel == s.p.Ref {
		return s.mainDocument()
	}
	if !strings.HasPrefix(rel, s.p.Ref+"/") {
		return "", fmt.Errorf("%s: %w %s", rel, ErrOutside, s.p.Ref)
	}
	return rel, nil
}

// mainDocument returns the path Read("") reads.
func (s *Paper) mainDocument() (string, error) {
	if s.p.PDF != "" {
		return s.p.PDF, nil
	}
	for _, name := range []string{vault.PaperMDFile, vault.NotesFile} {
		if rel := s.p.Ref + "/" + name; s.exists(rel) {
			return rel, nil
		}
	}
	return "", fmt.Errorf("%s: no PDF, %s or %s: %w", s.p.Ref, vault.PaperMDFile, vault.NotesFile, ErrNotFound)
}

// pdfDocument returns the parsed PDF, extracting it only when the file
// changed since the last extraction. Errors name the PDF's vault path and
// wrap the pdf package's errors.
func (s *Paper) pdfDocument(ctx context.Context) (*pdf.Document, error) {
	rel := s.p.PDF
	if rel == "" {
		return nil, fmt.Errorf("%s: no PDF: %w", s.p.Ref, ErrNotFound)
	}
	st, err := s.l.v.FS().Stat(rel)
	if err != nil {
		return nil, fsErr(err)
	}
	stamp := fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pdfStamp == stamp && (s.pdfDoc != nil || s.pdfErr != nil) {
		return s.pdfDoc, s.pdfErr
	}
	doc, err := s.extract(ctx, rel, st)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, safefs.ErrNotRegular) {
			return nil, fsErr(err)
		}
		err = fmt.Errorf("%s: %w", rel, err)
		if ctx.Err() != nil {
			// The caller gave up: that says nothing about the file, so
			// remember nothing.
			return nil, err
		}
		s.pdfStamp, s.pdfDoc, s.pdfErr = stamp, nil, err
		return nil, err
	}
	s.pdfStamp, s.pdfDoc, s.pdfErr = stamp, doc, nil
	return doc, nil
}

// extract reads the text layer of the PDF at rel, through the Library's
// on-disk PDF cache when there is one. A cache that cannot be used (a
// read-only disk, say) costs speed, not the document: the file is then
// extracted directly.
func (s *Paper) extract(ctx context.Context, rel string, st fs.FileInfo) (*pdf.Document, error) {
	open := func() (io.ReaderAt, int64, io.Closer, error) {
		f, err := s.l.v.FS().Open(rel)
		if err != nil {
			return nil, 0, nil, err
		}
		fst, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		return f, fst.Size(), f, nil
	}
	if dir := s.l.cachePath("pdf"); dir != "" {
		c := pdf.Cache{Dir: dir}
		doc, err := c.Extract(ctx, pdf.FileInfo{Path: rel, Size: st.Size(), ModTime: st.ModTime()}, open)
		if err == nil || ctx.Err() != nil || isPDFError(err) {
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

// isPDFError reports an error that is about the PDF itself, not about
// reading it or caching it.
func isPDFError(err error) bool {
	return errors.Is(err, pdf.ErrMalformed) || errors.Is(err, pdf.ErrEncrypted) ||
		errors.Is(err, pdf.ErrTooLarge) || errors.Is(err, pdf.ErrTimeout)
}

// readPDF returns the PDF as a Document: one part per physical page, the
// printed page label where the PDF has one that differs from the page
// number, and the sections (see pdfSections).
func (s *Paper) readPDF(ctx context.Context) (*Document, error) {
	doc, err := s.pdfDocument(ctx)
	if err != nil {
		return nil, err
	}
	out := &Document{
		Path:  s.p.PDF,
		Title: s.title(ctx),
		Pages: len(doc.Pages),
		Parts: make([]Part, len(doc.Pages)),
	}
	for i, pg := range doc.Pages {
		part := Part{
			Location:    Location{Path: s.p.PDF, Page: i + 1, Label: pageLabel(doc, i)},
			Text:        pg.Text,
			NoTextLayer: pg.NoTextLayer,
		}
		if pg.Err != nil {
			part.Err = fmt.Errorf("%s page %d: %w", s.p.PDF, i+1, pg.Err)
		}
		out.Parts[i] = part
	}
	out.Sections = s.cachedSections(ctx, doc)
	return out, nil
}

// cachedSections returns pdfSections(doc), computed again only when the
// PDF, layout.json or PAPER.md changed. The caller gets its own copy.
func (s *Paper) cachedSections(ctx context.Context, doc *pdf.Document) []Section {
	stamp := s.fileStamp(s.p.Ref+"/"+layoutFile) + "\x00" + s.fileStamp(s.p.Ref+"/"+vault.PaperMDFile)
	s.secMu.Lock()
	defer s.secMu.Unlock()
	if s.secDoc != doc || s.secStamp != stamp {
		s.secs = s.pdfSections(ctx, doc)
		s.secDoc, s.secStamp = doc, stamp
	}
	return append([]Section(nil), s.secs...)
}

// fileStamp describes the state of a file: its size and modification
// time, or that it is absent.
func (s *Paper) fileStamp(rel string) string {
	st, err := s.l.v.FS().Stat(rel)
	if err != nil {
		return rel + ":absent"
	}
	return fmt.Sprintf("%s:%d:%d", rel, st.Size(), st.ModTime().UnixNano())
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

// readMarkdown returns PAPER.md or NOTES.md as a one-part document.
func (s *Paper) readMarkdown(ctx context.Context, rel string) (*Document, error) {
	text, err := s.l.v.FS().ReadText(rel, markdownMax)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", rel, ErrNotFound)
		}
		return nil, err
	}
	doc := &Document{
		Path:  rel,
		Title: s.title(ctx),
		Parts: []Part{{Location: Location{Path: rel}, Text: text}},
	}
	doc.Sections = markdownSections(text, 0)
	return doc, nil
}

// pdfSections returns the headings of the PDF, anchored in its pages. They
// come from the first of these that yields any: the header regions of
// source/layout.json, the PDF outline, headings detected from the text
// layer's font sizes, and the headings of PAPER.md found in the page text.
// Titles are one line each (textnorm.Line), whichever source they came from.
func (s *Paper) pdfSections(ctx context.Context, doc *pdf.Document) []Section {
	secs := s.foundSections(ctx, doc)
	for i := range secs {
		secs[i].Title = textnorm.Line(secs[i].Title)
	}
	return secs
}

func (s *Paper) foundSections(ctx context.Context, doc *pdf.Document) []Section {
	if regs, err := s.layoutRegions(); err == nil {
		if secs := layoutSections(doc, regs); len(secs) > 0 {
			return secs
		}
	}
	if secs := outlineSections(doc); len(secs) > 0 {
		return secs
	}
	if secs := detectedSections(doc); len(secs) > 0 {
		return secs
	}
	if text, err := s.l.v.FS().ReadText(s.p.Ref+"/"+vault.PaperMDFile, markdownMax); err == nil && ctx.Err() == nil {
		return paperMDSections(doc, markdownSections(text, 0))
	}
	return nil
}

// layoutSections anchors the header regions of layout.json in the pages.
func layoutSections(doc *pdf.Document, regs []layoutRegion) []Section {
	var out []Section
	for _, r := range regs {
		if r.Kind != "header" || r.PageIndex < 0 || r.PageIndex >= len(doc.Pages) {
			continue
		}
		title := strings.TrimSpace(r.Title)
		if title == "" {
			title = strings.TrimSpace(r.Text)
		}
		if title == "" {
			continue
		}
		pg := &doc.Pages[r.PageIndex]
		hint := -1
		if lines := linesIn(pg, r.BBox.box()); len(lines) > 0 {
			hint = lines[0].Start
		}
		off, ok := anchor(pg.Text, title, hint)
		if !ok {
			off = max(hint, 0)
		}
		out = append(out, Section{Title: title, Level: numberingLevel(title), Page: r.PageIndex + 1, Part: r.PageIndex, Offset: off})
	}
	sortSections(out)
	return out
}

// outlineSections anchors the PDF's bookmarks in the pages. A bookmark
// whose destination page is unknown is looked for after the previous one.
func outlineSections(doc *pdf.Document) []Section {
	var out []Section
	cur := position{}
	for _, it := range doc.Outline {
		title := strings.TrimSpace(it.Title)
		if title == "" {
			continue
		}
		sec := Section{Title: title, Level: it.Level + 1}
		if it.Page >= 1 && it.Page <= len(doc.Pages) {
			i := it.Page - 1
			hint := -1
			if cur.part == i {
				hint = cur.offset
			}
			off, ok := anchor(doc.Pages[i].Text, title, hint)
			if !ok {
				off = 0
			}
			sec.Page, sec.Part, sec.Offset = it.Page, i, off
		} else {
			at, ok := findAfter(doc, title, cur)
			if !ok {
				continue
			}
			sec.Page, sec.Part, sec.Offset = at.part+1, at.part, at.offset
		}
		cur = position{sec.Part, sec.Offset}
		out = append(out, sec)
	}
	sortSections(out)
	return out
}

// paperMDSections finds PAPER.md's headings in the PDF's pages, in order;
// headings not found are left out.
func paperMDSections(doc *pdf.Document, hs []Section) []Section {
	var out []Section
	cur := position{}
	for _, h := range hs {
		at, ok := findAfter(doc, h.Title, cur)
		if !ok {
			continue
		}
		out = append(out, Section{Title: h.Title, Level: h.Level, Page: at.part + 1, Part: at.part, Offset: at.offset})
		cur = at
	}
	return out
}

// position is a place in a PDF document: a page index and a byte offset.
type position struct{ part, offset int }

// findAfter finds title in the pages at or after cur, preferring a match
// that starts a line.
func findAfter(doc *pdf.Document, title string, cur position) (position, bool) {
	for i := max(cur.part, 0); i < len(doc.Pages); i++ {
		text := doc.Pages[i].Text
		from := 0
		if i == cur.part {
			from = min(cur.offset, len(text))
		}
		ms := textnorm.Locate(text[from:], title)
		if len(ms) == 0 {
			continue
		}
		if off, ok := anchor(text[from:], title, 0); ok {
			return position{i, from + off}, true
		}
	}
	return position{}, false
}

// anchor finds a heading's title in a page's text and returns the byte
// offset where the heading starts. A match that starts a line (after an
// optional section number) is preferred to one inside running text, and
// among those the one nearest hint (when hint >= 0).
func anchor(text, title string, hint int) (int, bool) {
	ms := textnorm.Locate(text, title)
	if len(ms) == 0 {
		return 0, false
	}
	best, bestRank, bestDist := -1, -1, math.MaxInt
	for _, m := range ms {
		start, rank := lineHead(text, m.Start)
		if rank == 1 && wholeLine(text, m.End) {
			rank = 2
		}
		dist := 0
		if hint >= 0 {
			dist = abs(start - hint)
		}
		if rank > bestRank || (rank == bestRank && dist < bestDist) {
			best, bestRank, bestDist = start, rank, dist
		}
	}
	return best, true
}

// wholeLine reports whether only spaces follow end on its line.
func wholeLine(text string, end int) bool {
	rest := text[end:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest) == ""
}

// lineHead reports whether the text before offset on its line is empty or
// only a section number ("3.1", "IV.", "A"): it returns the line's start and
// 1 if so, else offset and 0.
func lineHead(text string, offset int) (int, int) {
	start := strings.LastIndexByte(text[:offset], '\n') + 1
	prefix := strings.TrimSpace(text[start:offset])
	if prefix == "" || isNumbering(prefix) {
		return start, 1
	}
	return offset, 0
}

// isNumbering reports whether s looks like a section number: "3", "3.1.",
// "A.2", "IV".
func isNumbering(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 12 {
		return false
	}
	if strings.Trim(s, "IVXLivxl") == "" {
		return true
	}
	for i, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		if i == 0 && len(part) == 1 && part[0] >= 'A' && part[0] <= 'Z' {
			continue
		}
		if strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

// numberingLevel returns a heading's level from its number: "3 Method" is
// 1, "3.1 Block partition" is 2; unnumbered headings are 1.
func numberingLevel(title string) int {
	num, _, ok := strings.Cut(strings.TrimSpace(title), " ")
	if !ok || !isNumbering(num) || strings.Trim(strings.TrimSuffix(num, "."), "IVXLivxl") == "" {
		return 1
	}
	return strings.Count(strings.TrimSuffix(num, "."), ".") + 1
}

// detectedSections turns the headings the pdf package finds from font
// sizes and weights into sections. The document title (the largest text on
// page 1, possibly wrapped onto several lines) is not a section. Levels come
// from section numbers, so "3.1 Block partition" sits under "3 Method" and
// unnumbered headings such as "Abstract" are top level.
func detectedSections(doc *pdf.Document) []Section {
	title := foldSpace(doc.Title)
	var out []Section
	for _, h := range doc.Headings() {
		if h.Page < 1 || h.Page > len(doc.Pages) {
			continue
		}
		pg := &doc.Pages[h.Page-1]
		t := strings.TrimSpace(h.Title)
		if !headingLike(t) || (h.Page == 1 && title != "" && strings.Contains(title, foldSpace(t))) {
			continue
		}
		sec := Section{Title: t, Level: numberingLevel(t), Page: h.Page, Part: h.Page - 1}
		switch {
		case h.Line >= 0 && h.Line < len(pg.Lines) && pg.Lines[h.Line].Start >= 0 && pg.Lines[h.Line].Start <= len(pg.Text):
			sec.Offset = pg.Lines[h.Line].Start
		default:
			off, ok := anchor(pg.Text, t, -1)
			if !ok {
				continue
			}
			sec.Offset = off
		}
		out = append(out, sec)
		if len(out) >= maxDetectedHeadings {
			break
		}
	}
	sortSections(out)
	return out
}

// foldSpace folds s for comparison and collapses its whitespace.
func foldSpace(s string) string {
	return textnorm.Fold(strings.Join(strings.Fields(s), " "))
}

// headingLike reports whether a line could be a heading at all: short, with
// letters, not ending like a clause.
func headingLike(t string) bool {
	if t == "" || len([]rune(t)) > 90 || strings.HasSuffix(t, ",") {
		return false
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3
}

// sortSections puts sections in reading order.
func sortSections(secs []Section) {
	sort.SliceStable(secs, func(i, j int) bool {
		if secs[i].Part != secs[j].Part {
			return secs[i].Part < secs[j].Part
		}
		return secs[i].Offset < secs[j].Offset
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Search finds the paper's passages: one unit per PDF page with text, and
// NOTES.md and PAPER.md as a whole or, when long, section by section.
// PAPER.md, derived from the PDF, is searched only when the PDF does not
// give text for every page (no PDF, a damaged file, a scan). A PDF that
// cannot be read leaves its pages out; the Markdown files are still
// searched.
func (s *Paper) Search(ctx context.Context, q Query) (*Results, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The library index, filtered to this paper (see Library.searchIndex).
	key := paperItem + s.p.Ref
	res, err := s.l.searchIndex(ctx, []libindex.Item{{Key: key, Stamp: s.stamp()}}, libindex.KeySet([]string{key}), q)
	if err != nil {
		return nil, err
	}
	res.Truncated = res.Truncated || s.oversized()
	return res, nil
}

// oversized reports a PAPER.md or NOTES.md above markdownMax, which the
// search units leave out.
func (s *Paper) oversized() bool {
	for _, name := range []string{vault.PaperMDFile, vault.NotesFile} {
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
	for _, rel := range []string{s.p.PDF, s.p.Ref + "/" + vault.PaperMDFile, s.p.Ref + "/" + vault.NotesFile, s.p.Ref + "/" + vault.MetadataFile} {
		if rel == "" {
			parts = append(parts, "-")
			continue
		}
		parts = append(parts, s.fileStamp(rel))
	}
	return stampOf(parts...)
}

// units builds the search units of the paper.
func (s *Paper) units(ctx context.Context) ([]unit, error) {
	title := s.title(ctx)
	var out []unit
	pdfComplete := false // every PDF page has text
	if s.p.PDF != "" {
		doc, err := s.pdfDocument(ctx)
		switch {
		case err == nil:
			pdfComplete = len(doc.Pages) > 0
			for i, pg := range doc.Pages {
				if pg.Err != nil || strings.TrimSpace(pg.Text) == "" {
					pdfComplete = false
					continue
				}
				out = append(out, unit{Loc: Location{Path: s.p.PDF, Page: i + 1, Label: pageLabel(doc, i)}, Title: title, Text: pg.Text})
			}
		case ctx.Err() != nil, errors.Is(err, pdf.ErrTimeout):
			// Not a property of the file: fail rather than cache an
			// index without the PDF.
			return nil, err
		}
	}
	for _, name := range []string{vault.PaperMDFile, vault.NotesFile} {
		if name == vault.PaperMDFile && pdfComplete {
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
	return splitUnits(out), nil
}

// markdownUnits returns a Markdown file as one unit, or one unit per
// section when it is long.
func markdownUnits(rel, title, text string) []unit {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	hs := markdownSections(text, 0)
	if len(text) <= splitMarkdownAt || len(hs) == 0 {
		return []unit{{Loc: Location{Path: rel}, Title: title, Text: text}}
	}
	var out []unit
	if pre := text[:hs[0].Offset]; strings.TrimSpace(pre) != "" {
		out = append(out, unit{Loc: Location{Path: rel}, Title: title, Text: pre})
	}
	for i, h := range hs {
		end := len(text)
		if i+1 < len(hs) {
			end = hs[i+1].Offset
		}
		out = append(out, unit{Loc: Location{Path: rel, Section: h.Title}, Title: title, Text: text[h.Offset:end]})
	}
	return out
}

// layoutRegion is one region of source/layout.json (schemaVersion 3).
type layoutRegion struct {
	ID        string     `json:"id"`
	PageIndex int        `json:"pageIndex"`
	Kind      string     `json:"kind"`
	Title     string     `json:"title"`
	Text      string     `json:"text"`
	BBox      layoutBBox `json:"bbox"`
}

// layoutItem is one item of source/layout-index.json (schemaVersion 1).
type layoutItem struct {
	ID             string     `json:"id"`
	Kind           string     `json:"kind"`
	Section        string     `json:"section"`
	Page           int        `json:"page"`
	PageIndex      *int       `json:"pageIndex"`
	BBox           layoutBBox `json:"bbox"`
	Title          string     `json:"title"`
	LayoutRegionID string     `json:"layoutRegionId"`
}

type layoutBBox struct{ X, Y, W, H float64 }

func (b layoutBBox) box() Box { return Box(b) }

// layoutRegions reads source/layout.json.
func (s *Paper) layoutRegions() ([]layoutRegion, error) {
	var doc struct {
		Regions []layoutRegion `json:"regions"`
	}
	if err := s.readJSON(s.p.Ref+"/"+layoutFile, &doc); err != nil {
		return nil, err
	}
	return doc.Regions, nil
}

// layoutItems reads source/layout-index.json.
func (s *Paper) layoutItems() ([]layoutItem, error) {
	var doc struct {
		Items []layoutItem `json:"items"`
	}
	if err := s.readJSON(s.p.Ref+"/"+layoutIndexFile, &doc); err != nil {
		return nil, err
	}
	return doc.Items, nil
}

// readJSON decodes a sidecar; a missing file is ErrNotFound.
func (s *Paper) readJSON(rel string, v any) error {
	data, err := s.l.v.FS().ReadFile(rel, layoutMax)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", rel, ErrNotFound)
		}
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: malformed: %w", rel, err)
	}
	return nil
}

// Region returns a layout region by id: an item of source/layout-index.json
// ("figure-1"), resolved to its layout.json region, or a layout.json region
// id ("p2-r03"). Its text is the region's own text, else the PDF lines
// inside its box; a figure or table listed in the layout index also gets
// the text of its caption region.
func (s *Paper) Region(ctx context.Context, id string) (*Region, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id = strings.TrimSpace(id)
	items, itemsErr := s.layoutItems()
	regs, regsErr := s.layoutRegions()
	for _, err := range []error{itemsErr, regsErr} {
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	var item *layoutItem
	for i := range items {
		if items[i].ID == id {
			item = &items[i]
			break
		}
	}
	regionID := id
	if item != nil && item.LayoutRegionID != "" {
		regionID = item.LayoutRegionID
	}
	var reg *layoutRegion
	for i := range regs {
		if regs[i].ID == regionID {
			reg = &regs[i]
			break
		}
	}
	if item == nil && reg != nil {
		// A region named directly may still be a listed figure or table.
		for i := range items {
			if items[i].LayoutRegionID == reg.ID {
				item = &items[i]
				break
			}
		}
	}
	if item == nil && reg == nil {
		return nil, fmt.Errorf("%s: region %q: %w", s.p.Ref, id, ErrNotFound)
	}

	out := &Region{ID: id}
	page := 0
	switch {
	case reg != nil:
		page = reg.PageIndex + 1
		out.Kind, out.Title, out.Text, out.Box = textnorm.Line(reg.Kind), textnorm.Line(reg.Title), reg.Text, reg.BBox.box()
	case item.PageIndex != nil:
		page = *item.PageIndex + 1
	default:
		page = item.Page
	}
	if item != nil {
		if out.Kind == "" {
			out.Kind = textnorm.Line(item.Kind)
		}
		if out.Title == "" {
			out.Title = textnorm.Line(item.Title)
		}
		if reg == nil {
			out.Box = item.BBox.box()
		}
	}
	out.Location = Location{Path: s.p.PDF, Page: page, Region: id}
	if s.p.PDF == "" {
		out.Location.Path = s.p.Ref + "/" + layoutFile
	}

	var doc *pdf.Document
	if s.p.PDF != "" {
		d, err := s.pdfDocument(ctx)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		doc = d // a PDF that cannot be read leaves only the layout's own text
	}
	if doc != nil && page >= 1 && page <= len(doc.Pages) {
		out.Label = pageLabel(doc, page-1)
		if strings.TrimSpace(out.Text) == "" {
			out.Text = joinLines(linesIn(&doc.Pages[page-1], out.Box))
		}
	}
	if item != nil {
		if c := captionOf(regs, reg, item, page, out.Box); c != nil {
			ct := strings.TrimSpace(c.Text)
			if ct == "" && doc != nil && page >= 1 && page <= len(doc.Pages) {
				ct = joinLines(linesIn(&doc.Pages[page-1], c.BBox.box()))
			}
			if ct != "" && !strings.Contains(out.Text, ct) {
				if strings.TrimSpace(out.Text) == "" {
					out.Text = ct
				} else {
					out.Text = strings.TrimRight(out.Text, "\n") + "\n\n" + ct
				}
			}
		}
	}
	return out, nil
}

// captionOf finds the caption region of a figure or table on its page: the
// caption whose text starts like the item's title, else the caption nearest
// above or below the region's box.
func captionOf(regs []layoutRegion, self *layoutRegion, item *layoutItem, page int, box Box) *layoutRegion {
	title := textnorm.Fold(strings.Join(strings.Fields(item.Title), " "))
	var near *layoutRegion
	nearGap := 0.08 // at most this far (a fraction of the page height)
	for i := range regs {
		r := &regs[i]
		if r == self || r.Kind != "caption" || r.PageIndex+1 != page {
			continue
		}
		text := textnorm.Fold(strings.Join(strings.Fields(r.Text), " "))
		if title != "" && text != "" && (strings.HasPrefix(title, firstRunes(text, 40)) || strings.HasPrefix(text, firstRunes(title, 40))) {
			return r
		}
		b := r.BBox.box()
		gap := math.Max(b.Y-(box.Y+box.H), box.Y-(b.Y+b.H))
		if gap < nearGap {
			near, nearGap = r, gap
		}
	}
	return near
}

func firstRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// linesIn returns the page's lines that lie mostly inside box.
func linesIn(pg *pdf.Page, box Box) []pdf.Line {
	if box.W <= 0 || box.H <= 0 {
		return nil
	}
	var out []pdf.Line
	for _, ln := range pg.Lines {
		b := ln.Box
		ix := math.Min(b.X+b.W, box.X+box.W) - math.Max(b.X, box.X)
		iy := math.Min(b.Y+b.H, box.Y+box.H) - math.Max(b.Y, box.Y)
		if ix <= 0 || iy <= 0 {
			continue
		}
		area := b.W * b.H
		if area <= 0 || ix*iy >= 0.5*area {
			out = append(out, ln)
		}
	}
	return out
}

func joinLines(lines []pdf.Line) string {
	texts := make([]string, len(lines))
	for i, ln := range lines {
		texts[i] = ln.Text
	}
	return strings.Join(texts, "\n")
}
