package mcp

import (
	"math"
	"runtime/debug"
	"sync"
	"time"

	"github.com/researchctx/researchctx/internal/memlimit"
)

// startupHold is how long a server process started by ServeIfRequested
// keeps the garbage collector off at most, waiting for its first tool
// call to be answered.
//
// A new server's first answer over a large library decodes the cached
// catalogue and the index's heads, a few tens of megabytes that all stay
// live: the collections the heap's growth would start meanwhile find
// almost no garbage and took a quarter of that answer's time (about 25 ms
// of 110 at 10,000 papers on two cores; docs/benchmarks.md). During the
// hold the heap is bounded by a soft memory limit of startupHeap (or the
// process's own, when lower), the collector running as it nears it, so
// that a build started meanwhile (a cold library's first search) peaks no
// higher than with the collector on; the hold is only taken when the
// process has a memory limit.
const startupHold = 10 * time.Second

// startupHeap is the soft memory limit during the startup hold.
const startupHeap = memlimit.StartupHeap

// holdCollector turns the garbage collector off under a memory limit of
// at most heap, when the process has a memory limit, until release is
// called or max has passed, and returns release, which restores the
// collector's percentage and the limit as they were. It is safe to call
// release more than once.
func holdCollector(max time.Duration, heap int64) (release func()) {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return func() {} // no limit: nothing would bound the heap
	}
	debug.SetMemoryLimit(min(limit, heap))
	prev := debug.SetGCPercent(-1)
	var once sync.Once
	release = func() {
		once.Do(func() {
			debug.SetGCPercent(prev)
			debug.SetMemoryLimit(limit)
		})
	}
	time.AfterFunc(max, release)
	return release
}
