package pdf

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/researchctx/researchctx/internal/pdf/object"
)

// Errors returned by Extract. They are wrapped with detail; test with errors.Is.
var (
	// ErrEncrypted: the file is encrypted and does not open with an empty password.
	ErrEncrypted = errors.New("pdf: encrypted")
	// ErrMalformed: the file is not a PDF or is damaged beyond reading.
	ErrMalformed = errors.New("pdf: malformed")
	// ErrTooLarge: the file, a page or a stream exceeds one of the
	// extraction limits (see Limit); the error is a *LimitError naming it.
	// Exceeding Options.Timeout is one of them: it is a property of the
	// file under these limits, and the Cache remembers it.
	ErrTooLarge = object.ErrTooLarge
	// ErrTimeout: the caller's context ended (cancelled or past its
	// deadline) before extraction finished. It says nothing about the
	// file, and the Cache does not remember it.
	ErrTimeout = errors.New("pdf: timed out")
)

// Defaults used for zero Options fields.
const (
	DefaultMaxBytes = 128 << 20        // 128 MiB per file
	DefaultTimeout  = 30 * time.Second // per file
	DefaultMaxPages = 5000
)

// Limit names one of the bounds on extraction. A document that exceeds a
// document-wide limit (file size, pages, time) fails as a whole; a page that
// exceeds a page limit fails alone (Page.Err), and once a document-wide
// budget (decoded bytes, glyphs) is spent every later page fails with it,
// so that the pages before it are kept.
type Limit = object.Limit

// The limits. Values are the package's constants (or Options fields) of
// the same meaning; docs/security.md lists them.
const (
	LimitFileBytes     Limit = "file size"                  // Options.MaxBytes
	LimitPages         Limit = "page count"                 // Options.MaxPages
	LimitTime                = object.LimitTime             // Options.Timeout
	LimitStreamBytes   Limit = "decoded bytes per stream"   // MaxStreamBytes
	LimitPageBytes     Limit = "decoded bytes per page"     // MaxPageBytes
	LimitDocBytes      Limit = "decoded bytes per document" // MaxDocumentBytes
	LimitNesting       Limit = "nesting depth"              // MaxNesting
	LimitObjectNesting Limit = "object nesting depth"       // MaxObjectNesting
	LimitOperands      Limit = "operands per operator"      // MaxOperands
	LimitOperators     Limit = "operators per page"         // MaxOperators
	LimitGlyphs        Limit = "glyphs per page"            // MaxGlyphs
	LimitDocGlyphs     Limit = "glyphs per document"        // MaxDocumentGlyphs
	LimitForms         Limit = "form XObject nesting"       // MaxFormDepth
	LimitObjects             = object.LimitObjects          // MaxObjects, and one per 16 bytes of the file
	LimitObjectBytes         = object.LimitObjectBytes      // the file's size and 1 MiB
	LimitPageText      Limit = "text bytes per page"        // MaxPageText
	LimitDocText       Limit = "text bytes per document"    // MaxDocumentText
)

