//go:build unix

package relations

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// TestCacheSpecialFiles checks that the cache is never read through a FIFO
// (which would hang) or a link leaving the Vault.
func TestCacheSpecialFiles(t *testing.T) {
	files := map[string]string{"papers/a/metadata.json": `{"title": "A"}`, ".agentero/keep": "x"}
	t.Run("fifo", func(t *testing.T) {
		v, dir := openVault(t, files)
		if err := syscall.Mkfifo(filepath.Join(dir, ".agentero", "citing-scan.json"), 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		r := mustRelations(t, New(v, nil), "papers/a")
		if r.Err == nil || !strings.Contains(r.Err.Error(), "not a regular file") {
			t.Errorf("Err = %v, want not a regular file", r.Err)
		}
	})
	t.Run("link outside", func(t *testing.T) {
		v, dir := openVault(t, files)
		outside := filepath.Join(t.TempDir(), "scan.json")
		vaultfix.Write(t, filepath.Dir(outside), map[string]string{"scan.json": scanDoc(t, obj{"papers/a": seed(obj{"title": "Leak", "doi": "10.1/leak"})})})
		if err := os.Symlink(outside, filepath.Join(dir, ".agentero", "citing-scan.json")); err != nil {
			t.Fatal(err)
		}
		r := mustRelations(t, New(v, nil), "papers/a")
		if len(r.CitedBy) != 0 || r.Err == nil {
			t.Errorf("CitedBy = %v, Err = %v; want nothing read and an error", r.CitedBy, r.Err)
		}
		if r.Err != nil && (strings.Contains(r.Err.Error(), dir) || strings.Contains(r.Err.Error(), outside)) {
			t.Errorf("Err names an absolute path: %v", r.Err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		v, dir := openVault(t, files)
		f, err := os.Create(filepath.Join(dir, ".agentero", "citing-scan.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(maxScan + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		r := mustRelations(t, New(v, nil), "papers/a")
		if !errors.Is(r.Err, ErrMalformed) {
			t.Errorf("Err = %v, want ErrMalformed (too large)", r.Err)
		}
	})
}
