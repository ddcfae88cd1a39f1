package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseMetadataLenient(t *testing.T) {
	m, err := ParseMetadata([]byte(`{"title":" T ","authors":[{"name":"A"},"B",{"given":"C","family":"D"}],"year":"2019","doi":"10.1/x","extra":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Metadata{Title: "T", Authors: []string{"A", "B", "C D"}, Year: 2019, DOI: "10.1/x"}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	if _, err := ParseMetadata([]byte(`[1]`)); err == nil {
		t.Error("a JSON array was accepted as metadata")
	}
}

func write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCatalogue(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "papers/a/metadata.json", `{"title":"A","doi":"10.1/A","arxiv_id":"2401.00001v2"}`)
	write(t, dir, "papers/a/A.PDF", "%PDF")
	write(t, dir, "papers/org/NOTES.md", "# index")
	write(t, dir, "papers/org/b/NOTES.md", "notes")
	write(t, dir, "papers/org/b/files/z.pdf", "%PDF")
	write(t, dir, "papers/org/b/files/a/y.pdf", "%PDF")
	write(t, dir, "papers/c/metadata.json", `{broken`)
	write(t, dir, "papers/c/attachments/d/metadata.json", `{"title":"inside attachments"}`)
	v, err := Open(dir, &Options{Revalidate: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	cat, err := v.Catalogue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var refs, pdfs []string
	for _, p := range cat.Papers() {
		refs = append(refs, p.Ref)
		pdfs = append(pdfs, p.PDF)
	}
	if diff := cmp.Diff([]string{"papers/a", "papers/c", "papers/org/b"}, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"papers/a/A.PDF", "", "papers/org/b/files/z.pdf"}, pdfs); diff != "" {
		t.Errorf("pdfs (-want +got):\n%s", diff)
	}
	if p := cat.Paper("papers/c"); p.MetaErr == nil {
		t.Error("broken metadata.json not reported")
	}
	for _, q := range [][2]string{{"https://doi.org/10.1/a", ""}, {"", "2401.00001"}, {"10.48550/arxiv.2401.00001v1", ""}} {
		if p := cat.Match(q[0], q[1]); p == nil || p.Ref != "papers/a" {
			t.Errorf("Match(%q, %q) = %v, want papers/a", q[0], q[1], p)
		}
	}
	if p := cat.PaperOf("papers/org/b/files/z.pdf"); p == nil || p.Ref != "papers/org/b" {
		t.Errorf("PaperOf = %v", p)
	}
	// Unchanged: the same catalogue. A new paper: rebuilt.
	again, _ := v.Catalogue(ctx)
	if again != cat {
		t.Error("catalogue rebuilt without a change")
	}
	write(t, dir, "papers/org/e/metadata.json", `{"title":"E"}`)
	rebuilt, _ := v.Catalogue(ctx)
	if rebuilt == cat || rebuilt.Paper("papers/org/e") == nil {
		t.Error("new paper not seen")
	}
	for _, tt := range []struct {
		rel  string
		want Kind
	}{{"papers/a", KindPaper}, {"papers/org", KindDirectory}, {"papers/a/metadata.json", KindFile}} {
		k, _, err := v.Classify(ctx, tt.rel)
		if err != nil || k != tt.want {
			t.Errorf("Classify(%q) = %q, %v; want %q", tt.rel, k, err, tt.want)
		}
	}
}

// A library whose freshness check is slow is revalidated in the background:
// the call returns the catalogue in hand at once, and the rebuilt one
// replaces it shortly after.
func TestCatalogueBackgroundRefresh(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "papers/a/metadata.json", `{"title":"A"}`)
	v, err := Open(dir, &Options{Revalidate: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	first, _ := v.Catalogue(ctx)
	v.mu.Lock()
	v.checkCost = time.Second // as if the check were slow
	v.mu.Unlock()
	write(t, dir, "papers/b/metadata.json", `{"title":"B"}`)
	if c, _ := v.Catalogue(ctx); c != first {
		t.Fatal("a slow check was made on the request path")
	}
	v.bg.Wait() // the refresh that call started
	// The catalogue in hand, not a later call's own check, holds it.
	v.mu.Lock()
	c := v.cat
	v.mu.Unlock()
	if c.Paper("papers/b") == nil {
		t.Fatal("the background refresh did not see the new paper")
	}
}

func TestCatalogueCache(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "papers/a/metadata.json", `{"title":"A","doi":"10.1/a"}`)
	write(t, dir, "papers/b/metadata.json", `{broken`)
	write(t, dir, "papers/c/PAPER.md", "# Heading C\n")
	ctx := context.Background()
	v1, _ := Open(dir, nil)
	built, err := v1.Catalogue(ctx)
	v1.Close()
	if err != nil {
		t.Fatal(err)
	}
	cacheFile := filepath.Join(dir, ".agentero", "cache", "catalogue.bin")
	if st, err := os.Stat(cacheFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("catalogue cache: %v", err)
	}

	v2, _ := Open(dir, nil)
	defer v2.Close()
	cached, _ := v2.loadCache()
	if cached == nil {
		t.Fatal("the cache written by the first process was not read")
	}
	summary := func(c *Catalogue) []string {
		var out []string
		for _, p := range c.Papers() {
			out = append(out, fmt.Sprintf("%s|%s|%s|%v", p.Ref, p.Title(), p.DOI, p.MetaErr != nil))
		}
		return out
	}
	if diff := cmp.Diff(summary(built), summary(cached)); diff != "" {
		t.Errorf("cached catalogue differs (-built +cached):\n%s", diff)
	}
	if p := cached.Match("https://doi.org/10.1/A", ""); p == nil || p.Ref != "papers/a" {
		t.Error("identifier index not rebuilt from the cache")
	}

	// A damaged cache is ignored, never trusted.
	data, _ := os.ReadFile(cacheFile)
	data[len(data)/3] ^= 0xff
	os.WriteFile(cacheFile, data, 0o600)
	if c, _ := v2.loadCache(); c != nil {
		t.Error("a damaged cache was trusted")
	}
	v3, _ := Open(dir, nil)
	defer v3.Close()
	if c, err := v3.Catalogue(ctx); err != nil || len(c.Papers()) != 3 {
		t.Errorf("after damage: %v, %v", c, err)
	}
	// "-" turns the cache off.
	off, _ := Open(dir, &Options{CacheDir: "-"})
	defer off.Close()
	if c, _ := off.loadCache(); c != nil {
		t.Error("CacheDir \"-\" still reads a cache")
	}
}

// A new process starting from the cached catalogue sees a paper added since
// the cache was written: the cache is checked before it is used.
func TestCatalogueCacheNeverStale(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "papers/a/metadata.json", `{"title":"A"}`)
	ctx := context.Background()
	v1, _ := Open(dir, nil)
	if _, err := v1.Catalogue(ctx); err != nil {
		t.Fatal(err)
	}
	v1.Close()
	write(t, dir, "papers/b/metadata.json", `{"title":"B"}`)
	v2, _ := Open(dir, nil)
	defer v2.Close()
	if k, _, err := v2.Classify(ctx, "papers/b"); err != nil || k != KindPaper {
		t.Fatalf("a paper added after the cache was written: %q, %v", k, err)
	}
}

// TestCatalogueFreshManyStamps checks that a new process sees a change to
// any paper of a library whose stamps are checked in parallel chunks: the
// first, one in the middle and the last, each alone. The cases share one
// library, laid out once (most of the test's time), and change their
// papers in turn: each starts from the cache the process before it wrote,
// with its own paper the only one changed since.
func TestCatalogueFreshManyStamps(t *testing.T) {
	const papers = 3 * freshChunk // 2 stamps each: several chunks
	tests := []struct {
		name  string
		paper int
	}{
		{"first", 0},
		{"middle", papers / 2},
		{"last", papers - 1},
	}
	dir := t.TempDir()
	for i := range papers {
		write(t, dir, fmt.Sprintf("papers/p%04d/metadata.json", i), fmt.Sprintf(`{"title":"P%d"}`, i))
	}
	ctx := context.Background()
	v1, _ := Open(dir, nil)
	if c, err := v1.Catalogue(ctx); err != nil || len(c.Papers()) != papers {
		t.Fatalf("first catalogue: %v", err)
	}
	v1.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Unchanged: the next process starts from the cache as it is.
			v2, _ := Open(dir, nil)
			c2, _ := v2.Catalogue(ctx)
			v2.Close()
			if c2 == nil || c2.Paper(fmt.Sprintf("papers/p%04d", tt.paper)).Meta.Title != fmt.Sprintf("P%d", tt.paper) {
				t.Fatal("the unchanged library reads back differently")
			}
			p := fmt.Sprintf("papers/p%04d", tt.paper)
			write(t, dir, p+"/metadata.json", `{"title":"Changed title"}`)
			v3, _ := Open(dir, nil)
			defer v3.Close()
			c3, err := v3.Catalogue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := c3.Paper(p).Meta.Title; got != "Changed title" {
				t.Errorf("title of the changed paper %q, want the new one", got)
			}
		})
	}
}

// TestStampsFresh: a stamp holds only while its path is what it was: a
// folder still a folder of the same time, a file of the same time and
// size, a PDF a regular file, never a link to one.
func TestStampsFresh(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "papers/a/metadata.json", `{"title":"A"}`)
	write(t, dir, "papers/a/a.pdf", "%PDF")
	lstat := func(rel string) os.FileInfo {
		st, err := os.Lstat(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	folder, meta := lstat("papers/a"), lstat("papers/a/metadata.json")
	if err := os.Symlink("a.pdf", filepath.Join(dir, "papers/a/link.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(dir, "papers/alias")); err != nil {
		t.Fatal(err)
	}
	// Restore the folder's time, which the link above changed.
	if err := os.Chtimes(filepath.Join(dir, "papers/a"), folder.ModTime(), folder.ModTime()); err != nil {
		t.Fatal(err)
	}
	dirStamp := stamp{path: "papers/a", mtime: folder.ModTime(), dir: true}
	metaStamp := stamp{path: "papers/a/metadata.json", mtime: meta.ModTime(), size: meta.Size()}
	tests := []struct {
		name string
		s    stamp
		want bool
	}{
		{"folder", dirStamp, true},
		{"folder at another time", stamp{path: "papers/a", mtime: folder.ModTime().Add(time.Nanosecond), dir: true}, false},
		{"folder taken for a file", stamp{path: "papers/a", mtime: folder.ModTime(), size: folder.Size()}, false},
		{"link to the folder", stamp{path: "papers/alias", mtime: folder.ModTime(), dir: true}, false},
		{"metadata", metaStamp, true},
		{"metadata of another size", stamp{path: metaStamp.path, mtime: meta.ModTime(), size: meta.Size() + 1}, false},
		{"metadata taken for a folder", stamp{path: metaStamp.path, mtime: meta.ModTime(), dir: true}, false},
		{"PDF", stamp{path: "papers/a/a.pdf", file: true}, true},
		{"PDF that is a link", stamp{path: "papers/a/link.pdf", file: true}, false},
		{"PDF that is a folder", stamp{path: "papers/a", file: true}, false},
		{"gone", stamp{path: "papers/gone", mtime: folder.ModTime(), dir: true}, false},
		{"root", stamp{path: ".", mtime: lstat(".").ModTime(), dir: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stampsFresh(dir, []stamp{dirStamp, tt.s, metaStamp}); got != tt.want {
				t.Errorf("stampsFresh = %v, want %v", got, tt.want)
			}
		})
	}
	if stampsFresh(filepath.Join(dir, "no-such-vault"), []stamp{dirStamp}) {
		t.Error("stamps of a Vault that is gone hold")
	}
}

// TestCheckPapersLater: with Options.CheckPapersLater, a new process
// starting from the cache sees at once a paper added, removed or moved
// (the folders that hold papers are checked first), and a change inside a
// paper once the background check of the papers has run.
func TestCheckPapersLater(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		atOnce bool
		want   []string // ref|title of every paper, once checked
	}{
		{"paper added", func(t *testing.T, dir string) {
			write(t, dir, "papers/b/metadata.json", `{"title":"B"}`)
		}, true, []string{"papers/a|A", "papers/b|B", "papers/topic/d|D"}},
		{"paper removed", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "papers/a")); err != nil {
				t.Fatal(err)
			}
		}, true, []string{"papers/topic/d|D"}},
		{"paper added in a topic folder", func(t *testing.T, dir string) {
			write(t, dir, "papers/topic/c/metadata.json", `{"title":"C"}`)
		}, true, []string{"papers/a|A", "papers/topic/c|C", "papers/topic/d|D"}},
		{"paper moved", func(t *testing.T, dir string) {
			if err := os.Rename(filepath.Join(dir, "papers/a"), filepath.Join(dir, "papers/topic/a")); err != nil {
				t.Fatal(err)
			}
		}, true, []string{"papers/topic/a|A", "papers/topic/d|D"}},
		{"metadata rewritten in place", func(t *testing.T, dir string) {
			write(t, dir, "papers/a/metadata.json", `{"title":"A, second edition"}`)
		}, false, []string{"papers/a|A, second edition", "papers/topic/d|D"}},
	}
	summary := func(c *Catalogue) []string {
		var out []string
		for _, p := range c.Papers() {
			out = append(out, p.Ref+"|"+p.Title())
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "papers/a/metadata.json", `{"title":"A"}`)
			write(t, dir, "papers/topic/d/metadata.json", `{"title":"D"}`)
			ctx := context.Background()
			v1, _ := Open(dir, nil)
			if _, err := v1.Catalogue(ctx); err != nil {
				t.Fatal(err)
			}
			v1.Close()
			tt.change(t, dir)
			v, _ := Open(dir, &Options{CheckPapersLater: true})
			defer v.Close()
			c, err := v.Catalogue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(c); tt.atOnce && !cmp.Equal(got, tt.want) {
				t.Errorf("first catalogue %v, want %v at once", got, tt.want)
			}
			// The check starts as a server starts it once its first answer
			// is out, rather than papersDelay later, and is waited for: the
			// catalogue in hand is then what it left.
			v.CheckPapers()
			v.bg.Wait()
			v.mu.Lock()
			c = v.cat
			v.mu.Unlock()
			if got := summary(c); !cmp.Equal(got, tt.want) {
				t.Fatalf("catalogue %v, want %v after the background check", got, tt.want)
			}
		})
	}
}

// TestCloseWaitsForChecks: Close waits for the deferred check of the
// papers and the rebuild it starts, and a check due after Close never
// runs, so that nothing writes to the cache once Close has returned.
func TestCloseWaitsForChecks(t *testing.T) {
	dir := t.TempDir()
	for i := range 200 {
		write(t, dir, fmt.Sprintf("papers/p%03d/metadata.json", i), fmt.Sprintf(`{"title":"P%d"}`, i))
	}
	ctx := context.Background()
	v1, _ := Open(dir, nil)
	if _, err := v1.Catalogue(ctx); err != nil {
		t.Fatal(err)
	}
	v1.Close()
	cache := filepath.Join(dir, ".agentero", "cache", "catalogue.bin")
	for _, now := range []bool{true, false} {
		write(t, dir, "papers/p000/metadata.json", fmt.Sprintf(`{"title":"P0, changed %v"}`, now)) // stale: a rebuild follows the check
		v, _ := Open(dir, &Options{CheckPapersLater: true})
		if _, err := v.Catalogue(ctx); err != nil {
			t.Fatal(err)
		}
		if now {
			v.CheckPapers() // the check and its rebuild run while Close is called
		}
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		before, err := os.Stat(cache)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(papersDelay + 200*time.Millisecond) // a check due after Close
		after, err := os.Stat(cache)
		if err != nil {
			t.Fatal(err)
		}
		if !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("the cache was written after Close (check started before it: %v)", now)
		}
		v.CheckPapers() // after Close: nothing starts
		if v.bg.Wait(); v.pending != nil {
			t.Error("a check is still pending after Close")
		}
	}
}
