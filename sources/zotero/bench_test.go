package zotero

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
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

// BenchmarkFirstAnswer10k measures a library of 10,000 more items than
// the fixture's, side by side with the same generated items as papers of
// a Vault folder:
//
//   - zotero-first-search: a new server's first search once the library
//     index and the cached model exist on disk (a new Driver, so a new
//     Library with nothing in memory: the grant resolved and opened, the
//     search answered), against vault-first-search, a new Vault Library's
//     first search of its papers folder once its index exists;
//   - change-seen: the next search after an item's title is changed in
//     the database, which finds the item by its new title (the snapshot
//     taken again, the item indexed again).
//
// Each reports the median of its iterations' wall time as ms-median, and
// of their CPU time as cpu-ms-median.
func BenchmarkFirstAnswer10k(b *testing.B) {
	const n = 10_000
	dir := copyLayout(b, "Zotero", pdfsOf(b)...)
	grow(b, dir, n)
	base := filepath.Join(zoterofix.Dev(b), "Attachments")
	ctx := context.Background()
	const query = "sparse attention variant 42 window"
	cache := b.TempDir()
	opts := Options{DataDir: dir, BaseDir: base, CacheDir: cache, IndexWait: time.Hour}
	search := func(b *testing.B, opts Options) *sources.Results {
		d := New(opts)
		nm, err := d.Ref(ctx, "", &sources.Env{})
		if err != nil {
			b.Fatal(err)
		}
		src, err := d.Open(ctx, nm.Ref, &sources.Env{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := src.Search(ctx, sources.Query{Text: query, Limit: 8, ExcerptChars: 500})
		if err != nil || len(res.Hits) == 0 || res.Indexing != nil {
			b.Fatalf("%v, %d hits, indexing %+v", err, len(res.Hits), res.Indexing)
		}
		closeDriver(b, d)
		return res
	}
	// The index is built once, by a server before.
	search(b, opts)
	b.Run("zotero-first-search", func(b *testing.B) {
		var took, cpu []time.Duration
		for b.Loop() {
			st, c := time.Now(), procstat.CPUTime()
			search(b, opts)
			took, cpu = append(took, time.Since(st)), append(cpu, procstat.CPUTime()-c)
		}
		reportMedian(b, took, cpu)
	})
	b.Run("vault-first-search", func(b *testing.B) {
		root := b.TempDir()
		writeVault(b, root, n)
		vsearch := func() {
			lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{IndexWait: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			defer lib.Close()
			src, err := lib.Open(ctx, grant.KindDirectory, "papers")
			if err != nil {
				b.Fatal(err)
			}
			res, err := src.Search(ctx, sources.Query{Text: query, Limit: 8, ExcerptChars: 500})
			if err != nil || len(res.Hits) == 0 || res.Indexing != nil {
				b.Fatalf("%v, %d hits, indexing %+v", err, len(res.Hits), res.Indexing)
			}
		}
		vsearch()
		var took, cpu []time.Duration
		for b.Loop() {
			st, c := time.Now(), procstat.CPUTime()
			vsearch()
			took, cpu = append(took, time.Since(st)), append(cpu, procstat.CPUTime()-c)
		}
		reportMedian(b, took, cpu)
	})
	b.Run("change-seen", func(b *testing.B) {
		d := New(opts)
		nm, err := d.Ref(ctx, "", &sources.Env{})
		if err != nil {
			b.Fatal(err)
		}
		src, err := d.Open(ctx, nm.Ref, &sources.Env{})
		if err != nil {
			b.Fatal(err)
		}
		l, err := d.library(&sources.Env{})
		if err != nil {
			b.Fatal(err)
		}
		defer l.close()
		var took, cpu []time.Duration
		i := 0
		for b.Loop() {
			b.StopTimer()
			word := fmt.Sprintf("renamedword%d", i)
			i++
			execDB(b, dir, `UPDATE itemDataValues SET value = 'Study `+word+`' WHERE valueID = (SELECT d.valueID FROM itemData d JOIN items i ON i.itemID = d.itemID JOIN fields f ON f.fieldID = d.fieldID WHERE i.key = 'G0000001' AND f.fieldName = 'title')`)
			// A file system with a coarse clock may not move the stamp
			// within one tick.
			time.Sleep(10 * time.Millisecond)
			b.StartTimer()
			st, c := time.Now(), procstat.CPUTime()
			res, err := src.Search(ctx, sources.Query{Text: word, Limit: 3})
			took, cpu = append(took, time.Since(st)), append(cpu, procstat.CPUTime()-c)
			if err != nil || len(res.Hits) == 0 || res.Hits[0].Location.Path != "zotero:items/G0000001" {
				b.Fatalf("%v, %+v after the change", err, res)
			}
			b.StopTimer()
			l.flush() // the model saved in the background, outside the next call's time
			b.StartTimer()
		}
		reportMedian(b, took, cpu)
	})
}

// closeDriver waits for the background work of a driver's library, so
// that nothing is written into its cache folder after the benchmark.
func closeDriver(b testing.TB, d *Driver) {
	if l, err := d.library(&sources.Env{}); err == nil {
		l.close()
	}
}

// reportMedian reports the median of the iterations' wall times as
// ms-median and of the process's CPU time over them as cpu-ms-median (the
// work of the call, background goroutines included, whatever else runs on
// the machine).
func reportMedian(b *testing.B, took, cpu []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	slices.Sort(cpu)
	b.ReportMetric(float64(took[len(took)/2])/float64(time.Millisecond), "ms-median")
	b.ReportMetric(float64(cpu[len(cpu)/2])/float64(time.Millisecond), "cpu-ms-median")
}

// writeVault writes the items grow adds as n papers of a Vault folder:
// each a metadata.json with its title and a PAPER.md with what its Zotero
// record says (title, author, date, DOI, abstract).
func writeVault(b testing.TB, root string, n int) {
	b.Helper()
	for i := 0; i < n; i++ {
		paper := filepath.Join(root, "papers", fmt.Sprintf("g%07d", i))
		if err := os.MkdirAll(paper, 0o755); err != nil {
			b.Fatal(err)
		}
		title := fmt.Sprintf("Generated study %d of sparse attention variant %d", i, i%97)
		meta, _ := json.Marshal(map[string]any{"title": title})
		if err := os.WriteFile(filepath.Join(paper, "metadata.json"), meta, 0o644); err != nil {
			b.Fatal(err)
		}
		body := fmt.Sprintf("# %s\n\nCreators: Ada Author%d\nItem type: journalArticle\nDate: %d-03-01\nDOI: 10.5555/gen.%d\n\n## Abstract\n\nWe measure variant %d on benchmark %d and report the window size %d (run %d).\n",
			title, i, 1990+i%35, i, i%97, i%13, i%512, i)
		if err := os.WriteFile(filepath.Join(paper, "PAPER.md"), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// pdfsOf returns the fixture's imported PDFs, relative to its data
// directory, so a copied library reads them too.
func pdfsOf(b testing.TB) []string {
	var out []string
	m, _ := filepath.Glob(filepath.Join(zoterofix.Dev(b), "Zotero", "storage", "*", "*.pdf"))
	for _, p := range m {
		rel, _ := filepath.Rel(filepath.Join(zoterofix.Dev(b), "Zotero"), p)
		out = append(out, rel)
	}
	return out
}
