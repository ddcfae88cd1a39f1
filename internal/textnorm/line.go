package textnorm

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line of display text, for names and metadata (a
// title, an author, a file name, a heading) that are shown next to the
// tools' own words: every run of white space, line and paragraph breaks
// included, becomes one space and the ends are trimmed; every other control
// character and every character that changes the direction of the text
// around it (see Unsafe) is written as a visible escape such as \u202e; an
// invalid UTF-8 byte becomes U+FFFD. The result cannot start a new line of
// a prompt or a tool result, nor reorder the characters after it.
//
// Line returns s itself when nothing needs changing, so it is cheap to
// apply again.
func Line(s string) string {
	if isPlainLine(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			// Written as itself below.
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if Unsafe(r) {
			b.WriteString(escapeRune(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Name returns a name that must stay exact, such as a vault path, for
// display on one line: s itself when it holds no unsafe character (see
// Unsafe) and is valid UTF-8, else s in Go quotes with those characters
// escaped. Unlike Line it never changes spaces, so a shown path can be
// used as it is.
func Name(s string) string {
	if !HasUnsafe(s) {
		return s
	}
	return strconv.QuoteToGraphic(s)
}

// Lines applies Line to each of names and leaves out those that come out
// empty. The result is a new slice (nil when none is left).
func Lines(names []string) []string {
	var out []string
	for _, n := range names {
		if n = Line(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// isPlainLine reports whether s is already what Line would return: valid
// UTF-8, no unsafe character, no white space but single inner spaces.
func isPlainLine(s string) bool {
	prevSpace := true // a leading space is not plain
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if c == ' ' {
				if prevSpace {
					return false
				}
				prevSpace = true
				continue
			}
			if c < 0x20 || c == 0x7f {
				return false
			}
			prevSpace = false
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unicode.IsSpace(r) || Unsafe(r) {
			return false
		}
		i += size
		prevSpace = false
	}
	return !prevSpace || s == ""
}

// Unsafe reports whether r must not appear raw in a name or a line of
// metadata: a control character (C0, DEL, C1), a line or paragraph
// separator, or a bidirectional formatting character — the embeddings and
// overrides U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E,
// U+200F and U+061C. A right-to-left override in a file name makes
// "report\u202Efdp.exe" display as "reportexe.pdf".
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, 0x80 <= r && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// HasUnsafe reports whether s holds a character for which Unsafe is true,
// or invalid UTF-8.
func HasUnsafe(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || Unsafe(r) {
			return true
		}
		i += size
	}
	return false
}

// escapeRune writes r as a Go escape: \n, \x1b, \u202e.
func escapeRune(r rune) string {
	q := strconv.QuoteRuneToASCII(r)
	return q[1 : len(q)-1]
}

// IsBreak reports whether r ends a line for some reader of the text: a
// line feed, a carriage return, a vertical tab, a form feed, NEL (U+0085),
// or the Unicode line and paragraph separators (U+2028, U+2029).
func IsBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// SplitLines splits s into lines at every line break (see IsBreak; CRLF is
// one break), without the breaks. A break at the very end does not start
// an empty line, so "a\n" is one line and "" none. Every rendering that
// indents or prefixes the lines of untrusted text uses it, so no break a
// terminal, an editor or a model may honour starts a line without its
// indent.
func SplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !IsBreak(r) {
			i += size
			continue
		}
		out = append(out, s[start:i])
		i += size
		if r == '\r' && i < len(s) && s[i] == '\n' {
			i++
		}
		start = i
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
