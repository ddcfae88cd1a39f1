package pageimage

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
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"

	"github.com/researchctx/researchctx/internal/pdf"
)

// hostileImagesWant is the outcome each hostile page-image case must end
// in, a regular expression of the pages' results by kind, in page order.
var hostileImagesWant = map[string]string{
	// Up to 16 pages decode the shared 33 MB stream, about half a second
	// of work each; then the document's decoded bytes are spent, or its
	// time on a busy machine, for the others.
	"Do flood, 200 pages sharing 5.5M Do":    `pages: ([1-9]|1[0-6]) no image(, \d+ (decoded bytes|time) per document)+`,
	"Do flood of one image, one page":        `pages: 1 images per page`,
	"forms drawing forms, a million Do each": `pages: 1 operators per page`,
	"inline image flood":                     `pages: 1 undecodable`,
}

// TestHostileImageContent reads the page images of each hostile document of
// hostilepdf.ImageCases in a child process (this test binary, reading the
// file as OCR does, without a renderer) and checks the child's exit, the
// pages' typed outcomes, and its peak RSS (≤ maxHostileRSS). The time
// limit is the default (30 s): a case over it would end in pdf.LimitTime.
func TestHostileImageContent(t *testing.T) {
	if path := os.Getenv("PDF_HOSTILE_IMAGES_FILE"); path != "" {
		n, _ := strconv.Atoi(os.Getenv("PDF_HOSTILE_IMAGES_PAGES"))
		imageContentChild(path, n)
		return
	}
	if testing.Short() {
		t.Skip("reads about 1 GB of hostile content streams")
	}
	dir := t.TempDir()
	for _, c := range hostilepdf.ImageCases() {
		t.Run(c.Name, func(t *testing.T) {
			want, ok := hostileImagesWant[c.Name]
			if !ok {
				t.Fatalf("no expected outcome for %q", c.Name)
			}
			data := c.Make()
			path := filepath.Join(dir, "case.pdf")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileImageContent$")
			cmd.Env = append(os.Environ(), "PDF_HOSTILE_IMAGES_FILE="+path, "PDF_HOSTILE_IMAGES_PAGES="+strconv.Itoa(c.Pages))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("child process: %v\n%s", err, lastLines(stderr.String(), 20))
			}
			wall := time.Since(start)
			got, hwm, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
			if !regexp.MustCompile(`^(?:` + want + `)$`).MatchString(got) {
				t.Errorf("outcome = %q, want %q", got, want)
			}
			n := 0
			for _, m := range regexp.MustCompile(`(?:: |, )(\d+) `).FindAllStringSubmatch(got, -1) {
				k, _ := strconv.Atoi(m[1])
				n += k
			}
			if n != c.Pages {
				t.Errorf("outcome %q counts %d pages, want %d", got, n, c.Pages)
			}
			rss, err := strconv.ParseInt(hwm, 10, 64)
			if err != nil {
				t.Logf("no peak RSS from the child (%q)", hwm)
				return
			}
			t.Logf("%d bytes: %s in %v, peak RSS %d MB", len(data), got, wall.Round(time.Millisecond), rss>>20)
			if rss > maxHostileRSS {
				t.Errorf("peak RSS %d MB, over %d MB", rss>>20, maxHostileRSS>>20)
			}
		})
	}
}

// imageContentChild reads the images of pages 1 to n of the file at path
// through an *os.File, prints their outcome and the peak RSS, and exits.
func imageContentChild(path string, n int) {
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
	pages := make([]int, n)
	for i := range pages {
		pages[i] = i + 1
	}
	var results []Result
	err = Read(context.Background(), f, fi.Size(), pages, nil, func(r Result) error {
		r.Image = nil // only its outcome is kept
		if r.Err == nil {
			r.Image = &Image{}
		}
		results = append(results, r)
		return nil
	})
	fmt.Println(imageContentOutcome(results, err))
	fmt.Println(hostilepdf.PeakRSS())
	os.Exit(0)
}

// imageContentOutcome summarises the results of Read: its error, or how
// many pages ended in each kind of result, in page order.
func imageContentOutcome(results []Result, err error) string {
	if err != nil {
		return fmt.Sprintf("document: %v", err)
	}
	counts := map[string]int{}
	var order []string
	for _, r := range results {
		var le *pdf.LimitError
		k := "image"
		switch {
		case errors.As(r.Err, &le):
			k = string(le.Limit)
		case errors.Is(r.Err, ErrNoImage):
			k = "no image"
		case errors.Is(r.Err, ErrUndecodable):
			k = "undecodable"
		case r.Err != nil:
			k = "error"
		}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return "pages: " + strings.Join(parts, ", ")
}

// TestPageImagesTimeLimit checks the time limits of Read: the
// document's own (Options.Timeout), which fails the page it runs out on
// and every later one with pdf.LimitTime, counts this package's work only,
// not what fn takes; and the caller's context, which ends the call.
func TestPageImagesTimeLimit(t *testing.T) {
	pagesOf := func(n int) []int {
		p := make([]int, n)
		for i := range p {
			p[i] = i + 1
		}
		return p
	}
	t.Run("own limit", func(t *testing.T) {
		// 20 pages of a million Do each: about 2 s of work, 50 ms allowed.
		data := hostilepdf.DoFlood(20, 1_000_000)
		var results []Result
		err := Read(context.Background(), bytes.NewReader(data), int64(len(data)), pagesOf(20), &Options{Options: &pdf.Options{Timeout: 50 * time.Millisecond}}, func(r Result) error {
			results = append(results, r)
			return nil
		})
		if err != nil || len(results) != 20 {
			t.Fatalf("Read: %v, %d results", err, len(results))
		}
		out := false // a page has run out of time: so must every later one
		for _, r := range results {
			var le *pdf.LimitError
			switch {
			case errors.As(r.Err, &le) && le.Limit == pdf.LimitTime && le.Page == r.Page && errors.Is(r.Err, pdf.ErrTooLarge):
				out = true
			case out || !errors.Is(r.Err, ErrNoImage):
				t.Errorf("page %d: %v, want no image, or the time limit from the first page over it on", r.Page, r.Err)
			}
		}
		if !out {
			t.Error("no page ran out of time")
		}
	})
	t.Run("fn's time not counted", func(t *testing.T) {
		var jpg bytes.Buffer
		if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
			t.Fatal(err)
		}
		scans := make([][]byte, 5)
		for i := range scans {
			scans[i] = jpg.Bytes()
		}
		data := hostilepdf.Scan(8, 8, scans...)
		// 5 × 300 ms in fn against a 1 s limit: the pages' own work is
		// a few milliseconds.
		var results []Result
		err := Read(context.Background(), bytes.NewReader(data), int64(len(data)), pagesOf(5), &Options{Options: &pdf.Options{Timeout: time.Second}}, func(r Result) error {
			results = append(results, r)
			time.Sleep(300 * time.Millisecond)
			return nil
		})
		if err != nil || len(results) != 5 {
			t.Fatalf("Read: %v, %d results", err, len(results))
		}
		for _, r := range results {
			if r.Err != nil || r.Image == nil || r.Image.Format != JPEG {
				t.Errorf("page %d: %v, want its JPEG", r.Page, r.Err)
			}
		}
	})
	t.Run("caller's context", func(t *testing.T) {
		data := hostilepdf.DoFlood(20, 1_000_000)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := 0
		err := Read(ctx, bytes.NewReader(data), int64(len(data)), pagesOf(20), nil, func(r Result) error {
			if calls++; calls == 2 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) || calls != 2 {
			t.Errorf("Read: %v after %d pages, want the context's error after 2", err, calls)
		}
	})
}
