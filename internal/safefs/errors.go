package safefs

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors. Every error returned by this package is an *fs.PathError
// whose Path is vault-relative; test the cause with errors.Is.
var (
	// ErrOutside reports a path or symbolic link that leaves the view
	// (the Vault, or the granted folder of a Sub view).
	ErrOutside = errors.New("outside the vault")
	// ErrHidden reports a path through an entry whose name starts with '.'.
	ErrHidden = errors.New("hidden entry")
	// ErrPrivate reports a path through the SDK's private .agentero folder.
	ErrPrivate = errors.New("private entry")
	// ErrNotRegular reports something that is not a regular file where one
	// is required: a folder, FIFO, socket or device.
	ErrNotRegular = errors.New("not a regular file")
	// ErrNotText reports content that is not UTF-8 text (see IsText).
	ErrNotText = errors.New("not text")
	// ErrTooLarge reports a file above the caller's size cap.
	ErrTooLarge = errors.New("file too large")
	// ErrLink reports a symbolic link where none is followed: any element
	// of a path in a Strict view (documents), and any element of the
	// SDK's own files from .agentero down.
	ErrLink = errors.New("symbolic link")
	// ErrName reports, in a Strict view, a name with a control or
	// bidirectional-formatting character.
	ErrName = errors.New("name with a control or direction character")
)

// reasonError is a sentinel with a more specific message; errors.Is still
// matches the sentinel.
type reasonError struct {
	err error
	msg string
}

func (e *reasonError) Error() string { return e.msg }
func (e *reasonError) Unwrap() error { return e.err }

func reason(err error, msg string) error { return &reasonError{err: err, msg: msg} }

// outside returns the cause for a path that leaves a view named view
// ("." for the Vault itself).
func outside(view string) error {
	if view == "." {
		return ErrOutside
	}
	return reason(ErrOutside, "outside "+view)
}

// errPathEscapes is the text of the unexported error os.Root returns when a
// name or link would leave the root.
const errPathEscapes = "path escapes from parent"

// pathError builds the error returned to callers. cause is reduced to its
// innermost error so that no path from the os layer (which may be
// absolute) survives; path must already be vault-relative or redacted.
func (f *FS) pathError(op, path string, cause error) error {
	cause = innermost(cause)
	if cause != nil && cause.Error() == errPathEscapes {
		cause = outside(f.name)
	}
	return &fs.PathError{Op: op, Path: path, Err: cause}
}

// innermost strips the os layer's path and link errors from cause, whose
// paths may be absolute, down to the error they carry.
func innermost(cause error) error {
	for {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(cause, &pe):
			cause = pe.Err
		case errors.As(cause, &le):
			cause = le.Err
		default:
			return cause
		}
	}
}

// echo returns a caller-supplied path in a form safe to put in an error:
// absolute paths are not repeated (they may name the machine's folders),
// control characters and invalid UTF-8 are quoted, long input is cut.
func echo(p string) string {
	const max = 256
	if p == "" {
		return `""`
	}
	if p[0] == '/' || p[0] == '\\' || isDrive(p) {
		return "(absolute path)"
	}
	if len(p) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		p = p[:cut] + "…"
	}
	if !utf8.ValidString(p) || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// isDrive reports a Windows drive prefix such as "C:" or "C:/".
func isDrive(p string) bool {
	if len(p) < 2 || p[1] != ':' {
		return false
	}
	c := p[0] | 0x20
	return 'a' <= c && c <= 'z' && (len(p) == 2 || p[2] == '/' || p[2] == '\\')
}
