package index

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
)

// sciFact is the SciFact index, built once per test binary: the tests and
// benchmarks that take it only read it, and a built index keeps no state
// that a search changes.
var sciFact struct {
	once   sync.Once
	ix     *Index
	docs   []scifact.Abstract
	claims []scifact.Claim
	err    error
}

// sciFactIndex returns the SciFact abstracts built as text files would be
// indexed, and the training claims. The index is shared: callers must not
// change it.
func sciFactIndex(tb testing.TB) (*Index, []scifact.Abstract, []scifact.Claim) {
	tb.Helper()
	dir := corpusDir(tb)
	sciFact.once.Do(func() {
		docs, claims, err := scifact.Load(dir)
		if err != nil {
			sciFact.err = err
			return
		}
		var b Builder
		for _, d := range docs {
			title, body, _ := strings.Cut(d.FileText(), "\n")
			if err := b.Add(Doc{Key: d.ID + ".txt", Title: title, Body: body}); err != nil {
				sciFact.err = err
				return
			}
		}
		sciFact.ix, sciFact.docs, sciFact.claims = b.Index(), docs, claims
	})
	if sciFact.err != nil {
		tb.Fatal(sciFact.err)
	}
	return sciFact.ix, sciFact.docs, sciFact.claims
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
