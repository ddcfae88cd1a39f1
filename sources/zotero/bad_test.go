package zotero

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/sources"
)

// copyLayout copies one layout's database (and the files a test names,
// relative to the data directory) into a new data directory the test may
// change.
func copyLayout(t testing.TB, layout string, files ...string) string {
	t.Helper()
	src := filepath.Join(zoterofix.Dev(t), layout)
	dst := t.TempDir()
	for _, f := range append([]string{"zotero.sqlite", "zotero.sqlite-wal"}, files...) {
		data, err := os.ReadFile(filepath.Join(src, f))
		if errors.Is(err, os.ErrNotExist) && f == "zotero.sqlite-wal" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// exec runs statements on the database of a data directory a test owns.
func execDB(t testing.TB, dataDir string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dataDir, "zotero.sqlite")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func snapshotOf(t *testing.T, dataDir string) (*Snapshot, error) {
	t.Helper()
	l := newLibrary(libraryID(dataDir), dataDir, "", t.TempDir())
	t.Cleanup(l.close)
	return l.Snapshot(context.Background())
}

// TestBadDatabase: a truncated, foreign, empty or unknown-version database
// gives one clear error wrapping ErrDatabase or ErrSchema, naming no path;
// one held under Zotero's exclusive lock is still read.
func TestBadDatabase(t *testing.T) {
	full, err := os.ReadFile(filepath.Join(zoterofix.Dev(t), "Zotero7", "zotero.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want error
	}{
		{"truncated", full[:len(full)/3], ErrDatabase},
		{"header only", full[:100], ErrDatabase},
		{"not sqlite", []byte(strings.Repeat("not a database\n", 1000)), ErrDatabase},
		{"empty", nil, ErrDatabase},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "zotero.sqlite"), tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := snapshotOf(t, dir)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), dir) {
				t.Fatalf("the error names the folder: %v", err)
			}
		})
	}
	t.Run("unknown schema", func(t *testing.T) {
		dir := copyLayout(t, "Zotero7")
		execDB(t, dir, `UPDATE version SET version = 140 WHERE schema = 'userdata'`)
		_, err := snapshotOf(t, dir)
		if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "123") || !strings.Contains(err.Error(), "129") {
			t.Fatalf("err = %v, want ErrSchema saying 123 to 129", err)
		}
	})
	t.Run("no data directory database", func(t *testing.T) {
		if _, err := snapshotOf(t, t.TempDir()); !errors.Is(err, ErrDatabase) {
			t.Fatalf("err = %v, want ErrDatabase", err)
		}
	})
	t.Run("locked by a running Zotero", func(t *testing.T) {
		dir := copyLayout(t, "Zotero")
		db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "zotero.sqlite")))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		for _, s := range []string{`PRAGMA locking_mode=EXCLUSIVE`, `BEGIN EXCLUSIVE`, `UPDATE items SET version = version`} {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		defer db.Exec(`ROLLBACK`)
		snap, err := snapshotOf(t, dir)
		if err != nil {
			t.Fatalf("a database under an exclusive lock: %v", err)
		}
		if snap.byKey["zotero:ACFJNP3J"] == nil {
			t.Fatal("items of a locked database not read")
		}
	})
}

// TestSnapshotRefresh: a change of the database is seen at the next call,
// and an unchanged one is not copied again.
func TestSnapshotRefresh(t *testing.T) {
	dir := copyLayout(t, "Zotero")
	l := newLibrary(libraryID(dir), dir, "", t.TempDir())
	t.Cleanup(l.close)
	ctx := context.Background()
	s1, err := l.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s2, _ := l.Snapshot(ctx); s2 != s1 {
		t.Fatal("an unchanged database was read again")
	}
	execDB(t, dir, `UPDATE itemDataValues SET value = 'MapReduce, renamed' WHERE value = 'MapReduce: Simplified Data Processing on Large Clusters'`)
	s3, err := l.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := s3.byKey["zotero:ACFJNP3J"].Title(); got != "MapReduce, renamed" {
		t.Fatalf("after the change the title is %q", got)
	}
	// A snapshot folder a process left behind an hour ago is removed at
	// the next snapshot; one of now (another process's) is not.
	old, now := filepath.Join(l.cacheDir, "snapshot-left"), filepath.Join(l.cacheDir, "snapshot-now")
	for _, d := range []string{old, now} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	hour := time.Now().Add(-time.Hour)
	os.Chtimes(old, hour, hour)
	execDB(t, dir, `UPDATE items SET version = version + 1`)
	if _, err := l.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("a snapshot folder left behind an hour ago is still there")
	}
	if _, err := os.Stat(now); err != nil {
		t.Error("another process's snapshot folder was removed")
	}
	os.RemoveAll(now)
	ents, _ := os.ReadDir(l.cacheDir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "snapshot-") {
			t.Errorf("snapshot copy %s left in the cache", e.Name())
		}
	}
}

