package relations

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/safefs"
)

// cachePapers is the size of the generated library of the cache tests.
const cachePapers = 12

// cacheRef is the ref of paper i of the generated library.
func cacheRef(i int) string { return fmt.Sprintf("papers/c%02d", i) }

// cacheLibrary returns a library of n papers, each with metadata and a PDF
// stub and no sidecar; cacheText gives their text.
func cacheLibrary(tb testing.TB, n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		meta := obj{"title": fmt.Sprintf("Cached graph study number %s", words(i)), "year": 2000 + i%20,
			"authors": []string{fmt.Sprintf("Ann Writer%s", words(i))}}
		if i%3 == 0 {
			meta["arxiv_id"] = fmt.Sprintf("2101.%05d", i)
		}
		files[cacheRef(i)+"/metadata.json"] = js(tb, meta)
		files[cacheRef(i)+"/paper.pdf"] = fmt.Sprintf("%%PDF-1.4 %d\n", i)
	}
	return files
}

// words spells i as letters, so generated titles differ by words, not
// digits (titles are matched by their words).
func words(i int) string {
	names := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	var w []string
	for _, d := range strconv.Itoa(i) {
		w = append(w, names[d-'0'])
	}
	return strings.Join(w, " ")
}

// cacheText is the PDF text of paper i of a library of n: a body and a
// numbered reference section citing the next three papers (by title, or by
// arXiv id when they have one) and one external work with a DOI.
func cacheText(i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cached graph study number %s\nBody text of the paper.\n\nReferences\n", words(i))
	for k := 1; k <= 3; k++ {
		j := (i + k) % n
		if j%3 == 0 {
			fmt.Fprintf(&b, "[%d] A. Writer%s. Cached graph study number %s. arXiv:2101.%05d, %d.\n", k, words(j), words(j), j, 2000+j%20)
		} else {
			fmt.Fprintf(&b, "[%d] A. Writer%s. Cached graph study number %s. In Proc. of Examples, %d.\n", k, words(j), words(j), 2000+j%20)
		}
	}
	fmt.Fprintf(&b, "[4] B. Outsider. An external work on caching. J. Ext., 2019. doi:10.9999/ext.%d\n", i)
	return b.String()
}

// countingText is a Text hook over cacheText that counts its calls per
// paper. It is safe for concurrent use.
type countingText struct {
	n     int
	mu    sync.Mutex
	calls map[string]int
	fail  map[string]bool // papers whose text fails
}

func (c *countingText) text(_ context.Context, p *catalog.Paper) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[p.Ref]++
	if c.fail[p.Ref] {
		return "", errors.New("no text layer")
	}
	i, err := strconv.Atoi(strings.TrimPrefix(p.Ref, "papers/c"))
	if err != nil {
		return "", err
	}
	return cacheText(i, c.n), nil
}

// total returns the calls so far.
func (c *countingText) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.calls {
		n += k
	}
	return n
}

// allRelations returns the relations of every paper of the library.
func allRelations(tb testing.TB, l *Graph, n int) []*Relations {
	tb.Helper()
	out := make([]*Relations, n)
	for i := range n {
		out[i] = mustRelations(tb, l, cacheRef(i))
	}
	return out
}

// errText compares errors by message in cmp.Diff.
var errText = cmp.Comparer(func(a, b error) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
})

// cacheFileOf is the absolute path of the cache entry of paper i's PDF.
func cacheFileOf(v *catalog.Vault, dir string, i int) string {
	rc := &refCache{root: v.Root()}
	return filepath.Join(dir, "refs", filepath.FromSlash(rc.name(cacheRef(i)+"/paper.pdf")))
}

