package index

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
)

// sciFactIndex builds the SciFact abstracts as text files would be indexed.
func sciFactIndex(tb testing.TB) (*Index, []scifact.Abstract, []scifact.Claim) {
	tb.Helper()
	docs, claims, err := scifact.Load(corpusDir(tb))
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

func corpusDir(tb testing.TB) string { return corpus.Dir(tb, "scifact") }

func encodeB(tb testing.TB, ix *Index) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[int(p*float64(len(d)-1))]
}

func BenchmarkRead(b *testing.B) {
	ix, _, _ := sciFactIndex(b)
	data := encodeB(b, ix)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// ignoreBlocks leaves out of a comparison of indexes the block table and
// states, which only an index read back has.
var ignoreBlocks = cmpopts.IgnoreFields(Index{}, "blockTerm", "blockSum", "checked")
