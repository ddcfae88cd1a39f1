package units

import (
	"errors"
	"fmt"
	"testing"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/sources"
)

// TestUnreadableError: the message names what was read and the kind of
// failure in a few words, never the parser's own; the error still wraps
// sources.ErrUnreadable and the parser's error, which Detail gives.
func TestUnreadableError(t *testing.T) {
	parser := fmt.Errorf("pdf: obj#12 stream: %w", pdf.ErrMalformed)
	tests := []struct {
		name string
		e    *UnreadableError
		want string
	}{
		{"malformed", &UnreadableError{What: "a.pdf", Err: parser}, "a.pdf: unreadable document: malformed: damaged, or not a PDF"},
		{"no path", &UnreadableError{Err: parser}, "unreadable document: malformed: damaged, or not a PDF"},
		{"encrypted", &UnreadableError{What: "a.pdf", Err: pdf.ErrEncrypted}, "a.pdf: unreadable document: encrypted: it does not open without a password"},
		{"empty", &UnreadableError{What: "a.pdf", Err: ErrEmptyPDF}, "a.pdf: unreadable document: empty: the file has 0 bytes"},
		{"page limit", &UnreadableError{What: "a.pdf page 3", Err: &pdf.LimitError{Limit: pdf.LimitPages, Page: 3}}, "a.pdf page 3: unreadable document: page 3 is over the page count limit"},
		{"remembered", &UnreadableError{What: "a.pdf", Err: fmt.Errorf("%w (remembered)", parser)}, "a.pdf: unreadable document: malformed: damaged, or not a PDF (remembered)"},
		{"other", &UnreadableError{What: "a.pdf", Err: errors.New("pdf: odd")}, "a.pdf: unreadable document: its text cannot be extracted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if !errors.Is(tt.e, sources.ErrUnreadable) || !errors.Is(tt.e, tt.e.Err) {
				t.Errorf("%v does not wrap sources.ErrUnreadable and its cause", tt.e)
			}
			if tt.e.Detail() != tt.e.Err.Error() {
				t.Errorf("Detail() = %q, want the parser's error", tt.e.Detail())
			}
		})
	}
	if !IsPDFError(ErrEmptyPDF) || IsPDFError(errors.New("read: i/o error")) {
		t.Error("IsPDFError: an empty PDF is the PDF's failure, an I/O error is not")
	}
}
