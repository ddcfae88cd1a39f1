package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/researchctx/researchctx/internal/pdf/font"
	"github.com/researchctx/researchctx/internal/pdf/object"
)

var confOnce sync.Once

// newConfig returns pdfcpu's relaxed configuration without letting pdfcpu
// create its configuration folder on disk, with its resource limits set to
// this package's for a file of size bytes: pdfcpu parses nested objects
// recursively, so MaxObjectNesting is what keeps a deeply nested object
// from overflowing the stack (a fatal error, not a panic); it allocates a
// stream's stated /Length before reading it, so no stream may be longer
// than the file; and its object counts are those object.AuditXRef allows, a
// second line behind it.
func newConfig(o Options, size int64) *model.Configuration {
	confOnce.Do(func() { model.ConfigPath = "disable" })
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	conf.Cmd = model.EXTRACTCONTENT
	conf.Limits.MaxStreamBytes = max(1, min(o.MaxBytes, size))
	conf.Limits.MaxDecodeBytes = MaxStreamBytes
	conf.Limits.MaxImageBytes = MaxStreamBytes
	conf.Limits.MaxRecursionDepth = MaxObjectNesting
	n := object.MaxEntries(size)
	conf.Limits.MaxObjectCount = n
	conf.Limits.MaxXRefEntries = n
	conf.Limits.MaxObjectStreamCount = n
	conf.Limits.MaxObjectStreamFirst = object.MaxObjStmFirst(n)
	return conf
}

// readWhole is the largest file read into memory in one piece: one read
// spares pdfcpu a system call per object, but a larger file is read
// through r as pdfcpu needs it, so that it is not held twice.
const readWhole = 16 << 20

// Extract reads a whole PDF from r (size bytes) and returns its text layer.
// It never reads paths itself: callers open files safely. A page that fails
// is reported in its Page.Err; the document fails only as a whole (with
// ErrEncrypted, ErrMalformed, ErrTooLarge or ErrTimeout, wrapped). Every
// limit ends in a *LimitError (see Limit); a panic inside the extractor
// (a bug) ends in ErrMalformed, never in a crash of the caller.
func Extract(ctx context.Context, r io.ReaderAt, size int64, opts *Options) (res *Document, err error) {
	o := opts.withDefaults()
	if size > o.MaxBytes {
		return nil, fmt.Errorf("%w (%d bytes)", &LimitError{Limit: LimitFileBytes, Max: o.MaxBytes}, size)
	}
	if size <= 0 {
		return nil, fmt.Errorf("%w: empty file", ErrMalformed)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, o.Timeout, &LimitError{Limit: LimitTime, Max: int64(o.Timeout)})
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("%w: internal failure reading the file: %v", ErrMalformed, p)
		}
	}()
	var rs io.ReadSeeker
	var whole []byte // the file, when in memory
	if br, ok := r.(*bytes.Reader); ok && br.Size() == size {
		rs = io.NewSectionReader(br, 0, size)
		if size <= readWhole && lazyObjects {
			whole = make([]byte, size)
			if n, _ := br.ReadAt(whole, 0); int64(n) != size {
				whole = nil
			}
		}
	} else if size > readWhole {
		rs = io.NewSectionReader(r, 0, size)
	} else {
		data := make([]byte, size)
		n, err := r.ReadAt(data, 0)
		if n < len(data) {
			if err == nil || errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w: file shorter than its stated size", ErrMalformed)
			}
			return nil, fmt.Errorf("pdf: reading: %w", err)
		}
		rs = bytes.NewReader(data)
		whole = data
	}
	if whole != nil && lazyObjects {
		if res, ok := lazyExtract(ctx, whole, o); ok {
			return res, nil
		}
	}
	// pdfcpu's own repair of a table it cannot read costs a few times the
	// file's size: a large file whose table the audit cannot read is
	// rebuilt by this package first, and given to pdfcpu as it is only
	// when that gives nothing.
	d, pages, err := openDoc(ctx, rs, size, o, size <= readWhole)
	// A broken cross-reference table, one that lists more than the file
	// holds, an /Encrypt that encrypts nothing, an AES-256 file with an
	// empty user password and a wrong /Perms, AES streams too short for
	// their cipher: repair as viewers do, by an update appended to the
	// file, and read once more. A file may need more than one (a rebuilt
	// table, then its short streams): each repair is tried at most once,
	// on the file with the updates before it, and a file that does not
	// read after them keeps its first error, unless the repaired file
	// was refused as encrypted: a broken table hides nothing then. The whole file is in memory
	// only while a repair scans it; the file is read again with the
	// updates after it.
	var updates []byte
	tried := map[string]bool{}
	first := err
	for name, repair := repairFor(err); repair != nil && !tried[name] && ctx.Err() == nil; name, repair = repairFor(err) {
		tried[name] = true
		data, rerr := wholeFile(r, rs, size)
		if rerr != nil {
			break
		}
		update := repair(append(data, updates...))
		data = nil
		if update == nil {
			break
		}
		if size > readWhole {
			runtime.GC() // the copy of a large file, before pdfcpu reads it again
		}
		all := append(updates[:len(updates):len(updates)], update...)
		fixed := io.NewSectionReader(appended{rs.(io.ReaderAt), size, all}, 0, size+int64(len(all)))
		d2, p2, err2 := openDoc(ctx, fixed, fixed.Size(), o, true)
		if err2 == nil {
			d, pages, err = d2, p2, nil
			break
		}
		if _, next := repairFor(err2); next == nil {
			break // nothing more to repair
		}
		updates, err = all, err2
	}
	if err != nil && !errors.Is(err, ErrEncrypted) {
		err = first
	}
	if errors.Is(err, object.ErrUnaudited) {
		d, pages, err = openDoc(ctx, rs, size, o, true)
	}
	if err != nil {
		return nil, err
	}
	return d.document(pages, o)
}

