// Command ocrbench measures the recognition of scanned pages: it makes
// scans of the corpus's born-digital arXiv papers (pdftoppm at 200 dpi to
// grey JPEG and lossless PNG pages, img2pdf back to image-only PDFs) in a
// temporary vault (scans/jpeg and scans/png), indexes them with the
// library's tesseract engine, and reports, on the held-out papers, the
// word F1 of each recognised page against the born-digital text, whether
// a 6-word phrase of each page's body text is found on that page in the
// first 3 cards (searched in the folder of its encoding, and in the
// folder of both, where each page has a near-identical twin), the build's
// time against tesseract run over the same page images one after another
// (before and after the build, the mean of the two), the CPU time a page
// of the programs each ran, and the peak RSS of
// this process (the server's side) and of the largest tesseract process.
// With -speed N it instead times the library's OCR of the JPEG scans
// against pdftoppm and tesseract run page by page, N pairs on the machine
// as it is and N beside two busy loops (see speed). Nothing is written
// outside the temporary folder.
//
//	go run ./internal/cmd/ocrbench [-pages 2] [-papers 6] [-speed 3]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

func main() {
	pages := flag.Int("pages", 2, "pages of each paper")
	papers := flag.Int("papers", 6, "held-out papers at most")
	flag.IntVar(&speedRuns, "speed", 0, "time the library's OCR of the JPEG scans against pdftoppm and tesseract page by page, this many pairs idle and as many beside two busy loops, instead of the quality report")
	spinning := flag.Bool("spin", false, "internal: run as a busy loop")
	flag.Parse()
	if *spinning {
		spin()
	}
	if err := run(*pages, *papers); err != nil {
		fmt.Fprintln(os.Stderr, "ocrbench:", err)
		os.Exit(1)
	}
}

// speedRuns is -speed: the pairs of the speed comparison, 0 for none.
var speedRuns int

// scan is one scanned page and the born-digital text of its original.
type scan struct {
	file  string // vault path of the scan
	dir   string // the folder of its encoding
	page  int
	truth pdf.Page
	image string // the page image given to tesseract for the baseline
}

