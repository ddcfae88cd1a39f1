package zotero

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/sources"
)

// addItem adds a journal article with a title and an abstract to the
// database db holds open, and returns its itemID.
func addItem(t *testing.T, db *sql.DB, key, title, abstract string) int64 {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	res, err := tx.Exec(`INSERT INTO items (itemTypeID, libraryID, key) VALUES ((SELECT itemTypeID FROM itemTypes WHERE typeName = 'journalArticle'), 1, ?)`, key)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	for f, v := range map[string]string{"title": title, "abstractNote": abstract} {
		if _, err := tx.Exec(`INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)`, v); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO itemData (itemID, fieldID, valueID) VALUES (?, (SELECT fieldID FROM fields WHERE fieldName = ?), (SELECT valueID FROM itemDataValues WHERE value = ?))`, id, f, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return id
}

// paths returns the paths of a search's hits.
func paths(res *sources.Results) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Path)
	}
	return out
}

// found reports whether a search of src for q finds the document p.
func found(t *testing.T, src sources.Source, q, p string) bool {
	t.Helper()
	res, err := src.Search(context.Background(), sources.Query{Text: q, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexing != nil {
		t.Fatalf("search for %q answered while indexing %+v", q, res.Indexing)
	}
	for _, h := range res.Hits {
		if h.Path == p {
			return true
		}
	}
	return false
}

// TestSearchSeesChanges: with Zotero's database open and its changes in
// the write-ahead log, each change is seen by the search at the next
// call: an item added is found, an edited title is found by its new words
// and no longer by its old ones, an item moved to the trash is gone (from
// the library, its collection and its item source alike), and a new
// driver over the same cache (a new process) sees the same.
func TestSearchSeesChanges(t *testing.T) {
	dir := copyLayout(t, "Zotero-wal")
	cache := t.TempDir()
	d := New(Options{DataDir: dir, CacheDir: cache, IndexWait: fullWait})
	t.Cleanup(func() { closeDriver(t, d) })
	lib := source(t, d, "")
	ctx := context.Background()
	if !found(t, lib, "MapReduce simplified data processing", "zotero:items/ACFJNP3J") {
		t.Fatal("the fixture's item is not found")
	}

	// Zotero holds the database open: what it writes stays in the log.
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "zotero.sqlite")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q, %v: the layout should be in WAL mode", mode, err)
	}
	walBefore, _ := os.Stat(filepath.Join(dir, "zotero.sqlite-wal"))
	const key = "QTZWAL01"
	id := addItem(t, db, key, "Quasicrystal tessellation heuristics", "Aperiodic tilings of the plane, counted.")
	walAfter, err := os.Stat(filepath.Join(dir, "zotero.sqlite-wal"))
	if err != nil || walBefore != nil && walAfter.Size() == walBefore.Size() && walAfter.ModTime().Equal(walBefore.ModTime()) {
		t.Fatalf("the change is not in the write-ahead log: %v", err)
	}
	if !found(t, lib, "quasicrystal tessellation", "zotero:items/"+key) {
		t.Fatal("the item added in the log is not found")
	}

	if _, err := db.Exec(`UPDATE itemDataValues SET value = 'Penrose rhombus enumeration' WHERE valueID = (SELECT d.valueID FROM itemData d JOIN fields f ON f.fieldID = d.fieldID WHERE d.itemID = ? AND f.fieldName = 'title')`, id); err != nil {
		t.Fatal(err)
	}
	if !found(t, lib, "penrose rhombus enumeration", "zotero:items/"+key) {
		t.Error("the edited title's new words do not find the item")
	}
	if found(t, lib, "quasicrystal tessellation", "zotero:items/"+key) {
		t.Error("the edited title's old words still find the item")
	}

	// A collection holding the item, and the item's own source.
	if _, err := db.Exec(`INSERT INTO collectionItems (collectionID, itemID, orderIndex) VALUES ((SELECT collectionID FROM collections WHERE collectionName = 'Thesis' AND parentCollectionID IS NULL), ?, 99)`, id); err != nil {
		t.Fatal(err)
	}
	coll := source(t, d, "collections/Thesis")
	item := source(t, d, "items/"+key)
	for name, src := range map[string]sources.Source{"library": lib, "collection": coll, "item": item} {
		if !found(t, src, "penrose rhombus", "zotero:items/"+key) {
			t.Errorf("%s: the item is not found before it is trashed", name)
		}
	}
	if _, err := db.Exec(`INSERT INTO deletedItems (itemID) VALUES (?)`, id); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]sources.Source{"library": lib, "collection": coll} {
		if found(t, src, "penrose rhombus", "zotero:items/"+key) {
			t.Errorf("%s: the item moved to the trash is still found", name)
		}
	}
	if _, err := item.Search(ctx, sources.Query{Text: "penrose rhombus"}); err == nil {
		t.Error("the item source of an item moved to the trash still searches")
	}

	// A new process over the same cache: the trash is still left out,
	// and the index no longer holds the trashed item.
	closeDriver(t, d)
	d2 := New(Options{DataDir: dir, CacheDir: cache, IndexWait: fullWait})
	t.Cleanup(func() { closeDriver(t, d2) })
	lib2 := source(t, d2, "")
	if found(t, lib2, "penrose rhombus", "zotero:items/"+key) {
		t.Error("a new process finds the item in the trash")
	}
	l2, _ := d2.library(&sources.Env{})
	if j := l2.libIndex().Running(); j != nil {
		<-j.Done()
	}
	if _, _, ok := l2.libIndex().Snapshot().Status("zotero:" + key); ok {
		t.Error("the index still holds the trashed item")
	}
}

// TestSearchWhileIndexing: while the index takes an item in, a search
// answers within the index wait from what is indexed, saying how far the
// index is; once the build is done a search is complete. An attachment
// that cannot be read is in Skipped either way.
func TestSearchWhileIndexing(t *testing.T) {
	dir := copyLayout(t, "Zotero")
	d := New(Options{DataDir: dir, CacheDir: t.TempDir(), IndexWait: 50 * time.Millisecond})
	t.Cleanup(func() { closeDriver(t, d) })
	// One item's extraction is held up until the first answer is in.
	release := make(chan struct{})
	var once sync.Once
	testHookExtract = func(key string) {
		if key == "zotero:A3TZQHPM" {
			<-release
		}
	}
	t.Cleanup(func() {
		once.Do(func() { close(release) })
		testHookExtract = nil
	})
	lib := source(t, d, "")
	ctx := context.Background()
	res, err := lib.Search(ctx, sources.Query{Text: "MapReduce Google File System", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexing == nil || !res.Truncated || res.Indexing.Done >= res.Indexing.Total {
		t.Fatalf("a search during the build: indexing %+v, truncated %v", res.Indexing, res.Truncated)
	}
	for _, p := range paths(res) {
		if p == "zotero:items/A3TZQHPM" {
			t.Error("the item held up is found before it is indexed")
		}
	}
	once.Do(func() { close(release) })
	l, _ := d.library(&sources.Env{})
	if j := l.libIndex().Running(); j != nil {
		<-j.Done()
	}
	res, err = lib.Search(ctx, sources.Query{Text: "MapReduce Google File System", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexing != nil || res.Truncated {
		t.Fatalf("a search after the build: indexing %+v, truncated %v", res.Indexing, res.Truncated)
	}
	if !strings.Contains(strings.Join(paths(res), " "), "zotero:items/A3TZQHPM") {
		t.Errorf("the item is not found once indexed: %v", paths(res))
	}
	var missing bool
	for _, s := range res.Skipped {
		missing = missing || s.Path == "zotero:items/UJQIHUFI" && strings.Contains(s.Reason, "missing")
	}
	if !missing {
		t.Errorf("the missing file is not in Skipped: %+v", res.Skipped)
	}
}

// TestModelCache: a new process whose database did not change reads the
// model of the last snapshot from the cache, with no copy of the
// database; one whose database changed, or whose cached model is damaged
// or another library's, takes a snapshot again.
func TestModelCache(t *testing.T) {
	dir := copyLayout(t, "Zotero")
	cache := t.TempDir()
	ctx := context.Background()
	first := func() (*Library, *Snapshot) {
		t.Helper()
		l := newLibrary(libraryID(dir), dir, "", cache)
		t.Cleanup(l.close)
		var copies int
		testHookCopied = func(string) { copies++ }
		defer func() { testHookCopied = nil }()
		s, err := l.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l.flush()
		if copies == 0 {
			return l, s
		}
		return l, nil
	}
	l1, s1 := first()
	if s1 != nil {
		t.Fatal("the first process read a model it never saved")
	}
	_, s2 := first()
	if s2 == nil {
		t.Fatal("a new process over an unchanged database copied it again")
	}
	want, _ := l1.Snapshot(ctx)
	for k, it := range want.byKey {
		got := s2.byKey[k]
		if got == nil || got.Title() != it.Title() || len(got.children) != len(it.children) || got.trashed != it.trashed {
			t.Errorf("%s: the cached model's item differs", k)
		}
	}
	if len(s2.byKey) != len(want.byKey) || len(s2.items) != len(want.items) || len(s2.colls) != len(want.colls) || len(s2.tagged) != len(want.tagged) {
		t.Errorf("the cached model holds %d/%d items, %d collections, %d tags; the database %d/%d, %d, %d",
			len(s2.byKey), len(s2.items), len(s2.colls), len(s2.tagged), len(want.byKey), len(want.items), len(want.colls), len(want.tagged))
	}

	execDB(t, dir, `UPDATE itemDataValues SET value = 'MapReduce, renamed' WHERE value = 'MapReduce: Simplified Data Processing on Large Clusters'`)
	_, s3 := first()
	if s3 != nil {
		t.Fatal("a new process read the model of a database that changed since")
	}
	l4, s4 := first()
	if s4 == nil || s4.byKey["zotero:ACFJNP3J"].Title() != "MapReduce, renamed" {
		t.Fatal("the model of the changed database is not the one cached")
	}

	// A damaged model, and one written for another library: neither is
	// read, the database is copied again.
	file := filepath.Join(l4.cacheDir, modelName)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), data...)
	damaged[len(damaged)/2] ^= 0xff
	if err := os.WriteFile(file, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, s := first(); s != nil {
		t.Error("a damaged model was read")
	}
	other := newLibrary("other", dir, "", cache)
	other.cacheDir = l4.cacheDir
	stamp, _ := other.stampOf()
	if _, err := other.loadModel(stamp); err == nil {
		t.Error("another library's model was read")
	}
	// A model sealed correctly but cut short is refused too.
	d, err := safefs.OpenDir(l4.cacheDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	good, err := d.ReadSealed(modelName, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteSealed(modelName, good[:len(good)-7]); err != nil {
		t.Fatal(err)
	}
	if _, s := first(); s != nil {
		t.Error("a model cut short was read")
	}
}

// TestIndexKeptBetweenProcesses: a new process (a new driver over the same
// cache) answers its first search from the index on disk, extracting no
// item again, with the same hits and skipped attachments as the process
// that built it; an item changed since is the only one extracted again.
func TestIndexKeptBetweenProcesses(t *testing.T) {
	dir := copyLayout(t, "Zotero")
	cache := t.TempDir()
	ctx := context.Background()
	var mu sync.Mutex
	var extracted []string
	testHookExtract = func(key string) {
		mu.Lock()
		extracted = append(extracted, key)
		mu.Unlock()
	}
	t.Cleanup(func() { testHookExtract = nil })
	q := sources.Query{Text: "neural networks distilling knowledge", Limit: 8, ExcerptChars: 200}
	first := func() (*sources.Results, []string) {
		t.Helper()
		mu.Lock()
		extracted = nil
		mu.Unlock()
		d := New(Options{DataDir: dir, CacheDir: cache, IndexWait: fullWait})
		t.Cleanup(func() { closeDriver(t, d) })
		res, err := source(t, d, "").Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		closeDriver(t, d)
		mu.Lock()
		defer mu.Unlock()
		return res, append([]string(nil), extracted...)
	}
	built, n := first()
	if len(n) == 0 || len(built.Hits) == 0 {
		t.Fatalf("the first process extracted %d items and found %d hits", len(n), len(built.Hits))
	}
	again, n := first()
	if len(n) != 0 {
		t.Errorf("a new process extracted %v again", n)
	}
	if diff := cmp.Diff(built, again); diff != "" {
		t.Errorf("a new process's answer differs (-first +new):\n%s", diff)
	}
	execDB(t, dir, `UPDATE itemDataValues SET value = 'Distilling the knowledge, renamed' WHERE value = 'Distilling the Knowledge in a Neural Network'`)
	if _, n := first(); len(n) != 1 || !slices.Contains(n, "zotero:6LR556BM") {
		t.Errorf("after one title changed, a new process extracted %v", n)
	}
}
