package pdf

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

var confOnce sync.Once

// newConfig returns pdfcpu's relaxed configuration without letting pdfcpu
// create its configuration folder on disk, with its resource limits set to
// this package's for a file of size bytes: pdfcpu parses nested objects
// recursively, so MaxObjectNesting is what keeps a deeply nested object
// from overflowing the stack (a fatal error, not a panic); it allocates a
// stream's stated /Length before reading it, so no stream may be longer
// than the file; and its object counts are those auditXRef allows, a
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
	n := maxEntries(size)
	conf.Limits.MaxObjectCount = n
	conf.Limits.MaxXRefEntries = n
	conf.Limits.MaxObjectStreamCount = n
	conf.Limits.MaxObjectStreamFirst = maxObjStmFirst(n)
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
	if br, ok := r.(*bytes.Reader); ok && br.Size() == size {
		rs = io.NewSectionReader(br, 0, size)
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
	if errors.Is(err, errUnaudited) {
		d, pages, err = openDoc(ctx, rs, size, o, true)
	}
	if err != nil {
		return nil, err
	}
	if len(pages) > o.MaxPages {
		return nil, fmt.Errorf("%w (%d pages)", &LimitError{Limit: LimitPages, Max: int64(o.MaxPages)}, len(pages))
	}
	out := &Document{Pages: make([]Page, len(pages))}
	for i := range pages {
		if err := d.stopped(); err != nil {
			return nil, fmt.Errorf("%w, after %d of %d pages", err, i, len(pages))
		}
		out.Pages[i] = d.extractPage(&pages[i], i+1)
	}
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

// openDoc reads the file's objects (size bytes of rs, which is also an
// io.ReaderAt) and its page tree, once auditXRef has found its
// cross-reference within the file's means, or could not read it and
// unaudited allows that (else the error is ErrMalformed and errUnaudited).
func openDoc(ctx context.Context, rs io.ReadSeeker, size int64, o Options, unaudited bool) (*doc, []pageInfo, error) {
	if ra, ok := rs.(io.ReaderAt); ok {
		switch err := auditXRef(ctx, ra, size); {
		case err == nil, errors.Is(err, errUnaudited) && unaudited:
		case ctx.Err() != nil:
			return nil, nil, stopErr(ctx)
		case errors.Is(err, errUnaudited):
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
	d := &doc{xr: pc.XRefTable, ctx: ctx, budget: MaxDocumentBytes, glyphBudget: MaxDocumentGlyphs, textBudget: MaxDocumentText, fonts: map[int]*font{}, forms: map[int]*formXObject{}}
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
	case errors.Is(err, ErrMalformed) && cipherBlocks.MatchString(err.Error()):
		return "cipher blocks", repairCipherBlocks
	case errors.Is(err, ErrMalformed), errors.As(err, &le) && (le.Limit == LimitObjects || le.Limit == LimitObjectBytes):
		return "xref", rebuildXRef
	case errors.Is(err, ErrEncrypted):
		return "encryption", repairEncryption(strings.Contains(err.Error(), pdfcpu.ErrWrongPassword.Error()))
	}
	return "", nil
}

// cipherBlocks matches pdfcpu's errors for AES data too short for its
// cipher.
var cipherBlocks = regexp.MustCompile(`ciphertext too short|ciphertext not a multiple of block size`)

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

// doc wraps pdfcpu's cross-reference table with lenient accessors: a
// missing or mistyped object reads as nil or zero rather than failing.
type doc struct {
	xr  *model.XRefTable
	ctx context.Context
	// budget, glyphBudget and textBudget are what is left of
	// MaxDocumentBytes, MaxDocumentGlyphs and MaxDocumentText; spent is
	// the error of the first page that ran out of one, with which every
	// later page fails.
	budget      int64
	glyphBudget int
	textBudget  int
	spent       error
	fonts       map[int]*font
	forms       map[int]*formXObject
	pageIndex   map[int]int             // page object number → physical page number
	destNames   map[string]types.Object // the /Dests name tree, read on first use
	glyphBuf    []glyph                 // glyph storage reused from page to page
	markCount   int                     // marks kept so far (MaxDocumentMarks)
}

func (d *doc) resolve(o types.Object) types.Object {
	for i := 0; i < 32; i++ {
		ref, ok := o.(types.IndirectRef)
		if !ok {
			if p, ok := o.(*types.IndirectRef); ok && p != nil {
				ref = *p
			} else {
				return o
			}
		}
		v, err := d.xr.Dereference(ref)
		if err != nil {
			return nil
		}
		o = v
	}
	return nil
}

func (d *doc) dict(o types.Object) types.Dict {
	switch v := d.resolve(o).(type) {
	case types.Dict:
		return v
	case types.StreamDict:
		return v.Dict
	}
	return nil
}

func (d *doc) array(o types.Object) types.Array {
	a, _ := d.resolve(o).(types.Array)
	return a
}

func (d *doc) name(o types.Object) string {
	n, _ := d.resolve(o).(types.Name)
	return string(n)
}

func (d *doc) num(o types.Object) (float64, bool) {
	switch v := d.resolve(o).(type) {
	case types.Integer:
		return float64(v), true
	case types.Float:
		return float64(v), true
	}
	return 0, false
}

func objNr(o types.Object) int {
	switch v := o.(type) {
	case types.IndirectRef:
		return v.ObjectNumber.Value()
	case *types.IndirectRef:
		if v != nil {
			return v.ObjectNumber.Value()
		}
	}
	return 0
}

// rawString returns the bytes of a string object.
func (d *doc) rawString(o types.Object) []byte {
	switch v := d.resolve(o).(type) {
	case types.StringLiteral:
		b, err := types.Unescape(string(v))
		if err != nil {
			return []byte(v)
		}
		return b
	case types.HexLiteral:
		b, err := v.Bytes()
		if err != nil {
			lx := newLexer([]byte(string(v) + ">"))
			return append([]byte(nil), lx.hexString()...)
		}
		return b
	case types.Name:
		return []byte(v)
	}
	return nil
}

// text decodes a text string (§7.9.2.2): UTF-16BE or UTF-8 with a byte
// order mark, else PDFDocEncoding.
func (d *doc) text(o types.Object) string { return decodeTextString(d.rawString(o)) }

func decodeTextString(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
		return strings.ToValidUTF8(string(utf16.Decode(u)), "")
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i+1])<<8|uint16(b[i]))
		}
		return strings.ToValidUTF8(string(utf16.Decode(u)), "")
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return strings.ToValidUTF8(string(b[3:]), "")
	}
	if utf8.Valid(b) && !strings.ContainsFunc(string(b), func(r rune) bool { return r >= 0x80 && r < 0xA0 }) {
		return string(b)
	}
	enc := encodingByName("PDFDocEncoding")
	var sb strings.Builder
	for _, c := range b {
		if c < 32 {
			if c == '\n' || c == '\r' || c == '\t' {
				sb.WriteByte(' ')
			}
			continue
		}
		sb.WriteString(enc[c])
	}
	return sb.String()
}

