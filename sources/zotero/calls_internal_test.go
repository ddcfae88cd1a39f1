package zotero

import (
	"context"
	"testing"
	"time"

	"github.com/researchctx/researchctx/sources"
)

// TestBackgroundIndexYieldsToCalls: the library index's build, started by
// a library's first search while another call is in flight, holds its
// workers back for that call (one at a time goes on), and still ends: the
// search that waits for it gets the whole library.
func TestBackgroundIndexYieldsToCalls(t *testing.T) {
	dir := copyLayout(t, "Zotero")
	d := New(Options{DataDir: dir, CacheDir: t.TempDir(), IndexWait: 10 * time.Minute})
	t.Cleanup(func() { closeDriver(t, d) })
	lib := source(t, d, "")
	l, err := d.library(&sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	_, end := l.calls.Begin(context.Background())
	defer end()
	res, err := lib.Search(context.Background(), sources.Query{Text: "MapReduce Google File System", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexing != nil || len(res.Hits) == 0 {
		t.Fatalf("the build under a call left %+v, %d hits; want the whole library", res.Indexing, len(res.Hits))
	}
	if _, total := l.calls.Held(); total == 0 {
		t.Error("no worker of the build was held back for the call in flight")
	}
}
