package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// lineHyphens are the marks a word broken at a line end is printed with:
// a soft hyphen (and the control byte some fonts map it to), the ASCII
// hyphen-minus and U+2010 HYPHEN.
var lineHyphens = []string{"\u00ad", "\x02", "-", "\u2010"}

// cutLineHyphen returns s without the line-end hyphen that ends it and
// whether it had one.
func cutLineHyphen(s string) (string, bool) {
	for _, h := range lineHyphens {
		if r, ok := strings.CutSuffix(s, h); ok {
			return r, true
		}
	}
	return s, false
}

// JoinHyphenated joins a line that ends with a hyphen to the line after
// it as the page's text is read for search: when the hyphen follows a
// letter and the next line opens with a word in lower case ("perfor-" and
// "mances"), they are the halves of one word, returned whole with ok
// true; otherwise ok is false ("Al-" and "Rashid", "x-" and "1"). Both
// lines are taken as printed, without the line break.
func JoinHyphenated(line, next string) (joined string, ok bool) {
	head, cut := cutLineHyphen(line)
	if !cut {
		return "", false
	}
	r, _ := utf8.DecodeLastRuneInString(head)
	if !unicode.IsLetter(r) || !isLowerWord(next) {
		return "", false
	}
	return head + next, true
}

// JoinLine joins two lines of running text as a reader reads them: the
// halves of a hyphenated word whole (JoinHyphenated); a compound broken
// at its own hyphen before a capital or a digit ("ResNet-" and "50",
// "R-" and "CNN") with its hyphen and no space; otherwise with a space.
func JoinLine(line, next string) string {
	if whole, ok := JoinHyphenated(line, next); ok {
		return whole
	}
	if head, ok := strings.CutSuffix(line, "-"); ok && head != "" {
		b, _ := utf8.DecodeLastRuneInString(head)
		a, _ := utf8.DecodeRuneInString(next)
		if (unicode.IsLetter(b) || unicode.IsDigit(b)) && (unicode.IsUpper(a) || unicode.IsDigit(a)) {
			return line + next
		}
	}
	if line == "" || next == "" {
		return line + next
	}
	return line + " " + next
}