// TestAnnotationPosition: a position that is malformed, too large, or
// points at a page the file does not have is skipped with its reason.
func TestAnnotationPosition(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, tt := range []struct {
		pos   string
		pages int
		want  int
		bad   string
	}{
		{`{"pageIndex":2,"rects":[[1,2,3,4]]}`, 13, 2, ""},
		{`{"pageIndex":0}`, 0, 0, ""},
		{`{"type":"FragmentSelector","value":"epubcfi(/6/4)"}`, 0, -1, ""},
		{`{"pageIndex":1000000000}`, 13, 0, "points at page"},
		{`{"pageIndex":1000000000}`, 0, 0, "points at page"},
		{`{"pageIndex":13}`, 13, 0, "points at page"},
		{`{"pageIndex":-1}`, 13, 0, "points at page"},
		{`{"pageIndex":1.5}`, 13, 0, "points at page"},
		{`{"pageIndex":"2"}`, 13, 0, "points at page"},
		{`{"pageIndex":`, 13, 0, "not valid JSON"},
		{`{"rects":[]}`, 13, 0, "no page"},
		{`{"pageIndex":0,"rects":` + deep + `}`, 13, 0, "not valid JSON"},
		{`{"pageIndex":0,"rects":` + strings.Repeat(deep, 2) + `}`, 13, 0, "over"},
		{`{"pageIndex":0,"x":"` + strings.Repeat("a", maxPositionBytes) + `"}`, 13, 0, "over"},
	} {
		got, err := annotationPage(tt.pos, tt.pages)
		short := tt.pos
		if len(short) > 40 {
			short = short[:40]
		}
		switch {
		case tt.bad == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %d, %v; want %d", short, got, err, tt.want)
		case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("%s: %d, %v; want an error saying %q", short, got, err, tt.bad)
		}
	}
}

// TestHostileAnnotations: in a library whose database holds annotations
// with broken positions and 100,000 annotations on one attachment, the
// broken ones are skipped with their reason, the rest are all there.
func TestHostileAnnotations(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes 100,000 annotations into a copy of the database (not under -short or the race detector)")
	}
	dir := copyLayout(t, "Zotero", "storage/QTBRV54N/Dean and Ghemawat - 2004 - MapReduce Simplified Data Processing on Large Clusters.pdf")
	execDB(t, dir,
		`UPDATE itemAnnotations SET position = '{"pageIndex":1000000000}' WHERE itemID = (SELECT itemID FROM items WHERE key = 'VMWHXWFJ')`,
		`UPDATE itemAnnotations SET position = '{"pageIndex":' WHERE itemID = (SELECT itemID FROM items WHERE key = 'SKQX5IUV')`,
	)
	// 100,000 more highlights on the MapReduce PDF.
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "zotero.sqlite")))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	const many = 100_000
	var att, typ, lib int
	if err := tx.QueryRow(`SELECT i.itemID, i.itemTypeID, i.libraryID FROM items i WHERE i.key = 'QTBRV54N'`).Scan(&att, &typ, &lib); err != nil {
		t.Fatal(err)
	}
	var annType int
	if err := tx.QueryRow(`SELECT itemTypeID FROM itemTypes WHERE typeName = 'annotation'`).Scan(&annType); err != nil {
		t.Fatal(err)
	}
	// The rows are made by SQLite itself, a statement for each table,
	// not a round trip per row: the items keyed Z0000000 on, and the
	// annotation of each on the attachment, numbered by its key.
	var last int64
	if err := tx.QueryRow(`SELECT MAX(itemID) FROM items`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO items (itemTypeID, libraryID, key)
		WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i+1 < ?)
		SELECT ?, ?, printf('Z%07d', i) FROM n`, many, annType, lib); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, sortIndex, position, isExternal)
		SELECT itemID, ?, 1, 'MapReduce', 'bulk ' || n, printf('00000|%06d|00000', n), printf('{"pageIndex":%d,"rects":[[1,2,3,4]]}', n % 13), 0
		FROM (SELECT itemID, CAST(substr(key, 2) AS INTEGER) AS n FROM items WHERE itemID > ?)`, att, last); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	start := time.Now()
	snap, err := snapshotOf(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot of %d items: %v", len(snap.items), time.Since(start))
	start = time.Now()
	defer func() { t.Logf("marks: %v", time.Since(start)) }()
	ms := snap.marks(context.Background(), snap.byKey["zotero:QTBRV54N"])
	// The fixture's attachment has 8 annotations in this layout, 2 made bad.
	if len(ms.Marks) != many+6 {
		t.Fatalf("%d marks, want %d bulk ones and the fixture's 6 good ones", len(ms.Marks), many)
	}
	joined := strings.Join(ms.Problems, "\n")
	if !strings.Contains(joined, "points at page") || !strings.Contains(joined, "not valid JSON") {
		t.Fatalf("problems %q do not say why two annotations were skipped", ms.Problems)
	}
	for _, m := range ms.Marks {
		if m.Page < 1 || m.Page > 13 {
			t.Fatalf("a mark on page %d of a 13-page PDF", m.Page)
		}
	}
}

