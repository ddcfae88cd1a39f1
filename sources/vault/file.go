package vault

import (
	"context"
	"path"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// File is a granted plain file, with or without an extension. Text files are
// read and searched; a binary file is listed in a grant but reading it is an
// sources.ErrNotText error. A PDF granted as a file is not a File but a PDF, a
// document with pages.
type File struct {
	lib    *Library
	ref    string
	filter *libindex.Filter // the library index narrowed to this file, its masks kept between searches
}

func (l *Library) newFile(ref string) *File {
	return &File{lib: l, ref: ref, filter: libindex.KeySet([]string{fileItem + ref})}
}

// Info implements sources.Source.
func (f *File) Info() sources.Info {
	return sources.Info{Path: f.ref, Kind: grant.KindFile, Title: path.Base(f.ref)}
}

// Read implements sources.Source: "" or the file's own path give its text.
func (f *File) Read(ctx context.Context, p string) (*sources.Document, error) {
	ctx, end := f.lib.calls.Begin(ctx) // the background yields to it
	defer end()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p != "" && p != f.ref {
		return nil, outsideErr(p, f.ref)
	}
	text, err := f.lib.v.FS().ReadText(f.ref, 0)
	if err != nil {
		return nil, fsErr(err)
	}
	return units.TextDocument(f.ref, text), nil
}

// Search implements sources.Source, through the library index filtered to the
// file (see indexer.search).
func (f *File) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	ctx, end := f.lib.calls.Begin(ctx) // the background yields to it
	defer end()
	st, err := f.lib.v.FS().Stat(f.ref)
	if err != nil {
		return nil, fsErr(err)
	}
	if st.Size() > TextMax {
		return &sources.Results{Truncated: true}, nil
	}
	key := fileItem + f.ref
	item := libindex.Item{Key: key, Stamp: fileStamp(st)}
	return f.lib.idx.search(ctx, []libindex.Item{item}, f.filter, q)
}
