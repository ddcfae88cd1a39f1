package bib

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []*Entry
	}{
		{
			name: "braces, quotes, numbers, macros and concatenation",
			in: `@string{acl = "Proceedings of " # {ACL}}
@Article{k1, Title = {A {Nested} Title}, Author="Doe, Jane and {Ministry of Truth}",
  year = 2020, month = feb, booktitle = acl # " 2020", note = "a {"quoted"} word",}`,
			want: []*Entry{{Type: "article", Key: "k1", Line: 2, Fields: map[string]string{
				"title": "A {Nested} Title", "author": "Doe, Jane and {Ministry of Truth}", "year": "2020", "month": "Feb",
				"booktitle": "Proceedings of ACL 2020", "note": `a {"quoted"} word`,
			}}},
		},
		{
			name: "comments and parentheses",
			in: "% @article{commented, title={No}}\nSome text @comment{with {braces}} more\n@comment(x)\n" +
				"@misc(k2, title = {Paren (entry)})\n@preamble{\"\\newcommand{\\x}{y}\"}\n",
			want: []*Entry{{Type: "misc", Key: "k2", Line: 4, Fields: map[string]string{"title": "Paren (entry)"}}},
		},
		{
			name: "an entry without fields, a duplicate field keeps the first",
			in:   "@misc{bare}\n@misc{k3, title={One}, TITLE={Two}}",
			want: []*Entry{
				{Type: "misc", Key: "bare", Line: 1, Fields: map[string]string{}},
				{Type: "misc", Key: "k3", Line: 2, Fields: map[string]string{"title": "One"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Parse (-want +got):\n%s", d)
			}
		})
	}
}

// Hostile or broken input gets an error naming the line, never a panic, a
// hang or a partial result.
func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unterminated brace", "@misc{k,\n title = {open", "line 2: a brace opened here is never closed"},
		{"unterminated quote", "@misc{k, title = \"open", "a quote opened here is never closed"},
		{"unbalanced closing brace", "@misc{k, title = \"a}b\"}", "unbalanced '}'"},
		{"deep nesting", "@misc{k, title = " + strings.Repeat("{", 100) + strings.Repeat("}", 100) + "}", "nested deeper than 64"},
		{"undefined macro", "@misc{k, journal = nosuch}", `undefined @string "nosuch"`},
		{"no key", "@misc{, title={x}}", "has no key"},
		{"no equals", "@misc{k, title {x}}", `field "title" has no '='`},
		{"junk after a value", "@misc{k, title = {x} {y}}", "is followed by"},
		{"not closed", "@misc{k, title = {x}", "is not closed"},
		{"no type", "@{k}", "not followed by an entry type"},
		{"no delimiter", "@misc k", "is not followed by '{' or '('"},
		{"NUL", "@misc{k, title={a\x00b}}", "NUL"},
		{"not UTF-8", "@misc{k, title={\xff}}", "not UTF-8"},
		{"expanding macros", "@string{a = {" + strings.Repeat("x", 1000) + "}}\n" + doubling(10) + strings.Repeat("@misc{k, t = a10}\n", 100), "macros expanded, exceed"},
		{"huge value", "@string{a = {" + strings.Repeat("x", 700_000) + "}}\n@misc{k, t = a # a}", "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse = %v, %v; want an ErrSyntax error containing %q", got, err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
		})
	}
}

func TestFiles(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"papers/x.pdf", []string{"papers/x.pdf"}},
		{"a.pdf;b.PDF", []string{"a.pdf", "b.PDF"}},
		{"Full Text PDF:storage/AB/x y.pdf:application/pdf;Snapshot:storage/AB/page.html:text/html", []string{"storage/AB/x y.pdf"}},
		{":papers/x.pdf:PDF", []string{"papers/x.pdf"}},
		{`:C\:/Users/me/x.pdf:PDF`, []string{"C:/Users/me/x.pdf"}},
		{`Notes\; draft:dir/a\:b.pdf:application/pdf`, []string{"dir/a:b.pdf"}},
		{"notes.txt", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, Files(tt.in)); d != "" {
			t.Errorf("Files(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestAuthorsAndText(t *testing.T) {
	if d := cmp.Diff([]string{"Jane Doe", "Ministry of Truth", "Jörg Müller", "Ludwig van Beethoven"},
		Authors(`Doe, Jane and {Ministry of Truth} AND M{\"u}ller, J\"{o}rg and van Beethoven, Ludwig and others`)); d != "" {
		t.Errorf("Authors (-want +got):\n%s", d)
	}
	for in, want := range map[string]string{
		`{\'E}cole Polytechnique --- Paris`: "École Polytechnique — Paris",
		`Pages 1--10 \& more~text`:          "Pages 1–10 & more text",
		`Stra{\ss}e \c{c}a $x$ \emph{em}`:   "Straße ça x em",
		"  two\n lines ":                    "two lines",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// Parse never panics or hangs, and its errors are one line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"@article{k, title = {A {B}}, author = \"C and D\", year = 2020, file = {x:a.pdf:pdf}}",
		"@string{a = \"x\"} @misc(k, t = a # {y})",
		"@comment{ {x} } % c\n@preamble{\"p\"}",
		"@misc{k, t = {", "@misc{k, t = \"a{\"}", "@@@", "@misc{k,,,}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := Parse(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %q", err)
			}
			return
		}
		for _, e := range entries {
			Authors(e.Fields["author"])
			Files(e.Fields["file"])
			Text(e.Fields["title"])
		}
	})
}

// doubling defines macros a1 … an, each twice the one before.
func doubling(n int) string {
	var b strings.Builder
	prev := "a"
	for i := 1; i <= n; i++ {
		name := "a" + strconv.Itoa(i)
		b.WriteString("@string{" + name + " = " + prev + " # " + prev + "}\n")
		prev = name
	}
	return b.String()
}

// BenchmarkParse parses an export of 2,000 entries shaped as Zotero writes
// them (about 1.3 MB).
func BenchmarkParse(b *testing.B) {
	var s strings.Builder
	s.WriteString("@string{nips = {Advances in Neural Information Processing Systems}}\n")
	for i := range 2000 {
		fmt.Fprintf(&s, `@inproceedings{key%d,
	title = {A {Study} of Sparse Attention, Part %d},
	author = {M{\"u}ller, J{\"o}rg and Okafor, Mira and Lindqvist, Tomas},
	booktitle = nips,
	year = {2024},
	month = jan,
	doi = {10.5555/x.%d},
	keywords = {sparse-attention, long-documents},
	abstract = {We study attention over long documents. %s},
	file = {Full Text PDF:storage/K%06d/Muller - 2024.pdf:application/pdf;Snapshot:storage/K%06d/page.html:text/html},
}

`, i, i, i, strings.Repeat("Blocks of tokens attend densely inside. ", 10), i, i)
	}
	src := s.String()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
