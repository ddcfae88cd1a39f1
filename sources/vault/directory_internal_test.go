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
	"github.com/researchctx/researchctx/internal/testkit/wait"
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

// TestDirectoryChecksAfterTheCall: the checks a first answer does not wait
// for (here the rescan of a state whose papers were stamped from the index)
// start when the call that searched ends, not when its search returns, so
// that they do not share the cores with what the call still does with the
// hits; a context that outlives the call starts them answerWait later.
func TestDirectoryChecksAfterTheCall(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeVaultFile(t, root, "papers/a/PAPER.md", []byte("# A paper\n\nthe original wording of a paper\n"))
	writeVaultFile(t, root, "papers/a/metadata.json", []byte(`{"title":"A paper"}`))
	search := func(ctx context.Context, d *Directory) {
		t.Helper()
		res, err := d.Search(ctx, sources.Query{Text: "original wording", Limit: 5})
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("search: %+v, %v", res, err)
		}
	}
	open := func() (*Library, *Directory) {
		t.Helper()
		v, err := catalog.Open(root, &catalog.Options{CacheDir: cache, CheckPapersLater: true})
		if err != nil {
			t.Fatal(err)
		}
		lib := NewLibrary(v, &LibraryOptions{CacheDir: cache, IndexWait: time.Minute})
		t.Cleanup(func() { lib.Close(); v.Close() })
		src, err := lib.Open(context.Background(), grant.KindDirectory, "papers")
		if err != nil {
			t.Fatal(err)
		}
		return lib, src.(*Directory)
	}
	// A first process indexes the paper.
	lib, d := open()
	search(context.Background(), d)
	lib.Close()

	old := answerWait
	answerWait = time.Hour // only the end of the call starts the checks
	defer func() { answerWait = old }()
	_, d = open()
	call, end := context.WithCancel(context.Background())
	defer end()
	search(call, d)
	d.mu.Lock()
	st, started := d.state, d.refreshing
	d.mu.Unlock()
	if !st.provisional {
		t.Fatal("the first search of a new library did not take its stamps from the index")
	}
	if started {
		t.Fatal("the rescan started while the call that searched was still in flight")
	}
	end()
	wait.Until(t, "the rescan after the call", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.state != st && !d.state.provisional
	})

	// A context that outlives its calls: the checks start answerWait later.
	answerWait = 10 * time.Millisecond
	long, stop := context.WithCancel(context.Background())
	defer stop()
	_, d = open()
	search(long, d)
	d.mu.Lock()
	st = d.state
	d.mu.Unlock()
	wait.Until(t, "the rescan answerWait after a search whose context outlives it", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.state != st && !d.state.provisional
	})
}
