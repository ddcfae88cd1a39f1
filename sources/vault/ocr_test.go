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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	ocrengine "github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/ocrmemo"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// fakeEngine answers every page with the same result or error.
type fakeEngine struct {
	id     string
	result *ocr.Result
	err    error
	calls  atomic.Int32
}

func (e *fakeEngine) ID() string { return e.id }

func (e *fakeEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	e.calls.Add(1)
	if img.Format != ocr.JPEG || !bytes.HasPrefix(img.Data, []byte{0xff, 0xd8}) {
		return nil, errors.New("not the page's JPEG")
	}
	return e.result, e.err
}

// words is a result of the given words on one line, each at confidence c.
func words(c float64, ws ...string) *ocr.Result {
	r := &ocr.Result{Text: strings.Join(ws, " "), Confidence: c}
	for i, w := range ws {
		r.Words = append(r.Words, ocr.Word{Text: w, X: 0.1 + 0.1*float64(i), Y: 0.1, W: 0.08, H: 0.02, Confidence: c})
	}
	return r
}

// scanVault is the sample vault with downloads/scan.pdf, two scanned
// pages (grey JPEGs), and downloads/notes.pdf, a page of text.
func scanVault(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	vaultfix.Write(t, root, map[string]string{
		"downloads/scan.pdf":  string(hostilepdf.Scan(16, 16, jpg.Bytes(), jpg.Bytes())),
		"downloads/notes.pdf": string(hostilepdf.Plain("Quokkas sleep in hollow logs by day.")),
	})
	return root
}

func openWith(t *testing.T, root, cache string, eng ocr.Engine) *vault.Library {
	t.Helper()
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: cache, OCR: eng})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

