package vault_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// TestDirectoryProgress checks the Progress hook: a first search reports
// every item of the directory in order and ends at the total; a second
// search, served by the index, still ends at the total.
func TestDirectoryProgress(t *testing.T) {
	root := t.TempDir()
	for i := range 5 {
		p := filepath.Join(root, "notes", fmt.Sprintf("n%d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nsparse attention note %d\n", i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	type call struct {
		Ref         string
		Done, Total int
	}
	var got []call
	lib := vault.NewLibrary(v, &vault.LibraryOptions{CacheDir: t.TempDir(), Progress: func(ref string, done, total int) {
		got = append(got, call{ref, done, total})
	}})
	t.Cleanup(func() { lib.Close() })
	ctx := context.Background()
	src, err := lib.Open(ctx, grant.KindDirectory, "notes")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Search(ctx, sources.Query{Text: "sparse attention", Limit: 3}); err != nil {
		t.Fatal(err)
	}
	var want []call
	for i := range 6 {
		want = append(want, call{"notes", i, 5})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first search progress (-want +got):\n%s", diff)
	}
	got = nil
	if _, err := src.Search(ctx, sources.Query{Text: "note", Limit: 3}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]call{{"notes", 5, 5}}, got); diff != "" {
		t.Errorf("indexed search progress (-want +got):\n%s", diff)
	}
}
