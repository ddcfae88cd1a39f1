package textnorm

import "unicode/utf8"

// Truncate cuts s to at most n characters (runes) on a character boundary
// and reports whether anything was cut. An invalid UTF-8 byte counts as one
// character. A negative n is treated as zero.
func Truncate(s string, n int) (string, bool) {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s, false // n bytes hold at least n runes
	}
	i := 0
	for c := 0; c < n && i < len(s); c++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], i < len(s)
}
