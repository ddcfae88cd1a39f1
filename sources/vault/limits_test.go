package vault

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

func TestSplitUnits(t *testing.T) {
	line := strings.Repeat("word ", 3*units.MaxBytes/5) + "last"
	lines := strings.Repeat("a line of text\n", 3*units.MaxBytes/15)
	noSpace := strings.Repeat("数", units.MaxBytes) // 3 bytes each: no space at all
	for _, text := range []string{line, lines, noSpace, "short"} {
		in := []units.Unit{{Loc: sources.Location{Path: "p.md", Section: "S"}, Title: "T", Text: text}}
		out := units.Split(in)
		var joined strings.Builder
		for i, u := range out {
			if len(u.Text) > units.MaxBytes || u.Text == "" || !utf8.ValidString(u.Text) {
				t.Errorf("piece %d: %d bytes, valid %v", i, len(u.Text), utf8.ValidString(u.Text))
			}
			if u.Loc != in[0].Loc || u.Title != "T" {
				t.Errorf("piece %d lost its location or title: %+v", i, u.Loc)
			}
			if i+1 < len(out) && text != noSpace && !strings.HasSuffix(u.Text, " ") && !strings.HasSuffix(u.Text, "\n") {
				t.Errorf("piece %d is not cut at a word end: %q", i, u.Text[len(u.Text)-10:])
			}
			joined.WriteString(u.Text)
		}
		if joined.String() != text {
			t.Errorf("pieces do not add up to the text (%d units)", len(out))
		}
		if want := (len(text) + units.MaxBytes - 1) / units.MaxBytes; len(out) < want {
			t.Errorf("%d pieces, want at least %d", len(out), want)
		}
	}
}

// BenchmarkPaperSearchLongLine indexes and searches a paper whose PAPER.md
// is one line just under the 4 MiB cap, then searches it again: the first
// search tokenises 64 KiB pieces, not the whole line, and every search
// picks its passages from the pieces that matched.
func BenchmarkPaperSearchLongLine(b *testing.B) {
	root := b.TempDir()
	text := strings.Repeat("long words in one line ", (markdownMax-1024)/23) + "zebrafishsentinel"
	writeVaultFile(b, root, "papers/long/metadata.json", []byte(`{"title":"Long"}`))
	writeVaultFile(b, root, "papers/long/PAPER.md", []byte(text))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		l := paperLibrary(b, root)
		p := openPaper(b, l, "papers/long")
		for _, q := range []string{"zebrafishsentinel", "words line"} {
			res, err := p.Search(context.Background(), sources.Query{Text: q, Limit: 5, ExcerptChars: 300})
			if err != nil || len(res.Hits) == 0 {
				b.Fatalf("%q: %v, %d hits", q, err, len(res.Hits))
			}
		}
	}
}
