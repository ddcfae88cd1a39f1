//go:build linux

// Command libbench measures the library index on a large library through
// context_search (tools.Search over a grant of the whole papers folder).
// It reports:
//
//   - the cold build: the first search's answer (bounded by the index wait)
//     and the time until the index is complete, against sequential
//     pdftotext over the same PDFs when it is installed;
//   - warm searches: p50 and p95 over a fixed query list;
//   - a new process's first search once the index exists, median of runs,
//     and the peak RSS of a process that then runs the warm queries;
//   - the index size on disk per 1,000 pages (units).
//
// With -background it instead times warm searches and new processes'
// first answers with the library's background work idle and while it
// indexes a second folder and recognises a folder of scans (see
// runBackground).
//
// Two libraries: "real", the shared corpus PDFs copied under distinct
// paper ids (copies × PDFs papers), and "synthetic", n generated papers
// (PAPER.md of generated text in three sections, metadata.json).
//
//	go run ./internal/cmd/libbench -lib real -copies 20
//	go run ./internal/cmd/libbench -lib synthetic -n 10000
//
// The process gets the server's soft memory limit (memlimit.Server) unless
// GOMEMLIMIT is set or -memlimit says otherwise, so that its peak RSS is
// the server's. With -progress the cold build runs as a host's prewarm
// does (vault.OpenLibrary with LibraryOptions.OnProgress, one search that
// waits for the whole index), every progress event is written to the file
// as a JSON line, and the ETAs the build gave at 10, 25, 50 and 75 % of its
// pages are compared with the time it actually took. LIBBENCH_BUILD_CPUPROFILE and LIBBENCH_BUILD_MEMPROFILE
// write CPU and allocation profiles of the cold build.
//
// A new process (-child) writes a CPU profile of itself up to its first
// answer, sampled at 1 kHz, to LIBBENCH_CHILD_CPUPROFILE, and what it
// allocated until then to LIBBENCH_CHILD_MEMPROFILE; with
// LIBBENCH_CHILD_EXIT_AT_ANSWER set it exits right after that answer, so
// that perf or strace of the whole process sees only the way to it. A
// "PID" in either file's name is replaced by the process's id, so that
// each of several new processes writes a profile of its own.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/memlimit"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
)

var processStart = time.Now()

// skipPdftotext leaves out the pdftotext comparison (-pdftotext=false).
var skipPdftotext bool

// childrenOnly is -children-only: skip the cold build and the warm
// searches, whose background rescans would compete with the new processes.
var childrenOnly bool

// progressLog is -progress: where the prewarm build's events go.
var progressLog string

var realQueries = []string{
	"generative adversarial networks discriminator", "batch normalization internal covariate shift",
	"deep residual learning identity shortcut", "neural machine translation jointly learning to align",
	"distilling the knowledge soft targets temperature", "region proposal network object detection",
	"sequence to sequence learning LSTM", "dropout prevents co-adaptation", "attention is all you need multi-head",
	"identity mappings pre-activation", "fast r-cnn region of interest pooling", "word representations vector space",
	"stochastic gradient descent momentum learning rate", "image classification convolutional network ImageNet",
	"transformer encoder decoder self-attention", "beam search decoding", "variational autoencoder latent",
	"reinforcement learning policy gradient", "graph neural network message passing", "language model pretraining",
}

