package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/researchctx/researchctx/internal/pdf/hostile"
	"github.com/researchctx/researchctx/internal/vault"
	"github.com/researchctx/researchctx/sources"
)

// TestRelationsCacheFolder checks that the references parsed from a PDF are
// kept in the library's cache folder: the Vault's own by default, the
// folder the host chose, or nowhere when the host turned caching off.
func TestRelationsCacheFolder(t *testing.T) {
	tests := []struct {
		name     string
		cacheDir string
		inVault  bool
		inHost   bool
	}{
		{"default", "", true, false},
		{"host folder", "host", false, true},
		{"off", "-", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			host := filepath.Join(t.TempDir(), "host-cache")
			cacheDir := tt.cacheDir
			if cacheDir == "host" {
				cacheDir = host
			}
			files := map[string][]byte{
				"papers/a/metadata.json": []byte(`{"title": "Alpha", "arxiv_id": "2001.00001"}`),
				"papers/b/metadata.json": []byte(`{"title": "Beta"}`),
				"papers/b/b.pdf":         hostile.Plain("Beta", "References", "[1] A. Writer. Alpha. arXiv:2001.00001."),
			}
			for name, body := range files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			v, err := vault.Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			rel := libraryRelations(sources.NewLibrary(v, &sources.LibraryOptions{CacheDir: cacheDir}))
			r, err := rel(context.Background(), "papers/b")
			if err != nil {
				t.Fatal(err)
			}
			if len(r.References) != 1 || r.References[0].Paper != "papers/a" {
				t.Fatalf("references = %+v, want papers/a", r.References)
			}
			for _, c := range []struct {
				where string
				want  bool
			}{
				{filepath.Join(dir, ".agentero", "cache", "refs"), tt.inVault},
				{filepath.Join(host, "refs"), tt.inHost},
			} {
				_, err := os.Stat(c.where)
				if got := !errors.Is(err, fs.ErrNotExist); got != c.want {
					t.Errorf("parsed references under %s: %v, want %v", filepath.Base(filepath.Dir(c.where)), got, c.want)
				}
			}
		})
	}
}
