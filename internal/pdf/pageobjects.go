package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/pdf/object"
)

// Objects is a PDF opened for what its pages draw rather than for their
// text: package pageimage reads a scan's page images through it. It reads
// the file as Extract does and holds the document's budget of decoded
// bytes (MaxDocumentBytes): every stream decoded through it, and what its
// caller spends, counts against it.
type Objects struct {
	d     *doc
	pages []pageInfo
}

// OpenObjects parses the PDF in r (size bytes) and its page tree, within
// ctx (which bounds the parse: Options.Timeout is the caller's to apply).
// A file that does not parse is ErrMalformed, ErrEncrypted or a
// *LimitError, as from Extract; a panic inside the parser (a bug) is
// ErrMalformed.
func OpenObjects(ctx context.Context, r io.ReaderAt, size int64, o *Options) (objs *Objects, err error) {
	defer func() {
		if p := recover(); p != nil {
			objs, err = nil, fmt.Errorf("%w: internal failure reading the file: %v", ErrMalformed, p)
		}
	}()
	d, pages, err := openDoc(ctx, io.NewSectionReader(r, 0, size), size, o.withDefaults(), true)
	if err != nil {
		return nil, err
	}
	return &Objects{d: d, pages: pages}, nil
}

// Pages returns the number of pages.
func (o *Objects) Pages() int { return len(o.pages) }

// Resolve follows indirect references to an object, nil when there is
// none.
func (o *Objects) Resolve(x types.Object) types.Object { return o.d.resolve(x) }

// String returns the bytes of a string object (or of a name), nil for
// another object.
func (o *Objects) String(x types.Object) []byte { return o.d.rawString(x) }

// Stream decodes a stream within MaxStreamBytes and what is left of the
// document's budget, which it spends. A stream over a limit is a
// *LimitError; one that does not decode is nil without error, as a
// missing object is.
func (o *Objects) Stream(sd types.StreamDict) ([]byte, error) { return o.d.streamBytes(sd) }

// Budget returns what is left of the document's decoded bytes.
func (o *Objects) Budget() int64 { return o.d.budget }

// Spend counts n bytes, decoded by the caller, against the document's
// budget.
func (o *Objects) Spend(n int64) { o.d.budget -= n }

// SpendAll spends what is left of the document's budget, for work over
// it, and returns the *LimitError (LimitDocBytes) with which every later
// stream then fails.
func (o *Objects) SpendAll() error {
	o.d.budget, o.d.spent = 0, &LimitError{Limit: LimitDocBytes, Max: MaxDocumentBytes}
	return o.d.spent
}

// Drawn is what a page's content draws: its image XObjects, in order,
// and whether it draws anything else that is an image (an inline image).
type Drawn struct {
	Images []types.StreamDict
	Inline bool
}

// Drawn reads what page n (1-based) draws, within ctx and the page's
// budgets, as text extraction counts them: its operators (MaxOperators),
// its operands (MaxOperands, MaxNesting) and its content bytes
// (MaxPageBytes), Form XObjects followed MaxFormDepth deep. It stops once
// more than maxImages images are drawn: the caller decides what that
// means. A budget spent is a *LimitError, an end of ctx what Extract
// returns for it.
func (o *Objects) Drawn(ctx context.Context, n, maxImages int) (Drawn, error) {
	if n < 1 || n > len(o.pages) {
		return Drawn{}, fmt.Errorf("%w: no page %d", ErrMalformed, n)
	}
	o.d.ctx = ctx
	pi := &o.pages[n-1]
	content, err := o.d.pageContent(pi.dict)
	if err != nil {
		return Drawn{}, err
	}
	dr := drawn{max: maxImages}
	if err := o.d.collect(content, pi.resources, 0, &dr, map[int]bool{}); err != nil && err != errEnoughImages {
		return Drawn{}, err
	}
	return Drawn{Images: dr.images, Inline: dr.inline}, nil
}

// PageError is err as the error of page number, as Page.Err has it: a
// *LimitError gets the page number, other errors not already typed are
// ErrMalformed.
func PageError(err error, number int) error { return pageErr(err, number) }

