package zotero

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdfcache"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// Why an attachment's file is not read. Each wraps the sources sentinel a
// caller branches on; the message is the reason said in the result.
var (
	// ErrMissingFile: the attachment's file is not on disk.
	ErrMissingFile = fmt.Errorf("%w: the attachment's file is missing", sources.ErrNotFound)
	// ErrLinkedOutside: a linked file outside the data directory and the
	// base directory; it is refused, not read.
	ErrLinkedOutside = fmt.Errorf("%w: a linked file outside the Zotero data and base directories is not read", sources.ErrOutside)
	// ErrBadPath: an attachment path that is no file name (.., NUL, a
	// separator where a name is expected, a link out of its folder).
	ErrBadPath = fmt.Errorf("%w: the attachment's path is not a safe file name", sources.ErrOutside)
	// ErrNoFile: the attachment is a link to a web page, with no file.
	ErrNoFile = fmt.Errorf("%w: the attachment is a link, with no file", sources.ErrNotFound)
)

// fileRef is where an attachment's file is: a folder view (the data
// directory or the base directory) and the path in it.
type fileRef struct {
	root string // absolute folder
	rel  string // slash-separated, inside root
}

// locate returns where the attachment's file is, or why it is not read.
func (l *Library) locate(it *Item) (fileRef, error) {
	p := it.filePath
	if strings.ContainsAny(p, "\x00") {
		return fileRef{}, ErrBadPath
	}
	switch it.linkMode {
	case linkImportedFile, linkImportedURL:
		name, ok := strings.CutPrefix(p, "storage:")
		if !ok || !plainName(name) || !plainName(it.Key) {
			return fileRef{}, ErrBadPath
		}
		return fileRef{root: l.dataDir, rel: "storage/" + it.Key + "/" + name}, nil
	case linkLinkedFile:
		if rel, ok := strings.CutPrefix(p, "attachments:"); ok {
			if l.baseDir == "" {
				return fileRef{}, fmt.Errorf("%w: no base directory for linked files is configured", sources.ErrOutside)
			}
			rel = strings.ReplaceAll(rel, "\\", "/")
			if _, err := safefs.Clean(rel); err != nil {
				return fileRef{}, ErrBadPath
			}
			return fileRef{root: l.baseDir, rel: rel}, nil
		}
		if !filepath.IsAbs(p) {
			return fileRef{}, ErrBadPath
		}
		abs := filepath.Clean(p)
		for _, root := range []string{l.dataDir, l.baseDir} {
			if root == "" {
				continue
			}
			if rel, err := filepath.Rel(filepath.Clean(root), abs); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
				return fileRef{root: root, rel: filepath.ToSlash(rel)}, nil
			}
		}
		return fileRef{}, ErrLinkedOutside
	}
	return fileRef{}, ErrNoFile
}

// plainName reports one file name: no separator, not "." or "..", no NUL.
func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

// open opens the file of ref through a view of its folder, so that no
// name, link or special file leads out of it.
func (r fileRef) open() (*safefs.FS, *safefs.File, fs.FileInfo, error) {
	view, err := safefs.Open(r.root)
	if err != nil {
		return nil, nil, nil, ErrMissingFile
	}
	f, err := view.Open(r.rel)
	if err != nil {
		view.Close()
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil, ErrMissingFile
		}
		return nil, nil, nil, ErrBadPath
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		view.Close()
		return nil, nil, nil, ErrMissingFile
	}
	return view, f, st, nil
}

// readFile reads an attachment's whole file, at most max bytes.
func (l *Library) readFile(it *Item, max int64) ([]byte, error) {
	ref, err := l.locate(it)
	if err != nil {
		return nil, err
	}
	view, f, st, err := ref.open()
	if err != nil {
		return nil, err
	}
	defer view.Close()
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%w: the attachment's file is over %d MiB", sources.ErrTooLarge, max>>20)
	}
	return io.ReadAll(io.LimitReader(f, max+1))
}

// maxKeptPDFs bounds the PDFs whose text is kept in memory; the others'
// is read again from the on-disk cache when asked for.
const maxKeptPDFs = 32

// pdfCache keeps the extracted text of a library's recently read PDF
// attachments, re-extracted when a file's size or modification time
// changes.
type pdfCache struct {
	l     *Library
	mu    sync.Mutex
	m     map[string]*pdfEntry // by attachment path
	order []string             // keys of m, least recently added first
	ocr   ocrState
	cites citeState // the citation graph read from the PDFs
}

type pdfEntry struct {
	mu    sync.Mutex
	stamp string
	doc   *pdf.Document
	err   error
}

// document returns the text layer of a PDF attachment.
func (c *pdfCache) document(ctx context.Context, key string, it *Item) (*pdf.Document, error) {
	ref, err := c.l.locate(it)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*pdfEntry{}
	}
	e := c.m[key]
	if e == nil {
		e = &pdfEntry{}
		c.m[key] = e
		c.order = append(c.order, key)
		if len(c.order) > maxKeptPDFs {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()

	view, f, st, err := ref.open()
	if err != nil {
		return nil, err
	}
	defer view.Close()
	defer f.Close()
	stamp := ref.root + "\x00" + ref.rel + "\x00" + strconv.FormatInt(st.Size(), 10) + ":" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stamp == stamp && (e.doc != nil || e.err != nil) {
		return e.doc, e.err
	}
	open := func() (io.ReaderAt, int64, io.Closer, error) { return f, st.Size(), io.NopCloser(nil), nil }
	var doc *pdf.Document
	if c.l.cacheDir != "" {
		pc := pdfcache.Cache{Dir: filepath.Join(c.l.cacheDir, "pdf")}
		doc, err = pc.Extract(ctx, pdfcache.FileInfo{Path: key + "/" + fileHash(stamp), Size: st.Size(), ModTime: st.ModTime(), ID: safefs.FileID(st)}, open)
	}
	if c.l.cacheDir == "" || err != nil && !units.IsPDFError(err) && ctx.Err() == nil {
		doc, err = pdf.Extract(ctx, f, st.Size(), nil)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		err = &units.UnreadableError{Err: err}
	}
	e.stamp, e.doc, e.err = stamp, doc, err
	return doc, err
}

// pageLabel returns the printed label of physical page i (0-based) when it
// differs from the page's number, else "".
func pageLabel(labels []string, i int) string {
	if i >= len(labels) {
		return ""
	}
	l := textnorm.Line(labels[i])
	if l == "" || l == strconv.Itoa(i+1) {
		return ""
	}
	return l
}