// streamBytes decodes a stream, bounded by MaxStreamBytes and what is left
// of the document's budget (which it spends). A stream over the limit is
// a *LimitError; one that does not decode is nil without error, as for a
// missing object.
func (d *doc) streamBytes(sd types.StreamDict) ([]byte, error) {
	if d.spent == nil && d.budget <= 0 {
		// Checked here: pdfcpu reads a limit of 0 as its default.
		d.spent = &LimitError{Limit: LimitDocBytes, Max: MaxDocumentBytes}
	}
	if d.spent != nil {
		return nil, d.spent
	}
	limit, kind := int64(MaxStreamBytes), LimitStreamBytes
	if d.budget < limit {
		limit, kind = d.budget, LimitDocBytes
	}
	var err error
	sd.Content, err = decodeStream(&sd, limit)
	if errors.Is(err, filter.ErrDecodeLimitExceeded) || int64(len(sd.Content)) > limit {
		if kind == LimitDocBytes {
			d.budget = 0
			d.spent = &LimitError{Limit: LimitDocBytes, Max: MaxDocumentBytes}
			return nil, d.spent
		}
		d.budget -= limit
		return nil, &LimitError{Limit: LimitStreamBytes, Max: MaxStreamBytes}
	}
	if err != nil && len(sd.Content) == 0 {
		return nil, nil
	}
	d.budget -= int64(len(sd.Content))
	return sd.Content, nil
}

