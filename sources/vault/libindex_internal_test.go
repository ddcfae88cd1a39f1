package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/sources"
)

// TestBrokenPDFIndexedAsFailed checks that a paper whose PDF cannot be
// read is indexed as failed, with the reason, while its Markdown is still
// searched, and is not extracted again until the file changes.
func TestBrokenPDFIndexedAsFailed(t *testing.T) {
	root := t.TempDir()
	paper := filepath.Join(root, "papers", "broken")
	os.MkdirAll(paper, 0o755)
	os.WriteFile(filepath.Join(paper, "metadata.json"), []byte(`{"title":"Broken"}`), 0o644)
	os.WriteFile(filepath.Join(paper, "paper.pdf"), []byte("%PDF-1.7\nnot really a PDF at all\n"), 0o644)
	os.WriteFile(filepath.Join(paper, "PAPER.md"), []byte("# Broken\n\nThe derived text mentions holography.\n"), 0o644)
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	lib := NewLibrary(v, &LibraryOptions{CacheDir: t.TempDir()})
	t.Cleanup(func() { lib.Close() })
	ctx := context.Background()
	dir, err := lib.Open(ctx, grant.KindDirectory, "papers")
	if err != nil {
		t.Fatal(err)
	}
	res, err := dir.Search(ctx, sources.Query{Text: "holography", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Path != "papers/broken/PAPER.md" {
		t.Fatalf("hits %+v", res.Hits)
	}
	snap := lib.idx.index().Snapshot()
	stamp, why, ok := snap.Status(paperItem + "papers/broken")
	if !ok || !strings.Contains(why, "papers/broken/paper.pdf") || strings.Contains(why, root) {
		t.Fatalf("status %q %q %v", stamp, why, ok)
	}
	// Unchanged: nothing to build.
	if j := lib.idx.index().Ensure([]libindex.Item{{Key: paperItem + "papers/broken", Stamp: stamp}}, "", nil); !isClosed(j.Done()) {
		t.Error("an unchanged failed paper was queued again")
	}
	// Changed: extracted again.
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(filepath.Join(paper, "paper.pdf"), []byte("%PDF-1.7\nstill broken, but changed\n"), 0o644)
	src, _ := lib.paperSource(ctx, "papers/broken")
	if src.stamp() == stamp {
		t.Fatal("the stamp did not change with the file")
	}
	j := lib.idx.index().Ensure([]libindex.Item{{Key: paperItem + "papers/broken", Stamp: src.stamp()}}, "", nil)
	if isClosed(j.Done()) {
		t.Error("a changed failed paper was not queued")
	}
	// The build writes to the cache folders: let it end before they are
	// removed.
	select {
	case <-j.Done():
	case <-time.After(time.Minute):
		t.Fatal("the build of one changed paper did not end")
	}
}

// TestNewProcessChecksPapersAfterAnswering checks a new process's first
// search of a folder: it takes the stamps of the papers the index holds
// from the index and answers, and the rescan it starts at once finds a
// paper changed while no process ran, which the next searches see.
func TestNewProcessChecksPapersAfterAnswering(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"a", "b"} {
		paper := filepath.Join(root, "papers", name)
		os.MkdirAll(paper, 0o755)
		os.WriteFile(filepath.Join(paper, "metadata.json"), []byte(`{"title":"Paper `+name+`"}`), 0o644)
		os.WriteFile(filepath.Join(paper, "PAPER.md"), []byte("# Paper "+name+"\n\nThe original text about lattices.\n"), 0o644)
	}
	cache := t.TempDir()
	ctx := context.Background()
	search := func(lib *Library, q string) *sources.Results {
		t.Helper()
		dir, err := lib.Open(ctx, grant.KindDirectory, "papers")
		if err != nil {
			t.Fatal(err)
		}
		res, err := dir.Search(ctx, sources.Query{Text: q, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	v, err := catalog.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if res := search(NewLibrary(v, &LibraryOptions{CacheDir: cache}), "lattices"); len(res.Hits) != 2 {
		t.Fatalf("first process: %d hits", len(res.Hits))
	}
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(filepath.Join(root, "papers", "b", "PAPER.md"), []byte("# Paper b\n\nA rewritten text about quasicrystals.\n"), 0o644)

	lib := NewLibrary(v, &LibraryOptions{CacheDir: cache})
	t.Cleanup(func() { lib.Close() })
	search(lib, "lattices") // answered at once; the rescan runs
	lib.bg.Wait()
	if res := search(lib, "quasicrystals"); len(res.Hits) != 1 {
		t.Fatalf("the change made while no process ran was not picked up by the rescan: %+v", res.Hits)
	}
	if res := search(lib, "lattices"); len(res.Hits) != 1 || res.Hits[0].Path != "papers/a/PAPER.md" {
		t.Errorf("after the rescan: %+v", res.Hits)
	}
}

// TestIndexingReleasesParsedPDFs checks that indexing a folder of papers
// does not keep every parsed PDF in memory, and that a paper read after
// its release is whole again.
func TestIndexingReleasesParsedPDFs(t *testing.T) {
	lib := paperLibrary(t, paperSampleRoot(t))
	ctx := context.Background()
	dir, err := lib.Open(ctx, grant.KindDirectory, "papers")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dir.Search(ctx, sources.Query{Text: "attention", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	src, err := lib.paperSource(ctx, "papers/2401.01234")
	if err != nil {
		t.Fatal(err)
	}
	src.pdf.mu.Lock()
	kept := src.pdf.doc != nil
	src.pdf.mu.Unlock()
	if kept {
		t.Error("the parsed PDF is kept after indexing")
	}
	doc, err := src.Read(ctx, "")
	if err != nil || len(doc.Parts) == 0 || doc.Parts[0].Text == "" {
		t.Fatalf("read after release: %v", err)
	}
}

// TestLoosePDFIndexed checks that a loose PDF found in a folder is an item
// of the library index — its pages indexed, a damaged one kept as a failure
// — and that its parsed document is released once indexed.
func TestLoosePDFIndexed(t *testing.T) {
	root := paperSampleRoot(t)
	sba, err := os.ReadFile(filepath.Join(root, "papers", "2401.01234", "2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	writeVaultFile(t, root, "inbox/sba.pdf", sba)
	writeVaultFile(t, root, "inbox/bad.pdf", []byte("%PDF-1.4\nnot a body\n"))
	lib := paperLibrary(t, root)
	ctx := context.Background()
	dir, err := lib.Open(ctx, grant.KindDirectory, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := dir.Search(ctx, sources.Query{Text: "block partition", Limit: 5}); err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %+v, %v", res, err)
	}
	snap := lib.idx.index().Snapshot()
	if _, failure, ok := snap.Status(pdfItem + "inbox/sba.pdf"); !ok || failure != "" {
		t.Errorf("inbox/sba.pdf in the index: ok %v, failure %q", ok, failure)
	}
	if _, failure, ok := snap.Status(pdfItem + "inbox/bad.pdf"); !ok || !strings.Contains(failure, "malformed") {
		t.Errorf("inbox/bad.pdf in the index: ok %v, failure %q", ok, failure)
	}
	src, err := lib.Open(ctx, grant.KindFile, "inbox/sba.pdf")
	if err != nil {
		t.Fatal(err)
	}
	p := src.(*PDF)
	p.pdf.mu.Lock()
	kept := p.pdf.doc != nil
	p.pdf.mu.Unlock()
	if kept {
		t.Error("the parsed PDF is kept after indexing")
	}
}