func search(t *testing.T, lib *vault.Library, dir, q string) *sources.Results {
	t.Helper()
	src, err := lib.Open(context.Background(), grant.KindDirectory, dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(context.Background(), sources.Query{Text: q, Limit: 5, ExcerptChars: 200})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// searchAll searches until the answer is complete: scanned pages are
// recognised after the index takes in the text.
func searchAll(t *testing.T, lib *vault.Library, dir, q string) *sources.Results {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		res := search(t, lib, dir, q)
		if res.Indexing == nil || time.Now().After(deadline) {
			return res
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPDF(t *testing.T, lib *vault.Library, rel string) (*sources.Document, *sources.Metadata) {
	t.Helper()
	src, err := lib.Open(context.Background(), grant.KindFile, rel)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := src.Read(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	md, err := src.(sources.Describer).Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return doc, md
}

// TestOCRRecognisesScannedPages: the pages of an image-only PDF are
// recognised by the library's engine, searched, read and described as
// recognised, and cached: another process with the same engine does not
// run it again.
func TestOCRRecognisesScannedPages(t *testing.T) {
	root := scanVault(t)
	cache := t.TempDir()
	eng := &fakeEngine{id: "fake 1 eng", result: words(0.91, "Wombats", "dig", "burrows", "under", "eucalyptus", "roots")}
	lib := openWith(t, root, cache, eng)

	res := search(t, lib, "downloads", "wombats dig burrows")
	if res.Indexing == nil && (len(res.Hits) == 0 || res.Hits[0].Path != "downloads/scan.pdf") {
		t.Errorf("a search before the scan is recognised is not partial: %+v", res)
	}
	res = searchAll(t, lib, "downloads", "wombats dig burrows")
	if len(res.Hits) == 0 || res.Hits[0].Path != "downloads/scan.pdf" {
		t.Fatalf("hits %+v, want the scan first", res.Hits)
	}
	if h := res.Hits[0]; h.OCR == nil || h.OCR.Confidence != 0.91 || !strings.Contains(h.Excerpt, "eucalyptus") {
		t.Errorf("hit %+v, want a recognised excerpt at 0.91", h)
	}
	if res := search(t, lib, "downloads", "quokkas hollow logs"); len(res.Hits) == 0 || res.Hits[0].Path != "downloads/notes.pdf" || res.Hits[0].OCR != nil {
		t.Errorf("text page: %+v", res.Hits)
	}

	doc, md := readPDF(t, lib, "downloads/scan.pdf")
	for i, p := range doc.Parts {
		if p.NoTextLayer || p.OCR == nil || p.OCR.Confidence != 0.91 || p.Text != "Wombats dig burrows under eucalyptus roots" || p.Page != i+1 {
			t.Errorf("part %d: %+v", i, p)
		}
	}
	if md.OCRPages != 2 || md.OCRConfidence != 0.91 {
		t.Errorf("metadata: %d pages at %v, want 2 at 0.91", md.OCRPages, md.OCRConfidence)
	}
	if n := eng.calls.Load(); n != 2 {
		t.Errorf("engine ran %d times, want once per page", n)
	}
	lib.Close()

	again := &fakeEngine{id: eng.id, err: errors.New("must not run")}
	lib2 := openWith(t, root, cache, again)
	doc2, _ := readPDF(t, lib2, "downloads/scan.pdf")
	if diff := cmp.Diff(doc, doc2); diff != "" {
		t.Errorf("cached read differs (-first +again):\n%s", diff)
	}
	if n := again.calls.Load(); n != 0 {
		t.Errorf("the cached pages were recognised again (%d calls)", n)
	}
	// Another engine (version, languages) is another key.
	other := &fakeEngine{id: "fake 2 eng+jpn", result: words(0.5, "Numbats")}
	doc3, _ := readPDF(t, openWith(t, root, cache, other), "downloads/scan.pdf")
	if other.calls.Load() != 2 || doc3.Parts[0].Text != "Numbats" {
		t.Errorf("another engine: %d calls, text %q", other.calls.Load(), doc3.Parts[0].Text)
	}
}

// TestOCRBadEngine: an engine that times out, crashes or prints garbage
// leaves the page without text, with the reason, and the rest of the
// library is indexed; without an engine the page says so in one line.
func TestOCRBadEngine(t *testing.T) {
	tests := []struct {
		name string
		eng  ocr.Engine
		note string
	}{
		{"hangs", &fakeEngine{id: "hangs", err: ocr.ErrTimeout}, "OCR timed out on the page"},
		{"crashes", &fakeEngine{id: "crashes", err: ocr.ErrFailed}, "the OCR engine failed on the page"},
		{"garbage", &fakeEngine{id: "garbage", result: words(0.05, "%%", "~~", "|")}, "OCR read nothing that is text on the page"},
		{"empty", &fakeEngine{id: "empty", result: &ocr.Result{}}, "OCR found no text on the page"},
		{"off", ocr.Off(), "no OCR: it is turned off"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lib := openWith(t, scanVault(t), t.TempDir(), tc.eng)
			// Until the build has been through the scanned pages, a read
			// says they are still being recognised.
			if res := searchAll(t, lib, "downloads", "quokkas hollow logs"); len(res.Hits) == 0 || res.Hits[0].Path != "downloads/notes.pdf" {
				t.Errorf("the text PDF is not found: %+v", res.Hits)
			}
			doc, md := readPDF(t, lib, "downloads/scan.pdf")
			for i, p := range doc.Parts {
				if !p.NoTextLayer || p.Text != "" || p.OCR != nil || p.Note != tc.note {
					t.Errorf("part %d: %+v, want no text and the note %q", i, p, tc.note)
				}
			}
			if md.OCRPages != 0 {
				t.Errorf("metadata counts %d recognised pages", md.OCRPages)
			}
		})
	}
}

// TestOCRTesseract recognises a 200-dpi scan of a born-digital corpus
// page with the real program: its words are found, read and marked.
func TestOCRTesseract(t *testing.T) {
	for _, p := range []string{"tesseract", "pdftoppm", "img2pdf"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI installs it)", p)
			}
			t.Skipf("%s is not installed", p)
		}
	}
	tess, err := ocrengine.NewTesseract(context.Background(), "tesseract", []string{"eng"}, pageDeadline, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Every page is read by tesseract here; its readings serve the tests
	// after it that hold the same page.
	eng := ocrmemo.Engine{Engine: tess, Fresh: true}
	tmp := t.TempDir()
	src := filepath.Join(corpus.Dir(t, "pdfs"), "arxiv-1406.2661.pdf")
	if b, err := exec.Command("pdftoppm", "-f", "1", "-l", "1", "-r", "200", "-gray", "-jpeg", "-singlefile", src, filepath.Join(tmp, "p")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, b)
	}
	scan, err := exec.Command("img2pdf", filepath.Join(tmp, "p.jpg")).Output()
	if err != nil {
		t.Fatalf("img2pdf: %v", err)
	}
	root := scanVault(t)
	vaultfix.Write(t, root, map[string]string{"downloads/gan-scan.pdf": string(scan)})
	lib := openWith(t, root, t.TempDir(), eng)
	doc, md := readPDF(t, lib, "downloads/gan-scan.pdf")
	p := doc.Parts[0]
	if p.OCR == nil || p.OCR.Confidence < 0.8 || !strings.Contains(p.Text, "Generative Adversarial Nets") {
		t.Fatalf("page 1: ocr %+v, text %.200q", p.OCR, p.Text)
	}
	if md.OCRPages != 1 {
		t.Errorf("metadata: %d recognised pages", md.OCRPages)
	}
	res := searchAll(t, lib, "downloads", "adversarial process generative model discriminative")
	found := false
	for _, h := range res.Hits[:min(3, len(res.Hits))] {
		found = found || h.Path == "downloads/gan-scan.pdf" && h.Page == 1 && h.OCR != nil
	}
	if !found {
		t.Errorf("the scanned page is not in the first 3 cards: %+v", res.Hits)
	}
}

// TestOCRScanWithoutRenderer: a page scanned in any coding the PDF
// package decodes itself is recognised from its own image data when
// pdftoppm is not on PATH, so a library needs only the OCR program: CCITT
// Group 4 (most archive scans), JPEG 2000 (many digitised archives) and
// JBIG2 as Acrobat, ABBYY and jbig2enc store bitonal scans (a generic
// region; a text region with its symbol dictionary in /JBIG2Globals).
func TestOCRScanWithoutRenderer(t *testing.T) {
	prog, err := exec.LookPath("tesseract")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tesseract is not installed (CI installs it)")
		}
		t.Skip("tesseract is not installed")
	}
	tess, err := ocrengine.NewTesseract(context.Background(), prog, []string{"eng"}, pageDeadline, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Codings that decode to the same bitmap give tesseract the same
	// image, read once.
	eng := ocrmemo.Engine{Engine: tess}
	t.Setenv("PATH", t.TempDir()) // no pdftoppm to fall back on
	files := map[string]string{}
	for _, name := range []string{"fax-g4.pdf", "jpx-page.pdf", "jbig2-generic.pdf", "jbig2-globals.pdf"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "internal", "pdf", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files["downloads/"+name] = string(b)
	}
	root := scanVault(t)
	vaultfix.Write(t, root, files)
	lib := openWith(t, root, t.TempDir(), eng)
	for name := range files {
		doc, _ := readPDF(t, lib, name)
		p := doc.Parts[0]
		if p.OCR == nil || !strings.Contains(p.Text, "Strided Block Attention") || !strings.Contains(p.Text, "Northbridge Institute") {
			t.Errorf("%s page 1: ocr %+v, text %.300q", name, p.OCR, p.Text)
		}
	}
}

