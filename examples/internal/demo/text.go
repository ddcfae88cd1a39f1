package demo

import "unicode/utf8"

// Clip cuts s to at most n characters (runes), marking a cut with an
// ellipsis. An invalid UTF-8 byte counts as one character.
func Clip(s string, n int) string {
	n = max(n, 0)
	if len(s) <= n {
		return s // n bytes hold at most n runes
	}
	i := 0
	for c := 0; c < n && i < len(s); c++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i == len(s) {
		return s
	}
	return s[:i] + "…"
}