// decodeStream decodes sd, not yet decoded, into at most limit bytes (else
// filter.ErrDecodeLimitExceeded). Most streams, plain Flate, are decoded
// here with a reused decompressor, as pdfcpu would (see inflate), without
// its allocations.
func decodeStream(sd *types.StreamDict, limit int64) ([]byte, error) {
	if plainFlate(sd) {
		return inflate(sd.Raw, limit)
	}
	err := sd.DecodeWithLimit(limit)
	return sd.Content, err
}

// inflaters holds zlib decompressors for reuse: each holds a 32 KiB
// window and tables that are otherwise allocated for every stream.
var inflaters sync.Pool

// plainFlate reports whether a stream, not yet decoded, has the one filter
// FlateDecode without parameters: what inflate decodes.
func plainFlate(sd *types.StreamDict) bool {
	f := sd.FilterPipeline
	return sd.Content == nil && len(f) == 1 && f[0].Name == filter.Flate && f[0].DecodeParms == nil
}

// inflater returns a zlib reader of raw from the pool; put it back with
// inflaters.Put.
func inflater(raw []byte) (io.ReadCloser, error) {
	br := bytes.NewReader(raw)
	if zr, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(br, nil); err != nil {
			inflaters.Put(zr)
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(br)
}

// inflate decodes a FlateDecode stream without predictor as pdfcpu's
// filter does: a stream cut short keeps what it gave, a corrupt one or
// one whose checksum fails is an error, and more than limit bytes is
// filter.ErrDecodeLimitExceeded.
func inflate(raw []byte, limit int64) ([]byte, error) {
	zr, err := inflater(raw)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(zr)
	// Content streams compress about fourfold; the buffer grows when not.
	out := make([]byte, 0, min(limit+1, int64(max(4*len(raw), 512))))
	for {
		if len(out) == cap(out) {
			if int64(len(out)) > limit {
				return nil, filter.ErrDecodeLimitExceeded
			}
			out = slices.Grow(out, int(min(int64(cap(out)), limit+1-int64(len(out)))))
		}
		n, err := zr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if int64(len(out)) > limit {
			return nil, filter.ErrDecodeLimitExceeded
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return out, nil
		default:
			return nil, err
		}
	}
}

// inflatePrefix decodes the first n bytes of a FlateDecode stream without
// predictor, as pdfcpu's filter does when asked for a length: an error
// when the stream gives fewer.
func inflatePrefix(raw []byte, n int64) ([]byte, error) {
	zr, err := inflater(raw)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(zr)
	out := make([]byte, n)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	return out, nil
}

// streamPrefix decodes the first n bytes of a stream, spending them of
// the document's budget. It returns nil when the stream is shorter, does
// not decode, or n is over what may be decoded: the caller then decodes
// the whole stream with streamBytes, which applies the limits.
func (d *doc) streamPrefix(sd types.StreamDict, n int64) []byte {
	if d.spent != nil || n > d.budget || n > MaxStreamBytes {
		return nil
	}
	var b []byte
	var err error
	if plainFlate(&sd) {
		b, err = inflatePrefix(sd.Raw, n)
	} else {
		b, err = sd.DecodeLengthWithLimit(n, min(d.budget, MaxStreamBytes))
	}
	if err != nil || int64(len(b)) != n {
		return nil
	}
	d.budget -= n
	return b
}

// xmp returns the catalog's /Metadata stream decoded, or nil when there is
// none, it does not decode, or it is larger than MaxXMPBytes. It is
// decoded under its own small limit, outside the pages' budget, so that
// metadata never costs the document its text.
func (d *doc) xmp() []byte {
	root, err := d.xr.Catalog()
	if err != nil {
		return nil
	}
	sd, ok := d.resolve(root["Metadata"]).(types.StreamDict)
	if !ok {
		return nil
	}
	b, err := decodeStream(&sd, MaxXMPBytes)
	if err != nil || len(b) == 0 || len(b) > MaxXMPBytes {
		return nil
	}
	return bytes.Clone(b)
}

func (d *doc) infoRef() types.Object {
	if d.xr.Info == nil {
		return nil
	}
	return *d.xr.Info
}

// pageInfo is a leaf of the page tree with its inherited attributes.
type pageInfo struct {
	dict      types.Dict
	objNr     int
	resources types.Dict
	box       [4]float64 // crop box (or media box) in default user space
	rotate    int
}

// maxPageTreeDepth bounds recursion into /Kids.
const maxPageTreeDepth = 64

func (d *doc) pageTree() ([]pageInfo, error) {
	root, err := d.xr.Catalog()
	if err != nil || root == nil {
		return nil, fmt.Errorf("%w: no document catalog", ErrMalformed)
	}
	var pages []pageInfo
	seen := map[int]bool{}
	var walk func(o types.Object, inh pageInfo, depth int) error
	walk = func(o types.Object, inh pageInfo, depth int) error {
		if depth > maxPageTreeDepth {
			return nil
		}
		if nr := objNr(o); nr > 0 {
			if seen[nr] {
				return nil
			}
			seen[nr] = true
		}
		n := d.dict(o)
		if n == nil {
			return nil
		}
		if res := d.dict(n["Resources"]); res != nil {
			inh.resources = res
		}
		if b, ok := d.rect(n["MediaBox"]); ok {
			inh.box = b
		}
		if b, ok := d.rect(n["CropBox"]); ok {
			inh.box = intersect(inh.box, b)
		}
		if r, ok := d.num(n["Rotate"]); ok {
			inh.rotate = ((int(r) % 360) + 360) % 360 / 90 * 90
		}
		kids, hasKids := n["Kids"]
		if typ := d.name(n["Type"]); typ == "Page" || (!hasKids && typ != "Pages") {
			inh.dict = n
			inh.objNr = objNr(o)
			pages = append(pages, inh)
			if len(pages) > 1<<20 {
				return fmt.Errorf("%w: page tree too large", ErrTooLarge)
			}
			return nil
		}
		for _, k := range d.array(kids) {
			if err := walk(k, inh, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	def := pageInfo{box: [4]float64{0, 0, 612, 792}}
	if err := walk(root["Pages"], def, 0); err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("%w: no pages", ErrMalformed)
	}
	return pages, nil
}

func (d *doc) rect(o types.Object) ([4]float64, bool) {
	a := d.array(o)
	if len(a) != 4 {
		return [4]float64{}, false
	}
	var r [4]float64
	for i := range a {
		r[i], _ = d.num(a[i])
	}
	if r[0] > r[2] {
		r[0], r[2] = r[2], r[0]
	}
	if r[1] > r[3] {
		r[1], r[3] = r[3], r[1]
	}
	if r[2]-r[0] < 1 || r[3]-r[1] < 1 {
		return r, false
	}
	return r, true
}

func intersect(a, b [4]float64) [4]float64 {
	r := [4]float64{max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])}
	if r[2]-r[0] < 1 || r[3]-r[1] < 1 {
		return b
	}
	return r
}

// extractPage runs one page, turning a failure or panic into Page.Err.
func (d *doc) extractPage(pi *pageInfo, number int) (p Page) {
	p.Number = number
	defer func() {
		if r := recover(); r != nil {
			p.Text, p.Lines, p.NoTextLayer = "", nil, false
			p.Err = fmt.Errorf("%w: page %d: %v", ErrMalformed, number, r)
		}
	}()
	w, h := pi.box[2]-pi.box[0], pi.box[3]-pi.box[1]
	if pi.rotate == 90 || pi.rotate == 270 {
		w, h = h, w
	}
	p.Width, p.Height = w, h
	if d.spent != nil {
		p.Err = pageErr(d.spent, number)
		return p
	}
	content, err := d.pageContent(pi.dict)
	if err != nil {
		p.Err = pageErr(err, number)
		return p
	}
	in := newInterp(d, pageMatrix(pi.box, pi.rotate))
	in.pageW, in.pageH = w, h
	in.glyphs = d.glyphBuf[:0] // reused: pages keep no reference to glyphs
	err = in.run(content, pi.resources, 0)
	d.glyphBuf = in.glyphs[:0]
	d.glyphBudget -= in.shown
	var le *LimitError
	if errors.As(err, &le) && le.Limit == LimitDocGlyphs {
		d.spent = le
	}
	if err == nil {
		err = d.spent // a font's stream spent the document's budget
	}
	if err != nil {
		p.Err = pageErr(err, number)
		return p
	}
	marks, at := d.pageMarks(pi, pageMatrix(pi.box, pi.rotate), w, h, in.glyphs)
	p.Lines, p.Text = layoutPage(in.glyphs, w, h)
	orderMarks(marks, at, p.Lines)
	p.Marks = marks
	if strings.TrimSpace(p.Text) == "" {
		p.Lines, p.Text = nil, ""
	}
	if textSize(p.Text, p.Lines) > MaxPageText {
		// Glyphs whose text is long (a ToUnicode entry of many
		// characters): within the glyph limit, over the text's.
		p.Text, p.Lines = "", nil
		p.Err = pageErr(&LimitError{Limit: LimitPageText, Max: MaxPageText}, number)
		return p
	}
	alines, atext, err := d.annotText(pi, pageMatrix(pi.box, pi.rotate), w, h, in.shown, textSize(p.Text, p.Lines))
	if err != nil {
		p.Text, p.Lines = "", nil
		p.Err = pageErr(err, number)
		return p
	}
	if atext != "" {
		off := 0
		if p.Text != "" {
			p.Text += "\n\n"
			off = len(p.Text)
		}
		for _, l := range alines {
			l.Start += off
			p.Lines = append(p.Lines, l)
		}
		p.Text += atext
	}
	p.NoTextLayer = strings.TrimSpace(p.Text) == ""
	if p.NoTextLayer {
		p.Text, p.Lines = "", nil
	}
	size := textSize(p.Text, p.Lines)
	if size > MaxPageText {
		p.Text, p.Lines = "", nil
		p.Err = pageErr(&LimitError{Limit: LimitPageText, Max: MaxPageText}, number)
		return p
	}
	if size > d.textBudget {
		d.textBudget = 0
		d.spent = &LimitError{Limit: LimitDocText, Max: MaxDocumentText}
		p.Text, p.Lines = "", nil
		p.Err = pageErr(d.spent, number)
		return p
	}
	d.textBudget -= size
	return p
}

// lineBytes is what a line costs in a page's text size beyond its text:
// about what its box and offsets take in a cache record.
const lineBytes = 64

// textSize is what a page's text and lines count against MaxPageText and
// MaxDocumentText.
func textSize(text string, lines []Line) int {
	return len(text) + lineBytes*len(lines)
}

// pageErr is err as the error of page number: a *LimitError gets the page
// number, other errors not already typed are ErrMalformed.
func pageErr(err error, number int) error {
	var le *LimitError
	switch {
	case errors.As(err, &le):
		c := *le
		c.Page = number
		return &c
	case errors.Is(err, ErrTimeout), errors.Is(err, ErrMalformed):
		return fmt.Errorf("page %d: %w", number, err)
	}
	return fmt.Errorf("%w: page %d: %v", ErrMalformed, number, err)
}

// pageMatrix maps default user space to the displayed page: origin at the
// crop box's lower-left corner, /Rotate applied clockwise.
func pageMatrix(box [4]float64, rotate int) matrix {
	w, h := box[2]-box[0], box[3]-box[1]
	m := matrix{1, 0, 0, 1, -box[0], -box[1]}
	switch rotate {
	case 90:
		m = m.mul(matrix{0, -1, 1, 0, 0, w})
	case 180:
		m = m.mul(matrix{-1, 0, 0, -1, w, h})
	case 270:
		m = m.mul(matrix{0, 1, -1, 0, h, 0})
	}
	return m
}

// pageContent concatenates a page's decoded content streams, at most
// MaxPageBytes of them.
func (d *doc) pageContent(pd types.Dict) ([]byte, error) {
	o := d.resolve(pd["Contents"])
	switch v := o.(type) {
	case types.StreamDict:
		return d.streamBytes(v)
	case types.Array:
		var out []byte
		for _, e := range v {
			sd, ok := d.resolve(e).(types.StreamDict)
			if !ok {
				continue
			}
			b, err := d.streamBytes(sd)
			if err != nil {
				return nil, err
			}
			if len(out)+len(b) > MaxPageBytes {
				return nil, &LimitError{Limit: LimitPageBytes, Max: MaxPageBytes}
			}
			out = append(out, b...)
			out = append(out, '\n')
		}
		return out, nil
	}
	return nil, nil
}

// pageLabels computes printed labels from the /PageLabels number tree.
func (d *doc) pageLabels(n int) []string {
	root, _ := d.xr.Catalog()
	tree := d.dict(root["PageLabels"])
	if tree == nil {
		return make([]string, n)
	}
	type rng struct {
		start int
		dict  types.Dict
	}
	var rs []rng
	seen := map[int]bool{}
	var walk func(t types.Dict, depth int)
	walk = func(t types.Dict, depth int) {
		if t == nil || depth > 32 || len(rs) > 100000 {
			return
		}
		nums := d.array(t["Nums"])
		for i := 0; i+1 < len(nums); i += 2 {
			k, ok := d.num(nums[i])
			if ok {
				rs = append(rs, rng{int(k), d.dict(nums[i+1])})
			}
		}
		for _, k := range d.array(t["Kids"]) {
			if nr := objNr(k); nr > 0 {
				if seen[nr] {
					continue
				}
				seen[nr] = true
			}
			walk(d.dict(k), depth+1)
		}
	}
	walk(tree, 0)
	// Each page takes the range with the largest start not after it (the
	// last listed among equal starts): one pass over the sorted ranges, not
	// one per page, which a tree of 100,000 ranges would make slow.
	slices.SortStableFunc(rs, func(a, b rng) int { return cmp.Compare(a.start, b.start) })
	labels := make([]string, n)
	cur := -1
	for i := 0; i < n; i++ {
		for cur+1 < len(rs) && rs[cur+1].start <= i {
			cur++
		}
		if cur < 0 || rs[cur].dict == nil {
			continue
		}
		ld := rs[cur].dict
		st := 1.0
		if v, ok := d.num(ld["St"]); ok {
			st = v
		}
		num := int(st) + i - rs[cur].start
		label := d.text(ld["P"])
		switch d.name(ld["S"]) {
		case "D":
			label += strconv.Itoa(num)
		case "R":
			label += strings.ToUpper(roman(num))
		case "r":
			label += roman(num)
		case "A":
			label += letters(num)
		case "a":
			label += strings.ToLower(letters(num))
		}
		labels[i] = label
	}
	return labels
}

func roman(n int) string {
	if n <= 0 || n >= 5000 {
		return strconv.Itoa(n)
	}
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"}
	var sb strings.Builder
	for i, v := range vals {
		for n >= v {
			sb.WriteString(syms[i])
			n -= v
		}
	}
	return sb.String()
}

// letters gives A..Z, AA..ZZ, AAA... as §12.4.2 specifies.
func letters(n int) string {
	if n <= 0 || n > 26*100 {
		return strconv.Itoa(n)
	}
	return strings.Repeat(string(rune('A'+(n-1)%26)), (n-1)/26+1)
}

// maxOutlineItems bounds the bookmarks read.
const maxOutlineItems = 20000

// outline reads the bookmark tree in document order.
func (d *doc) outline() []OutlineItem {
	root, _ := d.xr.Catalog()
	ol := d.dict(root["Outlines"])
	if ol == nil {
		return nil
	}
	var items []OutlineItem
	seen := map[int]bool{}
	var walk func(first types.Object, level int)
	walk = func(first types.Object, level int) {
		for o := first; o != nil && level < 64 && len(items) < maxOutlineItems; {
			if nr := objNr(o); nr > 0 {
				if seen[nr] {
					return
				}
				seen[nr] = true
			}
			it := d.dict(o)
			if it == nil {
				return
			}
			title := strings.Join(strings.Fields(d.text(it["Title"])), " ")
			items = append(items, OutlineItem{Title: title, Page: d.destPage(it), Level: level})
			if c, ok := it["First"]; ok {
				walk(c, level+1)
			}
			o = it["Next"]
		}
	}
	walk(ol["First"], 0)
	return items
}

// destPage resolves an outline item's /Dest or GoTo action to a page number.
func (d *doc) destPage(it types.Dict) int {
	dest := it["Dest"]
	if dest == nil {
		if a := d.dict(it["A"]); a != nil && d.name(a["S"]) == "GoTo" {
			dest = a["D"]
		}
	}
	return d.resolveDest(dest, 0)
}

func (d *doc) resolveDest(dest types.Object, depth int) int {
	if depth > 4 {
		return 0
	}
	switch v := d.resolve(dest).(type) {
	case types.Array:
		if len(v) == 0 {
			return 0
		}
		if nr := objNr(v[0]); nr > 0 {
			return d.pageIndex[nr]
		}
		if n, ok := d.num(v[0]); ok && n >= 0 { // remote-style page index
			return int(n) + 1
		}
	case types.Dict:
		return d.resolveDest(v["D"], depth+1)
	case types.Name, types.StringLiteral, types.HexLiteral:
		key := string(d.rawString(v))
		return d.resolveDest(d.namedDest(key), depth+1)
	}
	return 0
}

// namedDest looks a named destination up in /Dests or the /Names tree.
func (d *doc) namedDest(key string) types.Object {
	root, _ := d.xr.Catalog()
	if dests := d.dict(root["Dests"]); dests != nil {
		if o, ok := dests[key]; ok {
			return o
		}
	}
	if d.destNames == nil {
		d.destNames = d.nameTree(d.dict(d.dict(root["Names"])["Dests"]))
	}
	return d.destNames[key]
}

// maxNameTreeNodes bounds the nodes of a name tree read (each once).
const maxNameTreeNodes = 100_000

// nameTree reads a name tree (§7.9.6) into a map, once per document: each
// node is visited at most once, however its /Kids refer to each other, so a
// tree whose kids repeat or cycle costs its size, not its paths.
func (d *doc) nameTree(root types.Dict) map[string]types.Object {
	out := map[string]types.Object{}
	seen := map[int]bool{}
	nodes := 0
	var walk func(t types.Dict, depth int)
	walk = func(t types.Dict, depth int) {
		if t == nil || depth > 32 || nodes >= maxNameTreeNodes {
			return
		}
		nodes++
		ns := d.array(t["Names"])
		for i := 0; i+1 < len(ns); i += 2 {
			k := string(d.rawString(ns[i]))
			if _, dup := out[k]; !dup {
				out[k] = ns[i+1]
			}
		}
		for _, k := range d.array(t["Kids"]) {
			if nr := objNr(k); nr > 0 {
				if seen[nr] {
					continue
				}
				seen[nr] = true
			}
			walk(d.dict(k), depth+1)
		}
	}
	walk(root, 0)
	return out
}