// gateEngine is an engine whose pages each wait, up to a second, for
// want pages to be in the engine at once, and which records the most that
// were: an OCR build that gave the engine one page at a time would find
// every page waiting out its second.
type gateEngine struct {
	want int
	mu   sync.Mutex
	cond *sync.Cond
	in   int
	most int
}

func (e *gateEngine) ID() string { return "gate 1 eng" }

func (e *gateEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	e.mu.Lock()
	e.in++
	e.most = max(e.most, e.in)
	e.cond.Broadcast()
	timer := time.AfterFunc(time.Second, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	start := time.Now()
	for e.most < e.want && time.Since(start) < time.Second && ctx.Err() == nil {
		e.cond.Wait()
	}
	timer.Stop()
	e.in--
	e.mu.Unlock()
	return words(0.9, "Echidnas", "forage", "for", "ants"), nil
}

// TestOCRRunsPagesInParallel: the OCR build gives the engine as many
// pages at a time as the machine has cores, within the OCR memory cap
// (see TestOCRMemoryBoundedOnManyCores), across the pages of one file and
// across files.
func TestOCRRunsPagesInParallel(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one core: nothing runs in parallel")
	}
	img := image.NewGray(image.Rect(0, 0, 16, 16))
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	page := jpg.Bytes()
	tests := []struct {
		name  string
		files []int // pages of each scanned PDF
	}{
		{"pages of one file", []int{6}},
		{"one-page files", []int{1, 1, 1, 1, 1, 1}},
		{"files of two pages", []int{2, 2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "vault")
			if err := samplevault.Extract(root); err != nil {
				t.Fatal(err)
			}
			files, pages := map[string]string{}, 0
			for i, n := range tt.files {
				var imgs [][]byte
				for range n {
					imgs = append(imgs, page)
				}
				files[fmt.Sprintf("scans/scan-%d.pdf", i)] = string(hostilepdf.Scan(16, 16, imgs...))
				pages += n
			}
			vaultfix.Write(t, root, files)
			eng := &gateEngine{want: min(vault.OCRBackground(runtime.GOMAXPROCS(0)), pages)}
			eng.cond = sync.NewCond(&eng.mu)
			lib := openWith(t, root, t.TempDir(), eng)
			res := searchAll(t, lib, "scans", "echidnas forage")
			if res.Indexing != nil || len(res.Hits) == 0 {
				t.Fatalf("the scans were not recognised: %+v", res)
			}
			eng.mu.Lock()
			defer eng.mu.Unlock()
			if eng.most < eng.want {
				t.Errorf("at most %d pages in the engine at once, want %d (one per core within the memory cap)", eng.most, eng.want)
			}
		})
	}
}

