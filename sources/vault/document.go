package vault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/sources"
)

// Document reads the Vault file at the vault-relative path p as a
// Document: a paper's PDF by page (through its paper, so with its cached
// text and sections), a paper's Markdown, any other file as a plain file
// source reads it. It is how a connector whose files live in the Vault
// reads them: every read goes through the Vault's safe file layer, so a
// path outside the Vault, through a symbolic link or into .agentero/ is an
// error (wrapping sources.ErrNotFound or sources.ErrOutside), never a read. A folder is an
// error wrapping sources.ErrIsDirectory. A ctx cancelled or past its deadline
// gives ctx.Err(), never a part of the document.
func (l *Library) Document(ctx context.Context, p string) (doc *sources.Document, err error) {
	defer func() { err = ctxErr(ctx, err) }()
	it, err := l.Stat(ctx, p)
	if err != nil {
		return nil, err // typed by Stat
	}
	if it.Kind != grant.KindFile {
		return nil, fmt.Errorf("%s: %w", it.Path, sources.ErrIsDirectory)
	}
	if it.Paper != nil {
		src, err := l.paperSource(ctx, it.Paper.Path)
		if err != nil {
			return nil, err
		}
		doc, err = src.Read(ctx, it.Path)
		if !errors.Is(err, sources.ErrNotFound) {
			return doc, err
		}
		// Another file of the paper unit: read as a file.
	}
	src, err := l.Open(ctx, grant.KindFile, it.Path)
	if err != nil {
		return nil, err
	}
	return src.Read(ctx, "")
}

// List implements sources.Documents: the entries of the Vault folder at p
// ("" for the root), as a granted directory lists them (Directory.List).
func (l *Library) List(ctx context.Context, p string, max int) (entries []sources.Entry, truncated bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	if p == "." {
		p = ""
	}
	root, err := l.newDirectory(".")
	if err != nil {
		return nil, false, err
	}
	entries, truncated, err = root.List(ctx, p, max)
	return entries, truncated, ctxErr(ctx, err)
}

// ctxErr is err, or ctx.Err() when err came of the context ending (a PDF
// extraction cut short says only that it timed out): the caller learns it
// gave up, not that the document is bad.
func ctxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}

// SearchDocuments searches the Vault documents at the vault-relative paths
// ps — PDFs (a paper's own PDF among them) and text files — as one search.
// It is how a connector whose documents are Vault files searches them: one
// wait, of at most the library's IndexWait, for the library index to take
// them all in, and one snapshot of the index for every hit, so that scores
// are comparable across the documents, a search that answers before every
// document is in says so (sources.Results.Indexing, with Truncated), and two
// identical searches after that give the same hits. Searching each
// document's source on its own would give none of that: each waits for its
// own document only, and its scores move while the others are taken in.
//
// Hits are from those documents only (a paper's notes are not among them).
// A path that names no document is left out; a PDF that cannot be read is
// listed in sources.Results.Skipped. A ctx cancelled or past its deadline gives
// ctx.Err().
func (l *Library) SearchDocuments(ctx context.Context, ps []string, q sources.Query) (*sources.Results, error) {
	ctx, end := l.calls.Begin(ctx) // the background yields to it
	defer end()
	var items []libindex.Item
	want := map[string]bool{}
	for _, p := range ps {
		it, err := l.Stat(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		if it.Kind != grant.KindFile || want[it.Path] {
			continue
		}
		st, err := l.v.FS().Stat(it.Path)
		if err != nil {
			continue
		}
		var item libindex.Item
		switch {
		case it.Paper != nil && it.Paper.PDF == it.Path:
			src, err := l.paperSource(ctx, it.Paper.Path)
			if err != nil {
				return nil, ctxErr(ctx, err)
			}
			item = libindex.Item{Key: paperItem + it.Paper.Path, Stamp: src.stamp()}
		case isPDF(it.Path):
			item = libindex.Item{Key: pdfItem + it.Path, Stamp: pdfStamp(st)}
		default:
			item = libindex.Item{Key: fileItem + it.Path, Stamp: fileStamp(st)}
		}
		want[it.Path] = true
		items = append(items, item)
	}
	if len(items) == 0 {
		return &sources.Results{}, ctx.Err()
	}
	return l.idx.search(ctx, items, l.documentFilter(items, want), q)
}

// documentFilter returns the library index filter of SearchDocuments for
// items and the paths of their units it admits, kept for the next search
// of the same documents (its masks are worked out once per snapshot).
func (l *Library) documentFilter(items []libindex.Item, paths map[string]bool) *libindex.Filter {
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = it.Key
	}
	slices.Sort(keys)
	id := strings.Join(keys, "\x00")
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.docFilters[id]; f != nil {
		return f
	}
	keySet := make(map[string]bool, len(keys))
	for _, k := range keys {
		keySet[k] = true
	}
	f := libindex.UnitFilter(func(k string) bool { return keySet[k] }, func(u *libindex.Unit) bool { return paths[u.Path] })
	if len(l.docFilters) >= maxDocFilters {
		clear(l.docFilters) // a connector searches a few sets of documents, not thousands
	}
	if l.docFilters == nil {
		l.docFilters = map[string]*libindex.Filter{}
	}
	l.docFilters[id] = f
	return f
}

// maxDocFilters bounds the filters SearchDocuments keeps.
const maxDocFilters = 64
