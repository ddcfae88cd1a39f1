package libindex

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// simulatedBuild is a 10,000-paper build as a shared two-core machine
// runs it: papers of the corpus's mix of page counts, extracted at a pace
// that wanders with the machine's load, and the writer's stalls while it
// flushes a buffer (every 8 MiB, about 60 papers) and merges a tier of
// segments (every 8 flushes, and every 64 the largest merges), during
// which no paper is done. It returns the time of each paper's end and
// the build's, which ends with merges after the last paper.
func simulatedBuild(seed uint64, busy bool) (at []time.Duration, pages []int, end time.Duration) {
	r := rand.New(rand.NewPCG(seed, 1))
	mix := []int{9, 15, 12, 10, 16, 14, 8, 11, 13, 24, 12, 9, 10, 17, 15, 11, 12, 14, 13, 10, 9, 16, 12, 11, 30, 8, 12, 13, 11, 10, 15, 14, 9, 12}
	const n = 10000
	t := 0.0
	// The machine's slowdown: other processes come and go, around a
	// level (mean-reverting), with bursts of several times the pace.
	x, load := 0.0, 1.0
	for i := range n {
		if i%100 == 0 && busy {
			x = 0.9*x + 0.3*(r.Float64()-0.5)
			load = 1 + x
			if r.IntN(20) == 0 {
				load *= 2 // a burst: someone's test suite
			}
		}
		p := mix[i%len(mix)]
		t += load * float64(p) / 220 * (0.5 + r.Float64()) // ~220 pages a second
		if i%60 == 59 {
			t += load * 0.3 // a flush
		}
		if i%480 == 479 {
			t += load * 3 // a tier of eight flushes merged
		}
		if i%3840 == 3839 {
			t += load * 15 // the largest merges
		}
		at = append(at, time.Duration(t*float64(time.Second)))
		pages = append(pages, p)
	}
	t += 10 // the build's last merges
	return at, pages, time.Duration(t * float64(time.Second))
}

// TestJobETA replays simulated builds through a Job and checks the ETA it
// gives at 10, 25, 50 and 75 % of the pages against the time the build
// then took: within 20 % on a steady machine, whatever the writer's
// stalls, and within 20 % for the median of those marks on a busy one,
// whose load no pace predicts every time.
func TestJobETA(t *testing.T) {
	var busyErrs []float64
	for seed := range uint64(10) {
		busy := seed%2 == 1
		at, pages, end := simulatedBuild(seed, busy)
		var total int
		for _, p := range pages {
			total += p
		}
		j := &Job{done: make(chan struct{}), total: len(at)}
		start := time.Unix(1e9, 0)
		marks := []float64{0.10, 0.25, 0.50, 0.75}
		done, next := 0, 0
		for i, d := range at {
			j.mu.Lock()
			j.n++
			j.pages += pages[i]
			j.record(start.Add(d))
			j.mu.Unlock()
			done += pages[i]
			if next < len(marks) && float64(done) >= marks[next]*float64(total) {
				_, _, eta := j.Rate()
				left := end - d
				e := (eta.Seconds() - left.Seconds()) / left.Seconds()
				t.Logf("build %d (busy %t) at %.0f %% of pages (%v): ETA %v, took %v: %+.0f %%", seed, busy, marks[next]*100, d.Round(time.Second), eta.Round(time.Second), left.Round(time.Second), 100*e)
				if busy {
					busyErrs = append(busyErrs, math.Abs(e))
				} else if math.Abs(e) > 0.20 {
					t.Errorf("steady build %d at %.0f %% of pages: ETA %v, took %v: %+.0f %%", seed, marks[next]*100, eta.Round(time.Second), left.Round(time.Second), 100*e)
				}
				next++
			}
		}
	}
	slices.Sort(busyErrs)
	if m := busyErrs[len(busyErrs)/2]; m > 0.20 {
		t.Errorf("busy builds: median ETA error %.0f %%, want at most 20 %%", 100*m)
	}
}