// TestOCRWaitsForTextBuild: the engine is given no page while the index
// still takes in the text of the folder's other files, so that the
// build's pace (and its ETA) is that of the text left, not of the scans
// it happened to meet.
func TestOCRWaitsForTextBuild(t *testing.T) {
	root := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, 16, 16))
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	const texts = 300
	files := map[string]string{}
	for i := range 4 {
		files[fmt.Sprintf("shelf/scan-%d.pdf", i)] = string(hostilepdf.Scan(16, 16, jpg.Bytes()))
	}
	for i := range texts {
		files[fmt.Sprintf("shelf/note-%03d.pdf", i)] = string(hostilepdf.Plain(fmt.Sprintf("Note %d on wombat burrows.", i)))
	}
	vaultfix.Write(t, root, files)
	var mu sync.Mutex
	var prog vault.IndexProgress
	eng := &progressEngine{items: texts + 4}
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: t.TempDir(), OCR: eng,
		OnProgress: func(p vault.IndexProgress) {
			mu.Lock()
			prog = p
			mu.Unlock()
			// A slow hook holds up the index's writer, as publishing
			// and merging large segments do: the extracting workers
			// then wait with no text in hand, and an engine that only
			// waited for those would start in the middle of the build.
			time.Sleep(2 * time.Millisecond)
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	eng.at = func() vault.IndexProgress {
		mu.Lock()
		defer mu.Unlock()
		return prog
	}
	res := searchAll(t, lib, "shelf", "echidnas forage")
	if res.Indexing != nil || len(res.Hits) == 0 {
		t.Fatalf("the scans were not recognised: %+v", res)
	}
	eng.mu.Lock()
	defer eng.mu.Unlock()
	if eng.calls == 0 {
		t.Fatal("the engine was not called")
	}
	if len(eng.early) > 0 {
		t.Errorf("%d of %d pages went to the engine while the text build ran, at %v", len(eng.early), eng.calls, eng.early)
	}
}

