package vault

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/sources"
)

// A search never waits for a rescan: it answers from the state in hand and
// starts a rescan in the background, whose result later searches use.
func TestDirectoryRescansInBackground(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	file := filepath.Join(root, "docs", "a.txt")
	os.WriteFile(file, []byte("Title\nthe original wording\n"), 0o644)
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	src, err := NewLibrary(v, &LibraryOptions{CacheDir: "-"}).Open(context.Background(), grant.KindDirectory, "docs")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	find := func(q string) int {
		res, err := src.Search(ctx, sources.Query{Text: q, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Hits)
	}
	if find("original wording") != 1 {
		t.Fatal("first search found nothing")
	}
	old := restamp
	restamp = 0
	defer func() { restamp = old }()
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(file, []byte("Title\na replaced sentence, longer than before\n"), 0o644)
	find("replaced sentence") // answered from the state in hand; starts the rescan
	// Generous: the rescan runs beside the rest of the suite on a busy
	// machine; only its never coming is a failure.
	deadline := time.Now().Add(30 * time.Second)
	for find("replaced sentence") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the background rescan never picked up the change")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if find("original wording") != 0 {
		t.Error("the old text is still found after the rescan")
	}
}
