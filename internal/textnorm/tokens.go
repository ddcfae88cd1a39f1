package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Token is one search term found in a text.
type Token struct {
	// Term is the folded, stemmed form used for matching.
	Term string
	// Start and End are the byte offsets of the token in the original
	// text, so a match can be mapped back to verbatim text.
	Start, End int
	// Pos is the ordinal position of the token: words and CJK characters
	// count one each; a CJK bigram shares the position of its first
	// character. Phrase and proximity scoring compare positions.
	Pos int
	// Stop reports an English stopword (checked before stemming). Callers
	// that index text usually skip such tokens but keep their positions.
	Stop bool
}

// frag is one folded rune with the original span it came from.
type frag struct {
	r          rune
	start, end int
	folded     int // offset of the rune in the folded text (Tokens only)
}

// Tokens splits s into search terms. Runs of letters and digits form words
// (folded, with English words stemmed by Stem); an apostrophe between
// letters stays inside the word and is then dropped ("cell's" → "cell",
// "don't" → "dont"). Han, Hiragana, Katakana and Hangul text has no
// reliable word boundaries without a dictionary, so each character is a
// unigram and each adjacent pair a bigram. Offsets refer to s itself.
func Tokens(s string) []Token {
	toks := make([]Token, 0, len(s)/6+1)
	eachToken(s, func(t Token) { toks = append(toks, t) })
	return toks
}

// TokensIn is Tokens with the Term of every token that is not one of
// terms left empty and its Stop false: what a caller needs that looks for
// a few terms (a query's) in a long text, with the offsets and positions
// of all its words. A word whose stem cannot be one of terms is not
// stemmed: its stem starts with its own first byte (see Stem), which no
// term does.
func TokensIn[V any](s string, terms map[string]V) []Token {
	tz := newTokenizer(nil)
	tz.only = make(map[string]bool, len(terms))
	for t := range terms {
		if t != "" {
			tz.only[t] = true
			tz.firsts[t[0]] = true
		}
	}
	toks := make([]Token, 0, len(s)/6+1)
	tz.emit = func(t Token) { toks = append(toks, t) }
	tz.run(s)
	return toks
}

// tokenizer holds the folded runes of s read since the last rune no token
// holds, so that memory stays the size of a word, not of the text.
type tokenizer struct {
	frags  []frag
	folded []byte
	pos    int
	emit   func(Token)
	// only, when set, holds the terms wanted (TokensIn); firsts their
	// first bytes.
	only   map[string]bool
	firsts [256]bool
}

func newTokenizer(emit func(Token)) *tokenizer {
	return &tokenizer{frags: make([]frag, 0, 64), folded: make([]byte, 0, 256), emit: emit}
}

// eachToken calls emit with each of the tokens of s in order, as Tokens
// returns them.
func eachToken(s string, emit func(Token)) {
	newTokenizer(emit).run(s)
}

// run reads s, emitting its tokens.
func (tz *tokenizer) run(s string) {
	walk(s, func(r rune, start, end int) {
		tz.frags = append(tz.frags, frag{r, start, end, len(tz.folded)})
		tz.folded = utf8.AppendRune(tz.folded, r)
		// No token holds a rune that is neither part of a word nor an
		// apostrophe: the runes up to it can be cut into tokens. It stays
		// with them, as the look past an apostrophe may reach it.
		if !isWordRune(r) && !isApostrophe(r) {
			tz.flush()
		}
	})
	tz.flush()
}

// flush emits the tokens of the runes read and forgets them.
func (tz *tokenizer) flush() {
	frags, folded := tz.frags, tz.folded
	// foldedEnd is the end of frag k in folded.
	foldedEnd := func(k int) int {
		if k+1 < len(frags) {
			return frags[k+1].folded
		}
		return len(folded)
	}
	pos := tz.pos
	for i := 0; i < len(frags); {
		f := frags[i]
		switch {
		case isCJK(f.r):
			j := i
			for j < len(frags) && isCJK(frags[j].r) {
				j++
			}
			for k := i; k < j; k++ {
				tz.emit(Token{Term: tz.term(folded[frags[k].folded:foldedEnd(k)]), Start: frags[k].start, End: frags[k].end, Pos: pos})
				if k+1 < j {
					tz.emit(Token{Term: tz.term(folded[frags[k].folded:foldedEnd(k+1)]), Start: frags[k].start, End: frags[k+1].end, Pos: pos})
				}
				pos++
			}
			i = j
		case isWordRune(f.r):
			apos := false
			j := i
			for j < len(frags) {
				r := frags[j].r
				if isWordRune(r) && !isCJK(r) {
					j++
					continue
				}
				if isApostrophe(r) && j+1 < len(frags) && unicode.IsLetter(frags[j+1].r) && !isCJK(frags[j+1].r) {
					apos = true
					j++
					continue
				}
				break
			}
			var term string
			var stop bool
			if w := folded[f.folded:foldedEnd(j-1)]; tz.only != nil && !tz.firsts[w[0]] {
				// Neither w nor its stem can be wanted: both start with w[0].
			} else if apos {
				ws := strings.ReplaceAll(string(w), "\u2019", "'")
				ws = strings.TrimSuffix(ws, "'s")
				ws = strings.ReplaceAll(ws, "'", "")
				term, stop = Stem(ws), Stopword(ws)
			} else {
				term, stop = stemBytes(w)
			}
			if tz.only != nil && !tz.only[term] {
				term, stop = "", false
			}
			tz.emit(Token{Term: term, Start: f.start, End: frags[j-1].end, Pos: pos, Stop: stop})
			pos++
			i = j
		default:
			i++
		}
	}
	tz.pos = pos
	tz.frags, tz.folded = frags[:0], folded[:0]
}

// term returns the term of folded CJK characters b: b itself, or "" when
// it is not wanted.
func (tz *tokenizer) term(b []byte) string {
	if tz.only != nil && (!tz.firsts[b[0]] || !tz.only[string(b)]) {
		return ""
	}
	return string(b)
}

// isWordRune reports whether r belongs in a word: letters, digits and
// spacing marks (which carry vowels in Indic scripts).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || ('A' <= r && r <= 'Z')
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Nl, r)
}

func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' }

// isCJK reports whether r is written without spaces between words: Han,
// kana (with the prolonged sound and iteration marks) and Hangul.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	switch r {
	case 0x30FC, 0x3005, 0x3006, 0x309D, 0x309E, 0x30FD, 0x30FE:
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// WordF1 is the F1 of the words two texts share: their Tokens' terms
// (folded and stemmed) counted as bags; 0 when they share none.
func WordF1(a, b string) float64 {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, t := range Tokens(s) {
			m[t.Term]++
		}
		return m
	}
	wa, wb := count(a), count(b)
	na, nb, common := 0, 0, 0
	for t, n := range wa {
		na += n
		common += min(n, wb[t])
	}
	for _, n := range wb {
		nb += n
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(na), float64(common)/float64(nb)
	return 2 * p * r / (p + r)
}
