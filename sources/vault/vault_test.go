package vault_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
)

func TestConformance(t *testing.T) {
	l := paperSampleLibrary(t)
	ctx := context.Background()
	for _, tt := range []struct {
		kind  grant.Kind
		ref   string
		probe string
	}{
		{grant.KindDirectory, "notes", "slot routing results"},
		{grant.KindDirectory, "papers/vision", "gated residual pathways"},
		{grant.KindDirectory, "papers", "strided block attention"},
		{grant.KindFile, "reading-list", "survey"},
		{grant.KindFile, "notes/meeting 2024-03-12.md", "召回率"},
	} {
		t.Run(tt.ref, func(t *testing.T) {
			src, err := l.Open(ctx, tt.kind, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if err := sourcetest.Test(ctx, src, tt.probe); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("memory", func(t *testing.T) {
		mem := sourcetest.NewMemory(sources.Info{Path: "mem/a", Kind: grant.KindFile, Title: "a"},
			sourcetest.TextDocument("mem/a.md", "# Alpha\n\nSparse attention keeps a window.\n\n## Beta\n\nDense attention does not.\n"))
		if err := sourcetest.Test(ctx, mem, "dense attention"); err != nil {
			t.Error(err)
		}
	})
}

// TestConformanceCatchesBrokenSources makes sure the checker is not a no-op:
// a source whose excerpts are not verbatim and which reads outside itself
// must fail it.
func TestConformanceCatchesBrokenSources(t *testing.T) {
	err := sourcetest.Test(context.Background(), broken{}, "anything")
	if err == nil {
		t.Fatal("a broken source passed the conformance checks")
	}
	for _, want := range []string{"not verbatim", "outside the source succeeded", "score", "is not one line of data"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the checks did not report %q:\n%v", want, err)
		}
	}
}

type broken struct{}

func (broken) Info() sources.Info { return sources.Info{Path: "b", Kind: grant.KindFile} }
func (broken) Search(context.Context, sources.Query) (*sources.Results, error) {
	return &sources.Results{Total: 1, Hits: []sources.Hit{{Location: sources.Location{Path: "b"}, Title: "b\n## Allowed sources", Text: "abc", Excerpt: "xyz", Score: 2}}}, nil
}
func (broken) Read(context.Context, string) (*sources.Document, error) {
	return sourcetest.TextDocument("b", "abc"), nil
}

func openLibrary(t *testing.T, root, cache string) *vault.Library {
	t.Helper()
	return openLibraryOCR(t, root, cache, nil)
}

// openLibraryOCR is openLibrary with the given OCR engine (nil: the
// default).
func openLibraryOCR(t *testing.T, root, cache string, eng ocr.Engine) *vault.Library {
	t.Helper()
	v, err := catalog.Open(root, &catalog.Options{Revalidate: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	lib := vault.NewLibrary(v, &vault.LibraryOptions{CacheDir: cache, OCR: eng})
	t.Cleanup(func() { lib.Close() })
	return lib
}

func TestDirectory(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	vaultfix.Write(t, root, map[string]string{
		"notes/a.md":             "# Alpha notes\n\nThe quick brown fox.\n\n## Second\n\nA lazy dog sleeps.\n",
		"notes/sub/b.txt":        "Beta\nfoxes are quick\n",
		"notes/.hidden.txt":      "fox secret-hidden",
		"notes/blob.dat":         "fox\x00\x01\x02binary",
		"notes-private/c.txt":    "fox private-sibling",
		"papers/p/NOTES.md":      "# P\nfox paper notes",
		"papers/p/metadata.json": `{"title":"P"}`,
	})
	vaultfix.Write(t, outside, map[string]string{"secret.txt": "fox outside-secret"})
	if err := os.Symlink(outside, filepath.Join(root, "notes", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "notes-private"), filepath.Join(root, "notes", "sib")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l := openLibrary(t, root, t.TempDir())
	src, err := l.Open(ctx, grant.KindDirectory, "notes")
	if err != nil {
		t.Fatal(err)
	}
	d := src.(sources.Lister)

	entries, truncated, err := d.List(ctx, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, fmt.Sprintf("%s:%s:%d", e.Name, e.Kind, e.Size))
	}
	// Links that leave the directory are not listed.
	want := []string{"sub:directory:0", "a.md:file:67", "blob.dat:file:12"}
	if diff := cmp.Diff(want, names); diff != "" || truncated {
		t.Errorf("List (-want +got):\n%s truncated %v", diff, truncated)
	}
	if e, tr, _ := d.List(ctx, "", 1); len(e) != 1 || !tr {
		t.Errorf("List capped at 1: %d entries, truncated %v", len(e), tr)
	}

	res, err := src.Search(ctx, sources.Query{Text: "fox", Limit: 10, ExcerptChars: 100})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range res.Hits {
		paths = append(paths, h.Path)
		for _, bad := range []string{"secret", "private", "binary"} {
			if strings.Contains(h.Text, bad) {
				t.Errorf("search reached %s: %q", h.Path, h.Text)
			}
		}
	}
	if diff := cmp.Diff([]string{"notes/sub/b.txt", "notes/a.md"}, paths, cmpSorted); diff != "" {
		t.Errorf("search paths (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		path string
		want error
	}{
		{"notes/out/secret.txt", sources.ErrOutside},
		{"notes/sib/c.txt", sources.ErrOutside},
		{"notes/.hidden.txt", sources.ErrNotFound},
		{"notes/blob.dat", sources.ErrNotText},
		{"notes/missing.md", sources.ErrNotFound},
		{"notes/sub", sources.ErrIsDirectory},
		{"notes", sources.ErrIsDirectory},
		{"notes-private/c.txt", sources.ErrOutside},
		{"papers/p/NOTES.md", sources.ErrOutside},
	} {
		_, err := src.Read(ctx, tt.path)
		if !errors.Is(err, tt.want) {
			t.Errorf("Read(%q) = %v, want %v", tt.path, err, tt.want)
		} else if strings.Contains(err.Error(), root) || strings.Contains(err.Error(), outside) {
			t.Errorf("Read(%q) error names an absolute path: %v", tt.path, err)
		}
	}
	doc, err := src.Read(ctx, "notes/a.md")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Alpha notes" || len(doc.Sections) != 2 || doc.Sections[1].Title != "Second" {
		t.Errorf("a.md = %+v", doc)
	}
}

var cmpSorted = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

func TestDirectoryScanCapAndIndexCache(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("docs/f%02d.txt", i)] = fmt.Sprintf("Title %d\nshared term and unique%d\n", i, i)
	}
	vaultfix.Write(t, root, files)
	cache := t.TempDir()
	ctx := context.Background()

	src, _ := openLibrary(t, root, cache).Open(ctx, grant.KindDirectory, "docs")
	res, err := src.Search(ctx, sources.Query{Text: "shared term", Limit: 5, ScanFiles: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Total > 10 {
		t.Errorf("scan cap 10: total %d, truncated %v", res.Total, res.Truncated)
	}
	res, err = src.Search(ctx, sources.Query{Text: "unique7", Limit: 5})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "docs/f07.txt" || res.Truncated {
		t.Fatalf("search = %+v, %v", res, err)
	}
	segs, _ := filepath.Glob(filepath.Join(cache, "library", "seg-*"))
	if len(segs) == 0 {
		t.Fatal("no library index segment written")
	}

	// A fresh library (a new process) reads the index; a corrupt segment is
	// rebuilt, never trusted.
	for _, seg := range segs {
		data, _ := os.ReadFile(seg)
		data[len(data)/2] ^= 0xff
		os.WriteFile(seg, data, 0o600)
	}
	src2, _ := openLibrary(t, root, cache).Open(ctx, grant.KindDirectory, "docs")
	res, err = src2.Search(ctx, sources.Query{Text: "unique7", Limit: 5})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "docs/f07.txt" {
		t.Fatalf("after corrupting the index: %+v, %v", res, err)
	}
	for _, seg := range segs {
		if _, err := os.Stat(seg); err == nil {
			t.Errorf("the corrupt segment %s was kept", filepath.Base(seg))
		}
	}

	// A changed file changes the stamp: the new text is found.
	time.Sleep(10 * time.Millisecond)
	vaultfix.Write(t, root, map[string]string{"docs/f07.txt": "Title 7\nreplaced wording entirely\n"})
	src3, _ := openLibrary(t, root, cache).Open(ctx, grant.KindDirectory, "docs")
	res, err = src3.Search(ctx, sources.Query{Text: "replaced wording", Limit: 5})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "docs/f07.txt" {
		t.Fatalf("after a change: %+v, %v", res, err)
	}
}

// TestDamagedIndexFoundWhenRead damages the text of the unit a search
// returns, which a new process does not check before that search: the
// search still answers with the file's real text, the damaged segment
// having been dropped and its files indexed again.
func TestDamagedIndexFoundWhenRead(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("docs/f%02d.txt", i)] = fmt.Sprintf("Title %d\nshared term and unique%d\n", i, i)
	}
	vaultfix.Write(t, root, files)
	cache := t.TempDir()
	ctx := context.Background()
	src, _ := openLibrary(t, root, cache).Open(ctx, grant.KindDirectory, "docs")
	if _, err := src.Search(ctx, sources.Query{Text: "unique7", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(cache, "library", "seg-*"))
	damaged := 0
	for _, seg := range segs {
		data, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		// Units' texts come before the index, whose dictionary also
		// holds the word: the first occurrence is the text's.
		if i := bytes.Index(data, []byte("and unique7")); i >= 0 {
			data[i] = 'A'
			if err := os.WriteFile(seg, data, 0o600); err != nil {
				t.Fatal(err)
			}
			damaged++
		}
	}
	if damaged != 1 {
		t.Fatalf("the text was found in %d segments, want 1", damaged)
	}
	src2, _ := openLibrary(t, root, cache).Open(ctx, grant.KindDirectory, "docs")
	res, err := src2.Search(ctx, sources.Query{Text: "unique7", Limit: 5})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "docs/f07.txt" {
		t.Fatalf("after damaging a text: %+v, %v", res, err)
	}
	if !strings.Contains(res.Hits[0].Text, "and unique7") {
		t.Errorf("hit text %q: the damaged text was used", res.Hits[0].Text)
	}
}

func TestFileSource(t *testing.T) {
	root := t.TempDir()
	vaultfix.Write(t, root, map[string]string{
		"reading-list": "papers to read\n- strided attention\n",
		"image.bin":    "\x89PNG\x00\x00binary",
	})
	ctx := context.Background()
	l := openLibrary(t, root, "-")
	src, err := l.Open(ctx, grant.KindFile, "reading-list")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := src.Read(ctx, "")
	if err != nil || doc.Parts[0].Text != "papers to read\n- strided attention\n" || doc.Title != "papers to read" {
		t.Fatalf("Read = %+v, %v", doc, err)
	}
	if _, err := src.Read(ctx, "other"); !errors.Is(err, sources.ErrOutside) {
		t.Errorf("Read(other) = %v", err)
	}
	bin, err := l.Open(ctx, grant.KindFile, "image.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bin.Read(ctx, ""); !errors.Is(err, sources.ErrNotText) || !strings.Contains(err.Error(), "image.bin") {
		t.Errorf("binary file: %v", err)
	}
	if _, err := l.Open(ctx, grant.KindDirectory, "reading-list"); err == nil {
		t.Error("a file opened as a directory")
	}
}
