package sources_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
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
	writeFiles(t, root, map[string]string{rel: before})
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
	writeFiles(t, root, map[string]string{rel: after})
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
