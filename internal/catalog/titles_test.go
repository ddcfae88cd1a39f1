package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A title learnt of a PDF is kept with the catalogue: the next process
// knows it without reading the PDF, until the PDF changes; a cache whose
// titles are damaged is not read at all.
func TestLearntTitleCached(t *testing.T) {
	dir := cacheVault(t)
	cache := t.TempDir()
	const pdf, loose = "papers/2401.01234/2401.01234.pdf", "downloads/x.pdf"
	write(t, dir, loose, "%PDF-1.4")
	open := func() *Vault {
		t.Helper()
		v, err := Open(dir, &Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Catalogue(context.Background()); err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := open()
	for p, title := range map[string]string{pdf: "Strided Block\nAttention", loose: ""} {
		st, err := v.FS().Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		v.LearnTitle(p, st, title)
	}
	if got, ok := v.LearntTitle(pdf); !ok || got != "Strided Block Attention" {
		t.Errorf("LearntTitle = %q, %v; want the title on one line", got, ok)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}

	next := open()
	defer next.Close()
	if got, ok := next.LearntTitle(pdf); !ok || got != "Strided Block Attention" {
		t.Errorf("a new process: LearntTitle = %q, %v; want the cached title", got, ok)
	}
	if got, ok := next.LearntTitle(loose); !ok || got != "" {
		t.Errorf("a PDF without a title: LearntTitle = %q, %v; want known to have none", got, ok)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(pdf)), later, later); err != nil {
		t.Fatal(err)
	}
	if got, ok := next.LearntTitle(pdf); ok {
		t.Errorf("a changed PDF: LearntTitle = %q, true; want it learnt again", got)
	}

	for name, tail := range map[string][]byte{
		"a count beyond the file": {0x7e},
		"a path outside the form": append([]byte{2, 5}, "../x.pdf"...),
	} {
		body, _ := cacheBody(t, dir)
		if parsed, _ := parseCatalogue(append(body, tail...)); parsed != nil {
			t.Errorf("%s: a damaged titles section was read", name)
		}
	}
}
