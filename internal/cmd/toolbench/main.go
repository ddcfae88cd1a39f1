// Command toolbench measures the three tools end to end, through the public
// path a host and the MCP server take: Resolve a Request, write the grant,
// tools.Open it, call the tools.
//
// SciFact: the 5,183 abstracts are written as corpus/<doc_id>.txt into a
// temporary vault, the corpus folder is granted as a directory source, and
// each of the 809 training claims is a context_search call with limit 10 in
// its own turn. It reports nDCG@10 and Recall@10 next to a plain BM25
// baseline computed in the same run, the share of claims whose first card
// of an evidence document quotes a rationale sentence, warm search latency,
// and the first search of a fresh process with and without the on-disk
// index cache, with peak memory.
//
// Relations: a generated 2,000-paper library (metadata with DOI and arXiv
// ids, reference sidecars, a cited-by cache), twenty papers granted, and
// paper_relations timed on its first call and warm.
//
// Usage:
//
//	go run ./internal/cmd/toolbench [-dir corpus/scifact] [-rounds 3] [-runs 5]
//
// Without -dir it looks for ../shared/corpus/scifact beside the module.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
)

// processStart is as close to the start of the process as Go code gets.
var processStart = time.Now()

func main() {
	log.SetFlags(0)
	dir := flag.String("dir", "", "SciFact folder (corpus.jsonl, claims_train.jsonl)")
	rounds := flag.Int("rounds", 3, "warm passes over the claims, and relations runs; medians are reported")
	runs := flag.Int("runs", 5, "fresh processes per cache state")
	paced := flag.Int("paced", 8, "searches spaced by more than the directory's restamp interval")
	skipRel := flag.Bool("skip-relations", false, "skip the paper_relations benchmark")
	onlyRel := flag.Bool("relations-only", false, "run only the paper_relations benchmark")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	first := flag.String("first-search", "", "internal: open this grant, run one search, print the time")
	query := flag.String("query", "", "internal: the query for -first-search")
	flag.Parse()
	ctx := context.Background()
	if *first != "" {
		if err := firstSearch(ctx, *first, *query); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *onlyRel {
		if err := runRelations(ctx, max(1, *rounds)); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *dir == "" {
		root, err := corpus.Root()
		if err != nil {
			log.Fatal(err)
		}
		*dir = filepath.Join(root, "scifact")
	}
	if err := runSciFact(ctx, *dir, max(1, *rounds), max(1, *runs), max(0, *paced)); err != nil {
		log.Fatal(err)
	}
	if !*skipRel {
		if err := runRelations(ctx, max(1, *rounds)); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("peak RSS of this whole run (corpus JSON, BM25 baseline, tools, library): %s\n", mb(procstat.PeakRSS()))
}

func runSciFact(ctx context.Context, dir string, rounds, runs, paced int) error {
	docs, claims, err := scifact.Load(dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "toolbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "scifact")
	if err := writeCorpus(root, docs); err != nil {
		return err
	}

	var res researchctx.Resolver
	defer res.Close()
	s, err := newSession(ctx, &res, root)
	if err != nil {
		return err
	}
	st, cpu0 := time.Now(), procstat.CPUTime()
	ts, err := tools.Open(ctx, s.grant, nil)
	if err != nil {
		return err
	}
	defer ts.Close()
	// The warm-up: the first search builds the directory's index and
	// writes its on-disk cache.
	// A search answers from a partial index after its wait; the build
	// goes on in the background, and the measured searches start when it
	// has ended.
	for {
		out, err := ts.Search(ctx, tools.SearchInput{Query: claims[0].Claim, Limit: k})
		if err != nil {
			return err
		}
		if out.Indexing.Total == 0 {
			break
		}
	}
	build, buildCPU := time.Since(st), procstat.CPUTime()-cpu0

	var ev *evaluation
	var p50s, p95s, maxs []time.Duration
	for range rounds {
		if ev, err = evaluate(ctx, s, ts, docs, claims, 1); err != nil {
			return err
		}
		p50s = append(p50s, ev.Percentile(0.5))
		p95s = append(p95s, ev.Percentile(0.95))
		maxs = append(maxs, ev.Latency[len(ev.Latency)-1])
	}

	fmt.Printf("SciFact train through context_search: %d abstracts as text files in a granted folder, %d claims, limit %d, one turn per claim\n",
		len(docs), ev.Claims, k)
	fmt.Printf("  context_search  nDCG@10 %.4f  Recall@10 %.4f\n", ev.Tools.NDCG, ev.Tools.Recall)
	fmt.Printf("  BM25 baseline   nDCG@10 %.4f  Recall@10 %.4f  (k1 0.9, b 0.4, title + abstract)\n", ev.BM25.NDCG, ev.BM25.Recall)
	fmt.Printf("  ratio           nDCG@10 %.3f  Recall@10 %.3f\n", ev.Tools.NDCG/ev.BM25.NDCG, ev.Tools.Recall/ev.BM25.Recall)
	fmt.Printf("  card quotes: %d of %d claims with an evidence document among the cards (%d have evidence): first such card quotes a rationale sentence: %.3f (target ≥ 0.40)\n",
		ev.QuoteHits, ev.QuoteClaims, ev.EvidenceClaims, ev.QuoteShare())
	fmt.Printf("  card quotes by claim id: even %d of %d (%.3f), odd, held out %d of %d (%.3f)\n",
		ev.QuoteSplit[0].Hits, ev.QuoteSplit[0].Claims, ev.QuoteShareOf(0), ev.QuoteSplit[1].Hits, ev.QuoteSplit[1].Claims, ev.QuoteShareOf(1))
	fmt.Printf("  tools.Open + first search (builds the index, writes the cache): %v (CPU %v)\n",
		build.Round(time.Millisecond), buildCPU.Round(time.Millisecond))
	fmt.Printf("  warm search over %d rounds: p50 %v  p95 %v (target ≤ 20ms)  max %v  [per round p95: %v]\n",
		rounds, median(p50s), median(p95s), median(maxs), roundAll(p95s))

	// The same searches on the directory source alone: what the tool adds
	// on top (the grant check, the usage log) is the difference.
	src := ts.Sources()[0]
	q := sources.Query{Limit: k, ScanFiles: s.plan.Budget.ScanFiles, ExcerptChars: s.plan.Budget.CardChars}
	var direct []time.Duration
	for _, c := range claims {
		q.Text = c.Claim
		st := time.Now()
		if _, err := src.Search(ctx, q); err != nil {
			return err
		}
		direct = append(direct, time.Since(st))
	}
	slices.Sort(direct)
	fmt.Printf("  the directory source alone, same claims: p50 %v  p95 %v; the usage log holds %d lines at the end\n",
		percentile(direct, 0.5).Round(10*time.Microsecond), percentile(direct, 0.95).Round(10*time.Microsecond),
		countLines(grant.UsagePath(s.grant)))

	// An agent searches every few seconds, not back to back: spaced past
	// the directory's restamp interval, every search walks the folder.
	if paced > 0 {
		var spaced []time.Duration
		for i := range paced {
			time.Sleep(2100 * time.Millisecond)
			if err := s.next(); err != nil {
				return err
			}
			st := time.Now()
			if _, err := ts.Search(ctx, tools.SearchInput{Query: claims[(i*131)%len(claims)].Claim, Limit: k}); err != nil {
				return err
			}
			spaced = append(spaced, time.Since(st))
		}
		slices.Sort(spaced)
		fmt.Printf("  warm searches 2.1 s apart (%d): median %v  max %v\n", paced,
			percentile(spaced, 0.5).Round(10*time.Microsecond), spaced[len(spaced)-1].Round(10*time.Microsecond))
	}

	withCache, without, err := freshRuns(ctx, s, root, claims, runs)
	if err != nil {
		return err
	}
	withCache.print("fresh process, on-disk index present", "100ms")
	without.print("fresh process, no on-disk index", "1s")

	return nil
}

// runRelations times paper_relations on a generated library, rounds times.
func runRelations(ctx context.Context, rounds int) error {
	tmp, err := os.MkdirTemp("", "toolbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	lib := filepath.Join(tmp, "library")
	st := time.Now()
	if err := writeLibrary(lib); err != nil {
		return err
	}
	fmt.Printf("paper_relations on a generated %d-paper library (%d granted), written in %v\n",
		libPapers, libGranted, time.Since(st).Round(time.Millisecond))
	var opens, colds, coldCPU, firsts, p50, p95 []time.Duration
	for range rounds {
		rt, err := benchRelations(ctx, lib)
		if err != nil {
			return err
		}
		opens = append(opens, rt.Open)
		colds = append(colds, rt.Cold)
		coldCPU = append(coldCPU, rt.ColdCPU)
		firsts = append(firsts, percentile(rt.First, 0.5))
		p50 = append(p50, percentile(rt.Warm, 0.5))
		p95 = append(p95, percentile(rt.Warm, 0.95))
	}
	fmt.Printf("  over %d runs (medians): tools.Open %v, first call (builds the graph) %v (CPU %v), other papers' first call p50 %v\n",
		rounds, median(opens), median(colds), median(coldCPU), median(firsts))
	fmt.Printf("  warm (%d calls per run): p50 %v  p95 %v (target ≤ 20ms)  [per run p95: %v]\n",
		relWarmRuns*libGranted, median(p50), median(p95), roundAll(p95))
	return nil
}

// freshStats are the fresh-process runs of one cache state.
type freshStats struct {
	wall  []time.Duration // process start to first result, seen by the parent
	inner []time.Duration // the child's own clock, from main's package init
	cpu   []time.Duration // the child's CPU time, whole process
	rss   []int64
}

func (f *freshStats) print(what, target string) {
	slices.Sort(f.wall)
	slices.Sort(f.inner)
	slices.Sort(f.rss)
	fmt.Printf("  %s, median of %d: start to first result %v (target ≤ %s; in-process part %v; CPU %v)  peak RSS %s  [runs: %v]\n",
		what, len(f.wall), median(f.wall), target, median(f.inner), median(f.cpu), mb(f.rss[len(f.rss)/2]), roundAll(f.wall))
}

// freshRuns re-executes this program to open the grant and run one search,
// alternating a run with the on-disk index cache present and one with the
// cache folder deleted beforehand.
func freshRuns(ctx context.Context, s *session, root string, claims []scifact.Claim, runs int) (withCache, without *freshStats, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	withCache, without = &freshStats{}, &freshStats{}
	cache := filepath.Join(root, agentero.Cache)
	for i := range 2 * runs {
		cold := i%2 == 1
		if cold {
			if err := os.RemoveAll(cache); err != nil {
				return nil, nil, err
			}
		} else if _, err := os.Stat(cache); err != nil {
			return nil, nil, fmt.Errorf("the index cache should be present: %w", err)
		}
		if err := s.next(); err != nil {
			return nil, nil, err
		}
		// A different claim each time, so no run is favoured by its query.
		q := claims[(i*97)%len(claims)].Claim
		wall, inner, cpu, rss, err := child(ctx, self, s.grant, q)
		if err != nil {
			return nil, nil, err
		}
		st := withCache
		if cold {
			st = without
		}
		st.wall = append(st.wall, wall)
		st.inner = append(st.inner, inner)
		st.cpu = append(st.cpu, cpu)
		st.rss = append(st.rss, rss)
	}
	return withCache, without, nil
}

// child runs one fresh search process and returns the time from its start
// to the line that reports its first result, the child's own measure, and
// its peak RSS as it reports it. (The rusage of a waited-for child is no
// measure here: Linux carries the parent's peak into a child that execs.)
func child(ctx context.Context, self, gr, query string) (wall, inner, cpu time.Duration, rss int64, err error) {
	cmd := exec.CommandContext(ctx, self, "-first-search", gr, "-query", query)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	st := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, err
	}
	line, rerr := bufio.NewReader(out).ReadString('\n')
	wall = time.Since(st)
	if err := cmd.Wait(); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("fresh search process: %w", err)
	}
	if rerr != nil {
		return 0, 0, 0, 0, fmt.Errorf("fresh search process: no result: %w", rerr)
	}
	var ns int64
	if _, err := fmt.Sscan(line, &ns, &rss); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("fresh search process: %q: %w", line, err)
	}
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return wall, time.Duration(ns), cpu, rss, nil
}

// firstSearch is the child: what an MCP server process does on its first
// context_search call. It prints the nanoseconds since the process started.
func firstSearch(ctx context.Context, gr, query string) error {
	ts, err := tools.Open(ctx, gr, nil)
	if err != nil {
		return err
	}
	defer ts.Close()
	out, err := ts.Search(ctx, tools.SearchInput{Query: query, Limit: k})
	if err != nil {
		return err
	}
	if len(out.Cards) == 0 {
		return fmt.Errorf("no cards for %q", query)
	}
	fmt.Println(time.Since(processStart).Nanoseconds(), procstat.PeakRSS())
	// A first search without an index answers from part of it while the
	// build goes on, as a server would; stay until the build has ended,
	// so the next run finds the whole index on disk.
	for out.Indexing.Total > 0 {
		time.Sleep(100 * time.Millisecond)
		if out, err = ts.Search(ctx, tools.SearchInput{Query: query, Limit: k}); err != nil {
			return err
		}
	}
	return nil
}

// countLines returns the number of lines of a file, 0 when unreadable.
func countLines(p string) int {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return percentile(s, 0.5).Round(10 * time.Microsecond)
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(100 * time.Microsecond)
	}
	return out
}

func mb(b int64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MB", float64(b)/(1<<20))
}
