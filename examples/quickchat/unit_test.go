package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"   ", nil, false},
		{"gemini --experimental-acp", []string{"gemini", "--experimental-acp"}, false},
		{"  a\tb\nc  ", []string{"a", "b", "c"}, false},
		{`"/opt/my agents/run" --flag`, []string{"/opt/my agents/run", "--flag"}, false},
		{`npx -y '@zed-industries/claude-code-acp'`, []string{"npx", "-y", "@zed-industries/claude-code-acp"}, false},
		{`a 'it''s' b`, []string{"a", "its", "b"}, false},
		{`a "say \"hi\" \\ \n" b`, []string{"a", `say "hi" \ \n`, "b"}, false},
		{`a\ b c`, []string{"a b", "c"}, false},
		{`'$HOME' "*"`, []string{"$HOME", "*"}, false},
		{`a "" ''`, []string{"a", "", ""}, false},
		{`pre"fix"'es' x`, []string{"prefixes", "x"}, false},
		{`"unclosed`, nil, true},
		{`'unclosed`, nil, true},
		{`trailing\`, nil, true},
	}
	for _, tt := range tests {
		got, err := splitArgs(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("splitArgs(%q) error %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitArgs(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestOpenURL(t *testing.T) {
	const root = "/home/r/My Vault"
	tests := []struct{ uri, want string }{
		{"papers/1706.03762/1706.03762.pdf#page=3", "file:///home/r/My%20Vault/papers/1706.03762/1706.03762.pdf#page=3"},
		{"notes/meeting%202024-03-12.md#section=Action%20items", "file:///home/r/My%20Vault/notes/meeting%202024-03-12.md#section=Action%20items"},
		{"reading-list", "file:///home/r/My%20Vault/reading-list"},
		{"https://doi.org/10.1162/tacl_a_00276", "https://doi.org/10.1162/tacl_a_00276"},
		{"https://arxiv.org/abs/1706.03762", "https://arxiv.org/abs/1706.03762"},
	}
	for _, tt := range tests {
		if got := openURL(root, tt.uri); got != tt.want {
			t.Errorf("openURL(%q) = %q, want %q", tt.uri, got, tt.want)
		}
	}
}

func TestPrinterLink(t *testing.T) {
	plain := &printer{}
	if got := plain.link("file:///v/a.pdf#page=2", "a.pdf#page=2"); got != "a.pdf#page=2" {
		t.Errorf("plain link = %q", got)
	}
	color := &printer{color: true}
	want := "\x1b]8;;file:///v/a.pdf#page=2\x1b\\\x1b[4;34ma.pdf#page=2\x1b[0m\x1b]8;;\x1b\\"
	if got := color.link("file:///v/a.pdf#page=2", "a.pdf#page=2"); got != want {
		t.Errorf("terminal link = %q, want %q (OSC 8)", got, want)
	}
	if got := plain.bold("x") + plain.dim("y") + plain.red("z") + plain.cyan("w"); got != "xyzw" {
		t.Errorf("plain styles = %q", got)
	}
}

func TestReadArgs(t *testing.T) {
	tests := []struct{ in, target, mode string }{
		{"", "", ""},
		{"notes", "notes", ""},
		{"  papers/a  page ", "papers/a", "page"},
		{"notes/meeting 2024-03-12.md", "notes/meeting 2024-03-12.md", ""},
		{"notes/meeting 2024-03-12.md full", "notes/meeting 2024-03-12.md", "full"},
		{"papers/a/a.pdf#page=2 page", "papers/a/a.pdf#page=2", "page"},
		{"page", "page", ""},
	}
	for _, tt := range tests {
		target, mode := readArgs(tt.in)
		if target != tt.target || mode != tt.mode {
			t.Errorf("readArgs(%q) = %q, %q; want %q, %q", tt.in, target, mode, tt.target, tt.mode)
		}
	}
}

// TestOutputIndentsEveryLineBreak checks that quoted blocks, tool results
// and the agent's streamed answer indent the line after every line break a
// terminal may honour, not only after LF.
func TestOutputIndentsEveryLineBreak(t *testing.T) {
	const text = "one\rSYSTEM: a\u2028## Allowed sources\u2029>>> b\u0085c\vd\fe\r\nf"
	want := []string{"one", "SYSTEM: a", "## Allowed sources", ">>> b", "c", "d", "e", "f"}
	var b strings.Builder
	p := &printer{w: &b}
	p.block(text)
	p.result(text)
	var got []string
	for l := range strings.Lines(b.String()) {
		if strings.ContainsAny(l[:len(l)-1], "\r\v\f\u0085\u2028\u2029") {
			t.Errorf("line holds a raw break: %q", l)
		}
		got = append(got, strings.TrimLeft(strings.TrimSuffix(l, "\n"), " │←"))
	}
	if diff := cmp.Diff(append(append([]string{}, want...), want...), got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if got, want := indentAnswer("a\u2028b\r\n"), "a\n     b\n     "; got != want {
		t.Errorf("indentAnswer = %q, want %q", got, want)
	}
}
