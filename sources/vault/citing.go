package vault

import (
	"context"
	"io/fs"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// maxLooseFiles bounds the files the listing of loose PDFs walks.
const maxLooseFiles = 50000

// loosePDFs lists the Vault's PDFs that lie in no paper folder (hidden and
// private folders are not walked), which the citation graph reads as
// papers of their own, and the folders it listed to find them, which the
// graph stamps to see a PDF added later.
func (l *Library) loosePDFs(ctx context.Context) (pdfs, dirs []string, err error) {
	cat, err := l.v.Catalogue(ctx)
	if err != nil {
		return nil, nil, err
	}
	dirs = []string{"."}
	_, err = l.v.FS().Walk(".", maxScanDepth, maxLooseFiles, func(rel string, de fs.DirEntry) error {
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
func (l *Library) loose(ctx context.Context, p *catalog.Paper) (*PDF, error) {
	cat, err := l.v.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	if cat.Paper(p.Ref) != nil {
		return nil, nil
	}
	src, err := l.Open(ctx, grant.KindFile, p.Ref)
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
func (l *Library) graphText(ctx context.Context, p *catalog.Paper) (string, error) {
	s, err := l.loose(ctx, p)
	if err != nil || s == nil {
		if err != nil {
			return "", err
		}
		return l.paperText(ctx, p)
	}
	doc, err := s.pdf.document(ctx)
	if err != nil {
		return "", err
	}
	return l.availableText(ctx, &s.pdf, pdfItem+p.Ref, doc)
}

// graphIDs is paperIDs for the citation graph: a loose PDF's too.
func (l *Library) graphIDs(ctx context.Context, p *catalog.Paper) (doi, arxiv string, err error) {
	s, err := l.loose(ctx, p)
	if err != nil || s == nil {
		if err != nil {
			return "", "", err
		}
		return l.paperIDs(ctx, p)
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
		if m := arXivStamp.FindStringSubmatch(doc.Pages[0].Text); m != nil {
			arxiv = m[1]
		}
	}
	return doi, arxiv, nil
}

// paperMeta returns the title, authors and year a library paper's PDF (or
// a loose PDF) shows of itself, as Describe reads them (the title block,
// else the Info dictionary, else XMP): the citation graph's stand-in for
// what its metadata.json lacks.
func (l *Library) paperMeta(ctx context.Context, p *catalog.Paper) (relations.PaperMeta, error) {
	var doc *pdf.Document
	s, err := l.loose(ctx, p)
	switch {
	case err != nil:
		return relations.PaperMeta{}, err
	case s != nil:
		doc, err = s.pdf.document(ctx)
	default:
		var src *Paper
		if src, err = l.paperSource(ctx, p.Ref); err == nil {
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
	return s.lib.relationsOf(ctx, s.ref, s.ref)
}
