package pageimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"

	"github.com/researchctx/researchctx/internal/pdf"
)

// hostileImage is a page image built to cost its decoder far more than
// its size, and the limit its page must end in.
type hostileImage struct {
	name string
	make func() []byte
	want pdf.Limit
}

// hostileImages are the page-image bombs of every decoder: each a file of
// a few kilobytes at most.
var hostileImages = []hostileImage{
	{"JBIG2 dictionaries each referring to all before it", func() []byte {
		return hostilepdf.ImagePage(hostilepdf.JBIG2ImageDict(1000, 1000), hostilepdf.JBIG2SymbolChain(1000, 1000, 40, 0))
	}, LimitWork},
	{"JBIG2 dictionaries each referring to the one before 4000 times", func() []byte {
		return hostilepdf.ImagePage(hostilepdf.JBIG2ImageDict(1000, 1000), hostilepdf.JBIG2SymbolChain(1000, 1000, 4, 4000))
	}, LimitWork},
	{"JPX of 4 components of 16 bits over 8000×8000", func() []byte {
		return hostilepdf.ImagePage(hostilepdf.JPXImageDict(8000, 8000), hostilepdf.JPXCodestream(hostilepdf.JPXOptions{Width: 8000, Height: 8000, Components: 4, Depth: 16, TileW: 1024, TileH: 1024}))
	}, LimitBytes},
	{"JPX of one tile of 4 components over 4096×4096", func() []byte {
		return hostilepdf.ImagePage(hostilepdf.JPXImageDict(4096, 4096), hostilepdf.JPXCodestream(hostilepdf.JPXOptions{Width: 4096, Height: 4096, Components: 4, Levels: 5}))
	}, LimitBytes},
	{"JPX of 1000×1000 in precincts of 2×2 and code-blocks of 4×4", func() []byte {
		return hostilepdf.ImagePage(hostilepdf.JPXImageDict(1000, 1000), hostilepdf.JPXCodestream(hostilepdf.JPXOptions{Width: 1000, Height: 1000, Levels: 5, BlockExp: 2, PrecinctExp: 1}))
	}, LimitBytes},
	{"Flate RGB of 16 bits over 8000×8000", func() []byte {
		return hostilepdf.ImagePage("/Type /XObject /Subtype /Image /Width 8000 /Height 8000 /ColorSpace /DeviceRGB /BitsPerComponent 16 /Filter /FlateDecode", hostilepdf.FlateZeros(1<<20))
	}, LimitBytes},
	{"DCT of 100×100 whose frame declares 60000×60000", func() []byte {
		return hostilepdf.ImagePage("/Type /XObject /Subtype /Image /Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", hostilepdf.JPEGFrame(60000, 60000, 3))
	}, LimitPixels},
}

// TestHostilePageImages: each page-image bomb ends in its typed limit,
// without the renderer, in bounded time and allocation.
func TestHostilePageImages(t *testing.T) {
	for _, c := range hostileImages {
		t.Run(c.name, func(t *testing.T) {
			data := c.make()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			res := allPageImages(t, data)
			runtime.ReadMemStats(&after)
			var le *pdf.LimitError
			last := res[len(res)-1]
			if !errors.As(last.Err, &le) || le.Limit != c.want || !errors.Is(last.Err, pdf.ErrTooLarge) {
				t.Errorf("%d bytes: page %d: got %v, want the %s limit", len(data), last.Page, last.Err, c.want)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Errorf("allocated %d MB", n>>20)
			}
		})
	}
}

