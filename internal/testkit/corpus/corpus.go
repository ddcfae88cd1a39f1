// Package corpus locates the shared test corpora (real PDFs with pdftotext
// references, and the SciFact retrieval set) that live beside the project
// checkout in ../shared/corpus. They are test data only and never part of the
// module.
//
// Tests call Dir: it skips the test when the corpus is absent (a downstream
// clone) and fails it when CI=true, where the corpus must be present; with
// -short it skips the test, so that `go test -short ./...` is a fast path.
package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Root returns the absolute path of ../shared/corpus relative to the module
// root (the nearest parent folder of the working directory holding go.mod).
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "..", "shared", "corpus")
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return filepath.Clean(c), nil
			}
			return "", errors.New("corpus: ../shared/corpus not found beside the module root")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("corpus: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Dir returns the absolute path of a sub-folder of the corpus (for example
// "pdfs", "ref-pdftotext" or "scifact"). When the corpus is absent it skips
// the test, or fails it when the environment variable CI is "true".
func Dir(tb testing.TB, sub string) string {
	tb.Helper()
	if testing.Short() {
		// The corpus gates read hundreds of real pages: not the fast path.
		tb.Skipf("-short: skipping the corpus %q", sub)
	}
	root, err := Root()
	if err == nil {
		p := filepath.Join(root, sub)
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("corpus %q is required when CI=true: %v", sub, err)
	}
	tb.Skipf("corpus %q absent, skipping: %v", sub, err)
	return ""
}