// errEnoughImages ends collect once more images are drawn than counted.
var errEnoughImages = errors.New("pdf: more images than counted")

// drawn is what Drawn collects, and what reading it cost against the
// page's budgets: its operators (MaxOperators) and its content bytes
// (MaxPageBytes, each run of a content stream or form at least
// minRunBytes), counted as text extraction counts them.
type drawn struct {
	images []types.StreamDict
	inline bool
	max    int // images counted before collect stops
	ops    int
	bytes  int64
}

// collect adds the images content draws with resources res, following
// Form XObjects MaxFormDepth deep (each once a page: seen holds those
// already followed), stopping past into.max. The content is read by the
// content lexer, operator by operator, so that a stream of millions of
// operators costs its bytes in time and nothing in memory, within the
// page's budgets and the document's time limit; a budget spent is its
// *LimitError.
func (d *doc) collect(content []byte, res types.Dict, depth int, into *drawn, seen map[int]bool) error {
	into.bytes += max(int64(len(content)), minRunBytes)
	if into.bytes > MaxPageBytes {
		return &LimitError{Limit: LimitPageBytes, Max: MaxPageBytes}
	}
	xd := d.dict(res["XObject"])
	// adds holds, for each name of xd drawn already, what drawing it
	// again adds: its image, or nothing (a form already followed, or
	// not an image or form), so that a name drawn millions of times is
	// resolved once.
	adds := map[string]*types.StreamDict{}
	lx := object.NewLexer(content)
	var arena []operand
	rewinds := maxArrayRewinds
	operands := 0
	var name []byte // the last operand, when it is a name
	for {
		t := lx.Next()
		switch t.Kind {
		case object.TokEOF:
			return nil
		case object.TokNum, object.TokName, object.TokString, object.TokArrayOpen, object.TokDictOpen:
			if operands >= MaxOperands {
				return &LimitError{Limit: LimitOperands, Max: MaxOperands}
			}
			operands++
			name = nil
			switch t.Kind {
			case object.TokName:
				name = t.Val
			case object.TokArrayOpen, object.TokDictOpen:
				if _, err := readComposite(lx, t.Kind, &arena, &rewinds); err != nil {
					return err
				}
				arena = arena[:0]
			}
			continue
		case object.TokArrayClose, object.TokDictClose:
			continue
		}
		into.ops++
		if into.ops > MaxOperators {
			return &LimitError{Limit: LimitOperators, Max: MaxOperators}
		}
		if into.ops&4095 == 0 {
			if err := d.stopped(); err != nil {
				return err
			}
		}
		switch string(t.Val) {
		case "Do":
			if name == nil {
				break
			}
			img, ok := adds[string(name)]
			if !ok {
				ref := xd[string(name)]
				if ref == nil {
					break
				}
				var err error
				if img, err = d.collectXObject(ref, res, depth, into, seen); err != nil {
					return err
				}
				adds[string(name)] = img
			}
			if img != nil {
				into.images = append(into.images, *img)
				if len(into.images) > into.max {
					return errEnoughImages
				}
			}
		case "BI":
			into.inline = true
			lx.SkipInline()
		}
		operands, name = 0, nil
		lx.Release()
	}
}

// collectXObject returns the XObject ref when it is an image, and adds
// the images of its content when it is a form.
func (d *doc) collectXObject(ref types.Object, res types.Dict, depth int, into *drawn, seen map[int]bool) (*types.StreamDict, error) {
	sd, ok := d.resolve(ref).(types.StreamDict)
	if !ok {
		return nil, nil
	}
	switch d.name(sd.Dict["Subtype"]) {
	case "Image":
		return &sd, nil
	case "Form":
		nr := objNr(ref)
		if depth >= MaxFormDepth || (nr > 0 && seen[nr]) {
			return nil, nil
		}
		if nr > 0 {
			seen[nr] = true
		}
		body, err := d.streamBytes(sd)
		if err != nil {
			return nil, err
		}
		r := d.dict(sd.Dict["Resources"])
		if r == nil {
			r = res
		}
		return nil, d.collect(body, r, depth+1, into, seen)
	}
	return nil, nil
}