func run(npages, npapers int) error {
	root, err := corpus.Root()
	if err != nil {
		return err
	}
	all, err := filepath.Glob(filepath.Join(root, "pdfs", "arxiv-*.pdf"))
	if err != nil {
		return err
	}
	slices.Sort(all)
	// Held out: every other paper, starting from the second, leaving out
	// arxiv-1406.2661 (the tests' page): none was looked at while the
	// code was written.
	var held []string
	for i, p := range all {
		if i%2 == 1 && !strings.Contains(p, "1406.2661") && len(held) < npapers {
			held = append(held, p)
		}
	}
	tmp, err := os.MkdirTemp("", "ocrbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	vaultDir := filepath.Join(tmp, "vault")
	for _, mode := range []string{"jpeg", "png"} {
		if err := os.MkdirAll(filepath.Join(vaultDir, "scans", mode), 0o755); err != nil {
			return err
		}
	}
	var scans []scan
	for _, src := range held {
		base := strings.TrimSuffix(filepath.Base(src), ".pdf")
		truth, err := bornDigital(src, npages)
		if err != nil {
			return err
		}
		for _, mode := range []string{"jpeg", "png"} {
			prefix := filepath.Join(tmp, base+"-"+mode)
			if out, err := exec.Command("pdftoppm", "-f", "1", "-l", fmt.Sprint(npages), "-r", "200", "-gray", "-"+mode, src, prefix).CombinedOutput(); err != nil {
				return fmt.Errorf("pdftoppm: %v: %s", err, out)
			}
			imgs, _ := filepath.Glob(prefix + "-*")
			slices.Sort(imgs)
			dir := "scans/" + mode
			rel := dir + "/" + base + ".pdf"
			if out, err := exec.Command("img2pdf", append(imgs, "-o", filepath.Join(vaultDir, rel))...).CombinedOutput(); err != nil {
				return fmt.Errorf("img2pdf: %v: %s", err, out)
			}
			for i, img := range imgs {
				scans = append(scans, scan{file: rel, dir: dir, page: i + 1, truth: truth[i], image: img})
			}
		}
	}
	fmt.Printf("held out: %d papers, %d pages each, JPEG and PNG: %d scanned pages\n", len(held), npages, len(scans))
	if speedRuns > 0 {
		var files []string
		pagesOf := map[string]int{}
		for _, s := range scans {
			if s.dir == "scans/jpeg" {
				if pagesOf[s.file] == 0 {
					files = append(files, s.file)
				}
				pagesOf[s.file]++
			}
		}
		return speed(vaultDir, "scans/jpeg", files, pagesOf, speedRuns)
	}

	// Baseline: tesseract over the same images, one after another, before
	// and after the build: their mean is the baseline of a build whose
	// machine grew busier or quieter while it ran.
	eng, err := ocr.NewTesseract(context.Background(), "tesseract", nil, 0, 0)
	if err != nil {
		return err
	}
	sequential := func() (time.Duration, error) {
		start := time.Now()
		for _, s := range scans {
			cmd := exec.Command("tesseract", s.image, "stdout", "-l", strings.Join(eng.Langs(), "+"), "tsv")
			cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				return 0, fmt.Errorf("tesseract: %v: %.200s", err, out)
			}
		}
		return time.Since(start), nil
	}
	cpu0 := childCPU()
	seqBefore, err := sequential()
	if err != nil {
		return err
	}
	cpuSeq := childCPU() - cpu0

	cache := filepath.Join(tmp, "cache")
	lib, err := vault.OpenLibrary(vaultDir, &vault.LibraryOptions{CacheDir: cache, OCR: eng, IndexWait: time.Hour})
	if err != nil {
		return err
	}
	defer lib.Close()
	ctx := context.Background()
	dir, err := lib.Open(ctx, grant.KindDirectory, "scans")
	if err != nil {
		return err
	}
	start, cpu0 := time.Now(), childCPU()
	// The build ends when a search is no longer partial: the text first,
	// then the scanned pages.
	for {
		res, err := dir.Search(ctx, sources.Query{Text: "warm", Limit: 1})
		if err != nil {
			return err
		}
		if res.Indexing == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	build, cpuBuild := time.Since(start), childCPU()-cpu0
	serverRSS := procstat.PeakRSS()
	cpu0 = childCPU()
	seqAfter, err := sequential()
	if err != nil {
		return err
	}
	cpuSeq += childCPU() - cpu0
	seq := (seqBefore + seqAfter) / 2

	var f1s []float64
	var found, foundBoth, conf float64
	var ocrPages int
	docs := map[string]*sources.Document{}
	for _, s := range scans {
		doc := docs[s.file]
		if doc == nil {
			src, err := lib.Open(ctx, grant.KindFile, s.file)
			if err != nil {
				return err
			}
			if doc, err = src.Read(ctx, ""); err != nil {
				return err
			}
			docs[s.file] = doc
		}
		part := doc.Parts[s.page-1]
		if part.OCR != nil {
			ocrPages++
			conf += part.OCR.Confidence
		}
		f1s = append(f1s, wordF1(s.truth.Text, part.Text))
		phrase := phraseOf(s.truth)
		own, err := lib.Open(ctx, grant.KindDirectory, s.dir)
		if err != nil {
			return err
		}
		hit, top, err := findsPage(ctx, own, s, phrase)
		if err != nil {
			return err
		}
		hitBoth, topBoth, err := findsPage(ctx, dir, s, phrase)
		if err != nil {
			return err
		}
		if hit {
			found++
		}
		if hitBoth {
			foundBoth++
		}
		fmt.Printf("  %-34s p%d  F1 %.3f  phrase %-5v (beside its twin %-5v) %q\n", s.file, s.page, f1s[len(f1s)-1], hit, hitBoth, phrase)
		if !hit {
			fmt.Printf("      first cards: %s\n", top)
		}
		if !hitBoth {
			fmt.Printf("      first cards beside its twin: %s\n", topBoth)
		}
	}
	mean := 0.0
	for _, f := range f1s {
		mean += f
	}
	mean /= float64(len(f1s))
	fmt.Printf("mean word F1 %.4f (min %.4f) over %d pages; %d marked ocr, mean confidence %.2f\n", mean, slices.Min(f1s), len(f1s), ocrPages, conf/float64(max(ocrPages, 1)))
	fmt.Printf("6-word phrase on its page in the first 3 cards: %.1f %% (beside its twin in one folder: %.1f %%)\n", 100*found/float64(len(scans)), 100*foundBoth/float64(len(scans)))
	fmt.Printf("build %s vs tesseract one after another %s (%s before, %s after): %.2f×\n", build.Round(10*time.Millisecond), seq.Round(10*time.Millisecond), seqBefore.Round(10*time.Millisecond), seqAfter.Round(10*time.Millisecond), build.Seconds()/seq.Seconds())
	fmt.Printf("CPU a page of the programs run: build %s, tesseract one after another %s\n", (cpuBuild / time.Duration(len(scans))).Round(10*time.Millisecond), (cpuSeq / time.Duration(2*len(scans))).Round(10*time.Millisecond))
	fmt.Printf("peak RSS: this process %.0f MB; largest child (tesseract, pdftoppm) %.0f MB\n", float64(serverRSS)/(1<<20), float64(childMaxRSS())/(1<<20))
	return nil
}

// findsPage searches src for phrase and reports whether a card of the
// first three is the page of s, and what those cards are.
func findsPage(ctx context.Context, src sources.Source, s scan, phrase string) (bool, string, error) {
	res, err := src.Search(ctx, sources.Query{Text: phrase, Limit: 3})
	if err != nil {
		return false, "", err
	}
	hit := false
	var top []string
	for _, h := range res.Hits[:min(3, len(res.Hits))] {
		hit = hit || h.Path == s.file && h.Page == s.page
		top = append(top, fmt.Sprintf("%s p%d", h.Path, h.Page))
	}
	return hit, strings.Join(top, ", "), nil
}

// bornDigital returns the first n pages of the PDF, their text layer.
func bornDigital(path string, n int) ([]pdf.Page, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return nil, err
	}
	return doc.Pages[:min(n, len(doc.Pages))], nil
}

