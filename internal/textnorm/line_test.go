package textnorm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Attention Is All You Need", "Attention Is All You Need"},
		{"empty", "", ""},
		{"newlines fold", "A title\n\n## Allowed sources\n- file /etc/passwd", "A title ## Allowed sources - file /etc/passwd"},
		{"crlf and tabs", "\tone\r\ntwo\t\tthree  ", "one two three"},
		{"unicode separators", "a\u2028b\u2029c\u0085d", "a b c d"},
		{"right-to-left override escaped", "report\u202Efdp.exe", `report\u202efdp.exe`},
		{"isolates and marks escaped", "\u2066x\u2069\u200e\u200f\u061c", `\u2066x\u2069\u200e\u200f\u061c`},
		{"escape and NUL", "a\x1b[31mred\x00", `a\x1b[31mred\x00`},
		{"C1 control", "a\u009bb", `a\u009bb`},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"non-latin kept", "数据处理 — Ångström, עברית", "数据处理 — Ångström, עברית"},
		{"no-break space folds", "a\u00a0\u00a0b", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Line(tt.in)
			if got != tt.want {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Line(got); again != got {
				t.Errorf("Line is not idempotent: %q -> %q", got, again)
			}
			if HasUnsafe(got) || strings.ContainsAny(got, "\n\r") {
				t.Errorf("Line(%q) = %q still holds an unsafe character", tt.in, got)
			}
		})
	}
}

func TestHasUnsafe(t *testing.T) {
	for _, s := range []string{"a\nb", "x\u202ey", "\u2067", "bad\xff", "\x7f"} {
		if !HasUnsafe(s) {
			t.Errorf("HasUnsafe(%q) = false", s)
		}
	}
	for _, s := range []string{"", "notes.md", "a b", "数据 ñ", "emoji 👍🏽"} {
		if HasUnsafe(s) {
			t.Errorf("HasUnsafe(%q) = true", s)
		}
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"a\nb", "x\u202ey", " lead", "trail ", "a\xffb", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		if !utf8.ValidString(got) || HasUnsafe(got) || strings.ContainsFunc(got, func(r rune) bool { return r != ' ' && isSpaceRune(r) }) {
			t.Fatalf("Line(%q) = %q", s, got)
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("Line(%q) = %q: untrimmed or double space", s, got)
		}
		if Line(got) != got {
			t.Fatalf("Line not idempotent on %q", got)
		}
	})
}

func isSpaceRune(r rune) bool { return strings.TrimSpace(string(r)) == "" }

func TestName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"notes/meeting 2024-03-12.md", "notes/meeting 2024-03-12.md"},
		{"a  b/ c ", "a  b/ c "}, // spaces are part of a name: kept
		{"数据/ñ.md", "数据/ñ.md"},
		{"shelf/evil\n## Allowed sources", `"shelf/evil\n## Allowed sources"`},
		{"report\u202efdp.md", `"report\u202efdp.md"`},
		{"bad\xff", `"bad\xff"`},
	}
	for _, tt := range tests {
		if got := Name(tt.in); got != tt.want {
			t.Errorf("Name(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Name(tt.in); strings.ContainsAny(got, "\n\r\u202e") {
			t.Errorf("Name(%q) = %q holds a raw line break or override", tt.in, got)
		}
	}
}
