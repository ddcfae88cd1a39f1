package vault

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// OpenLibrary opens the Vault at root, an absolute folder, as a Library:
// its catalogue of paper units is kept on disk between processes and
// reused until a folder changes. Close the Library when done with it.
func OpenLibrary(root string, opts *LibraryOptions) (*Library, error) {
	if IsFileSystemRoot(root) {
		return nil, fmt.Errorf("vault: %w: the root of the file system is not a vault", fs.ErrInvalid)
	}
	var vopts *catalog.Options
	if opts != nil {
		// The catalogue is kept in the same cache folder.
		vopts = &catalog.Options{CacheDir: opts.CacheDir, CheckPapersLater: opts.CheckPapersLater}
	}
	v, err := catalog.Open(root, vopts)
	if err != nil {
		return nil, err
	}
	l := newLibrary(v, opts)
	l.ownVault = true
	return l, nil
}

// IsFileSystemRoot reports whether the absolute path root is the root of
// its file system ("/", or a volume's root on Windows), which is never a
// Vault: every file of the machine would be in it.
func IsFileSystemRoot(root string) bool {
	clean := filepath.Clean(root)
	return filepath.IsAbs(clean) && filepath.Dir(clean) == clean
}

// Item is what a vault path is, as a resolver sees it before granting it.
type Item struct {
	Kind grant.Kind // grant.KindPaper for a paper unit's folder
	Path string     // the clean vault-relative path
	// Paper is the paper unit the path is or lies in; nil when none.
	Paper *PaperInfo
}

// PaperInfo names a paper unit of the Vault.
type PaperInfo struct {
	Path string // its folder, vault-relative
	// Title is the paper's title as far as it is known without reading
	// its PDF: metadata.json's, else the PDF's own title once the Vault
	// has learnt it, else PAPER.md's first heading, else its folder's
	// name. Library.Title reads the PDF when its title is not learnt yet.
	Title string
	PDF   string // its PDF, vault-relative; "" when it has none
}

// Owns reports whether the vault-relative path rel is one of the paper's own
// documents, which its source reads: its PDF, PAPER.md or NOTES.md.
func (p *PaperInfo) Owns(rel string) bool {
	return rel != "" && (rel == p.PDF || rel == p.Path+"/"+catalog.PaperMDFile || rel == p.Path+"/"+catalog.NotesFile)
}

// Stat reports what the vault-relative path p is. A path that climbs out
// of the Vault or runs through a symbolic link is an error wrapping
// sources.ErrOutside; one that does not exist, or is hidden, private (.agentero/),
// special or badly named, wraps sources.ErrNotFound. Either also wraps the precise
// reason (fs.ErrNotExist, ...) for a caller that reports it. A cancelled or
// expired ctx gives ctx.Err(); any other error (permission denied, an I/O
// error) is the file system's. Messages name only vault-relative paths.
func (l *Library) Stat(ctx context.Context, p string) (*Item, error) { return l.cat.stat(ctx, p) }

// stat is Library.Stat.
func (c *catalogue) stat(ctx context.Context, p string) (*Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kind, clean, err := c.v.Classify(ctx, p)
	if err != nil {
		return nil, statErr(ctx, err)
	}
	it := &Item{Kind: grant.Kind(kind), Path: clean}
	cat, err := c.v.Catalogue(ctx)
	if err != nil {
		return nil, statErr(ctx, fmt.Errorf("reading the vault catalogue: %w", err))
	}
	if u := cat.PaperOf(clean); u != nil {
		it.Paper = &PaperInfo{Path: u.Ref, Title: knownTitle(c.v, u), PDF: u.PDF}
	}
	return it, nil
}

// knownTitle is the title of the paper p of the Vault v as far as it is
// known without reading its PDF (see PaperInfo.Title).
func knownTitle(v *catalog.Vault, p *catalog.Paper) string {
	if t := textnorm.Line(p.Meta.Title); t != "" {
		return t
	}
	if p.PDF != "" {
		if t, _ := v.LearntTitle(p.PDF); t != "" {
			return t
		}
	}
	if t := p.Title(); t != "" {
		return t
	}
	return textnorm.Line(path.Base(p.Ref))
}

// Title returns the best title the Library knows of the item it: for a
// paper, metadata.json's title, else its PDF's own (its title block, else
// its Info or XMP title), else PAPER.md's first heading, else its folder's
// name; for a PDF file, its own title, else its name; for anything else,
// its name. The PDF is read only when its title has not been learnt (and
// the title is then kept with the catalogue), so that a plan, a card and
// context_read give a document one title.
func (l *Library) Title(ctx context.Context, it *Item) string { return l.cat.title(ctx, it) }

