package index

import (
	"bytes"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/corpus"
	"github.com/researchctx/researchctx/internal/index/scifact"
)

// sciFactIndex builds the SciFact abstracts as text files would be indexed.
func sciFactIndex(tb testing.TB) (*Index, []scifact.Abstract, []scifact.Claim) {
	tb.Helper()
	docs, claims, err := scifact.Load(corpus.Dir(tb, "scifact"))
	if err != nil {
		tb.Fatal(err)
	}
	var b Builder
	for _, d := range docs {
		title, body, _ := strings.Cut(d.FileText(), "\n")
		if err := b.Add(Doc{Key: d.ID + ".txt", Title: title, Body: body}); err != nil {
			tb.Fatal(err)
		}
	}
	return b.Index(), docs, claims
}

func BenchmarkRead(b *testing.B) {
	ix, _, _ := sciFactIndex(b)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}
