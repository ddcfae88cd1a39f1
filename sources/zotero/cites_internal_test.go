package zotero

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestCitesWithinContext: the citation graph is built within the call's
// context: a call whose context ended gets its error and leaves no graph
// behind, and the next call builds it whole.
func TestCitesWithinContext(t *testing.T) {
	dir := fixture(t)
	l := newLibrary("cites", filepath.Join(dir, "Zotero"), filepath.Join(dir, "Attachments"), t.TempDir())
	snap, err := l.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gfs := snap.byKey["zotero:A3TZQHPM"]
	if gfs == nil {
		t.Fatal("no item A3TZQHPM")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := snap.relations(ctx, gfs); !errors.Is(err, context.Canceled) {
		t.Fatalf("relations with an ended context: %v, want context.Canceled", err)
	}
	if l.pdfs.cites.g != nil {
		t.Fatal("a graph was kept from a call whose context ended")
	}
	r, err := snap.relations(context.Background(), gfs)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.CitedBy) != 1 || r.CitedBy[0].Paper != "zotero:items/ACFJNP3J" {
		t.Fatalf("cited-by: %+v", r.CitedBy)
	}
}
