package pdf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// extractBoth extracts data through the lazy reader (as Extract does)
// and through pdfcpu alone, and reports whether the lazy reader served
// the file itself.
func extractBoth(t *testing.T, data []byte) (lazyDoc, pdfcpuDoc *Document, lazyErr, pdfcpuErr error, served bool) {
	t.Helper()
	o := (*Options)(nil).withDefaults()
	_, served = extractLazy(context.Background(), data, o)
	lazyDoc, lazyErr = Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	lazyObjects = false
	defer func() { lazyObjects = true }()
	pdfcpuDoc, pdfcpuErr = Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	return
}

// TestLazyMatchesPdfcpu checks that every corpus file and every fixture
// extracts identically through the lazy reader and through pdfcpu, and
// that the lazy reader serves the corpus files itself.
func TestLazyMatchesPdfcpu(t *testing.T) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*.pdf"))
	files := fixtures
	corpusFiles, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "pdfs"), "*.pdf"))
	files = append(files, corpusFiles...)
	served := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lz, pc, lerr, perr, ok := extractBoth(t, data)
		if ok {
			served++
		} else {
			t.Logf("%s: read through pdfcpu", filepath.Base(f))
		}
		if (lerr == nil) != (perr == nil) || lerr != nil && lerr.Error() != perr.Error() {
			t.Errorf("%s: err %v, pdfcpu's %v", filepath.Base(f), lerr, perr)
			continue
		}
		if diff := cmp.Diff(pc, lz); diff != "" {
			t.Errorf("%s: lazy reader differs from pdfcpu (-pdfcpu +lazy):\n%.3000s", filepath.Base(f), diff)
		}
	}
	t.Logf("%d of %d files served by the lazy reader", served, len(files))
	if len(corpusFiles) > 0 && served < len(corpusFiles) {
		t.Errorf("the lazy reader served %d of %d files, want every corpus file", served, len(files))
	}
}
