package pdfcache

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/researchctx/researchctx/internal/pdf"
)

// fixture returns one of package pdf's small fixture PDFs (its testdata,
// which its TestFixtures keeps in step with the code that makes them).
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "pdf", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustExtract extracts data without the cache; every page must read.
func mustExtract(t testing.TB, data []byte) *pdf.Document {
	t.Helper()
	d, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	for _, p := range d.Pages {
		if p.Err != nil {
			t.Fatalf("page %d: %v", p.Number, p.Err)
		}
	}
	return d
}
