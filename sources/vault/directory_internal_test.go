package vault

import (
	"context"
	"errors"
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
	lib := NewLibrary(v, &LibraryOptions{CacheDir: "-"})
	defer lib.Close()
	src, err := lib.Open(context.Background(), grant.KindDirectory, "docs")
	if err != nil {
		t.Fatal(err)
	}
	d := src.(*Directory)
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
	// The work the first search left in the background (the check of its
	// provisional state) ends before the file changes, and the state in
	// hand is made old enough to be rescanned: the next search starts the
	// rescan, whatever the clock and the load.
	lib.bg.Wait()
	d.mu.Lock()
	d.state.scanned = d.state.scanned.Add(-time.Hour)
	d.mu.Unlock()
	os.WriteFile(file, []byte("Title\na replaced sentence, longer than before\n"), 0o644)
	find("replaced sentence") // answered from the state in hand; starts the rescan
	lib.bg.Wait()
	if find("replaced sentence") != 1 {
		t.Fatal("the background rescan did not pick up the change")
	}
	if find("original wording") != 0 {
		t.Error("the old text is still found after the rescan")
	}
}

// TestDirectoryScanWaitDeadline: a search that finds another caller
// scanning the directory waits for that scan no longer than its own
// context allows.
func TestDirectoryScanWaitDeadline(t *testing.T) {
	root := t.TempDir()
	writeVaultFile(t, root, "docs/a.txt", []byte("Title\nthe original wording\n"))
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	lib := NewLibrary(v, &LibraryOptions{CacheDir: "-"})
	defer lib.Close()
	ctx := context.Background()
	src, err := lib.Open(ctx, grant.KindDirectory, "docs")
	if err != nil {
		t.Fatal(err)
	}
	d := src.(*Directory)
	// Another caller's first scan, in progress until the test ends it.
	if err := d.lockBuild(ctx); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := src.Search(short, sources.Query{Text: "original wording", Limit: 5})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a search past its deadline got %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("a search past its deadline still waits for another's scan")
	}
	d.unlockBuild()
	res, err := src.Search(ctx, sources.Query{Text: "original wording", Limit: 5})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("search once the scan ended: %+v, %v", res, err)
	}
}