// document extracts the document whose page tree is pages.
func (d *doc) document(pages []pageInfo, o Options) (*Document, error) {
	if len(pages) > o.MaxPages {
		return nil, fmt.Errorf("%w (%d pages)", &LimitError{Limit: LimitPages, Max: int64(o.MaxPages)}, len(pages))
	}
	out := &Document{Pages: make([]Page, len(pages))}
	d.markRefs = make([][]markRef, len(pages))
	for i := range pages {
		if err := d.stopped(); err != nil {
			return nil, fmt.Errorf("%w, after %d of %d pages", err, i, len(pages))
		}
		out.Pages[i] = d.extractPage(&pages[i], i+1)
		if len(d.markRefs[i]) != len(out.Pages[i].Marks) {
			d.markRefs[i] = nil // a page that failed after its marks were read
		}
	}
	foldReplies(out.Pages, d.markRefs)
	d.markRefs = nil
	if err := d.stopped(); err != nil {
		return nil, fmt.Errorf("%w, after %d pages", err, len(pages))
	}
	d.pageIndex = map[int]int{}
	for i, p := range pages {
		if p.objNr > 0 {
			d.pageIndex[p.objNr] = i + 1
		}
	}
	out.Labels = d.pageLabels(len(pages))
	out.Outline = d.outline()
	if info := d.dict(d.infoRef()); info != nil {
		out.InfoTitle = strings.TrimSpace(d.text(info["Title"]))
		out.Authors = splitAuthors(d.text(info["Author"]))
	}
	out.XMP = d.xmp()
	if err := d.stopped(); err != nil {
		return nil, err
	}
	out.Title = guessTitle(out)
	if len(out.Authors) == 0 {
		out.Authors = authorsUnderTitle(out)
	}
	return out, nil
}

// lazyObjects is whether files in memory are read through the lazy
// reader first (tests turn it off to compare with pdfcpu's reading).
var lazyObjects = true

// lazyExtract is extractLazy as Extract calls it: tests wrap it to see
// whether the lazy reader served a file, and in what time, without
// extracting the file once more.
var lazyExtract = extractLazy

// extractLazy extracts a file held in memory through the lazy reader,
// when its cross-reference passes the audit. It reports false when the
// file is to be read through pdfcpu instead: the lazy reader does not
// read it, gave up on something in it (see lazy), or extraction failed
// (the pdfcpu path and its repairs decide how).
func extractLazy(ctx context.Context, data []byte, o Options) (res *Document, ok bool) {
	a, err := object.AuditTable(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, false
	}
	lz := object.NewLazy(ctx, data, a)
	if lz == nil {
		return nil, false
	}
	defer func() {
		if p := recover(); p != nil {
			res, ok = nil, false
		}
	}()
	d := newDoc(ctx, lz)
	pages, err := d.pageTree()
	if err != nil || lz.Unsure != nil {
		return nil, false
	}
	res, err = d.document(pages, o)
	if err != nil || lz.Unsure != nil {
		return nil, false
	}
	return res, true
}

func newDoc(ctx context.Context, xr object.Objects) *doc {
	return &doc{xr: xr, ctx: ctx, budget: MaxDocumentBytes, glyphBudget: MaxDocumentGlyphs, textBudget: MaxDocumentText, fonts: map[int]*font.Font{}, forms: map[int]*formXObject{}}
}

