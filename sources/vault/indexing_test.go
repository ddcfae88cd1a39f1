package vault_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// TestSearchWhileIndexing checks the bounded wait: a search that arrives
// while the folder is being indexed answers after IndexWait from what is
// indexed so far, says so (Indexing, Truncated), and indexing goes on in
// the background until a later search is complete.
func TestSearchWhileIndexing(t *testing.T) {
	root := t.TempDir()
	const n = 400
	for i := range n {
		p := filepath.Join(root, "notes", fmt.Sprintf("n%03d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := fmt.Sprintf("# Note %d\n\nsparse attention note %d %s\n", i, i, longText(i))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	const wait = 5 * time.Millisecond
	lib := vault.NewLibrary(v, &vault.LibraryOptions{CacheDir: t.TempDir(), IndexWait: wait})
	t.Cleanup(func() { lib.Close() })
	ctx := context.Background()
	src, err := lib.Open(ctx, grant.KindDirectory, "notes")
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(ctx, sources.Query{Text: "sparse attention", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexing == nil || !res.Truncated || res.Indexing.Total != n || res.Indexing.Done >= n {
		t.Fatalf("first search: indexing %+v, truncated %v", res.Indexing, res.Truncated)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err = src.Search(ctx, sources.Query{Text: "note 399", Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if res.Indexing == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("indexing never ended: %+v", res.Indexing)
		}
	}
	if res.Truncated || len(res.Hits) == 0 || res.Hits[0].Path != "notes/n399.md" {
		t.Fatalf("complete search: truncated %v, hits %+v", res.Truncated, res.Hits)
	}
}

func longText(i int) string {
	b := make([]byte, 0, 4000)
	for j := range 400 {
		b = fmt.Appendf(b, "w%d ", (i*7+j)%997)
	}
	return string(b)
}

// TestSourcesShareOneIndex checks that a directory and a file inside it
// search one library index: with the Collection of both (as the sources of
// one grant), the file's own search scores its passage as the directory's
// search does, and never returns another file's text.
func TestSourcesShareOneIndex(t *testing.T) {
	root := t.TempDir()
	for i := range 12 {
		p := filepath.Join(root, "notes", fmt.Sprintf("n%02d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nsparse attention kernels %s\n", i, longText(i)[:300])), 0o644)
	}
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	lib := vault.NewLibrary(v, &vault.LibraryOptions{CacheDir: t.TempDir()})
	t.Cleanup(func() { lib.Close() })
	ctx := context.Background()
	dir, err := lib.Open(ctx, grant.KindDirectory, "notes")
	if err != nil {
		t.Fatal(err)
	}
	file, err := lib.Open(ctx, grant.KindFile, "notes/n05.md")
	if err != nil {
		t.Fatal(err)
	}
	q := sources.Query{Text: "sparse attention w40", Limit: 20, Collection: lib.Collection([]sources.Source{dir, file})}
	all, err := dir.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	one, err := file.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Hits) != 1 || one.Hits[0].Path != "notes/n05.md" {
		t.Fatalf("file search: %+v", one.Hits)
	}
	for _, h := range all.Hits {
		if h.Path == "notes/n05.md" {
			if h.Score != one.Hits[0].Score {
				t.Errorf("score %v in the directory, %v in the file's own search", h.Score, one.Hits[0].Score)
			}
			return
		}
	}
	t.Fatal("the directory search did not return the file")
}

// TestCloseWaitsForIndexing checks that Library.Close ends a build still
// running in the background and returns only when it has: nothing is
// written to the cache folder afterwards, so a host (or a test) may remove
// it.
func TestCloseWaitsForIndexing(t *testing.T) {
	root := t.TempDir()
	const n = 400
	for i := range n {
		p := filepath.Join(root, "notes", fmt.Sprintf("n%03d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nsparse attention %s\n", i, longText(i))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	cache := t.TempDir()
	lib := vault.NewLibrary(v, &vault.LibraryOptions{CacheDir: cache, IndexWait: time.Millisecond})
	t.Cleanup(func() { lib.Close() })
	ctx := context.Background()
	src, err := lib.Open(ctx, grant.KindDirectory, "notes")
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(ctx, sources.Query{Text: "sparse attention", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexing == nil {
		t.Skip("the whole folder was indexed within the wait; nothing runs in the background to close")
	}
	if err := lib.Close(); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, cache)
	time.Sleep(200 * time.Millisecond)
	if after := treeOf(t, cache); after != before {
		t.Fatalf("the cache changed after Close:\nbefore %s\nafter  %s", before, after)
	}
}

// treeOf lists the files under dir with their sizes and times.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d\n", p[len(dir):], info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
