package font

import (
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/pdf/object"
)

// Objects is what loading a font reads of its document: the objects a font
// dictionary refers to, and its streams, decoded within the document's
// limits.
type Objects interface {
	// Resolve follows indirect references to an object, nil when there
	// is none.
	Resolve(o types.Object) types.Object
	// Text decodes a text string object (PDFDocEncoding, or UTF-16 or
	// UTF-8 with a byte order mark).
	Text(o types.Object) string
	// Stream decodes a stream; nil when it does not decode or is over a
	// limit, so that the font degrades rather than fails.
	Stream(sd types.StreamDict) []byte
	// StreamPrefix decodes the first n bytes of a stream; nil when the
	// stream is shorter, does not decode, or n is over a limit.
	StreamPrefix(sd types.StreamDict, n int64) []byte
}

// doc wraps a font's document with lenient accessors: a missing or
// mistyped object reads as nil or zero rather than failing.
type doc struct{ objs Objects }

func (d *doc) resolve(o types.Object) types.Object { return d.objs.Resolve(o) }

func (d *doc) text(o types.Object) string { return d.objs.Text(o) }

// fontData decodes a font's stream (a program, CMap or encoding). A stream
// over a limit loads as missing: the font degrades, and when the
// document's budget is spent the page fails with it anyway.
func (d *doc) fontData(sd types.StreamDict) []byte { return d.objs.Stream(sd) }

func (d *doc) streamPrefix(sd types.StreamDict, n int64) []byte {
	return d.objs.StreamPrefix(sd, n)
}

func (d *doc) dict(o types.Object) types.Dict     { return object.DictOf(d.resolve(o)) }
func (d *doc) array(o types.Object) types.Array   { return object.ArrayOf(d.resolve(o)) }
func (d *doc) name(o types.Object) string         { return object.NameOf(d.resolve(o)) }
func (d *doc) num(o types.Object) (float64, bool) { return object.NumOf(d.resolve(o)) }
