package vault

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/sources"
)

// catalogue is the Library's catalogue of the Vault, as a host browses it
// and a plan titles it: its paper units with the titles known of them,
// what a path is, its folders and files, and the one title a plan, a card
// and a read give a document. It holds only what it needs of the Library,
// wired by newLibrary.
type catalogue struct {
	v     *catalog.Vault
	paper func(ctx context.Context, ref string) (*Paper, error) // a library paper's shared source
	open  func(ctx context.Context, kind grant.Kind, path string) (sources.Source, error)
}

// What a host shows of the Vault beside a chat (a paper list, an
// @-mention autocomplete, a document view) it reads here, through the same
// strict file layer the tools read documents through, so that the host
// never shows a file the tools would refuse.

// CleanPath validates a vault-relative path as the Library reads it and
// returns its canonical form: '/'-separated, relative, UTF-8, without NUL,
// backslash, ".." or hidden element (so never in .agentero/); empty and
// "." elements and a trailing slash are dropped, and "." is the Vault
// itself. A path that climbs out (".." or absolute) is an error wrapping
// sources.ErrOutside, any other invalid one an error wrapping
// sources.ErrNotFound; the error echoes the path, never the Vault's folder.
func CleanPath(p string) (string, error) {
	c, err := safefs.Clean(p)
	if err != nil {
		return "", pathErr(err)
	}
	return c, nil
}

// pathErr is err wrapped in the package's sentinel for it, when it has one.
func pathErr(err error) error {
	if s := fsSentinel(err); s != nil {
		return fmt.Errorf("%w: %w", s, err)
	}
	return err
}

// Papers returns the Vault's paper units in catalogue order, each with its
// title as far as it is known without reading its PDF (see
// PaperInfo.Title; Library.Title gives the one a plan and the tools give).
// A cancelled or expired ctx gives ctx.Err().
func (l *Library) Papers(ctx context.Context) ([]PaperInfo, error) { return l.cat.papers(ctx) }

// papers is Library.Papers.
func (c *catalogue) papers(ctx context.Context) ([]PaperInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cat, err := c.v.Catalogue(ctx)
	if err != nil {
		return nil, statErr(ctx, fmt.Errorf("reading the vault catalogue: %w", err))
	}
	out := make([]PaperInfo, 0, len(cat.Papers()))
	for _, p := range cat.Papers() {
		out = append(out, paperInfo(c.v, p))
	}
	return out, nil
}

// paperInfo is what a host is told of the paper p of the Vault v.
func paperInfo(v *catalog.Vault, p *catalog.Paper) PaperInfo {
	return PaperInfo{Path: p.Ref, Title: knownTitle(v, p), PDF: p.PDF}
}

// Walk calls fn with the folders and files below the Vault folder p ("."
// for the whole Vault), in lexical order, each as Stat describes it: a
// paper unit's folder is of kind grant.KindPaper and the Paper of every
// item in a paper names it. Walk descends into paper folders too.
//
// Only what the tools may read is walked: no hidden entry (so not
// .agentero/), no name with control or direction characters, no symbolic
// link, no special file. It descends at most maxDepth levels (p's children
// are at depth 1; <= 0 means the file layer's own bound) and yields at most
// maxFiles files (<= 0: no limit); truncated reports that a bound hid
// something. fn may return fs.SkipDir or fs.SkipAll as for fs.WalkDir;
// any other error of fn stops the walk and is returned. Errors of p wrap
// sources.ErrOutside or sources.ErrNotFound as Stat's do; a cancelled or
// expired ctx gives ctx.Err().
func (l *Library) Walk(ctx context.Context, p string, maxDepth, maxFiles int, fn func(it *Item) error) (truncated bool, err error) {
	return l.cat.walk(ctx, p, maxDepth, maxFiles, fn)
}

// walk is Library.Walk.
func (c *catalogue) walk(ctx context.Context, p string, maxDepth, maxFiles int, fn func(it *Item) error) (truncated bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	cat, err := c.v.Catalogue(ctx)
	if err != nil {
		return false, statErr(ctx, fmt.Errorf("reading the vault catalogue: %w", err))
	}
	if p == "" {
		p = "."
	}
	truncated, err = c.v.FS().Walk(p, maxDepth, maxFiles, func(rel string, d fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		it := &Item{Kind: grant.KindFile, Path: rel}
		if d.IsDir() {
			it.Kind = grant.KindDirectory
			if cat.Paper(rel) != nil {
				it.Kind = grant.KindPaper
			}
		}
		if u := cat.PaperOf(rel); u != nil {
			info := paperInfo(c.v, u)
			it.Paper = &info
		}
		return fn(it)
	})
	if cerr := ctx.Err(); cerr != nil {
		return truncated, cerr
	}
	if err != nil {
		return truncated, pathErr(err)
	}
	return truncated, nil
}

// OpenedFile is a Vault file open for reading (see Library.OpenFile). It
// seeks and reads at an offset, as http.ServeContent and
// io.NewSectionReader need.
type OpenedFile interface {
	fs.File
	io.Seeker
	io.ReaderAt
}

// OpenFile opens the Vault's regular file at the vault-relative path p for
// reading as it is, as the tools open documents: p must be a valid path
// (see CleanPath) that runs through no symbolic link (not even one that
// stays in the Vault) and names a regular file, which is checked on the
// opened handle, so that a file swapped for a link or a FIFO meanwhile is
// refused rather than followed or waited on. A path that climbs out or runs
// through a link is an error wrapping sources.ErrOutside; a missing,
// hidden or private entry, a folder or a special file one wrapping
// sources.ErrNotFound. Errors name only vault-relative paths. The caller
// closes the file.
func (l *Library) OpenFile(ctx context.Context, p string) (OpenedFile, error) {
	return l.cat.openFile(ctx, p)
}

// openFile is Library.OpenFile.
func (c *catalogue) openFile(ctx context.Context, p string) (OpenedFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := c.v.FS().Open(p)
	if err != nil {
		return nil, pathErr(err)
	}
	return f, nil
}