func main() {
	lib := flag.String("lib", "real", "real or synthetic")
	copies := flag.Int("copies", 20, "real: copies of each corpus PDF")
	n := flag.Int("n", 10000, "synthetic: papers")
	keep := flag.String("dir", "", "vault folder to use (made when empty; kept when given)")
	runs := flag.Int("runs", 5, "new-process runs")
	warm := flag.Int("warm", 200, "warm searches")
	child := flag.String("child", "", "internal: run as a new server process over this grant")
	withPdftotext := flag.Bool("pdftotext", true, "real: time sequential pdftotext over the PDFs")
	flag.StringVar(&progressLog, "progress", "", "build as a host's prewarm does and write its progress events to this file (JSON lines)")
	flag.BoolVar(&childrenOnly, "children-only", false, "with -dir: time only the new processes over the kept vault's built index (nothing else runs in this process meanwhile)")
	memLimit := flag.Int64("memlimit", memlimit.Server, "soft memory limit in bytes unless GOMEMLIMIT is set, as the server sets it (0: none)")
	background := flag.Bool("background", false, "real: warm searches and new processes' first answers with the background idle and while it indexes more/ and recognises scans/ (see runBackground)")
	more := flag.Int("more", 3, "-background: copies of each corpus PDF in more/")
	scanPages := flag.Int("scan-pages", 8, "-background: scanned pages in scans/")
	flag.Parse()
	if os.Getenv("GOMEMLIMIT") == "" && *memLimit > 0 {
		debug.SetMemoryLimit(*memLimit)
	}
	ctx := context.Background()
	if *child != "" {
		if err := runChild(ctx, *child, *warm, flag.Arg(0)); err != nil {
			fmt.Fprintln(os.Stderr, "libbench child:", err)
			os.Exit(1)
		}
		return
	}
	if !*withPdftotext {
		skipPdftotext = true
	}
	if *background {
		if err := runBackground(ctx, *keep, *copies, *more, *scanPages, *runs, *warm); err != nil {
			fmt.Fprintln(os.Stderr, "libbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, *lib, *copies, *n, *keep, *runs, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "libbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, lib string, copies, n int, dir string, runs, warm int) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "libbench-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	var pdfs []string
	var queries []string
	// A kept vault (-dir) is used as it is: writing its papers again would
	// change every file's time, and the next run would measure a rebuild.
	_, statErr := os.Stat(filepath.Join(dir, "papers"))
	kept := statErr == nil
	switch lib {
	case "real":
		root, err := corpus.Root()
		if err != nil {
			return err
		}
		if kept {
			pdfs, _ = filepath.Glob(filepath.Join(dir, "papers", "*", "paper.pdf"))
		} else if pdfs, err = writeReal(dir, filepath.Join(root, "pdfs"), copies); err != nil {
			return err
		}
		queries = realQueries
		fmt.Printf("library: %d papers (%d corpus PDFs × %d copies, distinct paper ids; kept: %v)\n", len(pdfs), len(pdfs)/copies, copies, kept)
	case "synthetic":
		var err error
		if queries, err = writeSynthetic(dir, n, !kept); err != nil {
			return err
		}
		fmt.Printf("library: %d generated papers (PAPER.md in three sections, metadata.json; kept: %v)\n", n, kept)
	default:
		return fmt.Errorf("unknown library %q", lib)
	}
	fmt.Printf("machine: %d cores, load average %s\n", numCPU(), loadAvg())

	if len(pdfs) > 0 && !skipPdftotext && !childrenOnly {
		if _, err := exec.LookPath("pdftotext"); err == nil {
			st := time.Now()
			var cpu time.Duration
			for _, p := range pdfs {
				cmd := exec.Command("pdftotext", "-q", p, os.DevNull)
				if err := cmd.Run(); err != nil {
					fmt.Printf("  pdftotext %s: %v\n", filepath.Base(p), err)
				}
				if ps := cmd.ProcessState; ps != nil {
					cpu += ps.UserTime() + ps.SystemTime()
				}
			}
			fmt.Printf("sequential pdftotext over the %d PDFs: %v (CPU %v)\n", len(pdfs), time.Since(st).Round(time.Millisecond), cpu.Round(time.Millisecond))
		} else {
			fmt.Println("sequential pdftotext: not installed, skipped")
		}
	}

	if childrenOnly {
		return spawnAll(ctx, dir, runs, warm, queries)
	}
	gr, next, err := writeGrant(ctx, dir)
	if err != nil {
		return err
	}
	if progressLog != "" {
		if err := prewarm(ctx, dir); err != nil {
			return err
		}
	}
	if p := os.Getenv("LIBBENCH_BUILD_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
	}
	st := time.Now()
	ts, err := tools.Open(ctx, gr, nil)
	if err != nil {
		return err
	}
	out, err := ts.Search(ctx, tools.SearchInput{Query: queries[0], Limit: 10})
	if err != nil {
		return err
	}
	first := time.Since(st)
	fmt.Printf("cold: first answer after %v (indexing %+v, %d cards)\n", first.Round(time.Millisecond), out.Indexing, len(out.Cards))
	for out.Indexing.Total > 0 {
		// A search every half second, each in a turn of its own: a long
		// build would spend one turn's budget.
		time.Sleep(500 * time.Millisecond)
		if err := next(); err != nil {
			return err
		}
		if out, err = ts.Search(ctx, tools.SearchInput{Query: queries[0], Limit: 10}); err != nil {
			return err
		}
	}
	took, cpu := time.Since(st), procstat.CPUTime()
	fmt.Printf("cold: index complete after %v (CPU %v), peak RSS of the building process %.1f MB\n",
		took.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(procstat.PeakRSS())/(1<<20))
	pprof.StopCPUProfile()
	if p := os.Getenv("LIBBENCH_BUILD_MEMPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	if units := countUnits(dir); units > 0 {
		fmt.Printf("cold: %d pages (units): %.0f pages/s of wall, %.0f pages per CPU second\n", units, float64(units)/took.Seconds(), float64(units)/cpu.Seconds())
	}
	// Let a background merge end before timing warm searches.
	time.Sleep(2 * time.Second)

	if p := os.Getenv("LIBBENCH_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	var lat []time.Duration
	for i := range warm {
		if i%50 == 49 {
			if err := next(); err != nil {
				return err
			}
		}
		q := queries[i%len(queries)]
		st := time.Now()
		out, err := ts.Search(ctx, tools.SearchInput{Query: q, Limit: 10})
		lat = append(lat, time.Since(st))
		if err != nil {
			return err
		}
		if len(out.Cards) == 0 {
			return fmt.Errorf("no cards for %q", q)
		}
	}
	ts.Close()
	pprof.StopCPUProfile()
	fmt.Printf("warm context_search (%d searches, %d queries): p50 %v  p95 %v  max %v\n", warm, len(queries),
		pct(lat, 0.5), pct(lat, 0.95), pct(lat, 1))

	if err := spawnAll(ctx, dir, runs, warm, queries); err != nil {
		return err
	}

	size, files := dirSize(filepath.Join(dir, agentero.Cache, "library"))
	units := countUnits(dir)
	fmt.Printf("index on disk: %.1f MB in %d files for %d pages (units): %.1f MB per 1,000 pages\n",
		float64(size)/(1<<20), files, units, float64(size)/(1<<20)/float64(max(units, 1))*1000)
	return nil
}

// writeReal copies each corpus PDF copies times under distinct paper ids
// and returns the copies' paths.
func writeReal(root, pdfDir string, copies int) ([]string, error) {
	des, err := os.ReadDir(pdfDir)
	if err != nil {
		return nil, err
	}
	var out []string
	id := 0
	for c := range copies {
		for _, de := range des {
			if !strings.HasSuffix(de.Name(), ".pdf") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(pdfDir, de.Name()))
			if err != nil {
				return nil, err
			}
			paper := filepath.Join(root, "papers", fmt.Sprintf("p%04d", id))
			id++
			if err := os.MkdirAll(paper, 0o755); err != nil {
				return nil, err
			}
			meta, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("%s (copy %d)", strings.TrimSuffix(de.Name(), ".pdf"), c)})
			if err := os.WriteFile(filepath.Join(paper, "metadata.json"), meta, 0o644); err != nil {
				return nil, err
			}
			p := filepath.Join(paper, "paper.pdf")
			// A comment after the end makes each copy's bytes distinct, so
			// no copy is served from another's extraction (the PDF cache is
			// keyed by content).
			copyData := append(slices.Clip(data), fmt.Sprintf("\n%% copy %d\n", c)...)
			if err := os.WriteFile(p, copyData, 0o644); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// writeSynthetic writes n generated papers (unless write is false: a kept
// vault already holds them) and returns queries drawn from their
// vocabulary.
func writeSynthetic(root string, n int, write bool) ([]string, error) {
	r := rand.New(rand.NewPCG(42, 7))
	const vocabSize = 30000
	vocab := make([]string, vocabSize)
	for i := range vocab {
		vocab[i] = syllables(r)
	}
	// Zipf-like draws: frequent words are frequent.
	zipf := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.1, 2, vocabSize-1)
	text := func(words int) string {
		var b strings.Builder
		for i := range words {
			if i > 0 {
				if i%14 == 0 {
					b.WriteString(".\n")
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(vocab[zipf.Uint64()])
		}
		return b.String()
	}
	for i := range n {
		if !write {
			break
		}
		paper := filepath.Join(root, "papers", fmt.Sprintf("s%05d", i))
		if err := os.MkdirAll(paper, 0o755); err != nil {
			return nil, err
		}
		title := text(8)
		meta, _ := json.Marshal(map[string]any{"title": title})
		if err := os.WriteFile(filepath.Join(paper, "metadata.json"), meta, 0o644); err != nil {
			return nil, err
		}
		body := fmt.Sprintf("# %s\n\n## Introduction\n\n%s\n\n## Method\n\n%s\n\n## Results\n\n%s\n", title, text(350), text(350), text(350))
		if err := os.WriteFile(filepath.Join(paper, "PAPER.md"), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	var qs []string
	for i := range 20 {
		qs = append(qs, vocab[50+i*37]+" "+vocab[300+i*91]+" "+vocab[20+i*13])
	}
	return qs, nil
}

func syllables(r *rand.Rand) string {
	const cons, vows = "bcdfghklmnprstvz", "aeiou"
	var b strings.Builder
	for range 2 + r.IntN(3) {
		b.WriteByte(cons[r.IntN(len(cons))])
		b.WriteByte(vows[r.IntN(len(vows))])
	}
	return b.String()
}

// writeGrant grants the papers folder and returns the grant's path and a
// function that starts a new turn (a fresh budget).
func writeGrant(ctx context.Context, root string) (string, func() error, error) {
	return writeSessionGrant(ctx, root, "libbench")
}

// writeSessionGrant is writeGrant in the session of the given runtime.
func writeSessionGrant(ctx context.Context, root, runtime string) (string, func() error, error) {
	var res researchctx.Resolver
	defer res.Close()
	turnChars := grant.MaxBudget().TurnChars
	// The turns are this run's own: a kept vault's usage log holds the
	// earlier runs' turns, whose budgets are spent.
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	plan, err := res.Resolve(ctx, researchctx.Request{
		Vault: root, RuntimeID: runtime, TurnID: run + "-0", Mentions: []string{"papers"},
		Budget: &grant.BudgetOverrides{TurnChars: &turnChars},
	})
	if err != nil {
		return "", nil, err
	}
	if len(plan.Sources) != 1 {
		return "", nil, fmt.Errorf("the plan grants %v (dropped %v)", plan.Sources, plan.Dropped)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		return "", nil, err
	}
	turn := 0
	next := func() error {
		turn++
		plan.TurnID = fmt.Sprintf("%s-%d", run, turn)
		_, err := plan.WriteGrant()
		return err
	}
	return gr, next, nil
}

// spawnAll runs new server processes over the vault at root one after
// another, each in a session of its own, and prints their first searches
// and peak RSS.
func spawnAll(ctx context.Context, root string, runs, warm int, queries []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var firsts, inners, cpus []time.Duration
	var rss, faults []int64
	for i := range runs {
		// Each process serves a session of its own, as a host starts
		// one for each new ACP session: its usage log starts empty.
		gr, _, err := writeSessionGrant(ctx, root, fmt.Sprintf("libbench-%s-%d", strconv.FormatInt(time.Now().UnixNano(), 36), i))
		if err != nil {
			return err
		}
		wall, inner, cpu, flt, peak, err := spawn(ctx, self, gr, warm, queries[(i*7+3)%len(queries)])
		if err != nil {
			return err
		}
		firsts, inners, cpus, rss, faults = append(firsts, wall), append(inners, inner), append(cpus, cpu), append(rss, peak), append(faults, flt)
	}
	slices.Sort(rss)
	slices.Sort(faults)
	fmt.Printf("new process, index present: first search median %v (in-process %v, CPU %v, minor faults %d) [runs %v; CPU %v]; peak RSS after %d more searches: median %.1f MB, max %.1f MB\n",
		pct(firsts, 0.5), pct(inners, 0.5), pct(cpus, 0.5), faults[len(faults)/2], roundAll(firsts), roundAll(cpus), warm, float64(rss[len(rss)/2])/(1<<20), float64(rss[len(rss)-1])/(1<<20))
	return nil
}

// spawn runs a new server process: the time to its first result as seen
// from here and as it measures itself, the CPU time and minor page faults
// it took until then, and its peak RSS after the warm searches.
func spawn(ctx context.Context, self, gr string, warm int, query string) (wall, inner, cpu time.Duration, faults, rss int64, err error) {
	cmd := exec.CommandContext(ctx, self, "-child", gr, "-warm", strconv.Itoa(warm), query)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	st := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, 0, err
	}
	rd := bufio.NewReader(out)
	line, err := rd.ReadString('\n')
	wall = time.Since(st)
	if err != nil {
		cmd.Wait()
		return 0, 0, 0, 0, 0, fmt.Errorf("child: %w", err)
	}
	var ns, cpuNs int64
	fmt.Sscan(line, &ns, &cpuNs, &faults)
	cpu = time.Duration(cpuNs)
	line, _ = rd.ReadString('\n')
	fmt.Sscan(line, &rss)
	if err := cmd.Wait(); err != nil {
		return 0, 0, 0, 0, 0, fmt.Errorf("child: %w", err)
	}
	return wall, time.Duration(ns), cpu, faults, rss, nil
}

func runChild(ctx context.Context, gr string, warm int, query string) error {
	if os.Getenv("LIBBENCH_CHILD_MEMPROFILE") != "" {
		// Every allocation: a first answer allocates a few MB, which the
		// default rate would sample a dozen times.
		runtime.MemProfileRate = 1
	}
	if p := os.Getenv("LIBBENCH_CHILD_CPUPROFILE"); p != "" {
		f, err := os.Create(perProcess(p))
		if err != nil {
			return err
		}
		// A first answer is some 20 ms of CPU: at the default 100 Hz a
		// profile would hold two samples. The runtime warns that the rate
		// is set already, and keeps it.
		runtime.SetCPUProfileRate(1000)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	// No collections until the first answer, as the server process
	// holds them (at most 10 s) under a memory limit of at most
	// memlimit.StartupHeap.
	gcPercent, limit := 100, debug.SetMemoryLimit(-1)
	if os.Getenv("GOGC") == "" && limit != math.MaxInt64 {
		debug.SetMemoryLimit(min(limit, memlimit.StartupHeap))
		gcPercent = debug.SetGCPercent(-1)
	}
	ts, err := tools.Open(ctx, gr, nil)
	if err != nil {
		return err
	}
	defer ts.Close()
	out, err := ts.Search(ctx, tools.SearchInput{Query: query, Limit: 10})
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(limit)
	if err != nil {
		return err
	}
	if len(out.Cards) == 0 || out.Indexing.Total > 0 {
		return fmt.Errorf("first search: %d cards, indexing %+v", len(out.Cards), out.Indexing)
	}
	fmt.Println(time.Since(processStart).Nanoseconds(), procstat.CPUTime().Nanoseconds(), procstat.MinorFaults())
	pprof.StopCPUProfile()
	if p := os.Getenv("LIBBENCH_CHILD_MEMPROFILE"); p != "" {
		// What the first answer allocated, by call site.
		f, err := os.Create(perProcess(p))
		if err != nil {
			return err
		}
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	if os.Getenv("LIBBENCH_CHILD_EXIT_AT_ANSWER") != "" {
		// For a profiler or strace of the whole process up to its first
		// answer: what the background does after it is left out.
		os.Exit(0)
	}
	qs := append([]string{query}, realQueries...)
	for i := range warm {
		if _, err := ts.Search(ctx, tools.SearchInput{Query: qs[i%len(qs)], Limit: 10}); err != nil {
			break // the turn's budget is spent: enough searches
		}
	}
	fmt.Println(procstat.PeakRSS())
	return nil
}

// perProcess returns name with "PID" replaced by the process's id.
func perProcess(name string) string {
	return strings.ReplaceAll(name, "PID", strconv.Itoa(os.Getpid()))
}

// countUnits returns the live documents of the library index.
func countUnits(root string) int {
	n, err := libindex.Docs(filepath.Join(root, agentero.Cache, "library"))
	if err != nil {
		fmt.Println("counting the index's units:", err)
	}
	return n
}

func dirSize(dir string) (int64, int) {
	var size int64
	files := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
				files++
			}
		}
		return nil
	})
	return size, files
}

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))].Round(10 * time.Microsecond)
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

