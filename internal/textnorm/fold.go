// Package textnorm normalises text for search: case, compatibility and
// diacritic folding, tokenisation with byte offsets into the original text,
// a light English stemmer, and quote location that tolerates the damage text
// extraction does to PDFs (ligatures, line-end hyphenation, broken lines).
//
// Every function accepts arbitrary bytes: invalid UTF-8 is treated as
// U+FFFD and never panics.
package textnorm

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Fold returns the search form of s: NFKC, Unicode case folding, NFD,
// removal of combining marks except the kana voicing marks U+3099 and
// U+309A (removing those would turn データ into テータ), then NFC.
// Ligatures such as "ﬁ" expand through NFKC. Invalid UTF-8 bytes become
// U+FFFD.
func Fold(s string) string {
	if isLowerASCII(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	walk(s, func(r rune, _, _ int) {
		b = utf8.AppendRune(b, r)
	})
	return string(b)
}

// isLowerASCII reports whether s is ASCII without upper-case letters, whose
// fold is s itself.
func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// segCache remembers the folds of short segments (punctuation, accented
// letters), which recur throughout a text.
var segCache = cache{m: make(map[string]string)}

// casers holds case folders: a cases.Caser keeps state and is not safe for
// concurrent use.
var casers = sync.Pool{New: func() any {
	c := cases.Fold()
	return &c
}}

// walk calls fn for every rune of Fold(s) with the byte span [start, end)
// of the original normalisation segment it came from. Segments are the
// NFKC boundaries of s, so folding them one at a time gives the same text
// as folding s whole, while every output rune keeps its origin.
func walk(s string, fn func(r rune, start, end int)) {
	var caser *cases.Caser
	defer func() {
		if caser != nil {
			casers.Put(caser)
		}
	}()
	for i := 0; i < len(s); {
		c := s[i]
		// ASCII followed by ASCII (or the end) is a segment of its own: no
		// combining mark can follow it.
		if c < utf8.RuneSelf && (i+1 == len(s) || s[i+1] < utf8.RuneSelf) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			fn(rune(c), i, i+1)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			fn(utf8.RuneError, i, i+1)
			i++
			continue
		}
		if isStableRune(r) && (i+size == len(s) || s[i+size] < utf8.RuneSelf) {
			// Han, kana and Hangul followed by ASCII or the end.
			fn(r, i, i+size)
			i += size
			continue
		}
		if isStableRune(r) {
			if r2, _ := utf8.DecodeRuneInString(s[i+size:]); isStableRune(r2) {
				fn(r, i, i+size)
				i += size
				continue
			}
		}
		n := norm.NFKC.NextBoundaryInString(s[i:], true)
		if n <= 0 {
			n = size
		}
		if !utf8.ValidString(s[i : i+n]) {
			// An invalid byte ends the segment early; it is handled on
			// the next round.
			n = validPrefix(s[i : i+n])
		}
		seg := s[i : i+n]
		f, ok := segCache.get(seg)
		if !ok {
			if caser == nil {
				caser = casers.Get().(*cases.Caser)
			}
			f = foldSegment(seg, caser)
			if len(seg) <= 8 {
				segCache.put(seg, f)
			}
		}
		for _, r := range f {
			fn(r, i, i+n)
		}
		i += n
	}
}

// validPrefix returns the length of the longest valid UTF-8 prefix of s.
func validPrefix(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		n += size
	}
	return n
}

// foldSegment folds one normalisation segment.
func foldSegment(seg string, caser *cases.Caser) string {
	t := norm.NFKC.String(seg)
	t = caser.String(t)
	t = norm.NFD.String(t)
	stripped := false
	for _, r := range t {
		if isRemovedMark(r) {
			stripped = true
			break
		}
	}
	if stripped {
		b := make([]byte, 0, len(t))
		for _, r := range t {
			if !isRemovedMark(r) {
				b = utf8.AppendRune(b, r)
			}
		}
		t = string(b)
	}
	return norm.NFC.String(t)
}

// isRemovedMark reports whether Fold drops r: a nonspacing combining mark
// other than the kana voicing marks.
func isRemovedMark(r rune) bool {
	return r != 0x3099 && r != 0x309A && unicode.Is(unicode.Mn, r)
}

// isStableRune reports runes that folding leaves alone when they stand in
// a segment of their own: the common Han, kana and Hangul blocks. It skips
// the normalisation chain for the bulk of CJK text.
func isStableRune(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3041 && r <= 0x3096) ||
		(r >= 0x30A1 && r <= 0x30FA) || r == 0x30FC || (r >= 0xAC00 && r <= 0xD7A3)
}
