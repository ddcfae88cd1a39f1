package textnorm

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// tokensWhole is Tokens as it was written before it read s a word at a
// time: every folded rune of s held at once. Tokens must give the same.
func tokensWhole(s string) []Token {
	var frags []frag
	var folded []byte
	walk(s, func(r rune, start, end int) {
		frags = append(frags, frag{r, start, end, len(folded)})
		folded = utf8.AppendRune(folded, r)
	})
	foldedEnd := func(k int) int {
		if k+1 < len(frags) {
			return frags[k+1].folded
		}
		return len(folded)
	}
	toks := make([]Token, 0, len(s)/6+1)
	pos := 0
	for i := 0; i < len(frags); {
		f := frags[i]
		switch {
		case isCJK(f.r):
			j := i
			for j < len(frags) && isCJK(frags[j].r) {
				j++
			}
			for k := i; k < j; k++ {
				toks = append(toks, Token{Term: string(folded[frags[k].folded:foldedEnd(k)]), Start: frags[k].start, End: frags[k].end, Pos: pos})
				if k+1 < j {
					toks = append(toks, Token{Term: string(folded[frags[k].folded:foldedEnd(k+1)]), Start: frags[k].start, End: frags[k+1].end, Pos: pos})
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
			w := string(folded[f.folded:foldedEnd(j-1)])
			if apos {
				w = strings.ReplaceAll(w, "\u2019", "'")
				w = strings.TrimSuffix(w, "'s")
				w = strings.ReplaceAll(w, "'", "")
			}
			toks = append(toks, Token{Term: Stem(w), Start: f.start, End: frags[j-1].end, Pos: pos, Stop: Stopword(w)})
			pos++
			i = j
		default:
			i++
		}
	}
	return toks
}

// TestTokensAWordAtATime checks that reading a text a word at a time gives
// the tokens of the whole text: on texts built from the pieces where the
// two could part (apostrophes before and after letters, digits and CJK,
// runs of CJK beside words and punctuation, combining marks, ligatures,
// invalid bytes, stopwords, stemmed words), and on random mixes of them.
func TestTokensAWordAtATime(t *testing.T) {
	for _, s := range mixedTexts() {
		if diff := cmp.Diff(tokensWhole(s), Tokens(s)); diff != "" {
			t.Fatalf("Tokens(%q) (-whole text +a word at a time):\n%s", s, diff)
		}
	}
}

// mixedTexts returns texts built from the pieces where tokenisations
// could part: apostrophes before and after letters, digits and CJK, runs
// of CJK beside words and punctuation, combining marks, ligatures, invalid
// bytes, stopwords, stemmed words; and random mixes of them.
func mixedTexts() []string {
	pieces := []string{
		"cell's", "don't", "rock'n'roll", "'quoted'", "it\u2019s", "\u2019", "'", "''", "o'",
		"数据处理", "データ", "한국어", "数", "ー", "々",
		"Hello", "WORLD", "connections", "generalization", "the", "of", "a", "is",
		"ﬁne", "e\u0301", "\u0301", "İ", "Straße", "ＡＢＣ１２", "x²", "Ⅻ",
		"42", "3.14", "a1b2", "\xff", "\xe3\x81", "\u00ad", "-", ".", ",", "。", "，", "(",
		" ", "  ", "\n", "\t", "\u3000", "👍🏽",
	}
	cases := []string{
		"",
		"The cell's nuclei don't divide; it's the patients' data.",
		"Myelodysplastic syndromes (MDS) are age-dependent stem cell malignancies.",
		"我们提出了一种新的数据处理方法，本研究ではデータを解析した。",
		"word'数据 数据'word a'b'c 'a' a' 'b x'\xff y'\u0301z",
		strings.Repeat("generalization connections running ", 40),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	return cases
}

// TestTokensIn checks that TokensIn gives Tokens with the terms not asked
// for left empty (and not stopwords), on the mixed texts with terms drawn
// from their own tokens, a stopword among them, and terms they do not hold.
func TestTokensIn(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range mixedTexts() {
		all := Tokens(s)
		terms := map[string]float64{"absent": 1, "数据": 1, "the": 1}
		for _, tok := range all {
			if r.IntN(3) == 0 {
				terms[tok.Term] = 1
			}
		}
		want := make([]Token, len(all))
		for i, tok := range all {
			if _, ok := terms[tok.Term]; !ok {
				tok.Term, tok.Stop = "", false
			}
			want[i] = tok
		}
		if diff := cmp.Diff(want, TokensIn(s, terms)); diff != "" {
			t.Fatalf("TokensIn(%q, %v) (-want +got):\n%s", s, terms, diff)
		}
	}
}

// TestStemKeepsFirstLetter checks what TokensIn relies on: the stem of
// every lower-case word of up to four letters, and of words made of a
// letter and the suffixes the rules rewrite, starts with the word's first
// letter.
func TestStemKeepsFirstLetter(t *testing.T) {
	check := func(w string) {
		if st := Stem(w); st == "" || st[0] != w[0] {
			t.Fatalf("Stem(%q) = %q", w, st)
		}
	}
	var word func(prefix string, n int)
	word = func(prefix string, n int) {
		if prefix != "" {
			check(prefix)
		}
		if n == 0 {
			return
		}
		for c := byte('a'); c <= 'z'; c++ {
			word(prefix+string(c), n-1)
		}
	}
	word("", 4)
	suffixes := []string{"sses", "ies", "ss", "s", "eed", "ed", "ing", "y", "ational", "tional",
		"enci", "anci", "izer", "abli", "alli", "entli", "eli", "ousli", "ization", "ation", "ator",
		"alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "icate", "ative",
		"alize", "iciti", "ical", "ful", "ness", "al", "ance", "ence", "er", "ic", "able", "ible",
		"ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll"}
	for c := byte('a'); c <= 'z'; c++ {
		for _, a := range suffixes {
			check(string(c) + a)
			for _, b := range suffixes {
				check(string(c) + a + b)
			}
		}
	}
}
