// Package vaultfix lays out Vault folders for tests: the sample Vault,
// whose papers are real PDFs, and folders of files given by content.
package vaultfix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/samplevault"
)

// Sample extracts the sample Vault into a folder named "vault" in a fresh
// temporary directory of the test and returns its absolute root. The
// folder beside it is the test's own, for grants, caches and logs.
func Sample(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// Write writes files, keyed by slash-separated path relative to dir, with
// their contents, making the folders they need. A path ending in "/" is a
// folder, made empty.
func Write(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