// title is Library.Title.
func (c *catalogue) title(ctx context.Context, it *Item) string {
	switch {
	case it.Kind == grant.KindPaper && it.Paper != nil:
		return c.paperTitle(ctx, it.Paper.Path)
	case it.Kind == grant.KindFile && isPDF(it.Path):
		if t, ok := c.v.LearntTitle(it.Path); ok {
			if t != "" {
				return t
			}
			return textnorm.Line(path.Base(it.Path))
		}
		if src, err := c.open(ctx, grant.KindFile, it.Path); err == nil {
			if s, ok := src.(*PDF); ok {
				if doc, err := s.pdf.document(ctx); err == nil {
					return s.title(doc)
				}
			}
		}
	}
	return textnorm.Line(path.Base(it.Path))
}

// paperTitle is the title of the library paper ref as its source gives it:
// from its PDF when its metadata has none (the PDF's text is cached), else
// its folder's name.
func (c *catalogue) paperTitle(ctx context.Context, ref string) string {
	src, err := c.paper(ctx, ref)
	if err != nil {
		return textnorm.Line(path.Base(ref))
	}
	return src.title(ctx)
}

// statErr types an error of Stat: ctx.Err() when the context ended, else
// the package's sentinel wrapped around the precise reason.
func statErr(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if s := fsSentinel(err); s != nil && s != sources.ErrNotText {
		return fmt.Errorf("%w: %w", s, err)
	}
	return err
}

// Problems of a relations result: at most maxProblems lines of at most
// maxProblemChars characters each.
const (
	maxProblems     = 5
	maxProblemChars = 300
)

// Relations returns the paper's references, the works citing it and the
// related papers of its library.
func (s *Paper) Relations(ctx context.Context) (*sources.Relations, error) {
	return s.l.rel.of(ctx, s.p.Ref, s.p.PDF)
}

// of returns the relations of the library paper or loose PDF ref, whose
// main document is main.
func (r *relator) of(ctx context.Context, ref, main string) (*sources.Relations, error) {
	rels, err := r.graph().Relations(ctx, ref)
	if err != nil {
		return nil, err
	}
	out := &sources.Relations{Main: main, Problems: problems(rels.Err), Skipped: rels.Skipped}
	titles := map[string]string{} // library papers titled from their PDF, once each
	conv := func(ws []relations.Work) []sources.Work {
		cards := make([]sources.Work, len(ws))
		for i, w := range ws {
			title := textnorm.Line(w.Title)
			if title == "" && w.Paper != "" {
				// A library paper without a title in its metadata is
				// titled as its PDF titles itself.
				t, ok := titles[w.Paper]
				if !ok {
					t = r.title(ctx, w.Paper)
					titles[w.Paper] = t
				}
				title = t
			}
			cards[i] = sources.Work{Title: title, Authors: textnorm.Lines(w.Authors3()), Year: w.Year,
				DOI: textnorm.Line(w.DOI), ArXivID: textnorm.Line(w.ArXivID), Paper: w.Paper, CitationURI: w.CitationURI(),
				Label: textnorm.Line(w.Label), Contexts: citeContexts(w)}
		}
		return cards
	}
	out.References, out.CitedBy, out.Related = conv(rels.References), conv(rels.CitedBy), conv(rels.Related)
	return out, nil
}

// citeContexts are the citing sentences of w, each cited by its page of
// the citing PDF.
func citeContexts(w relations.Work) []sources.CiteContext {
	if len(w.Contexts) == 0 || w.ContextPDF == "" {
		return nil
	}
	out := make([]sources.CiteContext, len(w.Contexts))
	for i, c := range w.Contexts {
		out[i] = sources.CiteContext{Page: c.Page, Text: c.Text, CitationURI: cite.Page(w.ContextPDF, c.Page)}
	}
	return out
}

// problems turns the error of a relations result (errors.Join puts one
// error per line) into one-line messages.
func problems(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for line := range strings.SplitSeq(err.Error(), "\n") {
		if len(out) == maxProblems {
			break
		}
		if l, _ := textnorm.Truncate(textnorm.Line(line), maxProblemChars); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Inner returns the paper unit inside the directory that holds p, so a
// paper reached through its folder has metadata, sections, regions and
// relations like a granted paper; a loose PDF in the directory is its own
// PDF source, with metadata and pages.
func (d *Directory) Inner(ctx context.Context, p string) (sources.Source, string, error) {
	cat, err := d.lib.v.Catalogue(ctx)
	if err != nil {
		return nil, "", err
	}
	paper := cat.PaperOf(p)
	if paper == nil && isPDF(p) {
		// A loose PDF is a source of its own, with metadata and pages.
		if _, err := d.inside(p); err == nil {
			if src, err := d.lib.Open(ctx, grant.KindFile, p); err == nil {
				return src, "", nil
			}
		}
	}
	if paper == nil || paper.Ref == d.ref || d.ref != "." && !strings.HasPrefix(paper.Ref, d.ref+"/") {
		return nil, "", fmt.Errorf("%w: no paper holds %s", sources.ErrNotFound, p)
	}
	src, err := d.lib.Open(ctx, grant.KindPaper, paper.Ref)
	if err != nil {
		return nil, "", err
	}
	if p == paper.Ref {
		p = ""
	}
	return src, p, nil
}