func numCPU() int {
	data, _ := os.ReadFile("/proc/cpuinfo")
	return max(1, bytes.Count(data, []byte("processor\t:")))
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	return strings.Join(f[:min(3, len(f))], " ")
}

// event is one progress event of a prewarm build, as logged.
type event struct {
	At    float64 `json:"t"` // seconds since the build began
	Done  int     `json:"done"`
	Total int     `json:"total"`
	Pages int     `json:"pages"`
	PPS   float64 `json:"pps"`
	ETA   float64 `json:"eta"` // seconds
}

// prewarm builds the index of root's papers folder as a host's prewarm
// does, logging every progress event to progressLog, and prints the build's
// figures and how far its ETAs were from the time the build took.
func prewarm(ctx context.Context, root string) error {
	f, err := os.Create(progressLog)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	var (
		mu     sync.Mutex
		events []event
	)
	st := time.Now()
	heapAt := os.Getenv("LIBBENCH_BUILD_HEAPPROFILE") // a heap profile when half the items are done
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{IndexWait: 24 * time.Hour, OnProgress: func(p vault.IndexProgress) {
		e := event{At: time.Since(st).Seconds(), Done: p.Done, Total: p.Total, Pages: p.Pages, PPS: p.PagesPerSecond, ETA: p.ETA.Seconds()}
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
		if heapAt != "" && p.Total > 0 && p.Done == p.Total/2 {
			if f, err := os.Create(heapAt); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			heapAt = ""
		}
	}})
	if err != nil {
		return err
	}
	src, err := lib.Open(ctx, grant.KindDirectory, "papers")
	if err != nil {
		lib.Close()
		return err
	}
	if _, err := src.Search(ctx, sources.Query{Text: "index", Limit: 1}); err != nil {
		lib.Close()
		return err
	}
	took, cpu := time.Since(st), procstat.CPUTime()
	lib.Close()
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		b, _ := json.Marshal(e)
		w.Write(append(b, '\n'))
	}
	pages := 0
	if len(events) > 0 {
		pages = events[len(events)-1].Pages
	}
	fmt.Printf("prewarm build: %d pages in %v (CPU %v), %.0f pages/s of wall, %.0f pages per CPU second, peak RSS %.1f MB, load average %s\n",
		pages, took.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(pages)/took.Seconds(), float64(pages)/cpu.Seconds(),
		float64(procstat.PeakRSS())/(1<<20), loadAvg())
	for _, frac := range []float64{0.10, 0.25, 0.50, 0.75} {
		i := slices.IndexFunc(events, func(e event) bool { return float64(e.Pages) >= frac*float64(pages) })
		if i < 0 {
			continue
		}
		e := events[i]
		left := took.Seconds() - e.At
		fmt.Printf("  ETA at %2.0f %% of pages (%.1f s, %d/%d items): %.1f s, actual %.1f s left: error %+.1f %%\n",
			frac*100, e.At, e.Done, e.Total, e.ETA, left, (e.ETA-left)/left*100)
	}
	return nil
}
