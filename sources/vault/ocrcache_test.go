//go:build unix

package vault_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// greyJPEG is a 16×16 JPEG of one grey level.
func greyJPEG(t *testing.T, level uint8) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = level
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// levelOf is the grey level of a page image made by greyJPEG.
func levelOf(img ocr.Image) (int, error) {
	m, err := jpeg.Decode(bytes.NewReader(img.Data))
	if err != nil {
		return 0, err
	}
	g, ok := m.(*image.Gray)
	if !ok {
		return 0, errors.New("not grey")
	}
	return int(g.Pix[0]), nil
}

// ocrEntries lists the OCR cache entries in dir (not the engine's probe
// memo, not temporary files).
func ocrEntries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if n := de.Name(); !strings.HasPrefix(n, ".") && !strings.HasPrefix(n, "tesseract-probe") {
			out = append(out, n)
		}
	}
	return out
}

// readWithin reads the PDF at rel of lib within d, failing the test
// rather than hanging when the read does not return.
func readWithin(t *testing.T, lib *vault.Library, rel string, d time.Duration) *sources.Document {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	type result struct {
		doc *sources.Document
		err error
	}
	got := make(chan result, 1)
	go func() {
		src, err := lib.Open(ctx, grant.KindFile, rel)
		if err != nil {
			got <- result{nil, err}
			return
		}
		doc, err := src.Read(ctx, "")
		got <- result{doc, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("read %s: %v", rel, r.err)
		}
		return r.doc
	case <-time.After(d + 30*time.Second):
		t.Fatalf("read %s hangs", rel)
	}
	return nil
}