// TestHostileFaxBudget: a CCITT page image is decoded only when what it
// decodes to (its rows, and the PBM made of them) fits in what is left of
// the document's bytes: one that does not ends the page, and every later
// one, in pdf.LimitDocBytes before anything is decoded. The pages before it
// decode, each in time proportional to its declared pixels.
func TestHostileFaxBudget(t *testing.T) {
	const w, h = 7000, 9000
	data := hostilepdf.ImagePages(3, hostilepdf.FaxImageDict(w, h), hostilepdf.FaxWhite(h))
	objs, err := pdf.OpenObjects(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &doc{objs}
	img, err := d.pageImage(context.Background(), 1)
	if err != nil || img.Width != w || img.Height != h || len(img.Data) < w/8*h {
		t.Fatalf("page 1: %v", err)
	}
	// Less than the page's rows and its PBM left, more than its rows.
	objs.Spend(objs.Budget() - 3*w/8*h/2)
	start := time.Now()
	for n := 2; n <= 3; n++ {
		_, err = d.pageImage(context.Background(), n)
		var le *pdf.LimitError
		if !errors.As(err, &le) || le.Limit != pdf.LimitDocBytes || le.Page != n {
			t.Errorf("page %d: got %v, want the document's bytes limit", n, err)
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v to refuse two pages", took)
	}
}

// allPageImages runs Read over every page of data with a renderer
// that must not run.
func allPageImages(t *testing.T, data []byte) []Result {
	t.Helper()
	pages := make([]int, 200)
	for i := range pages {
		pages[i] = i + 1
	}
	var res []Result
	err := Read(context.Background(), bytes.NewReader(data), int64(len(data)), pages, &Options{Renderer: "pdftoppm-that-must-not-run"}, func(r Result) error {
		if errors.Is(r.Err, ErrNoImage) {
			return nil // past the last page
		}
		res = append(res, r)
		return nil
	})
	if err != nil || len(res) == 0 {
		t.Fatalf("Read: %v, %d results", err, len(res))
	}
	return res
}

// imagesOutcome summarises Read's results: the pages decoded, and
// the limits the others hit, in order.
func imagesOutcome(res []Result) string {
	counts := map[string]int{}
	var order []string
	for _, r := range res {
		k := "image"
		var le *pdf.LimitError
		switch {
		case errors.As(r.Err, &le):
			k = string(le.Limit)
		case r.Err != nil:
			k = "error"
		}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	var s []string
	for _, k := range order {
		s = append(s, fmt.Sprintf("%d %s", counts[k], k))
	}
	return strings.Join(s, ", ")
}

// TestHostilePageImagesRSS extracts the page images of each bomb, and of a
// blank JPEG 2000 page of a letter page's pixels at 600 dpi (what the
// budget must still decode), as the OCR worker does, in a child process
// (this test binary): the child must survive, end each page in its limit
// and keep its peak resident set under maxHostileRSS, within 30 s.
func TestHostilePageImagesRSS(t *testing.T) {
	if path := os.Getenv("PDF_HOSTILE_IMAGES_FILE"); path != "" {
		hostileImagesChild(path)
		return
	}
	if testing.Short() {
		t.Skip("runs a child process per page-image bomb")
	}
	cases := map[string]string{}
	var names []string
	files := map[string][]byte{}
	for _, c := range hostileImages {
		names = append(names, c.name)
		files[c.name] = c.make()
		cases[c.name] = "1 " + string(c.want)
	}
	const fax = "CCITT of 7000×9000 white on 3 pages"
	names = append(names, fax)
	files[fax] = hostilepdf.ImagePages(3, hostilepdf.FaxImageDict(7000, 9000), hostilepdf.FaxWhite(9000))
	cases[fax] = "3 image"
	const letter = "JPX of a blank letter page at 600 dpi"
	names = append(names, letter)
	files[letter] = hostilepdf.ImagePage(hostilepdf.JPXImageDict(5100, 6600), hostilepdf.JPXCodestream(hostilepdf.JPXOptions{Width: 5100, Height: 6600, Levels: 5}))
	cases[letter] = "1 image"
	dir := t.TempDir()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, "case.pdf")
			if err := os.WriteFile(path, files[name], 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostilePageImagesRSS$")
			cmd.Env = append(os.Environ(), "PDF_HOSTILE_IMAGES_FILE="+path)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("child process: %v\n%s", err, lastLines(stderr.String(), 20))
			}
			took := time.Since(start)
			got, hwm, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
			if got != cases[name] {
				t.Errorf("outcome = %q, want %q", got, cases[name])
			}
			if took > 30*time.Second {
				t.Errorf("took %v, over 30 s", took)
			}
			rss, err := strconv.ParseInt(hwm, 10, 64)
			if err != nil {
				t.Logf("no peak RSS from the child (%q)", hwm)
				return
			}
			t.Logf("%d bytes: peak RSS %d MB in %v", len(files[name]), rss>>20, took.Round(time.Millisecond))
			if rss > maxHostileRSS {
				t.Errorf("peak RSS %d MB, over %d MB", rss>>20, maxHostileRSS>>20)
			}
		})
	}
}

// hostileImagesChild extracts the page images of the file at path, as the
// OCR worker does (through an *os.File, one page at a time, no renderer),
// prints the outcome and its peak RSS, and exits.
func hostileImagesChild(path string) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	fi, err := f.Stat()
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	pages := make([]int, 200)
	for i := range pages {
		pages[i] = i + 1
	}
	var res []Result
	err = Read(context.Background(), f, fi.Size(), pages, nil, func(r Result) error {
		if !errors.Is(r.Err, ErrNoImage) {
			res = append(res, r)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	} else {
		fmt.Println(imagesOutcome(res))
	}
	fmt.Println(hostilepdf.PeakRSS())
	os.Exit(0)
}
