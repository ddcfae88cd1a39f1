package object

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// FuzzLazyParser checks the lazy reader's parser against pdfcpu's: on
// any text it parses, pdfcpu's parser gives the same object.
func FuzzLazyParser(f *testing.F) {
	for _, s := range []string{
		"<< /A [1 -2 +3 4.5 -.5 (a\\)b) <48656c6c6f> <abc> /N#41me true false null] /R 7 0 R >>",
		"[1 0 R 2 0 obj 3 R]", "<< /Length 5 0 R /Filter /FlateDecode >>", "(nested (paren) \\( here)",
		"[/a/b/c<00ff>(x)[]<<>>]", "12 0 R", "-0.0", "[.5 5. +.5]", "<< /K 1 2 >>", "[1 2 R]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := parser{b: b, end: len(b), ok: true}
		got := p.value()
		if !p.ok {
			return
		}
		s := string(b)
		want, err := model.ParseObjectContext(context.Background(), &s, 0, MaxObjectNesting)
		if err != nil {
			t.Fatalf("%q: parsed to %v; pdfcpu: %v", b, got, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-pdfcpu +lazy):\n%s", b, diff)
		}
		if rest := string(b[p.pos:]); rest != s {
			t.Fatalf("%q: the parser left %q, pdfcpu %q", b, rest, s)
		}
	})
}
