// Command pdfhostile measures the extractor on the hostile documents of
// internal/testkit/hostilepdf: for each, it writes the document to a temporary
// file and extracts it in a fresh child process (this command, in its
// -one mode), then reports the file size, the wall time, the child's peak
// resident set (VmHWM) and the outcome. With -images it measures the
// page-image reader OCR uses (pageimage.Read) on hostilepdf.ImageCases
// instead.
//
//	go run ./internal/cmd/pdfhostile [-images] [-run regexp]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdf/pageimage"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

func main() {
	one := flag.String("one", "", "extract one file, print the outcome and the peak RSS, and exit")
	run := flag.String("run", "", "measure only the documents whose name matches this regular expression")
	images := flag.Bool("images", false, "measure the page-image reader on the page-image cases")
	pages := flag.Int("pages", 0, "with -one: read the images of pages 1 to n instead of extracting the text")
	flag.Parse()
	if *one != "" {
		if *pages > 0 {
			fmt.Println(imagesOne(*one, *pages))
		} else {
			fmt.Println(extractOne(*one))
		}
		fmt.Println(hostilepdf.PeakRSS())
		return
	}
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "pdfhostile")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	fmt.Printf("| %-44s | %10s | %8s | %9s | %s |\n", "document", "bytes", "time", "peak RSS", "outcome")
	fmt.Printf("|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 46), strings.Repeat("-", 11)+":", strings.Repeat("-", 9)+":", strings.Repeat("-", 10)+":", "---")
	match, err := regexp.Compile(*run)
	if err != nil {
		log.Fatal(err)
	}
	type measured struct {
		name  string
		pages int // 0: extract the text
		make  func() []byte
	}
	var cases []measured
	if *images {
		for _, c := range hostilepdf.ImageCases() {
			cases = append(cases, measured{c.Name, c.Pages, c.Make})
		}
	} else {
		for _, c := range hostilepdf.Cases() {
			cases = append(cases, measured{c.Name, 0, c.Make})
		}
	}
	for _, c := range cases {
		if !match.MatchString(c.name) {
			continue
		}
		data := c.make()
		path := filepath.Join(dir, "case.pdf")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			log.Fatal(err)
		}
		var out bytes.Buffer
		cmd := exec.Command(self, "-one", path, "-pages", strconv.Itoa(c.pages))
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		outcome, rss, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
		if err != nil {
			outcome = fmt.Sprintf("child failed: %v: %s", err, firstLine(out.String()))
			rss = "-"
		} else if n, err := strconv.ParseInt(rss, 10, 64); err == nil && n > 0 {
			rss = fmt.Sprintf("%d MB", n>>20)
		}
		fmt.Printf("| %-44s | %10d | %7.2fs | %9s | %s |\n", c.name, len(data), wall.Seconds(), rss, outcome)
	}
}

func extractOne(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	d, err := pdf.Extract(context.Background(), f, fi.Size(), nil)
	if err != nil {
		return "document: " + err.Error()
	}
	ok, failed := 0, map[string]int{}
	for _, p := range d.Pages {
		var le *pdf.LimitError
		switch {
		case errors.As(p.Err, &le):
			failed[string(le.Limit)]++
		case p.Err != nil:
			failed["error"]++
		default:
			ok++
		}
	}
	s := fmt.Sprintf("%d pages read", ok)
	for k, n := range failed {
		s += fmt.Sprintf(", %d over %s", n, k)
	}
	return s
}

// imagesOne reads the images of pages 1 to n of the file at path as OCR
// does (without a renderer) and says how many pages ended how.
func imagesOne(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	pages := make([]int, n)
	for i := range pages {
		pages[i] = i + 1
	}
	counts := map[string]int{}
	err = pageimage.Read(context.Background(), f, fi.Size(), pages, nil, func(r pageimage.Result) error {
		var le *pdf.LimitError
		switch {
		case errors.As(r.Err, &le):
			counts["over "+string(le.Limit)]++
		case errors.Is(r.Err, pageimage.ErrNoImage):
			counts["no image"]++
		case errors.Is(r.Err, pageimage.ErrUndecodable):
			counts["undecodable"]++
		case r.Err != nil:
			counts["error"]++
		default:
			counts["image"]++
		}
		return nil
	})
	if err != nil {
		return "document: " + err.Error()
	}
	var parts []string
	for k, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
