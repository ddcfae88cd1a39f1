// Package zoterofix locates the shared Zotero fixture, one library in three
// layouts (Zotero, Zotero7, Zotero-wal) with its attachments and a
// truth.json, that lives beside the project checkout in ../shared/zotero/dev.
// It is test data only and never part of the module.
package zoterofix

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Dev returns the absolute folder of the fixture. When it is absent it
// skips the test, or fails it when the environment variable CI is "true",
// where the fixture must be present.
func Dev(tb testing.TB) string {
	tb.Helper()
	dir, err := dev()
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

// dev returns ../shared/zotero/dev relative to the module root, the
// nearest parent folder of the working directory holding go.mod.
func dev() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "zotero", "dev"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("zoterofix: no go.mod above the working directory")
		}
		dir = parent
	}
}