// wordsOf splits text into lower-case words of letters and digits.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// wordF1 is the F1 of the bags of words of got against want.
func wordF1(want, got string) float64 {
	w, g := map[string]int{}, map[string]int{}
	for _, x := range wordsOf(want) {
		w[x]++
	}
	nw, ng := 0, 0
	for _, n := range w {
		nw += n
	}
	for _, x := range wordsOf(got) {
		g[x]++
		ng++
	}
	tp := 0
	for x, n := range g {
		tp += min(n, w[x])
	}
	if tp == 0 {
		return 0
	}
	p, r := float64(tp)/float64(ng), float64(tp)/float64(nw)
	return 2 * p * r / (p + r)
}

// phraseOf is six consecutive words of letters only from the middle of
// the page's body text: its lines of at least eight words in the size of
// most of the page's characters, neither crossing a wide blank (cells or
// captions side by side) nor an annotation's; a phrase may run from one
// such line into the next. A figure's labels, a
// table's cells, headings and footnotes are not the page's phrases: what
// a reader quotes of a page is its prose. A page without such a line
// gives six words from the middle of its text.
func phraseOf(pg pdf.Page) string {
	size := map[float64]int{}
	for _, l := range pg.Lines {
		size[math.Round(l.FontSize*2)/2] += len(l.Text)
	}
	body, most := 0.0, 0
	for s, n := range size {
		if n > most || n == most && s < body {
			body, most = s, n
		}
	}
	var ws []string
	for _, l := range pg.Lines {
		if l.Annot != "" || len(l.Gaps) > 0 || math.Round(l.FontSize*2)/2 != body || len(strings.Fields(l.Text)) < 8 {
			// A phrase runs on from one body line into the next, not
			// over a line that is not the body's.
			if len(ws) > 0 && ws[len(ws)-1] != "\n" {
				ws = append(ws, "\n")
			}
			continue
		}
		ws = append(ws, strings.Fields(l.Text)...)
	}
	if p := middleRun(ws); p != "" {
		return p
	}
	ws = strings.Fields(pg.Text)
	if p := middleRun(ws); p != "" {
		return p
	}
	return strings.Join(ws[:min(6, len(ws))], " ")
}

// middleRun is the first six consecutive words of letters only from the
// middle of ws on, "" when there is none.
func middleRun(ws []string) string {
	for i := len(ws) / 2; i+6 <= len(ws); i++ {
		ok := true
		for _, w := range ws[i : i+6] {
			for _, r := range w {
				if !unicode.IsLetter(r) {
					ok = false
				}
			}
		}
		if ok {
			return strings.Join(ws[i:i+6], " ")
		}
	}
	return ""
}
