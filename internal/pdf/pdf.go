package pdf

import (
	"context"
	"errors"
	"io"
	"time"
)

// Errors returned by Extract. They are wrapped with detail; test with errors.Is.
var (
	// ErrEncrypted: the file is encrypted and does not open with an empty password.
	ErrEncrypted = errors.New("pdf: encrypted")
	// ErrMalformed: the file is not a PDF or is damaged beyond reading.
	ErrMalformed = errors.New("pdf: malformed")
	// ErrTooLarge: the file exceeds Options.MaxBytes or Options.MaxPages.
	ErrTooLarge = errors.New("pdf: too large")
	// ErrTimeout: extraction took longer than Options.Timeout or the context allowed.
	ErrTimeout = errors.New("pdf: timed out")
)

// Defaults used for zero Options fields.
const (
	DefaultMaxBytes = 256 << 20        // 256 MiB per file
	DefaultTimeout  = 60 * time.Second // per file
	DefaultMaxPages = 5000
)

// Options bounds one extraction. The zero value (or a nil *Options) means
// DefaultMaxBytes, DefaultTimeout and DefaultMaxPages. Independently of
// Options, a page stops at 20 million content-stream operators or 2 million
// glyphs, and Form XObjects nest at most 12 deep.
type Options struct {
	// MaxBytes is the largest file accepted (the file is read into memory
	// once); each decoded stream, and one page's content streams together,
	// are capped at the same value.
	MaxBytes int64
	// Timeout bounds the whole extraction, in addition to ctx.
	Timeout time.Duration
	// MaxPages is the largest page count accepted.
	MaxPages int
}

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
}

// Page is one page's text.
type Page struct {
	Number        int
	Width, Height float64 // points, as displayed (after /Rotate)
	// Text is the page's text in reading order: lines joined by "\n",
	// paragraphs separated by "\n\n". Ligatures are expanded (ﬁ → fi, the
	// same letters NFKC gives); line-end hyphenation is kept as printed.
	Text  string
	Lines []Line
	// NoTextLayer is true when the page has no text (an image-only scan or
	// a blank page); Text is then empty. A page is never silently empty.
	NoTextLayer bool
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
