// Command quotebench measures quote location (context_read mode excerpt)
// on the shared corpus: quotes are random 12–40-word spans of the pdftotext
// reference of each English paper, perturbed as models quote, and each is
// located in the text our extractor gives for the same PDF. A quote counts
// when it is located on the page the span starts on.
//
// Classes: light (one or two words dropped or changed, an inflection,
// whitespace, a word hyphenated as copied from a page), medium (about a
// fifth of the words dropped, changed, inserted or inflected, or a clause
// moved), cross (a span across a page break, or from the end of the left
// column into the right column of a two-column page) and negative (a span
// of another paper of the same set: any location is a false positive).
//
// The papers are split by a fixed rule (alternate papers in name order):
// the tuning half and the held-out half are reported separately, and
// today's exact-only location beside the approximate one, in the same run.
//
// Times are wall time per quote (p50, p95, and p95 on the paper with the
// most pages) and, on Linux, the thread's CPU time, which a loaded machine
// inflates less. The approximate method's index is built once per paper
// (as FindQuote caches it); its build time is reported apart.
//
// Usage:
//
//	go run ./internal/cmd/quotebench [-n 25] [-seed 1] [-failures 0]
//
// It reads ../shared/corpus beside the module unless -corpus is given.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/textnorm"
)

func main() {
	log.SetFlags(0)
	dir := flag.String("corpus", "", "corpus folder (pdfs/, ref-pdftotext/)")
	n := flag.Int("n", 25, "quotes per class per paper")
	seed := flag.Uint64("seed", 1, "random seed")
	failures := flag.Int("failures", 0, "list this many failures of the approximate method per set")
	only := flag.String("class", "", "list failures of this class only")
	flag.Parse()
	root := *dir
	if root == "" {
		var err error
		if root, err = corpus.Root(); err != nil {
			log.Fatal(err)
		}
	}
	t0 := time.Now()
	papers, err := LoadPapers(context.Background(), filepath.Join(root, "pdfs"), filepath.Join(root, "ref-pdftotext"), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d papers extracted in %v; %d quotes per class per paper, seed %d\n", len(papers), time.Since(t0).Round(time.Millisecond), *n, *seed)
	tune, held := Split(papers)
	for _, set := range []struct {
		name   string
		papers []*Paper
	}{{"tuning", tune}, {"held-out", held}} {
		fmt.Printf("\n%s half (%d papers)\n", set.name, len(set.papers))
		fmt.Printf("%-12s %8s %8s %8s %10s %9s %9s %9s %9s %9s\n", "method", "light", "medium", "cross", "neg FP", "p50", "p95", "p95 big", "cpu p95", "cpu big")
		for _, m := range Methods {
			r := Evaluate(m, set.papers, *n, *seed)
			fmt.Printf("%-12s", m.Name)
			for _, c := range Classes {
				t := r.Tallies[c]
				fmt.Printf(" %7.1f%%", 100*t.Rate(c))
				if c == Negative {
					fmt.Printf(" ")
				}
			}
			fmt.Printf(" %9v %9v %9v %9v %9v\n", Percentile(r.Times, 50).Round(time.Microsecond), Percentile(r.Times, 95).Round(time.Microsecond),
				Percentile(r.LargestTimes, 95).Round(time.Microsecond), Percentile(r.CPU, 95).Round(time.Microsecond), Percentile(r.LargestCPU, 95).Round(time.Microsecond))
			if m.Name == "approximate" {
				fmt.Printf("%12s counts:", "")
				for _, c := range Classes {
					t := r.Tallies[c]
					fmt.Printf(" %s %d/%d/%d", c, t.Right, t.Wrong, t.N)
				}
				fmt.Printf("\n%12s cross by kind:", "")
				for _, k := range []string{"page", "column", "table"} {
					if t := r.Kinds[k]; t != nil {
						fmt.Printf(" %s %d/%d", k, t.Right, t.N)
					}
				}
				fmt.Printf("\n%12s scores: light p5 %.2f, medium p5 %.2f, cross p5 %.2f; negatives p99 %.2f, max %.2f (threshold %.2f)",
					"", Quantile(r.Tallies[Light].Scores, 0.05), Quantile(r.Tallies[Medium].Scores, 0.05), Quantile(r.Tallies[Cross].Scores, 0.05),
					Quantile(r.Tallies[Negative].Scores, 0.99), Quantile(r.Tallies[Negative].Scores, 1), textnorm.MinQuoteScore)
				fmt.Printf("\n%12s index build per paper: median %v, max %v; largest paper %s (%d pages): index %v CPU, p95 of index + find %v CPU\n", "",
					Percentile(r.Build, 50).Round(time.Microsecond), Percentile(r.Build, 100).Round(time.Microsecond), r.Largest, r.LargestPages,
					r.LargestBuild.Round(time.Microsecond), (r.LargestBuild + Percentile(r.LargestCPU, 95)).Round(time.Microsecond))
				listed := 0
				for _, f := range r.Failures {
					if listed >= *failures {
						break
					}
					if *only != "" && f.Quote.Class != *only {
						continue
					}
					listed++
					fmt.Fprintf(os.Stdout, "  FAIL %s %s/%s page %d got %d: %q\n", f.Paper, f.Quote.Class, f.Quote.Kind, f.Quote.Page+1, f.Got+1, f.Quote.Text)
				}
			}
		}
	}
}
