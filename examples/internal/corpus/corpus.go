// Package corpus locates the shared test corpora (real PDFs and their
// references) for the examples' tests. They live beside the repository
// checkout in ../shared/corpus, are test data only and never part of a
// module.
//
// Tests call Dir: it skips the test when the corpus is absent (a downstream
// clone) and fails it when CI=true, where the corpus must be present; with
// -short it skips the test, so that `go test -short` is a fast path.
package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Root returns the absolute path of the corpus: ../shared/corpus beside the
// nearest folder above the working directory that holds a go.mod and has
// it. The examples' module lies inside the repository, so the search goes
// on past its go.mod to the repository's.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	modules := 0
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			modules++
			c := filepath.Join(dir, "..", "shared", "corpus")
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return filepath.Clean(c), nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			if modules == 0 {
				return "", errors.New("corpus: no go.mod above the working directory")
			}
			return "", errors.New("corpus: ../shared/corpus not found beside the repository")
		}
		dir = parent
	}
}

// Dir returns the absolute path of a sub-folder of the corpus (for example
// "pdfs"). When the corpus is absent it skips the test, or fails it when
// the environment variable CI is "true".
func Dir(tb testing.TB, sub string) string {
	tb.Helper()
	if testing.Short() {
		// The corpus gates read real papers: not the fast path.
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
