// Package ocr recognises the text of page images: Tesseract, an engine of
// the public package ocr (an image in, words with boxes and
// confidences out) that runs the tesseract program, which Default finds on
// PATH. The package runs no program unless
// asked to and reads no file: the caller hands it the page's image.
package ocr

import (
	"strings"

	engine "github.com/researchctx/researchctx/ocr"
)

// The types, formats and errors of an engine are those of the public
// package, which hosts configure the sources with; this package holds the
// implementation.
type (
	Engine = engine.Engine
	Image  = engine.Image
	Format = engine.Format
	Result = engine.Result
	Word   = engine.Word
)

// The formats an Engine accepts.
const (
	JPEG = engine.JPEG
	PNG  = engine.PNG
	PNM  = engine.PNM
)

// Errors an Engine returns (wrapped); callers branch on them.
var (
	ErrUnavailable = engine.ErrUnavailable
	ErrTimeout     = engine.ErrTimeout
	ErrFailed      = engine.ErrFailed
)

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
