package safefs

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical form when err is nil
		err  error
	}{
		{"papers/x", "papers/x", nil},
		{"papers//x/./", "papers/x", nil},
		{"./papers", "papers", nil},
		{".", ".", nil},
		{"./", ".", nil},
		// '%' is literal: percent-decoding belongs to the citation URI parser.
		{"100%.md", "100%.md", nil},
		{"%2e%2e/%2fetc", "%2e%2e/%2fetc", nil},
		// No Unicode normalisation: these are plain names, not "..", "/" or hidden.
		{"a/\u2025/b", "a/\u2025/b", nil},         // TWO DOT LEADER, NFKC ".."
		{"a/\uff0fb", "a/\uff0fb", nil},           // FULLWIDTH SOLIDUS, NFKC "/"
		{"\uff0eagentero", "\uff0eagentero", nil}, // FULLWIDTH FULL STOP
		{"cafe\u0301.md", "cafe\u0301.md", nil},   // NFD stays NFD
		{"caf\u00e9.md", "caf\u00e9.md", nil},     // NFC stays NFC
		{"a..b/c..", "a..b/c..", nil},

		{"", "", fs.ErrInvalid},
		{"a\x00b", "", fs.ErrInvalid},
		{"a/\x91.md", "", fs.ErrInvalid},
		{`a\b`, "", fs.ErrInvalid},
		{`..\a`, "", fs.ErrInvalid},
		{strings.Repeat("a/", 3000), "", fs.ErrInvalid},
		{"/etc/passwd", "", ErrOutside},
		{"//server/share", "", ErrOutside},
		{"C:/x", "", ErrOutside},
		{"..", "", ErrOutside},
		{"../a", "", ErrOutside},
		{"a/..", "", ErrOutside},
		{"a/../b", "", ErrOutside},
		{"a/b/../../..", "", ErrOutside},
		{".agentero", "", ErrPrivate},
		{".agentero/context-sessions/1/grant.json", "", ErrPrivate},
		{"./.Agentero/x", "", ErrPrivate},
		{".git/config", "", ErrHidden},
		{"papers/x/.DS_Store", "", ErrHidden},
		{"...", "", ErrHidden},
	}
	for _, tt := range tests {
		got, err := Clean(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("Clean(%q) = %q, %v; want error %v", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Clean(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzClean checks the invariants callers rely on for any accepted path.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"papers/x", "../a", "a/./b//", ".agentero", "%2e%2e", "a\\b", "/abs", "caf\u00e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Clean(in)
		if err != nil {
			if strings.HasPrefix(in, "/") && strings.Contains(err.Error(), in) && len(in) > 1 {
				t.Fatalf("error %q repeats the absolute path", err)
			}
			return
		}
		if !fs.ValidPath(c) {
			t.Fatalf("Clean(%q) = %q, not a valid fs path", in, c)
		}
		if strings.ContainsAny(c, "\\\x00") {
			t.Fatalf("Clean(%q) = %q contains a backslash or NUL", in, c)
		}
		for elem := range strings.SplitSeq(c, "/") {
			if elem == ".." || (c != "." && strings.HasPrefix(elem, ".")) {
				t.Fatalf("Clean(%q) = %q has element %q", in, c, elem)
			}
		}
		if again, err := Clean(c); err != nil || again != c {
			t.Fatalf("Clean(Clean(%q)) = %q, %v; want %q", in, again, err, c)
		}
	})
}
