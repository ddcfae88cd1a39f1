package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// spin is the busy loop of -spin: one core's worth of other work.
func spin() {
	for x := uint64(1); ; x = x*6364136223846793005 + 1 {
		_ = x
	}
}

// busy starts n busy loops (this program with -spin), each in a session
// of its own as another program of the machine would be, and returns
// the function that ends them.
func busy(n int) (stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}
	for range n {
		c := exec.Command(self, "-spin")
		c.SysProcAttr = newSession()
		if err := c.Start(); err != nil {
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// speed times, in pairs taken in turn, the library's OCR of the scans
// under dir (a new library and an empty cache each time: every page
// recognised, the tesseract probe included) against pdftoppm and
// tesseract run on the same scans page by page, one after another, as a
// script would (the page rendered at the scans' 200 dpi to grey PGM, then
// read; OMP_THREAD_LIMIT=1 as the library runs it). Each of runs pairs is
// taken on the machine as it is and again beside two busy loops; it
// prints each pair with the load average before it, then the medians and
// the median of the pairs' ratios, and the CPU time a page of the
// programs each side ran (the engine's, and the renderer's for the
// script).
func speed(vaultDir, dir string, files []string, pagesOf map[string]int, runs int) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "ocrbench-speed-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pages := 0
	for _, f := range files {
		pages += pagesOf[f]
	}
	sdk := func(i int) (time.Duration, error) {
		cache := filepath.Join(tmp, "cache-"+strconv.Itoa(i))
		defer os.RemoveAll(cache)
		var mu sync.Mutex
		var done, total int
		start := time.Now()
		lib, err := vault.OpenLibrary(vaultDir, &vault.LibraryOptions{CacheDir: cache, OCRProgress: func(d, t int) {
			mu.Lock()
			done, total = d, t
			mu.Unlock()
		}})
		if err != nil {
			return 0, err
		}
		defer lib.Close()
		src, err := lib.Open(ctx, grant.KindDirectory, dir)
		if err != nil {
			return 0, err
		}
		// A host's progress line: a search now and then until the
		// answer is whole, and the OCR hook's count meanwhile.
		for {
			res, err := src.Search(ctx, sources.Query{Text: "the", Limit: 1})
			if err != nil {
				return 0, err
			}
			if res.Indexing == nil {
				break
			}
			for {
				mu.Lock()
				d, t := done, total
				mu.Unlock()
				if t >= pages && d >= t || time.Since(start) > 30*time.Minute {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		took := time.Since(start)
		if done != pages {
			return 0, fmt.Errorf("the library recognised %d pages of %d", done, pages)
		}
		return took, nil
	}
	seq := func() (time.Duration, error) {
		img := filepath.Join(tmp, "page")
		start := time.Now()
		for _, f := range files {
			for p := 1; p <= pagesOf[f]; p++ {
				n := strconv.Itoa(p)
				if out, err := exec.Command("pdftoppm", "-f", n, "-l", n, "-r", "200", "-gray", "-singlefile", filepath.Join(vaultDir, f), img).CombinedOutput(); err != nil {
					return 0, fmt.Errorf("pdftoppm: %v: %.200s", err, out)
				}
				cmd := exec.Command("tesseract", img+".pgm", "stdout", "-l", "eng", "tsv")
				cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
				if out, err := cmd.CombinedOutput(); err != nil {
					return 0, fmt.Errorf("tesseract: %v: %.200s", err, out)
				}
			}
		}
		return time.Since(start), nil
	}
	fmt.Printf("speed: %d scans, %d pages, %d pairs per condition, %d cores\n", len(files), pages, runs, runtime.NumCPU())
	for _, loops := range []int{0, 2} {
		stop := func() {}
		if loops > 0 {
			if stop, err = busy(loops); err != nil {
				return err
			}
		}
		var as, bs, acpu, bcpu []time.Duration
		var ratios []float64
		// timed runs f and returns its time and the CPU time a page of
		// the programs it ran.
		timed := func(f func() (time.Duration, error)) (took, cpu time.Duration, err error) {
			c := childCPU()
			took, err = f()
			return took, (childCPU() - c) / time.Duration(pages), err
		}
		for i := range runs {
			load := loadAvg()
			var a, b, ac, bc time.Duration
			// A then B, then B then A: a drift of the machine's
			// speed favours neither.
			lib := func() (time.Duration, error) { return sdk(i) }
			if i%2 == 0 {
				if a, ac, err = timed(lib); err == nil {
					b, bc, err = timed(seq)
				}
			} else {
				if b, bc, err = timed(seq); err == nil {
					a, ac, err = timed(lib)
				}
			}
			if err != nil {
				stop()
				return err
			}
			as, bs, ratios = append(as, a), append(bs, b), append(ratios, a.Seconds()/b.Seconds())
			acpu, bcpu = append(acpu, ac), append(bcpu, bc)
			fmt.Printf("  busy loops %d, pair %d (load average %s): library %s, sequential %s: %.2f×; CPU a page %s, %s\n", loops, i+1, load,
				a.Round(10*time.Millisecond), b.Round(10*time.Millisecond), ratios[i], ac.Round(10*time.Millisecond), bc.Round(10*time.Millisecond))
		}
		stop()
		fmt.Printf("busy loops %d: library median %s, sequential median %s, median ratio %.2f×; CPU a page, medians: library %s, sequential %s (load average after %s)\n", loops,
			median(as).Round(10*time.Millisecond), median(bs).Round(10*time.Millisecond), medianF(ratios),
			median(acpu).Round(10*time.Millisecond), median(bcpu).Round(10*time.Millisecond), loadAvg())
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(fs []float64) float64 {
	s := slices.Clone(fs)
	slices.Sort(s)
	return s[len(s)/2]
}

// loadAvg returns the 1-, 5- and 15-minute load averages, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