// TestHostileAttachmentPaths: attachment paths with "..", NUL, absolute
// paths outside the library, and links out of storage/ are refused, never
// read; a missing file says so.
func TestHostileAttachmentPaths(t *testing.T) {
	data := t.TempDir()
	base := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.pdf")
	if err := os.WriteFile(secret, []byte("%PDF-1.4 secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(data, "storage", "AAAAAAAA"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(data, "storage", "AAAAAAAA", "link.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(base, "out")); err != nil {
		t.Fatal(err)
	}
	l := newLibrary("x", data, base, "")
	for _, tt := range []struct {
		key, path string
		mode      int
		want      error
	}{
		{"AAAAAAAA", "storage:../../../etc/passwd", linkImportedFile, ErrBadPath},
		{"AAAAAAAA", "storage:a\x00b.pdf", linkImportedFile, ErrBadPath},
		{"AAAAAAAA", "storage:sub/x.pdf", linkImportedFile, ErrBadPath},
		{"../../../", "storage:x.pdf", linkImportedFile, ErrBadPath},
		{"AAAAAAAA", "storage:link.pdf", linkImportedFile, ErrBadPath},
		{"AAAAAAAA", "storage:gone.pdf", linkImportedFile, ErrMissingFile},
		{"BBBBBBBB", secret, linkLinkedFile, ErrLinkedOutside},
		{"BBBBBBBB", "/etc/passwd", linkLinkedFile, ErrLinkedOutside},
		{"BBBBBBBB", filepath.Join(data, "..", filepath.Base(outside), "secret.pdf"), linkLinkedFile, ErrLinkedOutside},
		{"BBBBBBBB", "attachments:../secret.pdf", linkLinkedFile, ErrBadPath},
		{"BBBBBBBB", "attachments:out/secret.pdf", linkLinkedFile, ErrBadPath},
		{"BBBBBBBB", "relative/secret.pdf", linkLinkedFile, ErrBadPath},
		{"CCCCCCCC", "", linkLinkedURL, ErrNoFile},
	} {
		it := &Item{Key: tt.key, Type: "attachment", linkMode: tt.mode, filePath: tt.path, contentType: "application/pdf"}
		_, err := l.readFile(it, 1<<20)
		if !errors.Is(err, tt.want) {
			t.Errorf("%q (%q): %v, want %v", tt.key, tt.path, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), outside) || strings.Contains(err.Error(), data)) {
			t.Errorf("%q: the error names a path: %v", tt.path, err)
		}
		if !errors.Is(err, sources.ErrOutside) && !errors.Is(err, sources.ErrNotFound) {
			t.Errorf("%q: %v wraps neither ErrOutside nor ErrNotFound", tt.path, err)
		}
	}
}

