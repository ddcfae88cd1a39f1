package zotero_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	ocrengine "github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/testkit/ocrmemo"
	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/zotero"
	"github.com/researchctx/researchctx/tools"
)

// copyTree copies a folder tree into a new temporary folder the test may
// change.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// needTools skips the test when a program it runs is not installed
// (failing under CI=true, which installs them).
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, p := range names {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI installs it)", p)
			}
			t.Skipf("%s is not installed", p)
		}
	}
}

// scans holds the scans scanOf made in this test binary, by the PDF's
// content and the pages: two tests scan the same pages alike.
var scans sync.Map // string -> []byte

// scanOf rasterises the first pages of a PDF and wraps the images as a
// PDF with no text layer, as a scanner makes one.
func scanOf(t *testing.T, src string, pages int) []byte {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("%x %d", sha256.Sum256(b), pages)
	if scan, ok := scans.Load(key); ok {
		return scan.([]byte)
	}
	scan := makeScan(t, src, pages)
	scans.Store(key, scan)
	return scan
}

// makeScan is scanOf's work: pdftoppm at 200 dpi to grey JPEGs, img2pdf
// back to a PDF.
func makeScan(t *testing.T, src string, pages int) []byte {
	t.Helper()
	tmp := t.TempDir()
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

// readPage returns page n (1-based) of the attachment att of the item at
// ref, read through the driver's source of the item.
func readPage(t *testing.T, d *zotero.Driver, ref, att string, n int) sources.Part {
	t.Helper()
	ctx := context.Background()
	r, err := d.Ref(ctx, ref, &sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := d.Open(ctx, r.Ref, &sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := src.(sources.PageReader).ReadPages(ctx, att, []int{n})
	if err != nil {
		t.Fatal(err)
	}
	return doc.Parts[n-1]
}

// defaultEngine returns the SDK's own engine, the one a library without
// Options.OCR runs.
func defaultEngine(t *testing.T) ocr.Engine {
	t.Helper()
	eng, note := ocrengine.Default("")
	if eng == nil {
		t.Fatalf("no default OCR engine: %s", note)
	}
	return eng
}

// pageDeadline is the per-page deadline of the engines of tests that check
// what OCR reads, and the deadline of their calls that wait for it:
// generous, so that a page on a loaded machine (tesseract runs at a lower
// priority than everything else) is still read rather than given up as
// too slow, which is what the defaults are for.
const pageDeadline = 10 * time.Minute

// patientEngine returns the SDK's own engine (see defaultEngine) with
// pageDeadline for a page: the same program and languages, under the same
// ID, so that its readings are the default engine's.
func patientEngine(t *testing.T) ocr.Engine {
	t.Helper()
	dflt := defaultEngine(t).(*ocrengine.Tesseract)
	eng, err := ocrengine.NewTesseract(context.Background(), "tesseract", dflt.Langs(), pageDeadline, 0)
	if err != nil {
		t.Fatal(err)
	}
	if eng.ID() != dflt.ID() {
		t.Fatalf("engine %q, want the default engine's %q", eng.ID(), dflt.ID())
	}
	return eng
}

// longWords returns the words of s of seven letters or more, lower-cased.
func longWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 7 {
			out = append(out, w)
		}
	}
	return out
}

// TestOCRScannedAttachment: an imported PDF attachment that is a scan (the
// first two pages of the fixture's Sequence to Sequence paper, rasterised)
// is read with OCR: a page read returns the page's text as tesseract
// recognises it — most of the long words pdftotext finds on the
// born-digital page — marked as OCR and cited by Zotero's open-pdf URI of
// the page; the item's metadata counts its recognised pages. The recognition is cached under the library's cache folder;
// Zotero's folders stay byte-identical, with no file added. With OCR
// turned off, the page says so and has no text.
func TestOCRScannedAttachment(t *testing.T) {
	needTools(t, "tesseract", "pdftoppm", "img2pdf", "pdftotext")
	data := copyTree(t, filepath.Join(zoterofix.Dev(t), "Zotero"))
	pdfPath := filepath.Join(data, "storage", "XHS4W622", "Sutskever et al. - 2014 - Sequence to Sequence Learning with Neural Networks.pdf")
	text, err := exec.Command("pdftotext", "-f", "2", "-l", "2", "-layout", pdfPath, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	want := longWords(string(text))
	if len(want) < 50 {
		t.Fatalf("pdftotext found %d long words on page 2", len(want))
	}
	if err := os.WriteFile(pdfPath, scanOf(t, pdfPath, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	before := zotero.HashTree(t, data)
	ctx := context.Background()

	cache := t.TempDir()
	// Every page is read by tesseract here; its readings serve the tests
	// after it that hold the same page.
	d := zotero.New(zotero.Options{DataDir: data, CacheDir: cache, OCR: ocrmemo.Engine{Engine: patientEngine(t), Fresh: true}})
	t.Cleanup(func() { zotero.CloseOCR(d) })
	// The read waits for tesseract: on a loaded machine, longer than a
	// call's default deadline.
	ts, _, _ := toolsetWith(t, d, &tools.Options{CallTimeout: pageDeadline}, "zotero:collections/To Read")
	const page2 = "zotero://open-pdf/library/items/XHS4W622?page=2"
	r, err := ts.Read(ctx, tools.ReadInput{Target: page2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Page != 2 || r.CitationURI != page2 || !r.OCR || r.Confidence <= 0 {
		t.Fatalf("read of %s: page %d, uri %q, ocr %v (%.2f)", page2, r.Page, r.CitationURI, r.OCR, r.Confidence)
	}
	got := map[string]bool{}
	for _, w := range longWords(r.Text) {
		got[w] = true
	}
	found := 0
	for _, w := range want {
		if got[w] {
			found++
		}
	}
	if found*10 < len(want)*7 {
		t.Fatalf("OCR found %d of the %d long words of pdftotext's page 2; text %.300q", found, len(want), r.Text)
	}

	md, err := ts.Read(ctx, tools.ReadInput{Target: "zotero://select/library/items/QCAL5UMX"})
	if err != nil {
		t.Fatal(err)
	}
	if !md.OCR || md.OCRPages < 1 {
		t.Fatalf("metadata of the scanned item: ocr %v, %d pages recognised", md.OCR, md.OCRPages)
	}

	zotero.CloseOCR(d)
	entries, err := filepath.Glob(filepath.Join(cache, "*", "ocr", "*.ocr"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no OCR cache entry under the library's cache folder (%v)", err)
	}
	if after := zotero.HashTree(t, data); after != before {
		t.Fatal("Zotero's folders changed")
	}

	// A library given no engine runs the SDK's own, the one above: the
	// page is read from the cache that one wrote.
	dflt := zotero.New(zotero.Options{DataDir: data, CacheDir: cache})
	t.Cleanup(func() { zotero.CloseOCR(dflt) })
	if p := readPage(t, dflt, "items/QCAL5UMX", "zotero:items/XHS4W622", 2); p.OCR == nil || p.Text == "" {
		t.Fatalf("page 2 with the default engine: ocr %+v, note %q, text %.100q", p.OCR, p.Note, p.Text)
	}

	off := zotero.New(zotero.Options{DataDir: data, CacheDir: t.TempDir(), OCR: ocr.Off()})
	if p := readPage(t, off, "items/QCAL5UMX", "zotero:items/XHS4W622", 2); !p.NoTextLayer || p.OCR != nil || p.Note != "no OCR: it is turned off" {
		t.Fatalf("page 2 with OCR off: no text layer %v, ocr %+v, note %q", p.NoTextLayer, p.OCR, p.Note)
	}
}

// TestOCRTextSearchable: a scanned attachment's recognised text becomes
// searchable without any change in Zotero. The first search indexes the
// item before its pages are recognised (the scan has no text layer, so no
// card can cite its pages); the background recognises them and has the
// item indexed again, and a later search finds page 2's words cited by
// its open-pdf URI, the card marked recognised as a read's page is. On an index that kept the item by its stamp alone the
// text would never be found.
func TestOCRTextSearchable(t *testing.T) {
	needTools(t, "tesseract", "pdftoppm", "img2pdf", "pdftotext")
	data := copyTree(t, filepath.Join(zoterofix.Dev(t), "Zotero"))
	pdfPath := filepath.Join(data, "storage", "XHS4W622", "Sutskever et al. - 2014 - Sequence to Sequence Learning with Neural Networks.pdf")
	text, err := exec.Command("pdftotext", "-f", "2", "-l", "2", pdfPath, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	// A query of page 2's own words, found nowhere in the item's record,
	// notes or annotations.
	words := longWords(string(text))
	if len(words) < 40 {
		t.Fatalf("pdftotext found %d long words on page 2", len(words))
	}
	query := strings.Join(words[20:28], " ")
	if err := os.WriteFile(pdfPath, scanOf(t, pdfPath, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cache := t.TempDir()
	// What the test is about is the search once the pages are read, in
	// the background: tesseract reads a page that TestOCRScannedAttachment
	// read once in this test binary.
	d := zotero.New(zotero.Options{DataDir: data, CacheDir: cache, IndexWait: 10 * time.Minute, OCR: ocrmemo.Engine{Engine: patientEngine(t)}})
	t.Cleanup(func() { zotero.CloseOCR(d) })
	ts, _, _ := toolsetOf(t, d, "zotero:collections/To Read")
	const page2 = "zotero://open-pdf/library/items/XHS4W622?page=2"
	searches := 0
	cites := func() bool {
		searches++
		out, err := ts.Search(ctx, tools.SearchInput{Query: query, Limit: 3})
		if err != nil {
			t.Fatalf("search %d for page 2's recognised words %q: %v", searches, query, err)
		}
		for _, c := range out.Cards {
			if c.CitationURI == page2 {
				if !c.OCR || c.Confidence <= 0 {
					t.Errorf("the card of page 2 is not marked recognised: ocr %v (%.2f)", c.OCR, c.Confidence)
				}
				return true
			}
		}
		return false
	}
	if cites() {
		t.Fatal("the first search cites a page the engine has not recognised yet")
	}
	// The background recognises both pages and has the item indexed
	// again; tesseract takes seconds a page on a busy machine.
	// A search is made only once the cache holds recognised pages, and
	// ever less often after that (up to every 5 s), so as not to spend
	// the turn's budget while a loaded machine indexes the item again.
	deadline := time.Now().Add(5 * time.Minute)
	wait := 500 * time.Millisecond
	for {
		if time.Now().After(deadline) {
			t.Fatalf("page 2's recognised words %q not found in 5 minutes (%d searches)", query, searches)
		}
		time.Sleep(wait)
		entries, _ := filepath.Glob(filepath.Join(cache, "*", "ocr", "*.ocr"))
		if len(entries) == 0 {
			continue
		}
		if cites() {
			break
		}
		wait = min(2*wait, 5*time.Second)
	}
}