// Fixed limits on work, independent of Options. They are far above what
// real papers and books need (the largest page of the test corpus shows
// 7,849 glyphs with 69,000 operators in 1.2 MB of content; its largest
// document decodes 1.8 MB in all) and keep one hostile file under a few
// hundred megabytes and a few seconds.
const (
	MaxStreamBytes    = object.MaxStreamBytes // one decoded stream
	MaxPageBytes      = 64 << 20              // content interpreted for one page, Form XObjects counted each time they run
	MaxDocumentBytes  = 512 << 20             // all streams decoded for one document
	MaxNesting        = 64                    // arrays and dictionaries nested in a content stream
	MaxOperands       = 4096                  // operands before one operator, and elements of one array
	MaxOperators      = 10_000_000            // content-stream operators per page
	MaxGlyphs         = 200_000               // glyphs shown on one page
	MaxDocumentGlyphs = 10_000_000            // glyphs shown in one document
	MaxFormDepth      = 12                    // Form XObjects drawn inside one another
	// MaxObjectNesting bounds arrays and dictionaries nested in the
	// file's objects; pdfcpu enforces it while parsing, and the lazy
	// reader leaves a file nested near it to pdfcpu.
	MaxObjectNesting = object.MaxObjectNesting
	// MaxObjects bounds the objects of one file: its cross-reference
	// entries, the /Size of each section and the objects its object
	// streams claim, all checked before pdfcpu allocates for them. A
	// file is also allowed only one object per 16 bytes of its size (at
	// least 4,096), and pdfcpu may read its objects' bytes about once
	// (LimitObjectBytes).
	MaxObjects = object.MaxObjects
	// MaxPageText bounds the text of one page, its annotations'
	// included, in bytes, each line counting lineBytes more for its box
	// and offsets: what a cache entry holds for the page.
	MaxPageText = 4 << 20
	// MaxDocumentText bounds the same over a document, and with it the
	// cache entry and what reading it back costs.
	MaxDocumentText = 64 << 20
)

// LimitError reports which limit a document or page exceeded. It matches
// ErrTooLarge with errors.Is.
type LimitError = object.LimitError

// Version identifies the extractor's output. Caches of extracted text
// (package pdfcache) ignore what another version wrote; bump it whenever
// extracted text changes. Version 2 records failures too; version 3 adds
// annotation and form-field text (Line.Annot) and the other text-layer
// repairs of its release;
// version 4 reads columns below wide tables, vertical tiers and the word
// fixes of its release (ligature widths, footnote marks, raised letters);
// version 5 no longer takes wide justified spaces that line up on a line
// or two for a column gutter; version 6 holds annotation text to the
// page's limits and reads files whose cross-reference lists more than the
// file holds by rebuilding it, where 5 remembered them as failed;
// version 7 reads files that 6 refused as encrypted or malformed and
// viewers open (an /Encrypt that encrypts nothing, AES streams too short
// for their cipher, a broken table in an encrypted file);
// version 8 adds the page's marks (Page.Marks); version 9 folds a reply
// on another page than its mark into it; version 10 adds the wide gaps
// of a line (Line.Gaps) and reads Type 3 fonts without /Widths, simple
// TrueType fonts through their own cmap and malformed TJ arrays; version
// 11 finds the gutter of two columns whose lines touch it (a natbib list's
// hanging first lines) or that a line or two run over, and, below a title
// block centred over it, the gutter rather than the strip between an alpha
// list's labels and its entries; version 12 reads a glyph name of
// /Differences that has no text as pdftotext does (the code itself, or
// the number of a font of numeric names: "g72" at code 1 reads "H");
// version 13 reads the presentation forms of Hebrew and Arabic as the
// letters they present, and files whose streams or strings an Identity
// crypt filter leaves in clear, which pdfcpu alone turned into noise,
// and passes through the codes of an embedded Type 1 program's own
// glyph names that have no text; version 14 reads a mark over table
// rows or a formula piece by piece, each piece in the quadrilateral
// nearest it, with a fraction's stacked parts apart; version 15 reads
// a mark over a table's cells set on staggered lines cell by cell.
const Version = 15

// Options bounds one extraction. The zero value (or a nil *Options) means
// DefaultMaxBytes, DefaultTimeout and DefaultMaxPages. The fixed limits
// (MaxStreamBytes and the others) apply independently of Options.
type Options struct {
	// MaxBytes is the largest file accepted (the file is read into memory
	// once).
	MaxBytes int64
	// Timeout bounds the whole extraction, checked inside its loops; it
	// ends in a *LimitError (LimitTime). A context that ends first gives
	// ErrTimeout instead.
	Timeout time.Duration
	// MaxPages is the largest page count accepted.
	MaxPages int
}

// WithDefaults returns o with every unset field at its default; a nil o
// is the zero Options. Caches of extracted text compare Options through
// it.
func (o *Options) WithDefaults() Options { return o.withDefaults() }

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.MaxBytes <= 0 {
		v.MaxBytes = DefaultMaxBytes
	}
	if v.Timeout <= 0 {
		v.Timeout = DefaultTimeout
	}
	if v.MaxPages <= 0 {
		v.MaxPages = DefaultMaxPages
	}
	return v
}

