// Package ocr holds what a host configures the OCR of scanned PDFs with:
// the Engine interface that the sources reading PDFs (vault.LibraryOptions.OCR,
// zotero.Options.OCR) take, the page Image it reads, the Result it returns,
// and Off, which turns OCR off. A host gives both sources the same engine,
// or one of its own (a cloud service, another program); when it sets none,
// the sources use the SDK's own, which runs the tesseract program when it
// is installed.
package ocr

import (
	"context"
	"errors"
)

// Errors an Engine returns, wrapped: the sources tell a page that took too
// long from an engine that failed.
var (
	// ErrUnavailable: no engine is configured, or its program is missing.
	ErrUnavailable = errors.New("ocr: no engine")
	// ErrTimeout: the page took longer than the engine's deadline.
	ErrTimeout = errors.New("ocr: page timed out")
	// ErrFailed: the engine crashed, or printed what is not a result.
	ErrFailed = errors.New("ocr: engine failed")
)

// Format is the encoding of an Image's bytes.
type Format string

// The formats an Engine accepts.
const (
	JPEG Format = "jpeg"
	PNG  Format = "png"
	PNM  Format = "pnm" // binary PBM, PGM or PPM
)

// Image is one page's picture.
type Image struct {
	Data          []byte
	Format        Format
	Width, Height int // pixels
}

// Word is one recognised word. Box is normalised to 0–1 of the image,
// origin top-left.
type Word struct {
	Text       string
	X, Y, W, H float64
	Confidence float64 // 0–1
	Line       int     // the word's line, counted from 0 in reading order
}

// Result is what an engine read on one page.
type Result struct {
	// Text is the page's words in reading order: words of a line joined
	// by spaces, lines by "\n", paragraphs by "\n\n".
	Text  string
	Words []Word
	// Confidence is the mean of the words' confidences, weighted by their
	// lengths (0–1); 0 for a page without words.
	Confidence float64
}

// Engine recognises page images. Implementations must be safe for
// concurrent use, bound their own work (a deadline per page, past which
// Recognize returns an error wrapping ErrTimeout) and honour ctx.
type Engine interface {
	// ID names the engine, its version and its languages
	// ("tesseract 5.3.0 eng"): a result cached under another ID is not
	// used.
	ID() string
	// Recognize reads one page image.
	Recognize(ctx context.Context, img Image) (*Result, error)
}

// Off returns the engine that recognises nothing: as a source's OCR
// option, it turns OCR off whatever the environment says. Every call
// returns an equal value, which the sources compare their option with.
func Off() Engine { return off{} }

type off struct{}

func (off) ID() string { return "off" }
func (off) Recognize(context.Context, Image) (*Result, error) {
	return nil, ErrUnavailable
}
