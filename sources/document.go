package sources

import (
	"context"
	"errors"
	"fmt"

	"github.com/researchctx/researchctx/grant"
)

// Document reads the Vault file at the vault-relative path p as a
// Document: a paper's PDF by page (through its paper, so with its cached
// text and sections), a paper's Markdown, any other file as a plain file
// source reads it. It is how a connector whose files live in the Vault
// reads them: every read goes through the Vault's safe file layer, so a
// path outside the Vault, through a symbolic link or into .agentero/ is an
// error (wrapping ErrNotFound or ErrOutside), never a read. A folder is an
// error wrapping ErrIsDirectory. A ctx cancelled or past its deadline
// gives ctx.Err(), never a part of the document.
func (l *Library) Document(ctx context.Context, p string) (doc *Document, err error) {
	defer func() { err = ctxErr(ctx, err) }()
	it, err := l.Stat(ctx, p)
	if err != nil {
		return nil, err // typed by Stat
	}
	if it.Kind != grant.KindFile {
		return nil, fmt.Errorf("%s: %w", it.Path, ErrIsDirectory)
	}
	if it.Paper != nil {
		src, err := l.paperSource(ctx, it.Paper.Ref)
		if err != nil {
			return nil, err
		}
		doc, err = src.Read(ctx, it.Path)
		if !errors.Is(err, ErrNotFound) {
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
