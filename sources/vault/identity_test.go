package vault_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/sources"
)

// TestIndexRechecksFileIdentity replaces a granted file by another of the
// same size and modification time — as a synced or unpacked Vault, or a
// forged index, can present it — and checks that a new library on the same
// cache searches the file's text now, not the text the index holds for its
// path: a unit is used only for the very file (device and inode) it was
// extracted from.
func TestIndexRechecksFileIdentity(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	const rel = "notes/a.md"
	before := "# Note\n\nthe oldsecretword is here\n"
	after := strings.Replace(before, "oldsecretword", "newplainwords", 1)
	if len(before) != len(after) {
		t.Fatal("texts of different sizes")
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	vaultfix.Write(t, root, map[string]string{rel: before})
	mtime := time.Unix(1700000000, 0)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	search := func(word string) []string {
		t.Helper()
		lib := openLibrary(t, root, cache)
		src, err := lib.Open(context.Background(), grant.KindFile, rel)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for range 200 {
			res, err := src.Search(context.Background(), sources.Query{Text: word, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			out = out[:0]
			for _, h := range res.Hits {
				out = append(out, h.Text)
			}
			if res.Indexing == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		lib.Close()
		return out
	}
	if got := search("oldsecretword"); len(got) != 1 {
		t.Fatalf("first search: %q", got)
	}
	// Another file at the same path, of the same size and time.
	if err := os.Rename(p, p+".bak"); err != nil {
		t.Fatal(err)
	}
	vaultfix.Write(t, root, map[string]string{rel: after})
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if got := search("oldsecretword"); len(got) != 0 {
		t.Errorf("the index served the replaced file's text: %q", got)
	}
	if got := search("newplainwords"); len(got) != 1 || !strings.Contains(got[0], "newplainwords") {
		t.Errorf("the new text is not found: %q", got)
	}
}

// TestFirstDirectorySearchConfirmsPapers: the first search of a folder of
// papers in a process takes the papers' stamps from the library index to
// answer at once; a hit of a paper whose files are not the ones the index
// was built from (an index copied or synced with the Vault, or a paper's
// file replaced by one of the same size and time) is dropped, not served,
// and the result says it is partial.
func TestFirstDirectorySearchConfirmsPapers(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	const notes = "papers/topic/a/NOTES.md"
	before := "# Notes\n\nthe oldsecretword is here\n"
	after := strings.Replace(before, "oldsecretword", "newplainwords", 1)
	vaultfix.Write(t, root, map[string]string{
		notes:                     before,
		"papers/topic/b/NOTES.md": "# Notes\n\nanother paper about oldsecretword and tables\n",
	})
	p := filepath.Join(root, filepath.FromSlash(notes))
	mtime := time.Unix(1700000000, 0)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	// first returns the paths of the hits of the first search of a new
	// Library for word, once the index holds every item.
	first := func(word string) (paths []string, partial bool) {
		t.Helper()
		for range 200 {
			lib := openLibrary(t, root, cache)
			src, err := lib.Open(context.Background(), grant.KindDirectory, "papers/topic")
			if err != nil {
				t.Fatal(err)
			}
			res, err := src.Search(context.Background(), sources.Query{Text: word, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			paths = paths[:0]
			for _, h := range res.Hits {
				paths = append(paths, h.Path)
			}
			lib.Close()
			if res.Indexing == nil {
				return paths, res.Truncated
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("the index never completed")
		return nil, false
	}
	// Two new libraries: the second's first search answers from the index
	// the first one built, with the papers' stamps taken from it.
	first("oldsecretword")
	if got, partial := first("oldsecretword"); len(got) != 2 || partial {
		t.Fatalf("before the change: hits %q, partial %v; want both papers, complete", got, partial)
	}
	// Another file at the same path, of the same size and time.
	if err := os.Rename(p, p+".bak"); err != nil {
		t.Fatal(err)
	}
	vaultfix.Write(t, root, map[string]string{notes: after})
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	got, partial := first("oldsecretword")
	if diff := cmp.Diff([]string{"papers/topic/b/NOTES.md"}, got); diff != "" {
		t.Errorf("the first search served the replaced file's text (-want +got):\n%s", diff)
	}
	// The first search that dropped the hit stamped every paper from its
	// files and took the replaced one in, as a build does: it answers from
	// the index as the files are now, complete once the index is, and the
	// file's new text is found.
	if partial {
		t.Errorf("the first search after the index took the file in is partial")
	}
	if got, _ := first("newplainwords"); !slices.Equal(got, []string{notes}) {
		t.Errorf("the replaced file's new text: hits %q, want %s", got, notes)
	}
}

// TestFirstDirectorySearchIndexBehind: when the library index is behind
// every paper (the Vault copied with its cache, or its PDFs' text
// extracted again by a new version), the first search of a new process
// does not answer "nothing" from the hits it cannot confirm: it stamps the
// papers, and answers as a build does, from what is indexed within the
// wait and saying how far the index is.
func TestFirstDirectorySearchIndexBehind(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("papers/topic/p%d/NOTES.md", i)] = fmt.Sprintf("# Notes %d\n\nwombats dig burrows number %d\n", i, i)
	}
	vaultfix.Write(t, root, files)
	lib := openLibrary(t, root, cache)
	src, err := lib.Open(context.Background(), grant.KindDirectory, "papers/topic")
	if err != nil {
		t.Fatal(err)
	}
	for {
		res, err := src.Search(context.Background(), sources.Query{Text: "wombats", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if res.Indexing == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	lib.Close()
	// Every file gets another time: the index's stamps hold for none.
	later := time.Now().Add(time.Hour)
	for rel := range files {
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(rel)), later, later); err != nil {
			t.Fatal(err)
		}
	}
	lib = openLibrary(t, root, cache)
	defer lib.Close()
	src, err = lib.Open(context.Background(), grant.KindDirectory, "papers/topic")
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(context.Background(), sources.Query{Text: "wombats", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 && res.Indexing == nil {
		t.Fatalf("the first search answered nothing and did not say the index is being built: %+v", res)
	}
	if len(res.Hits) > 0 && res.Indexing == nil && (len(res.Hits) != len(files) || res.Truncated) {
		t.Errorf("a complete first search has %d hits (truncated %v), want %d", len(res.Hits), res.Truncated, len(files))
	}
}