// TestRefCacheNewProcess checks that a second Graph on the same Vault (a
// new process) answers every paper from the disk cache without reading or
// parsing any text, with the same relations as the first.
func TestRefCacheNewProcess(t *testing.T) {
	v, dir := openVault(t, cacheLibrary(t, cachePapers))
	first := &countingText{n: cachePapers}
	want := allRelations(t, New(v, &Options{Text: first.text}), cachePapers)
	if first.total() != cachePapers {
		t.Fatalf("first library read %d texts, want %d", first.total(), cachePapers)
	}
	// The relations are real: c00 cites c01, c02 by title and c03 by
	// arXiv id, and the external work by DOI.
	var got []string
	for _, w := range want[0].References {
		got = append(got, w.Paper+w.DOI)
	}
	if diff := cmp.Diff([]string{cacheRef(1), cacheRef(2), cacheRef(3), "10.9999/ext.0"}, got); diff != "" {
		t.Errorf("c00 references (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(cacheFileOf(v, filepath.Join(dir, ".agentero", "cache"), 0)); err != nil {
		t.Errorf("no cache entry under .agentero/cache: %v", err)
	}

	second := &countingText{n: cachePapers}
	again := allRelations(t, New(v, &Options{Text: second.text}), cachePapers)
	if second.total() != 0 {
		t.Errorf("second library read texts %v, want none (all from the disk cache)", second.calls)
	}
	if diff := cmp.Diff(want, again, errText); diff != "" {
		t.Errorf("relations from the disk cache (-parsed +cached):\n%s", diff)
	}

	// A changed PDF is parsed again, and only it.
	pdf := filepath.Join(dir, "papers", "c05", "paper.pdf")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(pdf, later, later); err != nil {
		t.Fatal(err)
	}
	third := &countingText{n: cachePapers}
	allRelations(t, New(v, &Options{Text: third.text}), cachePapers)
	if diff := cmp.Diff(map[string]int{cacheRef(5): 1}, third.calls); diff != "" {
		t.Errorf("after c05's PDF changed, texts read (-want +got):\n%s", diff)
	}
}

// TestRefCacheDamaged checks that an entry that is torn, damaged, not
// decodable, of another paper or of another parser version is never
// trusted: the paper is parsed again and its entry rewritten, so the next
// process reads it from the cache again.
func TestRefCacheDamaged(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, v *catalog.Vault, cache, file string)
	}{
		{"flipped byte", func(t *testing.T, _ *catalog.Vault, _, file string) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0x20
			writeRaw(t, file, b)
		}},
		{"torn", func(t *testing.T, _ *catalog.Vault, _, file string) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			writeRaw(t, file, b[:len(b)/2])
		}},
		{"empty", func(t *testing.T, _ *catalog.Vault, _, file string) { writeRaw(t, file, nil) }},
		{"sealed but not an entry", func(t *testing.T, _ *catalog.Vault, _, file string) {
			writeRaw(t, file, safefs.Seal([]byte(`{"v":1,"r":[{"t":`)))
		}},
		{"entry of another paper", func(t *testing.T, v *catalog.Vault, cache, file string) {
			b, err := os.ReadFile(cacheFileOf(v, cache, 1))
			if err != nil {
				t.Fatal(err)
			}
			writeRaw(t, file, b)
			// Same size, and now the same time: only the path tells.
			fi, err := os.Stat(filepath.Join(v.Root(), "papers", "c01", "paper.pdf"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(filepath.Join(v.Root(), "papers", "c04", "paper.pdf"), fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"a folder", func(t *testing.T, _ *catalog.Vault, _, file string) {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(file, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := openVault(t, cacheLibrary(t, cachePapers))
			cache := filepath.Join(dir, ".agentero", "cache")
			want := allRelations(t, New(v, &Options{Text: (&countingText{n: cachePapers}).text}), cachePapers)
			file := cacheFileOf(v, cache, 4)
			tt.damage(t, v, cache, file)

			ct := &countingText{n: cachePapers}
			got := allRelations(t, New(v, &Options{Text: ct.text}), cachePapers)
			if diff := cmp.Diff(map[string]int{cacheRef(4): 1}, ct.calls); diff != "" {
				t.Errorf("texts read after the damage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, got, errText); diff != "" {
				t.Errorf("relations (-want +got):\n%s", diff)
			}
			if tt.name == "a folder" {
				return // a folder in the way is left alone: parsed each time
			}
			ct = &countingText{n: cachePapers}
			allRelations(t, New(v, &Options{Text: ct.text}), cachePapers)
			if ct.total() != 0 {
				t.Errorf("texts read after the rewrite: %v, want none", ct.calls)
			}
		})
	}
}

// writeRaw overwrites file with b, as a damaged disk or another program
// would.
func writeRaw(t *testing.T, file string, b []byte) {
	t.Helper()
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRefCacheVersion checks that entries written by another parser version
// are not trusted, and are replaced by the new version's.
func TestRefCacheVersion(t *testing.T) {
	v, _ := openVault(t, cacheLibrary(t, cachePapers))
	allRelations(t, New(v, &Options{Text: (&countingText{n: cachePapers}).text}), cachePapers)
	for _, tt := range []struct {
		version, wantReads int
	}{
		{parserVersion + 1, cachePapers}, // a new parser: everything parsed again
		{parserVersion + 1, 0},           // then read back
		{parserVersion, cachePapers},     // the old one does not trust the new entries
	} {
		ct := &countingText{n: cachePapers}
		l := New(v, &Options{Text: ct.text})
		l.version = tt.version
		allRelations(t, l, cachePapers)
		if ct.total() != tt.wantReads {
			t.Errorf("version %d: %d texts read, want %d", tt.version, ct.total(), tt.wantReads)
		}
	}
}

// TestRefCacheLink checks that a cache entry that is a symbolic link is
// refused (never followed): the paper is parsed again, the link's target is
// left as it was, and the name becomes a regular file.
func TestRefCacheLink(t *testing.T) {
	v, dir := openVault(t, cacheLibrary(t, cachePapers))
	cache := filepath.Join(dir, ".agentero", "cache")
	allRelations(t, New(v, &Options{Text: (&countingText{n: cachePapers}).text}), cachePapers)
	file := cacheFileOf(v, cache, 2)
	// The target is a valid entry, so only refusing the link explains a
	// new parse.
	target := filepath.Join(t.TempDir(), "elsewhere.refs")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, target, b)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, file); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	ct := &countingText{n: cachePapers}
	allRelations(t, New(v, &Options{Text: ct.text}), cachePapers)
	if diff := cmp.Diff(map[string]int{cacheRef(2): 1}, ct.calls); diff != "" {
		t.Errorf("texts read with a linked entry (-want +got):\n%s", diff)
	}
	if fi, err := os.Lstat(file); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("entry after the rewrite: %v, %v; want a regular file", fi, err)
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != string(b) {
		t.Errorf("link target changed: %v", err)
	}
}

// TestRefCacheOptions checks the cache folder: a folder the host chose
// holds the entries (none under the Vault), "-" turns the cache off, and a
// paper whose text fails is skipped with its reason and not cached.
func TestRefCacheOptions(t *testing.T) {
	v, dir := openVault(t, cacheLibrary(t, cachePapers))
	vaultCache := filepath.Join(dir, ".agentero", "cache", "refs")

	off := func() *Options { return &Options{CacheDir: "-", Text: (&countingText{n: cachePapers}).text} }
	allRelations(t, New(v, off()), cachePapers)
	if _, err := os.Stat(vaultCache); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cache off, yet %v", err)
	}

	host := filepath.Join(t.TempDir(), "host-cache")
	ct := &countingText{n: cachePapers, fail: map[string]bool{cacheRef(7): true}}
	r := allRelations(t, New(v, &Options{CacheDir: host, Text: ct.text}), cachePapers)
	if !errors.Is(r[7].Err, ErrPaperFailed) {
		t.Errorf("c07.Err = %v, want ErrPaperFailed", r[7].Err)
	}
	if _, err := os.Stat(vaultCache); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("host cache folder chosen, yet the Vault's is there: %v", err)
	}
	if _, err := os.Stat(cacheFileOf(v, host, 0)); err != nil {
		t.Errorf("no entry in the host's folder: %v", err)
	}
	if _, err := os.Stat(cacheFileOf(v, host, 7)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed paper was cached: %v", err)
	}
	// The next process reads only the failed paper (still failing).
	again := &countingText{n: cachePapers, fail: ct.fail}
	r = allRelations(t, New(v, &Options{CacheDir: host, Text: again.text}), cachePapers)
	if diff := cmp.Diff(map[string]int{cacheRef(7): 1}, again.calls); diff != "" {
		t.Errorf("texts read by the next process (-want +got):\n%s", diff)
	}
	if !errors.Is(r[7].Err, ErrPaperFailed) {
		t.Errorf("next process: c07.Err = %v, want ErrPaperFailed", r[7].Err)
	}
}

// refCacheWriterEnv makes the test binary a cache writer (see
// TestRefCacheWriterProcess): its value is the Vault's folder.
const refCacheWriterEnv = "RELATIONS_REFCACHE_WRITER"

// refCacheRounds is how many builds each writer process makes, each under
// its own parser version so that every build rewrites every entry.
const refCacheRounds = 15

// TestRefCacheConcurrentProcesses runs two processes that build the graph
// of one Vault at the same time, rewriting the same entries round after
// round; the entries left are whole, and a third process reads every
// paper from them.
func TestRefCacheConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	v, dir := openVault(t, cacheLibrary(t, cachePapers))
	want := allRelations(t, New(v, &Options{CacheDir: "-", Text: (&countingText{n: cachePapers}).text}), cachePapers)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRefCacheWriterProcess$")
		cmd.Env = append(os.Environ(), refCacheWriterEnv+"="+dir)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("writer output:\n%s", out.String())
			}
		})
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer: %v", err)
		}
	}
	ct := &countingText{n: cachePapers}
	l := New(v, &Options{Text: ct.text})
	l.version = parserVersion + refCacheRounds
	got := allRelations(t, l, cachePapers)
	if ct.total() != 0 {
		t.Errorf("texts read after the concurrent writers: %v, want none", ct.calls)
	}
	if diff := cmp.Diff(want, got, errText); diff != "" {
		t.Errorf("relations (-want +got):\n%s", diff)
	}
	// No temporary file is left behind.
	var left []string
	filepath.WalkDir(filepath.Join(dir, ".agentero", "cache", "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".refs") {
			left = append(left, filepath.Base(p))
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("files left in the cache: %v", slices.Sorted(slices.Values(left)))
	}
}

// TestRefCacheWriterProcess is one writer of
// TestRefCacheConcurrentProcesses; it does nothing unless started by it.
func TestRefCacheWriterProcess(t *testing.T) {
	dir := os.Getenv(refCacheWriterEnv)
	if dir == "" {
		t.Skip("started by TestRefCacheConcurrentProcesses only")
	}
	v, err := catalog.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for round := 1; round <= refCacheRounds; round++ {
		ct := &countingText{n: cachePapers}
		l := New(v, &Options{Text: ct.text})
		l.version = parserVersion + round
		allRelations(t, l, cachePapers)
	}
}
