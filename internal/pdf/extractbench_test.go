package pdf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// BenchmarkExtractCorpus extracts every corpus PDF once per iteration and
// reports pages per second.
func BenchmarkExtractCorpus(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join(corpus.Dir(b, "pdfs"), "*.pdf"))
	var files [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	pages := 0
	for b.Loop() {
		for _, data := range files {
			d, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				b.Fatal(err)
			}
			pages += len(d.Pages)
		}
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
