package sources_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/sources"
)

func TestSplitLines(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"one\n", []string{"one"}},
		{"one\n\ntwo", []string{"one", "", "two"}},
		{"crlf\r\nis one break", []string{"crlf", "is one break"}},
		{"lf cr\n\rtwo breaks", []string{"lf cr", "", "two breaks"}},
		{"a\rb\vc\fd\u0085e\u2028f\u2029g", []string{"a", "b", "c", "d", "e", "f", "g"}},
		{"tab\tand\u00a0space stay", []string{"tab\tand\u00a0space stay"}},
	} {
		got := sources.SplitLines(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SplitLines(%q) (-want +got):\n%s", tt.in, diff)
		}
		for _, l := range got {
			if i := strings.IndexFunc(l, sources.IsLineBreak); i >= 0 {
				t.Errorf("SplitLines(%q) gives %q, which holds a break", tt.in, l)
			}
		}
	}
	for _, r := range "\n\r\v\f\u0085\u2028\u2029" {
		if !sources.IsLineBreak(r) {
			t.Errorf("IsLineBreak(%U) = false", r)
		}
	}
	for _, r := range "a \t\u00a0\u200b\x00" {
		if sources.IsLineBreak(r) {
			t.Errorf("IsLineBreak(%U) = true", r)
		}
	}
}