// TestOCRCacheHostile: what is found at a scan's OCR cache entry, or
// instead of the cache folder, serves nothing but that scan's own text,
// writes nothing outside the Vault, and neither hangs nor crashes: the
// page is recognised again (or said not recognised yet). A Vault holds
// downloads/scan.pdf (granted, read) and private/other.pdf (another scan,
// whose entry the attacker has); each case puts something at the granted
// scan's entry, found as the file its first recognition wrote.
func TestOCRCacheHostile(t *testing.T) {
	outsideText := "Outside secret of the host"
	tests := []struct {
		name   string
		attack func(t *testing.T, entry, other, outside, cacheDir string)
		// folder: the attack replaces the cache folder (nothing is read
		// from the granted entry, which is gone).
		folder bool
	}{
		{"link to another scan's entry", func(t *testing.T, entry, other, _, _ string) {
			mustRemove(t, entry)
			must(t, os.Symlink(other, entry))
		}, false},
		{"copy of another scan's entry", func(t *testing.T, entry, other, _, _ string) {
			b, err := os.ReadFile(other)
			must(t, err)
			must(t, os.WriteFile(entry, b, 0o600))
		}, false},
		{"link to a file outside the Vault", func(t *testing.T, entry, other, outside, _ string) {
			// The outside file holds another scan's entry, with the
			// outside text in place of its words.
			b, err := os.ReadFile(other)
			must(t, err)
			b = bytes.ReplaceAll(b, []byte("Platypus"), []byte(outsideText[:8]))
			p := filepath.Join(outside, "entry")
			must(t, os.WriteFile(p, b, 0o600))
			mustRemove(t, entry)
			must(t, os.Symlink(p, entry))
		}, false},
		{"FIFO", func(t *testing.T, entry, _, _, _ string) {
			mustRemove(t, entry)
			must(t, syscall.Mkfifo(entry, 0o600))
		}, false},
		{"link to the zero device", func(t *testing.T, entry, _, _, _ string) {
			mustRemove(t, entry)
			must(t, os.Symlink("/dev/zero", entry))
		}, false},
		{"oversize entry", func(t *testing.T, entry, other, _, _ string) {
			// Another scan's entry, 20 MiB of white space inside its
			// JSON object: a reader without a cap takes it in whole.
			b, err := os.ReadFile(other)
			must(t, err)
			i := bytes.IndexByte(b, '{')
			must(t, os.WriteFile(entry, slices.Concat(b[:i+1], bytes.Repeat([]byte(" "), 20<<20), b[i+1:]), 0o600))
		}, false},
		{"linked cache folder", func(t *testing.T, _, _, outside, cacheDir string) {
			must(t, os.RemoveAll(cacheDir))
			must(t, os.Symlink(outside, cacheDir))
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "vault")
			must(t, samplevault.Extract(root))
			vaultfix.Write(t, root, map[string]string{
				"downloads/scan.pdf": string(hostilepdf.Scan(16, 16, greyJPEG(t, 100))),
				"private/other.pdf":  string(hostilepdf.Scan(16, 16, greyJPEG(t, 200))),
			})
			cache := filepath.Join(root, ".agentero", "cache")
			ocrDir := filepath.Join(cache, "ocr")
			outside := t.TempDir()

			// The granted scan is recognised once, then the other scan
			// (by an engine of the same id reading other words).
			granted := &fakeEngine{id: "same 1 eng", result: words(0.9, "Wombats", "dig", "burrows")}
			lib := openWith(t, root, cache, granted)
			readWithin(t, lib, "downloads/scan.pdf", time.Minute)
			lib.Close()
			first := ocrEntries(t, ocrDir)
			if len(first) != 1 {
				t.Fatalf("entries after the granted scan: %q", first)
			}
			secret := &fakeEngine{id: "same 1 eng", result: words(0.9, "Platypus", "private", "notes")}
			lib = openWith(t, root, cache, secret)
			readWithin(t, lib, "private/other.pdf", time.Minute)
			lib.Close()
			var other string
			for _, n := range ocrEntries(t, ocrDir) {
				if n != first[0] {
					other = n
				}
			}
			if other == "" {
				t.Fatal("the other scan left no entry")
			}
			entry := filepath.Join(ocrDir, first[0])
			tc.attack(t, entry, filepath.Join(ocrDir, other), outside, ocrDir)
			before := listTree(t, outside)

			again := &fakeEngine{id: "same 1 eng", result: words(0.9, "Wombats", "dig", "burrows")}
			lib = openWith(t, root, cache, again)
			doc := readWithin(t, lib, "downloads/scan.pdf", 20*time.Second)
			for _, p := range doc.Parts {
				if strings.Contains(p.Text, "Platypus") || strings.Contains(p.Text, outsideText[:8]) {
					t.Errorf("page %d serves another file's text: %q", p.Page, p.Text)
				}
				if p.Text != "Wombats dig burrows" && !strings.Contains(p.Note, "not recognised yet") {
					t.Errorf("page %d: %+v, want the scan's own words or not recognised yet", p.Page, p)
				}
			}
			// A search that hits the paper looks its OCR mark up in the
			// cache: it neither hangs nor serves the other scan.
			done := make(chan *sources.Results, 1)
			go func() { done <- searchAll(t, lib, "downloads", "wombats burrows platypus") }()
			select {
			case res := <-done:
				for _, h := range res.Hits {
					if strings.Contains(h.Excerpt, "Platypus") || h.Path == "private/other.pdf" {
						t.Errorf("search serves the other scan: %+v", h)
					}
				}
			case <-time.After(3 * time.Minute):
				t.Fatal("a search hangs")
			}
			lib.Close()
			if after := listTree(t, outside); !slices.Equal(before, after) {
				t.Errorf("written outside the Vault: %q, was %q", after, before)
			}
			if !tc.folder && again.calls.Load() == 0 {
				t.Error("the page was not recognised again")
			}
		})
	}
}

// listTree lists the files below dir with their sizes.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d", strings.TrimPrefix(p, dir), fi.Size()))
		return nil
	})
	must(t, err)
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustRemove(t *testing.T, p string) {
	t.Helper()
	must(t, os.Remove(p))
}

