// Package ocr recognises the text of page images: the Engine interface a
// library's OCR is configured with (an image in, words with boxes and
// confidences out), and Tesseract, the engine that runs the tesseract
// program, which Default finds on PATH. The package runs no program unless
// asked to and reads no file: the caller hands it the page's image.
package ocr

import (
	"context"
	"errors"
	"strings"
)

// Errors an Engine returns (wrapped); callers branch on them.
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
// origin top-left (the convention of the pdf package's boxes).
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
// concurrent use, bound their own work (a deadline per page) and honour
// ctx.
type Engine interface {
	// ID names the engine, its version and its languages
	// ("tesseract 5.3.0 eng"): a result cached under another ID is not
	// used.
	ID() string
	// Recognize reads one page image.
	Recognize(ctx context.Context, img Image) (*Result, error)
}

// confidence is the length-weighted mean confidence of ws.
func confidence(ws []Word) float64 {
	var sum, n float64
	for _, w := range ws {
		l := float64(len([]rune(w.Text)))
		sum += w.Confidence * l
		n += l
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// Plausible reports whether r reads as text rather than noise: most of its
// words hold a letter or a digit, and its confidence is not near zero. An
// engine that prints garbage for a page (a photograph, a crash's debris)
// gives a result that is not.
func Plausible(r *Result) bool {
	if r == nil || len(r.Words) == 0 {
		return false
	}
	good := 0
	for _, w := range r.Words {
		if strings.IndexFunc(w.Text, func(c rune) bool {
			return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c > 0x7f
		}) >= 0 {
			good++
		}
	}
	return good*2 >= len(r.Words) && r.Confidence >= 0.2
}

// Off is an engine that recognises nothing: a host's way to turn OCR off
// whatever the environment says. Sources compare their option with it.
var Off Engine = off{}

type off struct{}

func (off) ID() string { return "off" }
func (off) Recognize(context.Context, Image) (*Result, error) {
	return nil, ErrUnavailable
}
