package textnorm

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/cases"
)

func TestFold(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ascii upper", "Hello World", "hello world"},
		{"ligature expands", "ﬁnance ﬂow ﬀ", "finance flow ff"},
		{"sharp s folds", "Straße", "strasse"},
		{"diacritics removed", "Café naïve Ångström", "cafe naive angstrom"},
		{"NFD input", "Cafe\u0301", "cafe"},
		{"kana voicing kept", "データ", "データ"},
		{"half-width kana", "ﾃﾞｰﾀ", "データ"},
		{"full-width latin", "ＡＢＣ１２", "abc12"},
		{"dotted capital I", "İstanbul", "istanbul"},
		{"greek", "ΑΒΓ", "αβγ"},
		{"han unchanged", "数据处理", "数据处理"},
		{"emoji unchanged", "ok 👍🏽", "ok 👍🏽"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fold(tt.in); got != tt.want {
				t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func terms(toks []Token) []string {
	var out []string
	for _, t := range toks {
		out = append(out, t.Term)
	}
	return out
}

func TestTokensTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"english stemmed", "Connected networks are connecting", []string{"connect", "network", "ar", "connect"}},
		{"possessive and contraction", "The cell's walls don't", []string{"the", "cell", "wall", "dont"}},
		{"digits and hyphens", "IL-6 levels, BC1 RNA 0.5", []string{"il", "6", "level", "bc1", "rna", "0", "5"}},
		{"ligature and accents", "Eﬃcient café", []string{"effici", "cafe"}},
		{"han unigrams and bigrams", "数据处理", []string{"数", "数据", "据", "据处", "处", "处理", "理"}},
		{"kana run", "データ", []string{"デ", "デー", "ー", "ータ", "タ"}},
		{"mixed scripts", "GPU加速", []string{"gpu", "加", "加速", "速"}},
		{"hangul", "한국어", []string{"한", "한국", "국", "국어", "어"}},
		{"punctuation only", "—!?", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, terms(Tokens(tt.in))); diff != "" {
				t.Errorf("Tokens(%q) terms (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestTokensOffsetsAndPositions(t *testing.T) {
	in := "Ｔhe ﬁsh, 数据!"
	want := []Token{
		{Term: "the", Start: 0, End: 5, Pos: 0, Stop: true},
		{Term: "fish", Start: 6, End: 11, Pos: 1},
		{Term: "数", Start: 13, End: 16, Pos: 2},
		{Term: "数据", Start: 13, End: 19, Pos: 2},
		{Term: "据", Start: 16, End: 19, Pos: 3},
	}
	got := Tokens(in)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tokens(%q) (-want +got):\n%s", in, diff)
	}
	if s := in[got[1].Start:got[1].End]; s != "ﬁsh" {
		t.Errorf("verbatim span of fish = %q", s)
	}
}

func TestStem(t *testing.T) {
	tests := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress",
		"cats": "cat", "feed": "feed", "agreed": "agre", "plastered": "plaster",
		"bled": "bled", "motoring": "motor", "sing": "sing", "conflated": "conflat",
		"troubled": "troubl", "sized": "size", "hopping": "hop", "tanned": "tan",
		"falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat",
		"conditional": "condit", "rational": "ration", "digitizer": "digit",
		"vietnamization": "vietnam", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "adjustment": "adjust", "adoption": "adopt",
		"effective": "effect", "generalizations": "gener", "oscillators": "oscil",
		"connection": "connect", "connections": "connect", "probate": "probat",
		"rate": "rate", "cease": "ceas", "controlling": "control", "roll": "roll",
		"replacement": "replac", "allowance": "allow", "irritant": "irrit",
		"is": "is", "a": "a", "café": "café", "h2o": "h2o",
	}
	for in, want := range tests {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocate(t *testing.T) {
	tests := []struct {
		name        string
		text, quote string
		want        []string // verbatim matched spans
	}{
		{"exact", "alpha beta gamma", "beta", []string{"beta"}},
		{"ligature in text", "the ﬁrst ﬁnding", "first finding", []string{"ﬁrst ﬁnding"}},
		{"ligature in quote", "the first finding", "ﬁrst", []string{"first"}},
		{"case and diacritics", "Le CAFÉ noir", "café", []string{"CAFÉ"}},
		{"NFD text", "Le cafe\u0301 noir", "café noir", []string{"cafe\u0301 noir"}},
		{"whitespace runs", "deep\n\n  learning\tmodels", "deep learning models", []string{"deep\n\n  learning\tmodels"}},
		{"quote whitespace", "deep learning", "  deep\nlearning \n", []string{"deep learning"}},
		{"hyphen dropped", "a hyphen-\nation rule", "hyphenation rule", []string{"hyphen-\nation rule"}},
		{"hyphen kept", "the state-of-the-\nart model", "state-of-the-art model", []string{"state-of-the-\nart model"}},
		{"hyphen kept with space", "the state-of-the-\nart model", "state-of-the- art", []string{"state-of-the-\nart"}},
		{"hyphen before line break and spaces", "hyphen- \n  ation", "hyphenation", []string{"hyphen- \n  ation"}},
		{"quote has hyphenated break", "the hyphenation rule", "hyphen-\nation", []string{"hyphenation"}},
		{"soft hyphen", "hyphen\u00ADation", "hyphenation", []string{"hyphen\u00ADation"}},
		{"soft hyphen at line end", "hyphen\u00AD\nation", "hyphen-ation", []string{"hyphen\u00AD\nation"}},
		{"PDF soft hyphen byte", "hyphen\x02\nation", "hyphenation", []string{"hyphen\x02\nation"}},
		{"plain hyphen not hyphenation", "a well-known case", "wellknown", nil},
		{"hyphen and space no break", "well- known", "wellknown", nil},
		{"unicode hyphen", "state\u2010of\u2010the\u2010art", "state-of-the-art", []string{"state\u2010of\u2010the\u2010art"}},
		{"cjk line break", "我们提出了一种新的数据\n处理方法。", "数据处理方法", []string{"数据\n处理方法"}},
		{"cjk spaces optional", "使用 GPU 进行训练", "使用GPU进行", []string{"使用 GPU 进行"}},
		{"japanese", "本研究では\nデータを解析した", "データを解析", []string{"データを解析"}},
		{"full-width comma", "数据，\n处理", "数据，处理", []string{"数据，\n处理"}},
		{"not found", "alpha beta", "gamma", nil},
		{"word order matters", "alpha beta", "beta alpha", nil},
		{"several matches", "to be or not to be", "to be", []string{"to be", "to be"}},
		{"ligature partial", "oﬃce", "ff", []string{"ﬃ"}},
		{"emoji", "ok 👍🏽 done", "👍🏽 DONE", []string{"👍🏽 done"}},
		{"invalid utf-8 text", "a\xffb c", "b c", []string{"b c"}},
		{"empty quote", "alpha", " \n", nil},
		{"empty text", "", "alpha", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range Locate(tt.text, tt.quote) {
				got = append(got, tt.text[m.Start:m.End])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Locate(%q, %q) (-want +got):\n%s", tt.text, tt.quote, diff)
			}
		})
	}
}

func TestLocateManyHyphenMarks(t *testing.T) {
	// A text of hyphenated line ends must not make matching blow up.
	text := strings.Repeat("ab-\ncd-\n", 5000)
	quote := strings.Repeat("ab-cd", 200) + "x"
	if got := Locate(text, quote); got != nil {
		t.Errorf("unexpected match %v", got)
	}
	if got := len(Locate(text, "abcd")); got != 5000 {
		t.Errorf("matches of abcd = %d, want 5000", got)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in      string
		n       int
		want    string
		wantCut bool
	}{
		{"hello", 10, "hello", false},
		{"hello", 5, "hello", false},
		{"hello", 3, "hel", true},
		{"数据处理", 2, "数据", true},
		{"数据处理", 4, "数据处理", false},
		{"a👍b", 2, "a👍", true},
		{"\xff\xfeab", 3, "\xff\xfea", true},
		{"abc", 0, "", true},
		{"abc", -1, "", true},
		{"", 0, "", false},
	}
	for _, tt := range tests {
		got, cut := Truncate(tt.in, tt.n)
		if got != tt.want || cut != tt.wantCut {
			t.Errorf("Truncate(%q, %d) = %q, %v; want %q, %v", tt.in, tt.n, got, cut, tt.want, tt.wantCut)
		}
	}
}

// checkSpan fails unless [start, end) is a non-empty span of s whose ends
// are character boundaries as a range loop decodes s (an invalid byte is a
// character of its own).
func checkSpan(t *testing.T, s string, start, end int) {
	t.Helper()
	if start < 0 || end > len(s) || start >= end {
		t.Fatalf("span [%d,%d) out of bounds for %q", start, end, s)
	}
	onBoundary := func(off int) bool {
		for i := range s {
			if i == off {
				return true
			}
		}
		return off == len(s)
	}
	if !onBoundary(start) || !onBoundary(end) {
		t.Fatalf("span [%d,%d) of %q is not on character boundaries", start, end, s)
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Hello ﬁne world", "数据处理 データ", "a\xffb", "e\u0301\u0301\u0301", "İ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := -1
		toks := Tokens(s)
		if diff := cmp.Diff(tokensWhole(s), toks); diff != "" {
			t.Fatalf("Tokens(%q) (-whole text +a word at a time):\n%s", s, diff)
		}
		// Every other term asked for: TokensIn blanks the rest.
		terms := map[string]bool{}
		for i, tok := range toks {
			if i%2 == 0 {
				terms[tok.Term] = true
			}
		}
		in := TokensIn(s, terms)
		if len(in) != len(toks) {
			t.Fatalf("TokensIn(%q): %d tokens, Tokens %d", s, len(in), len(toks))
		}
		for i, tok := range toks {
			if !terms[tok.Term] {
				tok.Term, tok.Stop = "", false
			}
			if in[i] != tok {
				t.Fatalf("TokensIn(%q) token %d = %+v, want %+v", s, i, in[i], tok)
			}
		}
		for _, tok := range toks {
			checkSpan(t, s, tok.Start, tok.End)
			if tok.Term == "" {
				t.Fatalf("empty term in %q", s)
			}
			if tok.Pos < prev {
				t.Fatalf("positions go back in %q", s)
			}
			prev = tok.Pos
		}
	})
}

func FuzzLocate(f *testing.F) {
	f.Add("the state-of-the-\nart ﬁnding", "state-of-the-art finding")
	f.Add("数据\n处理", "数据处理")
	f.Add("a\xff\u00ad\nb", "ab")
	f.Fuzz(func(t *testing.T, text, quote string) {
		last := 0
		for _, m := range Locate(text, quote) {
			checkSpan(t, text, m.Start, m.End)
			if m.Start < last {
				t.Fatalf("overlapping or unordered match %v in %q", m, text)
			}
			last = m.End
		}
		// A verbatim substring made of whole normalisation segments is
		// always found.
		i := strings.Index(text, quote)
		if i < 0 || !utf8.ValidString(text) || len(normalize(quote, false).b) == 0 {
			return
		}
		if Fold(text[:i])+Fold(quote)+Fold(text[i+len(quote):]) != Fold(text) {
			return
		}
		if len(Locate(text, quote)) == 0 {
			t.Fatalf("verbatim %q not found in %q", quote, text)
		}
	})
}

func TestStableRunesFoldToThemselves(t *testing.T) {
	for _, rg := range [][2]rune{{0x4E00, 0x9FFF}, {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0xAC00, 0xD7A3}} {
		for r := rg[0]; r <= rg[1]; r++ {
			s := string(r)
			c := casers.Get().(*cases.Caser)
			got := foldSegment(s, c)
			casers.Put(c)
			if got != s {
				t.Fatalf("fold of %U = %q, want itself", r, got)
			}
		}
	}
}
