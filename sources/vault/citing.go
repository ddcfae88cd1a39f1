package vault

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// relator is the Library's citation graph, made once, and the hooks it
// reads the library's papers and loose PDFs through: their text (never
// waiting for OCR), identifiers and metadata. It holds only what it needs
// of the Library, wired by newLibrary.
type relator struct {
	v        *catalog.Vault
	cacheDir string                                                // "" when disabled
	paper    func(ctx context.Context, ref string) (*Paper, error) // a library paper's shared source
	open     func(ctx context.Context, kind grant.Kind, path string) (sources.Source, error)
	title    func(ctx context.Context, ref string) string // a library paper's title, as its source gives it
	deferOCR func(key, stamp string)                      // queues an index item for the OCR worker

	once sync.Once
	g    *relations.Graph
}

// graph returns the Vault's citation graph, reading paper text
// through the library's paper sources when a paper has no reference
// sidecar, and keeping the references parsed from it with the library's
// other caches.
func (r *relator) graph() *relations.Graph {
	r.once.Do(func() {
		cache := r.cacheDir
		if cache == "" {
			cache = "-" // the host turned the caches off
		}
		r.g = relations.New(r.v, &relations.Options{Text: r.graphText, IDs: r.graphIDs, Meta: r.paperMeta, Loose: r.loosePDFs, CacheDir: cache})
	})
	return r.g
}