// TestCollectionCycle: a damaged database whose collections are their own
// ancestors still resolves, lists and searches, each collection once.
func TestCollectionCycle(t *testing.T) {
	dir := copyLayout(t, "Zotero")
	// Thesis (7MBG2ESU) becomes a child of its own grandchild Attention.
	execDB(t, dir, `UPDATE collections SET parentCollectionID = (SELECT collectionID FROM collections WHERE key = 'GQ9Z2RS6') WHERE key = '7MBG2ESU'`)
	snap, err := snapshotOf(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := snap.scope("collections/7MBG2ESU")
	if err != nil {
		t.Fatal(err)
	}
	tops := snap.tops(sc)
	if len(tops) == 0 {
		t.Fatal("the collection holds nothing")
	}
	seen := map[*Item]bool{}
	for _, it := range tops {
		if seen[it] {
			t.Fatalf("%s listed twice", it.Key)
		}
		seen[it] = true
		if !snap.holds(sc, snap.path(it)) {
			t.Fatalf("%s listed but not held", it.Key)
		}
	}
	if p := snap.collPath(sc.coll); p == "" {
		t.Fatal("no path for a collection in a cycle")
	}
	if snap.holds(sc, "zotero:items/YBRAS9NS") {
		t.Fatal("an item of no collection of the cycle is held")
	}
}

// TestNoteHTMLBounded: a 50 MB note and one nested 10,000 deep are turned
// into text in one linear pass, cut at maxNoteBytes, with their headings.
func TestNoteHTMLBounded(t *testing.T) {
	huge := `<div class="zotero-note znv1"><h1>Big</h1>` + strings.Repeat("<p>lorem ipsum dolor &amp; sit</p>", 50<<20/35) + `</div>`
	text, secs := noteText(huge)
	if len(text) > maxNoteBytes+100 || !strings.HasSuffix(text, "cut here]") {
		t.Fatalf("a 50 MB note gave %d bytes of text ending %q", len(text), text[max(0, len(text)-40):])
	}
	if len(secs) != 1 || secs[0].Title != "Big" {
		t.Fatalf("sections %+v", secs)
	}
	deep := strings.Repeat("<div><ul><li>", 10000) + "<h2>Deep heading</h2>deep text" + strings.Repeat("</li></ul></div>", 10000)
	text, secs = noteText(deep)
	if !strings.Contains(text, "deep text") || len(secs) != 1 || secs[0].Title != "Deep heading" {
		t.Fatalf("a note nested 10,000 deep: sections %+v, text %d bytes", secs, len(text))
	}
	unclosed := "<h1>Open heading " + strings.Repeat("<b", 1000)
	if text, _ := noteText(unclosed); !strings.Contains(text, "Open heading") {
		t.Fatalf("an unclosed tag lost the text: %q", text)
	}
}

// TestHostileEPUB: an EPUB that is no zip, that has no package, or whose
// chapter inflates past the limits is refused with ErrUnreadable, without
// reading past them.
func TestHostileEPUB(t *testing.T) {
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	add := func(name, body string) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	add("META-INF/container.xml", `<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>`)
	add("OEBPS/content.opf", `<package><manifest><item id="c1" href="c1.xhtml"/></manifest><spine><itemref idref="c1"/></spine></package>`)
	w, err := zw.Create("OEBPS/c1.xhtml")
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for i := 0; i < maxEPUBText>>20+2; i++ {
		w.Write(chunk)
	}
	zw.Close()
	for name, data := range map[string][]byte{
		"not a zip":   []byte("PK not really"),
		"no package":  zipOf(t, map[string]string{"mimetype": "application/epub+zip"}),
		"bad package": zipOf(t, map[string]string{"META-INF/container.xml": "<container><rootfiles><rootfile full-path=\"x.opf\"/></rootfiles></container>", "x.opf": "<package"}),
		"bomb":        bomb.Bytes(),
	} {
		if _, err := epubDocument("zotero:items/AAAAAAAA", "x", data); !errors.Is(err, sources.ErrUnreadable) {
			t.Errorf("%s: %v, want ErrUnreadable", name, err)
		}
	}
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	zw.Close()
	return b.Bytes()
}

// TestMergeMarks: the annotations saved in the PDF file are merged with
// Zotero's, without those both hold (same page, same words), in page order.
func TestMergeMarks(t *testing.T) {
	loc := func(page int) sources.Location { return sources.Location{Path: "zotero:items/AAAAAAAA", Page: page} }
	own := []sources.Mark{
		{Location: loc(3), Kind: sources.MarkHighlight, Text: "the right choice", URI: "zotero://open-pdf/library/items/AAAAAAAA?page=3&annotation=BBBBBBBB"},
		{Location: loc(1), Kind: sources.MarkNote, Comment: "check this"},
	}
	inFile := []sources.Mark{
		{Location: loc(3), Kind: sources.MarkHighlight, Text: "the right\nchoice"}, // Zotero's too
		{Location: loc(2), Kind: sources.MarkHighlight, Text: "the right choice"},  // another page
		{Location: loc(1), Kind: sources.MarkNote, Comment: "Check  this"},         // Zotero's too
		{Location: loc(1), Kind: sources.MarkUnderline, Text: "only in the file"},  // the file's own
	}
	got := merge(own, inFile)
	var pages []int
	for _, m := range got {
		pages = append(pages, m.Page)
	}
	if len(got) != 4 || !slices.IsSorted(pages) {
		t.Fatalf("merged %d marks on pages %v, want 4 in page order: %+v", len(got), pages, got)
	}
	for _, m := range got {
		if m.Page == 3 && m.URI == "" {
			t.Error("the file's copy of a Zotero annotation replaced it")
		}
	}
}

// TestSnapshotMidWrite: Zotero writing while a snapshot is copied is
// noticed (a file's size or modification time changed over the copy) and
// the copy is taken again, until one is stable; the snapshot is then the
// library after the last write. A database written during every copy is
// one clear error and no snapshot, never a copy read half-written, no copy
// is left in the cache, and the next call, once Zotero stops, reads it.
func TestSnapshotMidWrite(t *testing.T) {
	dir := copyLayout(t, "Zotero-wal")
	cache := t.TempDir()
	l := newLibrary(libraryID(dir), dir, "", cache)
	t.Cleanup(l.close)
	ctx := context.Background()
	writes, copies := 0, 0
	disturb := 2 // how many copies Zotero writes into
	title := "MapReduce: Simplified Data Processing on Large Clusters"
	testHookCopied = func(name string) {
		if name != dbFiles[0] {
			return
		}
		copies++
		if writes < disturb {
			// Between the copy of zotero.sqlite and that of its WAL,
			// as a running Zotero would.
			writes++
			next := fmt.Sprintf("MapReduce, write %d", writes)
			execDB(t, dir, fmt.Sprintf(`UPDATE itemDataValues SET value = '%s' WHERE value = '%s'`, next, title))
			title = next
		}
	}
	t.Cleanup(func() { testHookCopied = nil })

	snap, err := l.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if copies != disturb+1 {
		t.Errorf("%d copies for %d writes during them, want %d", copies, disturb, disturb+1)
	}
	if got := snap.byKey["zotero:ACFJNP3J"].Title(); got != "MapReduce, write 2" {
		t.Fatalf("the snapshot's title is %q, want the last write's", got)
	}

	// Written during every copy: no snapshot, one clear error.
	copies, disturb = 0, 1<<30
	execDB(t, dir, `UPDATE items SET version = version + 1`)
	snap, err = l.Snapshot(ctx)
	if snap != nil || !errors.Is(err, ErrDatabase) || !strings.Contains(err.Error(), "Zotero is writing") {
		t.Fatalf("a database written during every copy: %v, %v", snap != nil, err)
	}
	if copies != copyTries {
		t.Errorf("%d copies, want %d", copies, copyTries)
	}
	if strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), cache) {
		t.Errorf("the error names a path: %v", err)
	}
	ents, _ := os.ReadDir(l.cacheDir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "snapshot-") {
			t.Errorf("snapshot copy %s left in the cache", e.Name())
		}
	}

	// Zotero stops writing: the next call reads the library, with no
	// change since its last write.
	disturb = 0
	snap, err = l.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.byKey["zotero:ACFJNP3J"].Title(); got != fmt.Sprintf("MapReduce, write %d", writes) {
		t.Fatalf("after the writes stop the title is %q, want the last write's (%d)", got, writes)
	}
}
