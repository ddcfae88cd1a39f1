package zotero

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/sources"
)

// TestCitesWithinContext: the citation graph is built within the call's
// context: a call whose context ended gets its error and leaves no graph
// behind, and the next call builds it whole.
func TestCitesWithinContext(t *testing.T) {
	dir := zoterofix.Dev(t)
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

// TestCitesCachedOnDisk: the references parsed from the library's PDFs are
// kept under the library's cache folder, naming no absolute path, and a new
// process (a new Library on the same cache) gives the same relations from
// them without extracting any PDF's text again.
func TestCitesCachedOnDisk(t *testing.T) {
	dir := zoterofix.Dev(t)
	data, base := filepath.Join(dir, "Zotero"), filepath.Join(dir, "Attachments")
	cache := t.TempDir()
	relationsOf := func(l *Library) *sources.Relations {
		t.Helper()
		snap, err := l.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		r, err := snap.relations(context.Background(), snap.byKey["zotero:ACFJNP3J"])
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := relationsOf(newLibrary("cites", data, base, cache))
	if len(first.References) == 0 {
		t.Fatal("no references")
	}
	entries, err := filepath.Glob(filepath.Join(cache, "cites", "refs", "*", "*.refs"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no cached references (%v)", err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), dir) {
			t.Fatalf("%s names an absolute path", filepath.Base(e))
		}
	}
	if err := os.RemoveAll(filepath.Join(cache, "cites", "pdf")); err != nil {
		t.Fatal(err)
	}
	again := relationsOf(newLibrary("cites", data, base, cache))
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("relations from the cache (-first +again):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(cache, "cites", "pdf")); err == nil {
		t.Error("a PDF's text was extracted again")
	}
}
