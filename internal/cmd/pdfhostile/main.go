// Command pdfhostile measures the extractor on the hostile documents of
// internal/testkit/hostilepdf: for each, it writes the document to a temporary
// file and extracts it in a fresh child process (this command, in its
// -one mode), then reports the file size, the wall time, the child's peak
// resident set (VmHWM) and the outcome.
//
//	go run ./internal/cmd/pdfhostile [-run regexp]
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
	"strconv"
	"strings"
	"time"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

func main() {
	one := flag.String("one", "", "extract one file, print the outcome and the peak RSS, and exit")
	run := flag.String("run", "", "measure only the documents whose name matches this regular expression")
	flag.Parse()
	if *one != "" {
		fmt.Println(extractOne(*one))
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
	for _, c := range hostilepdf.Cases() {
		if !match.MatchString(c.Name) {
			continue
		}
		data := c.Make()
		path := filepath.Join(dir, "case.pdf")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			log.Fatal(err)
		}
		var out bytes.Buffer
		cmd := exec.Command(self, "-one", path)
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
		fmt.Printf("| %-44s | %10d | %7.2fs | %9s | %s |\n", c.Name, len(data), wall.Seconds(), rss, outcome)
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

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
