package zotero

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/researchctx/researchctx/sources"
)

// grow adds n journal articles, each with a title, an author, a date, a
// DOI and an abstract, to the database of a data directory a test owns.
func grow(b testing.TB, dataDir string, n int) {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dataDir, "zotero.sqlite")))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	id := func(q string) int {
		var v int
		if err := tx.QueryRow(q).Scan(&v); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		return v
	}
	typ := id(`SELECT itemTypeID FROM itemTypes WHERE typeName = 'journalArticle'`)
	author := id(`SELECT creatorTypeID FROM creatorTypes WHERE creatorType = 'author'`)
	fields := map[string]int{}
	for _, f := range []string{"title", "date", "DOI", "abstractNote"} {
		fields[f] = id(`SELECT fieldID FROM fields WHERE fieldName = '` + f + `'`)
	}
	for i := 0; i < n; i++ {
		res, err := tx.Exec(`INSERT INTO items (itemTypeID, libraryID, key) VALUES (?, 1, ?)`, typ, fmt.Sprintf("G%07d", i))
		if err != nil {
			b.Fatal(err)
		}
		item, _ := res.LastInsertId()
		vals := map[string]string{
			"title":        fmt.Sprintf("Generated study %d of sparse attention variant %d", i, i%97),
			"date":         fmt.Sprintf("%d-03-01", 1990+i%35),
			"DOI":          fmt.Sprintf("10.5555/gen.%d", i),
			"abstractNote": fmt.Sprintf("We measure variant %d on benchmark %d and report the window size %d (run %d).", i%97, i%13, i%512, i),
		}
		for f, v := range vals {
			if _, err := tx.Exec(`INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)`, v); err != nil {
				b.Fatal(err)
			}
			var vid int
			if err := tx.QueryRow(`SELECT valueID FROM itemDataValues WHERE value = ?`, v).Scan(&vid); err != nil {
				b.Fatal(err)
			}
			if _, err := tx.Exec(`INSERT INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)`, item, fields[f], vid); err != nil {
				b.Fatal(err)
			}
		}
		r, err := tx.Exec(`INSERT INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, 0)`, "Ada", fmt.Sprintf("Author%d", i))
		if err != nil {
			b.Fatal(err)
		}
		cid, _ := r.LastInsertId()
		if _, err := tx.Exec(`INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex) VALUES (?, ?, ?, 0)`, item, cid, author); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFirstAnswer10k: a new server's first search of a library of
// 10,000 more items than the fixture's (the snapshot copied and read, the
// in-memory index built, the search answered), and the next call after a
// change made in Zotero (the snapshot taken again).
func BenchmarkFirstAnswer10k(b *testing.B) {
	dir := copyLayout(b, "Zotero", pdfsOf(b)...)
	grow(b, dir, 10_000)
	ctx := context.Background()
	b.Run("first-search", func(b *testing.B) {
		// The PDFs' text is in the cache from a server before: the
		// first answer of a new server once its cache exists.
		cache := b.TempDir()
		for b.Loop() {
			d := New(Options{DataDir: dir, BaseDir: filepath.Join(fixture(b), "Attachments"), CacheDir: cache})
			n, err := d.Ref(ctx, "", &sources.Env{})
			if err != nil {
				b.Fatal(err)
			}
			src, err := d.Open(ctx, n.Ref, &sources.Env{})
			if err != nil {
				b.Fatal(err)
			}
			res, err := src.Search(ctx, sources.Query{Text: "sparse attention variant 42 window", Limit: 8, ExcerptChars: 500})
			if err != nil || len(res.Hits) == 0 {
				b.Fatalf("%v, %d hits", err, len(res.Hits))
			}
		}
	})
	b.Run("change-seen", func(b *testing.B) {
		l := newLibrary("bench", dir, "", b.TempDir())
		if _, err := l.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			b.StopTimer()
			title := fmt.Sprintf("Renamed %d", i)
			i++
			execDB(b, dir, `UPDATE itemDataValues SET value = '`+title+`' WHERE valueID = (SELECT d.valueID FROM itemData d JOIN items i ON i.itemID = d.itemID JOIN fields f ON f.fieldID = d.fieldID WHERE i.key = 'G0000001' AND f.fieldName = 'title')`)
			// A file system with a coarse clock may not move the stamp
			// within one tick.
			time.Sleep(10 * time.Millisecond)
			b.StartTimer()
			snap, err := l.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if got := snap.byKey["zotero:G0000001"].Title(); got != title {
				b.Fatalf("title %q after the change, want %q", got, title)
			}
		}
	})
}

// pdfsOf returns the fixture's imported PDFs, relative to its data
// directory, so a copied library reads them too.
func pdfsOf(b testing.TB) []string {
	var out []string
	m, _ := filepath.Glob(filepath.Join(fixture(b), "Zotero", "storage", "*", "*.pdf"))
	for _, p := range m {
		rel, _ := filepath.Rel(filepath.Join(fixture(b), "Zotero"), p)
		out = append(out, rel)
	}
	return out
}
