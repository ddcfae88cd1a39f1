// Command pdfbench measures the text extractor against pdftotext over a
// folder of PDFs, one process per file for both, and reports pages per
// second of wall time and of CPU time (medians of several repetitions; CPU
// time is the steadier measure on a shared machine), the ratios, the peak
// resident set size of any one process, and the time to read a page from
// the cache.
//
//	GOMAXPROCS=1 pdfbench -dir ../shared/corpus/pdfs -reps 5
//
// Each repetition runs every file through a fresh process of this command
// (in its -one mode, with GOMAXPROCS=1) and through pdftotext -enc UTF-8,
// alternating, so both see the same machine load.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdfcache"
)

func main() {
	dir := flag.String("dir", "", "folder of PDFs (required)")
	reps := flag.Int("reps", 3, "repetitions; medians are reported")
	pdftotext := flag.String("pdftotext", "pdftotext", "pdftotext binary")
	one := flag.String("one", "", "extract one file and exit (used by the benchmark itself)")
	flag.Parse()
	if *one != "" {
		if err := extractOne(*one); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *dir == "" {
		flag.Usage()
		os.Exit(2)
	}
	files, err := filepath.Glob(filepath.Join(*dir, "*.pdf"))
	if err != nil || len(files) == 0 {
		log.Fatalf("no PDFs in %s", *dir)
	}
	slices.Sort(files)
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	pages := 0
	for _, f := range files {
		d, err := extractFile(f)
		if err != nil {
			log.Fatalf("%s: %v", f, err)
		}
		pages += len(d.Pages)
	}
	var ours, theirs, oursCPU, theirsCPU []time.Duration
	var oursRSS, theirsRSS int64
	for r := 0; r < *reps; r++ {
		var to, tt, co, ct time.Duration
		for _, f := range files {
			res, err := run(exec.Command(self, "-one", f))
			if err != nil {
				log.Fatalf("%s: %v", f, err)
			}
			to += res.wall
			co += res.cpu
			oursRSS = max(oursRSS, res.rss)
			res, err = run(exec.Command(*pdftotext, "-enc", "UTF-8", f, "-"))
			if err != nil {
				log.Fatalf("pdftotext %s: %v", f, err)
			}
			tt += res.wall
			ct += res.cpu
			theirsRSS = max(theirsRSS, res.rss)
		}
		ours, theirs = append(ours, to), append(theirs, tt)
		oursCPU, theirsCPU = append(oursCPU, co), append(theirsCPU, ct)
	}
	mo, mt := median(ours), median(theirs)
	po, pt := float64(pages)/mo.Seconds(), float64(pages)/mt.Seconds()
	cpo, cpt := float64(pages)/median(oursCPU).Seconds(), float64(pages)/median(theirsCPU).Seconds()
	cached, err := cachedPageTime(files)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("files %d, pages %d, repetitions %d (medians), one process per file, GOMAXPROCS=1\n", len(files), pages, *reps)
	fmt.Printf("| extractor | wall time | pages/s (wall) | pages per CPU-second | peak RSS |\n|---|---|---|---|---|\n")
	fmt.Printf("| internal/pdf | %.2f s | %.0f | %.0f | %.0f MB |\n", mo.Seconds(), po, cpo, float64(oursRSS)/1024)
	fmt.Printf("| pdftotext | %.2f s | %.0f | %.0f | %.0f MB |\n", mt.Seconds(), pt, cpt, float64(theirsRSS)/1024)
	fmt.Printf("ratio ours / pdftotext: %.2f (wall), %.2f (CPU)\n", po/pt, cpo/cpt)
	fmt.Printf("cached page read: median %.0f µs, p99 %.0f µs (%d reads)\n",
		float64(cached[len(cached)/2].Microseconds()), float64(cached[len(cached)*99/100].Microseconds()), len(cached))
}

func extractFile(path string) (*pdf.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return pdf.Extract(context.Background(), f, st.Size(), nil)
}

// extractOne is the child process: extract and write the text to stdout,
// as pdftotext does.
func extractOne(path string) error {
	d, err := extractFile(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, p := range d.Pages {
		b.WriteString(p.Text)
		b.WriteString("\n\f")
	}
	_, err = os.Stdout.Write(b.Bytes())
	return err
}

type result struct {
	wall, cpu time.Duration
	rss       int64 // KiB
}

// run times a process: wall time, user+system CPU time and peak RSS.
func run(cmd *exec.Cmd) (result, error) {
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return result{wall: d, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss: maxRSS(cmd.ProcessState)}, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// cachedPageTime caches every file, then times random single-page reads.
func cachedPageTime(files []string) ([]time.Duration, error) {
	dir, err := os.MkdirTemp("", "pdfbench-cache-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	c := &pdfcache.Cache{Dir: dir}
	type item struct {
		key   pdfcache.FileInfo
		open  pdfcache.Opener
		pages int
	}
	var items []item
	for _, path := range files {
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		open := func() (io.ReaderAt, int64, io.Closer, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, 0, nil, err
			}
			return f, st.Size(), f, nil
		}
		key := pdfcache.FileInfo{Path: path, Size: st.Size(), ModTime: st.ModTime()}
		d, err := c.Extract(context.Background(), key, open)
		if err != nil {
			return nil, err
		}
		items = append(items, item{key, open, len(d.Pages)})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ds []time.Duration
	for i := 0; i < 2000; i++ {
		it := items[rng.IntN(len(items))]
		n := 1 + rng.IntN(it.pages)
		start := time.Now()
		if _, err := c.Page(context.Background(), it.key, it.open, n); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds, nil
}
