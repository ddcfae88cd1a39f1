package textnorm

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// A Match is a span of the original text, in byte offsets: text[Start:End]
// is the verbatim passage that matched.
type Match struct {
	Start, End int
}

// Locate finds every occurrence of quote in text and returns the spans in
// text order, without overlaps. Matching ignores what text extraction and
// copying change while the words stay the same:
//   - compatibility forms (ligatures such as "ﬁ", full-width letters), case
//     and diacritics, as Fold does;
//   - the amount and kind of whitespace, line breaks included;
//   - line-end hyphenation: "hyphen-\nation" in text matches both
//     "hyphenation" and "hyphen-ation" in quote, so hyphenated words and
//     compounds broken at a line ("state-of-the-\nart") are both found;
//     a soft hyphen (U+00AD) inside a word matches nothing or a hyphen;
//   - whitespace next to Han or kana characters, where line breaks and
//     optional spaces do not separate words.
//
// A quote that is empty after normalisation matches nothing.
func Locate(text, quote string) []Match {
	q := normalize(quote, false)
	if len(q.b) == 0 {
		return nil
	}
	t := normalize(text, true)
	m := matcher{t: t.b, q: q.b}
	var out []Match
	for pos := 0; pos < len(t.b); {
		i := bytes.IndexByte(t.b[pos:], q.b[0])
		if q.b[0] == '-' {
			// A quote's leading hyphen may be a line-end hyphen.
			if j := bytes.IndexByte(t.b[pos:], hyphenMark); j >= 0 && (i < 0 || j < i) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		s := pos + i
		e, ok := m.run(s)
		if !ok {
			pos = s + 1
			continue
		}
		span := Match{Start: t.start[s], End: t.end[e-1]}
		// Several normalised positions can map into one original
		// segment (a ligature expands to several letters): keep spans
		// disjoint.
		if len(out) == 0 || span.Start >= out[len(out)-1].End {
			out = append(out, span)
		}
		pos = e
	}
	return out
}

// hyphenMark stands in the normalised text for a line-end hyphen (or a soft
// hyphen) that may or may not belong to the word. NUL never occurs
// otherwise: control characters normalise to spaces.
const hyphenMark = 0

// normText is normalised text with, for each of its bytes, the span of the
// original text it came from.
type normText struct {
	b          []byte
	start, end []int
}

func (n *normText) add(r rune, start, end int) {
	k := len(n.b)
	n.b = utf8.AppendRune(n.b, r)
	for ; k < len(n.b); k++ {
		n.start = append(n.start, start)
		n.end = append(n.end, end)
	}
}

// normalize folds s for Locate. The quote form (spans=false) also trims
// leading and trailing spaces and hyphen marks; spans are kept only for
// the text.
func normalize(s string, spans bool) normText {
	frags := make([]frag, 0, len(s))
	walk(s, func(r rune, start, end int) {
		frags = append(frags, frag{r: r, start: start, end: end})
	})
	n := normText{b: make([]byte, 0, len(s)+len(s)/8)}
	if spans {
		n.start = make([]int, 0, cap(n.b))
		n.end = make([]int, 0, cap(n.b))
	}
	var prev, prev2 rune // the last two runes emitted
	emit := func(r rune, start, end int) {
		if spans {
			n.add(r, start, end)
		} else {
			n.b = utf8.AppendRune(n.b, r)
		}
		prev2, prev = prev, r
	}
	for i := 0; i < len(frags); {
		f := frags[i]
		r := f.r
		switch {
		case r == 0xAD || r == 0x02:
			// A soft hyphen (PDF tools emit 0x02 for it) with any line
			// break after it is one optional hyphen.
			k, brk := spaceRun(frags, i+1)
			end := f.end
			if brk && k < len(frags) && isWordRune(frags[k].r) {
				end = frags[k-1].end
				i = k
			} else {
				i++
			}
			emit(hyphenMark, f.start, end)
		case isSpace(r):
			k, brk := spaceRun(frags, i)
			var next rune
			if k < len(frags) {
				next = frags[k].r
			}
			switch {
			case len(n.b) == 0 || k == len(frags):
				// Leading and trailing space matters to no match.
			case isUnspaced(prev) || isUnspaced(next):
			case brk && prev == '-' && isWordRune(prev2) && isWordRune(next):
				// A hyphen at a line end between word characters may be
				// hyphenation or a compound's own hyphen.
				last := len(n.b) - 1
				n.b[last] = hyphenMark
				if spans {
					n.end[last] = frags[k-1].end
				}
				prev = hyphenMark
			default:
				emit(' ', f.start, frags[k-1].end)
			}
			i = k
		default:
			if r == 0x2010 || r == 0x2011 {
				r = '-'
			}
			emit(r, f.start, f.end)
			i++
		}
	}
	if !spans {
		n.b = bytes.Trim(n.b, " \x00")
	}
	return n
}

// spaceRun returns the end of the run of spaces starting at i and whether
// it holds a line break.
func spaceRun(frags []frag, i int) (int, bool) {
	brk := false
	for ; i < len(frags) && isSpace(frags[i].r); i++ {
		switch frags[i].r {
		case '\n', '\r', '\f', '\v', 0x85, 0x2028, 0x2029:
			brk = true
		}
	}
	return i, brk
}

// isSpace reports whitespace and the control characters Locate treats as
// such (soft-hyphen stand-ins excluded).
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || (unicode.IsControl(r) && r != 0x02)
}

// isUnspaced reports Han, kana and CJK punctuation, where whitespace is
// not a word separator.
func isUnspaced(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return (r >= 0x3000 && r <= 0x303F) || r == 0x30FC ||
		unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// matcher compares a normalised quote with normalised text, deciding at
// each hyphen mark whether it is a hyphen or nothing.
type matcher struct {
	t, q   []byte
	failed map[[2]int]bool // states known not to match, for the current start
}

// run matches the quote at text offset s and returns the end offset.
func (m *matcher) run(s int) (int, bool) {
	clear(m.failed)
	return m.match(s, 0)
}

func (m *matcher) match(ti, qi int) (int, bool) {
	for {
		if qi == len(m.q) {
			return ti, true
		}
		qc := m.q[qi]
		if qc == hyphenMark {
			if ti < len(m.t) && (m.t[ti] == hyphenMark || m.t[ti] == '-') {
				if e, ok := m.branch(ti+1, qi+1); ok {
					return e, true
				}
			}
			qi++
			continue
		}
		if ti >= len(m.t) {
			return 0, false
		}
		tc := m.t[ti]
		if tc == hyphenMark {
			if qc == '-' {
				if e, ok := m.branch(ti+1, qi+1); ok {
					return e, true
				}
				// "hyphen- ation", as copied from a rendered page.
				if qi+1 < len(m.q) && m.q[qi+1] == ' ' {
					if e, ok := m.branch(ti+1, qi+2); ok {
						return e, true
					}
				}
			}
			ti++
			continue
		}
		if tc != qc {
			return 0, false
		}
		ti++
		qi++
	}
}

// branch tries one alternative, remembering failures so that text with
// many hyphen marks cannot make matching exponential.
func (m *matcher) branch(ti, qi int) (int, bool) {
	k := [2]int{ti, qi}
	if m.failed[k] {
		return 0, false
	}
	e, ok := m.match(ti, qi)
	if !ok {
		if m.failed == nil {
			m.failed = make(map[[2]int]bool)
		}
		m.failed[k] = true
	}
	return e, ok
}
