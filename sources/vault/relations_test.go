package vault_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
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
				"papers/b/b.pdf":         hostilepdf.Plain("Beta", "References", "[1] A. Writer. Alpha. arXiv:2001.00001."),
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
			lib, err := vault.OpenLibrary(dir, &vault.LibraryOptions{CacheDir: cacheDir})
			if err != nil {
				t.Fatal(err)
			}
			defer lib.Close()
			src, err := lib.Open(context.Background(), grant.KindPaper, "papers/b")
			if err != nil {
				t.Fatal(err)
			}
			r, err := src.(sources.Relater).Relations(context.Background())
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

// TestHostilePDFsInLibrary builds relations through the paper sources over
// a library holding hostile PDFs (one whose content nests arrays 30 million
// deep, which used to overflow the stack and end the process; one whose
// objects nest a million deep): the good paper's references are found, the
// hostile paper's relations carry its reason as a problem, and a second
// library on the same vault (a new process) gets the PDF failure from the
// cache instead of extracting again.
func TestHostilePDFsInLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts hostile PDFs")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"papers/a/metadata.json":    `{"title": "Alpha", "arxiv_id": "2001.00001"}`,
		"papers/good/metadata.json": `{"title": "Good"}`,
		"papers/good/good.pdf":      string(hostilepdf.Plain("Good paper", "References", "[1] Alpha. arXiv:2001.00001.")),
		"papers/deep/metadata.json": `{"title": "deep"}`,
		"papers/deep/deep.pdf":      string(hostilepdf.DeepContentFlate(30 << 20)),
		"papers/obj/metadata.json":  `{"title": "obj"}`,
		"papers/obj/obj.pdf":        string(hostilepdf.DeepObject("[", 1<<20)),
	})
	ctx := context.Background()
	relationsOf := func(lib *vault.Library, ref string) *sources.Relations {
		t.Helper()
		src, err := lib.Open(ctx, grant.KindPaper, ref)
		if err != nil {
			t.Fatal(err)
		}
		r, err := src.(sources.Relater).Relations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lib := openLibrary(t, dir, "")
	good := relationsOf(lib, "papers/good")
	if len(good.References) != 1 || good.References[0].Paper != "papers/a" {
		t.Errorf("good references = %+v, want papers/a", good.References)
	}
	obj := relationsOf(lib, "papers/obj")
	if len(obj.Problems) == 0 || !strings.Contains(strings.Join(obj.Problems, "\n"), "malformed") {
		t.Errorf("obj problems = %q, want a skipped paper with a malformed PDF", obj.Problems)
	}
	deep := relationsOf(lib, "papers/deep")
	t.Logf("deep: %d references, problems %q", len(deep.References), deep.Problems)

	again := relationsOf(openLibrary(t, dir, ""), "papers/obj")
	if !strings.Contains(strings.Join(again.Problems, "\n"), "remembered") {
		t.Errorf("second library: obj problems = %q, want the remembered failure", again.Problems)
	}
}