// pageEngine reads the page number from the grey level of pages made by
// greyJPEG (50 a page); pages other than fast wait in the engine until
// release is closed or their context ends, recording each page given.
type pageEngine struct {
	fast    int
	release chan struct{}
	mu      sync.Mutex
	pages   []int
}

func (e *pageEngine) ID() string { return "pages 1 eng" }

func (e *pageEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	level, err := levelOf(img)
	if err != nil {
		return nil, err
	}
	n := (level + 25) / 50
	e.mu.Lock()
	e.pages = append(e.pages, n)
	e.mu.Unlock()
	if n != e.fast {
		select {
		case <-e.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return words(0.9, "Quolls", "hunt", fmt.Sprintf("page%d", n)), nil
}

func (e *pageEngine) given() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := slices.Clone(e.pages)
	slices.Sort(out)
	return out
}

// TestOCRReadWaitsForItsPagesOnly: a read of page 1 of a four-page scan
// recognises page 1 and returns while the engine is stuck on pages 2–4
// (which are recognised in the background and said not recognised yet
// until then); a read of a page the background has in the engine waits
// for it only within its own deadline.
func TestOCRReadWaitsForItsPagesOnly(t *testing.T) {
	root := filepath.Join(t.TempDir(), "vault")
	must(t, samplevault.Extract(root))
	vaultfix.Write(t, root, map[string]string{"downloads/book.pdf": string(hostilepdf.Scan(16, 16,
		greyJPEG(t, 50), greyJPEG(t, 100), greyJPEG(t, 150), greyJPEG(t, 200)))})
	eng := &pageEngine{fast: 1, release: make(chan struct{})}
	lib := openWith(t, root, filepath.Join(root, ".agentero", "cache"), eng)
	src, err := lib.Open(context.Background(), grant.KindFile, "downloads/book.pdf")
	must(t, err)
	pr, ok := src.(sources.PageReader)
	if !ok {
		t.Fatal("a PDF is not a sources.PageReader")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	doc, err := pr.ReadPages(ctx, "", []int{1})
	must(t, err)
	if ctx.Err() != nil {
		t.Fatal("the read of page 1 waited out its deadline")
	}
	if p := doc.Parts[0]; p.Text != "Quolls hunt page1" || p.OCR == nil {
		t.Errorf("page 1: %+v, want recognised", p)
	}
	for _, p := range doc.Parts[1:] {
		if !p.NoTextLayer || !strings.Contains(p.Note, "not recognised yet") {
			t.Errorf("page %d: %+v, want not recognised yet", p.Page, p)
		}
	}
	// Page 3 is in the background's engine (or about to be): a read of
	// it waits for it within its deadline, no longer.
	deadline := time.Now().Add(3 * time.Minute)
	for !slices.Contains(eng.given(), 3) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	short, cancelShort := context.WithTimeout(context.Background(), time.Second)
	defer cancelShort()
	doc, err = pr.ReadPages(short, "", []int{3})
	if err == nil {
		if p := doc.Parts[2]; !p.NoTextLayer {
			t.Errorf("page 3 recognised while the engine holds it: %+v", p)
		}
	}
	close(eng.release)
	// The background recognises the rest.
	for {
		doc, err = pr.ReadPages(context.Background(), "", nil)
		must(t, err)
		n := 0
		for _, p := range doc.Parts {
			if p.OCR != nil {
				n++
			}
		}
		if n == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background did not recognise pages 2-4: %+v", doc.Parts)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := eng.given(); !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("pages given to the engine: %v, want each once", got)
	}
}

// countEngine records the most pages in the engine at once.
type countEngine struct {
	mu       sync.Mutex
	in, most int
}

func (e *countEngine) ID() string { return "count 1 eng" }

func (e *countEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	e.mu.Lock()
	e.in++
	e.most = max(e.most, e.in)
	e.mu.Unlock()
	select {
	case <-time.After(50 * time.Millisecond):
	case <-ctx.Done():
	}
	e.mu.Lock()
	e.in--
	e.mu.Unlock()
	return words(0.9, "Bilbies", "burrow"), nil
}

// TestOCRMemoryBoundedOnManyCores: on 16 cores (GOMAXPROCS 16) the OCR of
// a folder of scans gives the engine no more pages at once than the
// memory cap allows, and the slots of any core count times the per-page
// budget stay within the cap.
func TestOCRMemoryBoundedOnManyCores(t *testing.T) {
	for _, cpus := range []int{1, 2, 4, 16, 64, 1024} {
		if n := vault.OCRBackground(cpus); n < 1 || (n+vault.OCRReadSlots)*vault.OCRPageBudget > vault.OCRMemory {
			t.Errorf("%d cores: %d background pages and %d for reads of %d MiB, over the %d MiB cap", cpus, n, vault.OCRReadSlots, vault.OCRPageBudget>>20, vault.OCRMemory>>20)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	root := filepath.Join(t.TempDir(), "vault")
	must(t, samplevault.Extract(root))
	files := map[string]string{}
	for i := range 16 {
		files[fmt.Sprintf("scans/scan-%d.pdf", i)] = string(hostilepdf.Scan(16, 16, greyJPEG(t, uint8(10+i)), greyJPEG(t, uint8(100+i))))
	}
	vaultfix.Write(t, root, files)
	eng := &countEngine{}
	lib := openWith(t, root, t.TempDir(), eng)
	if res := searchAll(t, lib, "scans", "bilbies burrow"); res.Indexing != nil || len(res.Hits) == 0 {
		t.Fatalf("the scans were not recognised: %+v", res)
	}
	eng.mu.Lock()
	defer eng.mu.Unlock()
	if limit := vault.OCRBackground(16); eng.most > limit {
		t.Errorf("%d pages in the engine at once on 16 cores, want at most %d (%d MiB cap, %d MiB a page)", eng.most, limit, vault.OCRMemory>>20, vault.OCRPageBudget>>20)
	}
}

// maxOCRRSS is the bound on the peak resident set of a process
// recognising a folder of large scans.
const maxOCRRSS = 300 << 20

// touchEngine reads every byte of each page image it is given, so that the
// image is resident, and holds it a moment, as an engine reading it would.
type touchEngine struct{}

func (touchEngine) ID() string { return "touch 1 eng" }

func (touchEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	var sum byte
	for _, b := range img.Data {
		sum ^= b
	}
	select {
	case <-time.After(100 * time.Millisecond):
	case <-ctx.Done():
	}
	return words(0.9, "Bandicoots", "dig", fmt.Sprintf("x%d", sum)), nil
}

// TestOCRMemoryPeakRSS recognises a folder of 16 scans of two 16-megapixel
// pages each (Flate images, decoded here) in a child process (this test
// binary) with GOMAXPROCS 16, and checks its peak resident set stays
// under maxOCRRSS: the pages held at once follow the memory cap, not the
// core count.
func TestOCRMemoryPeakRSS(t *testing.T) {
	if root := os.Getenv("VAULT_OCR_RSS_ROOT"); root != "" {
		ocrRSSChild(root)
		return
	}
	if testing.Short() {
		t.Skip("decodes 512 MiB of page images")
	}
	if raceEnabled {
		t.Skip("a peak RSS under the race detector measures the detector")
	}
	root := filepath.Join(t.TempDir(), "vault")
	must(t, samplevault.Extract(root))
	files := map[string]string{}
	for i := range 16 {
		files[fmt.Sprintf("scans/scan-%02d.pdf", i)] = string(hostilepdf.FlateScan(4096, 4096, byte(i), byte(100+i)))
	}
	vaultfix.Write(t, root, files)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOCRMemoryPeakRSS$")
	// The server's soft memory limit (memlimit.Server).
	cmd.Env = append(os.Environ(), "VAULT_OCR_RSS_ROOT="+root, "GOMAXPROCS=16", "GOMEMLIMIT=200MiB")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child process: %v\n%s", err, stderr.String())
	}
	got, hwm, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
	if got != "32 pages" {
		t.Fatalf("child: %s\n%s", stdout.String(), stderr.String())
	}
	rss, err := strconv.ParseInt(strings.TrimSpace(hwm), 10, 64)
	if err != nil || rss < 0 {
		t.Skipf("no peak RSS from the child (%q)", hwm)
	}
	t.Logf("peak RSS %d MB", rss>>20)
	if rss > maxOCRRSS {
		t.Errorf("peak RSS %d MB, over %d MB", rss>>20, maxOCRRSS>>20)
	}
}

// ocrRSSChild recognises the scans of the Vault at root, prints how many
// pages were recognised and its peak resident set, and exits. The exit
// waits for the cache to be removed: os.Exit runs no deferred calls.
func ocrRSSChild(root string) {
	cache, err := os.MkdirTemp("", "ocr-rss")
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	code := ocrRSSRun(root, cache)
	os.RemoveAll(cache)
	os.Exit(code)
}

// ocrRSSRun is ocrRSSChild's work; it returns the process's exit code.
func ocrRSSRun(root, cache string) int {
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: cache, OCR: touchEngine{}})
	if err != nil {
		fmt.Println(err)
		return 2
	}
	ctx := context.Background()
	src, err := lib.Open(ctx, grant.KindDirectory, "scans")
	if err != nil {
		fmt.Println(err)
		lib.Close()
		return 2
	}
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		res, err := src.Search(ctx, sources.Query{Text: "bandicoots dig", Limit: 50})
		if err != nil {
			fmt.Println(err)
			lib.Close()
			return 2
		}
		if res.Indexing == nil {
			pages := 0
			for _, h := range res.Hits {
				if h.OCR != nil {
					pages++
				}
			}
			fmt.Printf("%d pages\n", pages)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	lib.Close()
	fmt.Println(hostilepdf.PeakRSS())
	return 0
}

// TestOCRRelationsBesideUngrantedScan: a relations call on a granted paper
// beside an ungranted image-only paper, whose pages an engine stuck until
// the test ends would take forever, answers without waiting for it: the
// graph takes what the OCR cache holds and leaves the rest to the
// background.
func TestOCRRelationsBesideUngrantedScan(t *testing.T) {
	dir := t.TempDir()
	vaultfix.Write(t, dir, map[string]string{
		"papers/a/metadata.json":    `{"title": "Alpha", "arxiv_id": "2001.00001"}`,
		"papers/a/a.pdf":            string(hostilepdf.Plain("Alpha", "Bandicoots dig shallow burrows.")),
		"papers/b/metadata.json":    `{"title": "Beta"}`,
		"papers/b/b.pdf":            string(hostilepdf.Plain("Beta", "References", "[1] A. Writer. Alpha. arXiv:2001.00001.")),
		"papers/scan/metadata.json": `{"title": "Gamma"}`,
		"papers/scan/scan.pdf":      string(hostilepdf.Scan(16, 16, greyJPEG(t, 50), greyJPEG(t, 100))),
	})
	eng := &pageEngine{fast: -1, release: make(chan struct{})}
	defer close(eng.release)
	lib := openLibraryOCR(t, dir, t.TempDir(), eng)
	done := make(chan *sources.Relations, 1)
	go func() { done <- relationsOf(t, lib, grant.KindPaper, "papers/a") }()
	select {
	case r := <-done:
		if len(r.CitedBy) != 1 || r.CitedBy[0].Paper != "papers/b" {
			t.Errorf("cited by %+v, want papers/b", r.CitedBy)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the relations call waits for the OCR of an ungranted scan")
	}
}