// progressEngine records the index progress seen at each call that came
// before the folder's build (of items items) had taken in every item. The
// builds that follow a recognised file, of that one item from the caches,
// may run while the engine reads another file.
type progressEngine struct {
	at    func() vault.IndexProgress
	items int
	mu    sync.Mutex
	calls int
	early []string // "done/total" at each such call
}

func (e *progressEngine) ID() string { return "progress" }

func (e *progressEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	p := e.at()
	e.mu.Lock()
	e.calls++
	if p.Total == e.items && p.Done < p.Total {
		e.early = append(e.early, fmt.Sprintf("%d/%d", p.Done, p.Total))
	}
	e.mu.Unlock()
	return words(0.9, "Echidnas", "forage", "for", "ants"), nil
}

// scanOf renders the first pages of a corpus PDF at 200 dpi to an
// image-only PDF, as a scanner would, skipping when the programs are not
// installed (failing under CI, which installs them).
func scanOf(t *testing.T, name string, pages int) []byte {
	t.Helper()
	for _, p := range []string{"tesseract", "pdftoppm", "img2pdf", "pdftotext"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI installs it)", p)
			}
			t.Skipf("%s is not installed", p)
		}
	}
	tmp := t.TempDir()
	src := filepath.Join(corpus.Dir(t, "pdfs"), name)
	if b, err := exec.Command("pdftoppm", "-f", "1", "-l", fmt.Sprint(pages), "-r", "200", "-gray", "-jpeg", src, filepath.Join(tmp, "p")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, b)
	}
	jpgs, err := filepath.Glob(filepath.Join(tmp, "p*.jpg"))
	if err != nil || len(jpgs) != pages {
		t.Fatalf("pdftoppm made %v (%v)", jpgs, err)
	}
	scan, err := exec.Command("img2pdf", jpgs...).Output()
	if err != nil {
		t.Fatalf("img2pdf: %v", err)
	}
	return scan
}

// headingKey keys a heading by its letters and digits, lower-cased: OCR
// reads an apostrophe or a dash where the text layer has none.
func headingKey(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.ToLower(s))
}

// pageDeadline is the per-page deadline of the engines of tests that check
// what OCR reads: generous, so that a page on a loaded machine (tesseract
// runs at a lower priority than everything else) is still read rather than
// given up as too slow, which is what the default deadline is for.
const pageDeadline = 10 * time.Minute