// Document is the text layer of a PDF.
type Document struct {
	Pages   []Page        // physical order, Pages[i].Number == i+1
	Labels  []string      // printed page label per physical page from /PageLabels ("" when the PDF has none)
	Outline []OutlineItem // bookmarks in document order
	// Title is the largest text in the top 60 % of page 1, else InfoTitle.
	Title string
	// Authors is a best-effort guess: the Info /Author entry split into
	// names, else the line under the title when it looks like names. May be empty.
	Authors   []string
	InfoTitle string // the Info dictionary's /Title
	// XMP is the catalog's /Metadata stream, decoded: the document's XMP
	// packet as stored, which may be compressed in the file. Nil when the
	// PDF has none or it is larger than MaxXMPBytes.
	XMP []byte
}

// MaxXMPBytes bounds the XMP packet kept in a Document; metadata is a few
// kilobytes, and a larger stream is not read.
const MaxXMPBytes = 1 << 20

// Page is one page's text.
type Page struct {
	Number        int
	Width, Height float64 // points, as displayed (after /Rotate)
	// Text is the page's text in reading order: lines joined by "\n",
	// paragraphs separated by "\n\n"; the text of free-text annotations
	// and form fields follows it (see Line.Annot). Ligatures are expanded (ﬁ → fi, the
	// same letters NFKC gives); line-end hyphenation is kept as printed.
	Text  string
	Lines []Line
	// Marks are the page's annotations that are the researcher's marks
	// (see Mark), in reading order.
	Marks []Mark
	// NoTextLayer is true when the page has no text (an image-only scan or
	// a blank page); Text is then empty. A page is never silently empty.
	NoTextLayer bool
	// Recognised is true when Text and Lines were recognised from the
	// page's image by OCR: the lines' sizes are then measured, not set.
	Recognised bool
	// Err is set when this page failed; other pages are still extracted.
	Err error
}

// Line is one line of text in reading order.
type Line struct {
	Text     string
	Box      Box
	FontSize float64 // most common glyph size in the line, in points
	Bold     bool    // most of the line's characters are in a bold face
	Start    int     // byte offset of this line in Page.Text
	// Annot is empty for the page's own text. Text that an annotation
	// puts on the page (AnnotFreeText, or AnnotWidget: a form field's
	// value or appearance) is in lines that name its kind here; they come
	// after the page's own lines, and their text after the page's own
	// text, each annotation a paragraph.
	Annot string
	// Gaps are the wide blanks the line's text crosses (more than one
	// and a half font sizes, wider than any word space: between two
	// captions or table cells side by side), in order. Only horizontal
	// lines in reading order left to right have them.
	Gaps []Gap
}

// Gap is a wide blank inside a line.
type Gap struct {
	At int     // byte offset in Line.Text of the first character after the blank
	X  float64 // that character's left edge, in page units (0–1)
}

// Box is a rectangle normalised to 0–1 of the page, origin top-left (the
// same convention as layout.json bbox).
type Box struct{ X, Y, W, H float64 }

// OutlineItem is one bookmark.
type OutlineItem struct {
	Title string
	Page  int // 1-based physical page; 0 when the destination is unknown
	Level int // 0 = top
}

// Extractor is implemented by text-layer backends. Extract (this package's
// own interpreter) is the default; another backend, such as a PDFium-based
// one for hard files, can be plugged in behind the same contract.
type Extractor interface {
	Extract(ctx context.Context, r io.ReaderAt, size int64, opts *Options) (*Document, error)
}

// Native is the Extractor implemented by this package.
type Native struct{}

// Extract calls the package-level Extract.
func (Native) Extract(ctx context.Context, r io.ReaderAt, size int64, opts *Options) (*Document, error) {
	return Extract(ctx, r, size, opts)
}