// openDoc reads the file's objects (size bytes of rs, which is also an
// io.ReaderAt) and its page tree, once object.AuditXRef has found its
// cross-reference within the file's means, or could not read it and
// unaudited allows that (else the error is ErrMalformed and object.ErrUnaudited).
func openDoc(ctx context.Context, rs io.ReadSeeker, size int64, o Options, unaudited bool) (*doc, []pageInfo, error) {
	if ra, ok := rs.(io.ReaderAt); ok {
		switch err := object.AuditXRef(ctx, ra, size); {
		case err == nil, errors.Is(err, object.ErrUnaudited) && unaudited:
		case ctx.Err() != nil:
			return nil, nil, stopErr(ctx)
		case errors.Is(err, object.ErrUnaudited):
			return nil, nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		default:
			return nil, nil, err
		}
	}
	pc, err := pdfcpu.ReadWithContext(ctx, rs, newConfig(o, size))
	if err != nil {
		return nil, nil, classifyReadError(ctx, err)
	}
	if pc == nil || pc.XRefTable == nil {
		return nil, nil, fmt.Errorf("%w: no cross-reference table", ErrMalformed)
	}
	if object.IdentityCrypt(pc.XRefTable) {
		return nil, nil, fmt.Errorf("%w: %w", ErrEncrypted, object.ErrCryptFilters)
	}
	d := newDoc(ctx, object.Table{XR: pc.XRefTable})
	pages, err := d.pageTree()
	if err != nil {
		return nil, nil, err
	}
	return d, pages, nil
}

// repairFor returns the repair worth trying after err, and its name, or
// nil.
func repairFor(err error) (string, func([]byte) []byte) {
	var le *LimitError
	switch {
	case err == nil:
	case errors.Is(err, ErrMalformed) && cipherBlocks().MatchString(err.Error()):
		return "cipher blocks", object.RepairCipherBlocks
	case errors.Is(err, ErrMalformed), errors.As(err, &le) && (le.Limit == LimitObjects || le.Limit == LimitObjectBytes):
		return "xref", object.RebuildXRef
	case errors.Is(err, object.ErrCryptFilters):
		return "crypt filters", object.RepairCryptFilters
	case errors.Is(err, ErrEncrypted):
		return "encryption", object.RepairEncryption(strings.Contains(err.Error(), pdfcpu.ErrWrongPassword.Error()))
	}
	return "", nil
}

// cipherBlocks matches pdfcpu's errors for AES data too short for its
// cipher.
var cipherBlocks = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`ciphertext too short|ciphertext not a multiple of block size`)
})

// appended reads size bytes of a file followed by an update appended to
// it.
type appended struct {
	file   io.ReaderAt
	size   int64
	update []byte
}

// ReadAt reads from the file, then from the update.
func (a appended) ReadAt(p []byte, off int64) (n int, err error) {
	if off < 0 {
		return 0, errors.New("pdf: negative offset")
	}
	if off < a.size {
		k := int(min(int64(len(p)), a.size-off))
		if n, err = a.file.ReadAt(p[:k], off); n < k {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
	}
	if n < len(p) {
		at := off + int64(n) - a.size
		if at >= int64(len(a.update)) {
			return n, io.EOF
		}
		n += copy(p[n:], a.update[at:])
		if n < len(p) {
			return n, io.EOF
		}
	}
	return n, nil
}

// wholeFile returns the file's bytes: those already in memory behind rs,
// else read from r.
func wholeFile(r io.ReaderAt, rs io.ReadSeeker, size int64) ([]byte, error) {
	if br, ok := rs.(*bytes.Reader); ok {
		data := make([]byte, br.Size())
		_, err := br.ReadAt(data, 0)
		return data, err
	}
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return data, nil
}

// stopped returns nil while extraction may go on, else why it may not: the
// time limit (a *LimitError) or the caller's context (ErrTimeout).
func (d *doc) stopped() error {
	if d.ctx.Err() == nil {
		return nil
	}
	return stopErr(d.ctx)
}

func stopErr(ctx context.Context) error {
	var le *LimitError
	if errors.As(context.Cause(ctx), &le) {
		return le
	}
	return fmt.Errorf("%w: %v", ErrTimeout, ctx.Err())
}

func classifyReadError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %v", stopErr(ctx), err)
	}
	if errors.Is(err, model.ErrMaxRecursionDepthExceeded) {
		return fmt.Errorf("%w: %v", &LimitError{Limit: LimitObjectNesting, Max: MaxObjectNesting}, err)
	}
	if errors.Is(err, filter.ErrDecodeLimitExceeded) {
		return fmt.Errorf("%w: %v", &LimitError{Limit: LimitStreamBytes, Max: MaxStreamBytes}, err)
	}
	msg := strings.ToLower(err.Error())
	if errors.Is(err, pdfcpu.ErrWrongPassword) || errors.Is(err, pdfcpu.ErrEncrypted) ||
		strings.Contains(msg, "password") || strings.Contains(msg, "encrypt") {
		return fmt.Errorf("%w: %v", ErrEncrypted, err)
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}