// TestOCRScanTitleAndSections: a scan of a real paper's first two pages,
// recognised by tesseract, is titled with the paper's title — the title
// its born-digital PDF shows, found in pdftotext's text of that PDF — as a
// loose PDF (read, described, and in Library.Title) and as a library
// paper without metadata.json (its source's title, learnt with the
// catalogue); and its sections are headings the born-digital PDF has,
// never a stray line of the page (the arXiv side stamp, an e-mail line, a
// sentence's end).
func TestOCRScanTitleAndSections(t *testing.T) {
	if raceEnabled {
		t.Skip("recognises six scanned pages: a measure of what OCR reads, not of concurrency, run without the race detector")
	}
	// The papers share nothing but the engine, and a read gives it one
	// page at a time: the papers are read side by side, and with the
	// other tests that mostly wait on tesseract.
	t.Parallel()
	tess, err := ocrengine.NewTesseract(context.Background(), "tesseract", []string{"eng"}, pageDeadline, 0)
	if err != nil {
		t.Skipf("tesseract: %v", err)
	}
	// The scan is both a loose PDF and a paper's: its pages are read by
	// tesseract once.
	eng := ocrmemo.Engine{Engine: tess}
	ctx := context.Background()
	for _, name := range []string{"arxiv-1406.2661.pdf", "arxiv-1502.03167.pdf", "arxiv-1706.03762.pdf"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			scan := scanOf(t, name, 2)
			orig, err := os.ReadFile(filepath.Join(corpus.Dir(t, "pdfs"), name))
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			vaultfix.Write(t, root, map[string]string{
				"downloads/original.pdf":     string(orig),
				"downloads/scan.pdf":         string(scan),
				"papers/scanned/scanned.pdf": string(scan),
				"papers/scanned/NOTES.md":    "Scanned at the library.\n",
			})
			lib := openWith(t, root, t.TempDir(), eng)
			odoc, _ := readPDF(t, lib, "downloads/original.pdf")
			want := odoc.Title
			text, err := exec.Command("pdftotext", "-f", "1", "-l", "2", filepath.Join(root, "downloads", "original.pdf"), "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			if want == "" || !strings.Contains(strings.Join(strings.Fields(string(text)), " "), want) {
				t.Fatalf("the original's title %q is not in pdftotext's first page", want)
			}

			doc, md := readPDF(t, lib, "downloads/scan.pdf")
			if doc.Parts[0].OCR == nil {
				t.Fatalf("page 1 not recognised: %+v", doc.Parts[0])
			}
			if doc.Title != want || md.Title != want {
				t.Errorf("scan titled %q (read), %q (described), want %q", doc.Title, md.Title, want)
			}
			it, err := lib.Stat(ctx, "downloads/scan.pdf")
			if err != nil {
				t.Fatal(err)
			}
			if got := lib.Title(ctx, it); got != want {
				t.Errorf("Library.Title of the scan = %q, want %q", got, want)
			}

			// A section is one of the original's, or one of its lines
			// (the original's outline has no "Abstract"), and not stray.
			lines := map[string]bool{}
			for _, l := range strings.Split(string(text), "\n") {
				lines[headingKey(l)] = true
			}
			found := map[string]bool{}
			for _, s := range doc.Sections {
				k := headingKey(s.Title)
				found[k] = true
				first, last := s.Title[0], s.Title[len(s.Title)-1]
				switch {
				case !lines[k] && !slices.ContainsFunc(odoc.Sections, func(o sources.Section) bool { return headingKey(o.Title) == k }):
					t.Errorf("section %q (page %d) of the scan is no heading or line of the original", s.Title, s.Page)
				case strings.Contains(strings.ToLower(s.Title), "arxiv") || strings.Contains(s.Title, "@") ||
					first >= 'a' && first <= 'z' || last == '.' || last == ',':
					t.Errorf("section %q (page %d) of the scan is a stray line", s.Title, s.Page)
				}
			}
			for _, o := range odoc.Sections {
				// Its numbered ones: its font-found ones hold its stamp too.
				if o.Page <= 2 && o.Title[0] >= '0' && o.Title[0] <= '9' && !found[headingKey(o.Title)] {
					t.Errorf("the original's heading %q (page %d) is not a section of the scan: %+v", o.Title, o.Page, doc.Sections)
				}
			}

			paper, err := lib.Open(ctx, grant.KindPaper, "papers/scanned")
			if err != nil {
				t.Fatal(err)
			}
			pdoc, err := paper.Read(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if pdoc.Title != want {
				t.Errorf("scanned paper read as %q, want %q", pdoc.Title, want)
			}
			if got := paper.Info().Title; got != want {
				t.Errorf("scanned paper's source title %q, want %q", got, want)
			}
		})
	}
}
