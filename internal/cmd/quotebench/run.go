package main

import (
	"runtime"
	"slices"
	"time"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// Method locates a quote in a paper's pages and returns the page (0-based)
// or -1, and the best score it saw (1 for exact-only location).
type Method struct {
	Name string
	// Prepare builds whatever the method keeps per paper.
	Prepare func(pages []string) func(quote string) (int, float64)
}

// Methods are the two compared: today's exact-only location and the
// approximate one.
var Methods = []Method{
	{Name: "exact", Prepare: func(pages []string) func(string) (int, float64) {
		return func(q string) (int, float64) {
			for i, p := range pages {
				if len(textnorm.Locate(p, q)) > 0 {
					return i, 1
				}
			}
			return -1, 0
		}
	}},
	{Name: "approximate", Prepare: func(pages []string) func(string) (int, float64) {
		x := textnorm.NewQuoteIndex(pages)
		return func(q string) (int, float64) {
			r := x.Find(q)
			if !r.Found {
				return -1, r.Score
			}
			return r.Part, r.Score
		}
	}},
}

// Tally counts one class's outcomes.
type Tally struct {
	N, Right, Wrong, Missed int
	Scores                  []float64 // best score per quote
}

// Rate is the share located on the right page; for negatives, the share
// located anywhere (false positives).
func (t Tally) Rate(class string) float64 {
	if t.N == 0 {
		return 0
	}
	if class == Negative {
		return float64(t.Wrong) / float64(t.N)
	}
	return float64(t.Right) / float64(t.N)
}

// Result is one method's outcome over a set of papers.
type Result struct {
	Method   string
	Tallies  map[string]*Tally
	Kinds    map[string]*Tally // cross quotes by kind: page, column, table
	Times    []time.Duration   // per quote, index built
	CPU      []time.Duration   // the same in thread CPU time (Linux)
	Build    []time.Duration   // per paper, index build (0 for exact)
	Failures []Failure
	// Largest is the paper with the most pages and its per-quote times.
	Largest      string
	LargestPages int
	LargestTimes []time.Duration
	LargestCPU   []time.Duration
	LargestBuild time.Duration // index build, thread CPU time where known
}

// Failure is a quote placed wrongly, for tuning.
type Failure struct {
	Paper string
	Quote Quote
	Got   int
}

// Evaluate runs m over quotes generated for papers (n per class per paper;
// negatives come from the other papers of the same set).
func Evaluate(m Method, papers []*Paper, n int, seed uint64) *Result {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	res := &Result{Method: m.Name, Tallies: map[string]*Tally{}, Kinds: map[string]*Tally{}}
	for _, c := range Classes {
		res.Tallies[c] = &Tally{}
	}
	for _, p := range papers {
		others := slices.DeleteFunc(slices.Clone(papers), func(o *Paper) bool { return o == p })
		quotes := Generate(p, others, n, seed)
		t0 := time.Now()
		c0, _ := threadCPU()
		find := m.Prepare(p.Ours)
		c1, cpuOK := threadCPU()
		build := time.Since(t0)
		res.Build = append(res.Build, build)
		if cpuOK {
			build = c1 - c0
		}
		var times, cpu []time.Duration
		for _, q := range quotes {
			t0 := time.Now()
			c0, _ := threadCPU()
			got, score := find(q.Text)
			c1, _ := threadCPU()
			times = append(times, time.Since(t0))
			cpu = append(cpu, c1-c0)
			t := res.Tallies[q.Class]
			t.N++
			t.Scores = append(t.Scores, score)
			switch {
			case got == q.Page:
				t.Right++
			case got < 0:
				t.Missed++
			default:
				t.Wrong++
			}
			if q.Class == Cross {
				k := res.Kinds[q.Kind]
				if k == nil {
					k = &Tally{}
					res.Kinds[q.Kind] = k
				}
				k.N++
				if got == q.Page {
					k.Right++
				}
			}
			if got != q.Page {
				res.Failures = append(res.Failures, Failure{Paper: p.Name, Quote: q, Got: got})
			}
		}
		res.Times = append(res.Times, times...)
		res.CPU = append(res.CPU, cpu...)
		if len(p.Ours) > res.LargestPages {
			res.Largest, res.LargestPages, res.LargestTimes, res.LargestCPU, res.LargestBuild = p.Name, len(p.Ours), times, cpu, build
		}
	}
	return res
}

// Percentile returns the p-th percentile (0–100) of ds.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

// Quantile returns the q-quantile (0–1) of xs.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*q)]
}
