package units

import (
	"errors"
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/sources"
)

// ErrEmptyPDF is the reason a PDF of 0 bytes cannot be read. It is a
// malformed PDF (pdf.ErrMalformed), said in its own words.
var ErrEmptyPDF error = emptyPDF{}

type emptyPDF struct{}

func (emptyPDF) Error() string { return "empty: the file has 0 bytes" }
func (emptyPDF) Unwrap() error { return pdf.ErrMalformed }

// UnreadableError is the error of a PDF, or of one of its pages, whose
// text cannot be extracted: the Vault's and every connector's that reads
// PDFs. Its message is one line a model may see: what (a path and page,
// when set) and the kind of failure (encrypted, malformed, over which
// limit), never the parser's own words, which name objects and streams
// of the file and say nothing a reader can act on; Detail has those, for
// a server's log. It wraps sources.ErrUnreadable and the parser's error.
type UnreadableError struct {
	What string // the PDF's path, and the page; "" to name none
	Err  error
}

func (e *UnreadableError) Error() string {
	msg := sources.ErrUnreadable.Error() + ": " + unreadableReason(e.Err)
	if e.What != "" {
		msg = e.What + ": " + msg
	}
	if strings.Contains(e.Err.Error(), "(remembered)") {
		// The PDF cache's failure of an earlier extraction: the file was
		// not parsed again.
		msg += " (remembered)"
	}
	return msg
}

func (e *UnreadableError) Unwrap() []error { return []error{sources.ErrUnreadable, e.Err} }

// Detail returns the parser's full error, for a log.
func (e *UnreadableError) Detail() string { return e.Err.Error() }

// unreadableReason says in a few words why the pdf package could not read
// a file or a page.
func unreadableReason(err error) string {
	var limit *pdf.LimitError
	switch {
	case errors.Is(err, ErrEmptyPDF):
		return ErrEmptyPDF.Error()
	case errors.Is(err, pdf.ErrEncrypted):
		return "encrypted: it does not open without a password"
	case errors.As(err, &limit):
		if limit.Page > 0 {
			return fmt.Sprintf("page %d is over the %s limit", limit.Page, limit.Limit)
		}
		return fmt.Sprintf("over the %s limit", limit.Limit)
	case errors.Is(err, pdf.ErrTooLarge):
		return "over an extraction limit"
	case errors.Is(err, pdf.ErrMalformed):
		return "malformed: damaged, or not a PDF"
	}
	return "its text cannot be extracted"
}

// IsPDFError reports an error that is about the PDF itself, not about
// reading it: one that reading the file again would give again.
func IsPDFError(err error) bool {
	return errors.Is(err, pdf.ErrMalformed) || errors.Is(err, pdf.ErrEncrypted) ||
		errors.Is(err, pdf.ErrTooLarge) || errors.Is(err, pdf.ErrTimeout)
}
