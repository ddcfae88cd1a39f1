package safefs

import (
	"bytes"
	"unicode/utf8"
)

// sniffLen is how much of the start of a file is checked for NUL bytes, as
// tools such as git and grep do to tell binary files from text.
const sniffLen = 8 << 10

// IsText reports whether b is text by content: valid UTF-8 throughout and no
// NUL byte in the first 8 KiB. UTF-16 text (which is full of NULs) and
// binary formats such as PDF or images are not text. Empty input is text.
func IsText(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), sniffLen)], 0) < 0 && utf8.Valid(b)
}
