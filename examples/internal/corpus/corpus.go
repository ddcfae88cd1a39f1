// Package corpus locates the shared test data for the examples' tests: the
// corpus (real PDFs and their references) and the Zotero fixture. They
// live beside the repository checkout in ../shared, are test data only
// and never part of a module.
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
func Root() (string, error) { return shared("corpus") }

// shared returns ../shared/name beside the nearest folder above the working
// directory that holds a go.mod and has it.
func shared(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	modules := 0
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			modules++
			c := filepath.Join(dir, "..", "shared", name)
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return filepath.Clean(c), nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			if modules == 0 {
				return "", errors.New("corpus: no go.mod above the working directory")
			}
			return "", errors.New("corpus: ../shared/" + name + " not found beside the repository")
		}
		dir = parent
	}
}

// ZoteroDev returns the absolute folder of the shared Zotero fixture,
// ../shared/zotero/dev: one library in three layouts with its attachments
// and a truth.json. When it is absent it skips the test, or fails it when
// the environment variable CI is "true".
func ZoteroDev(tb testing.TB) string {
	tb.Helper()
	dir, err := shared(filepath.Join("zotero", "dev"))
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "truth.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("the Zotero fixture is missing: %v", err)
		}
		tb.Skip("the Zotero fixture ../shared/zotero/dev is absent")
	}
	return dir
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