// arXivStamp matches the identifier arXiv prints down the side of the
// first page of a paper it serves: "arXiv:1706.03762v5 [cs.CL] 6 Dec 2017".
// The category in brackets tells it from an arXiv id the page cites.
var arXivStamp = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\barXiv:((?:[0-9]{4}\.[0-9]{4,5})|(?:[a-z][a-z-]*(?:\.[A-Z]{2})?/[0-9]{7}))(?:v[0-9]+)?\s*\[[a-zA-Z.-]+\]`)
})

// paperIDs returns the identifiers a library paper's PDF shows of itself:
// the DOI of its XMP and the arXiv stamp of its first page. It is the hook
// the citation graph uses for papers whose metadata gives neither.
func (r *relator) paperIDs(ctx context.Context, p *catalog.Paper) (doi, arxiv string, err error) {
	src, err := r.paper(ctx, p.Ref)
	if err != nil {
		return "", "", err
	}
	doc, err := src.pdfDocument(ctx)
	if err != nil {
		return "", "", err
	}
	return docIDs(doc)
}

// paperText returns the text of a library paper's PDF pages, in order,
// separated by form feeds; for a paper without a PDF, its PAPER.md. It is
// the hook the citation graph uses to find identifiers in reference
// sections. It never waits for OCR: scanned pages come from the OCR cache,
// and a PDF whose scanned pages are not recognised yet gives the text it
// has with relations.ErrTextPending, its pages queued for the OCR worker.
func (r *relator) paperText(ctx context.Context, p *catalog.Paper) (string, error) {
	src, err := r.paper(ctx, p.Ref)
	if err != nil {
		return "", err
	}
	rel, err := src.mainDocument()
	if err != nil {
		return "", err
	}
	if rel != src.p.PDF {
		doc, err := src.Read(ctx, "")
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for i, part := range doc.Parts {
			if i > 0 {
				b.WriteByte('\f')
			}
			b.WriteString(part.Text)
		}
		return b.String(), nil
	}
	doc, err := src.pdfDocument(ctx)
	if err != nil {
		return "", err
	}
	return r.availableText(ctx, &src.pdf, paperItem+p.Ref, doc)
}

// availableText is the text of doc's pages, the PDF f's, in order and
// separated by form feeds, its scanned pages as far as the OCR cache holds
// them. When some still wait for the engine, the PDF is queued for the OCR
// worker as index item key and the error wraps relations.ErrTextPending.
func (r *relator) availableText(ctx context.Context, f *pdfFile, key string, doc *pdf.Document) (string, error) {
	rd := f.recognised(ctx, doc, nil)
	var b strings.Builder
	for i, pg := range rd.Pages {
		if i > 0 {
			b.WriteByte('\f')
		}
		b.WriteString(pg.Text)
	}
	f.ocrMu.Lock()
	waits := rd != doc && f.ocrWaits
	f.ocrMu.Unlock()
	if !waits {
		return b.String(), nil
	}
	f.mu.Lock()
	stamp := f.stamp
	f.mu.Unlock()
	r.deferOCR(key, stamp)
	return b.String(), fmt.Errorf("%s: scanned pages wait for OCR: %w", f.rel, relations.ErrTextPending)
}

// maxLooseFiles bounds the files the listing of loose PDFs walks.
const maxLooseFiles = 50000

// loosePDFs lists the Vault's PDFs that lie in no paper folder (hidden and
// private folders are not walked), which the citation graph reads as
// papers of their own, and the folders it listed to find them, which the
// graph stamps to see a PDF added later.
func (r *relator) loosePDFs(ctx context.Context) (pdfs, dirs []string, err error) {
	cat, err := r.v.Catalogue(ctx)
	if err != nil {
		return nil, nil, err
	}
	dirs = []string{"."}
	_, err = r.v.FS().Walk(".", maxScanDepth, maxLooseFiles, func(rel string, de fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if de.IsDir() {
			if cat.Paper(rel) != nil {
				return fs.SkipDir
			}
			dirs = append(dirs, rel)
			return nil
		}
		if isPDF(rel) && cat.PaperOf(rel) == nil {
			if info, err := de.Info(); err == nil && info.Size() > 0 && info.Size() <= pdf.DefaultMaxBytes {
				pdfs = append(pdfs, rel)
			}
		}
		return nil
	})
	return pdfs, dirs, err
}

// loose returns the source of the loose PDF p stands for (see
// relations.Options.Loose), or nil when p is a paper of the catalogue.
func (r *relator) loose(ctx context.Context, p *catalog.Paper) (*PDF, error) {
	cat, err := r.v.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	if cat.Paper(p.Ref) != nil {
		return nil, nil
	}
	src, err := r.open(ctx, grant.KindFile, p.Ref)
	if err != nil {
		return nil, err
	}
	s, ok := src.(*PDF)
	if !ok {
		return nil, &units.UnreadableError{What: p.Ref, Err: sources.ErrUnreadable}
	}
	return s, nil
}

// graphText is paperText for the citation graph: a loose PDF's pages too,
// likewise without waiting for OCR.
func (r *relator) graphText(ctx context.Context, p *catalog.Paper) (string, error) {
	s, err := r.loose(ctx, p)
	if err != nil || s == nil {
		if err != nil {
			return "", err
		}
		return r.paperText(ctx, p)
	}
	doc, err := s.pdf.document(ctx)
	if err != nil {
		return "", err
	}
	return r.availableText(ctx, &s.pdf, pdfItem+p.Ref, doc)
}

// graphIDs is paperIDs for the citation graph: a loose PDF's too.
func (r *relator) graphIDs(ctx context.Context, p *catalog.Paper) (doi, arxiv string, err error) {
	s, err := r.loose(ctx, p)
	if err != nil || s == nil {
		if err != nil {
			return "", "", err
		}
		return r.paperIDs(ctx, p)
	}
	doc, err := s.pdf.document(ctx)
	if err != nil {
		return "", "", err
	}
	return docIDs(doc)
}

// docIDs are the DOI of a PDF's XMP and the arXiv id of its first page's
// arXiv stamp.
func docIDs(doc *pdf.Document) (doi, arxiv string, err error) {
	if x := parseXMP(doc.XMP); x != nil {
		doi = x.DOI
	}
	if len(doc.Pages) > 0 {
		if m := arXivStamp().FindStringSubmatch(doc.Pages[0].Text); m != nil {
			arxiv = m[1]
		}
	}
	return doi, arxiv, nil
}

// paperMeta returns the title, authors and year a library paper's PDF (or
// a loose PDF) shows of itself, as Describe reads them (the title block,
// else the Info dictionary, else XMP): the citation graph's stand-in for
// what its metadata.json lacks.
func (r *relator) paperMeta(ctx context.Context, p *catalog.Paper) (relations.PaperMeta, error) {
	var doc *pdf.Document
	s, err := r.loose(ctx, p)
	switch {
	case err != nil:
		return relations.PaperMeta{}, err
	case s != nil:
		doc, err = s.pdf.document(ctx)
	default:
		var src *Paper
		if src, err = r.paper(ctx, p.Ref); err == nil {
			doc, err = src.pdfDocument(ctx)
		}
	}
	if err != nil {
		return relations.PaperMeta{}, err
	}
	x := parseXMP(doc.XMP)
	if x == nil {
		x = &xmpMeta{}
	}
	m := relations.PaperMeta{Title: textnorm.Line(doc.Title), Authors: textnorm.Lines(doc.Authors), Year: x.Year}
	if m.Title == "" {
		m.Title = x.Title
	}
	if len(m.Authors) == 0 {
		m.Authors = x.Authors
	}
	return m, nil
}

// Relations implements sources.Relater: a loose PDF of the library has
// references parsed from its text, is cited by the library's papers and
// PDFs that cite it, and has related papers, as a paper does.
func (s *PDF) Relations(ctx context.Context) (*sources.Relations, error) {
	return s.lib.rel.of(ctx, s.ref, s.ref)
}
