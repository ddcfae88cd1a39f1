package mcp

import (
	"math"
	"runtime/debug"
	"sync"
	"time"
)

// StartupHold is how long a server process started by ServeIfRequested
// keeps the garbage collector off at most, waiting for its first tool
// call to be answered.
//
// A new server's first answer over a large library decodes the cached
// catalogue and the index's heads, a few tens of megabytes that all stay
// live: the collections the heap's growth would start meanwhile find
// almost no garbage and took a quarter of that answer's time (about 25 ms
// of 110 at 10,000 papers on two cores; docs/benchmarks.md). The soft
// memory limit still bounds the heap during the hold, the collector
// running as it nears the limit, and the hold is only taken when a limit
// is set.
const StartupHold = 10 * time.Second

// holdCollector turns the garbage collector off, when a memory limit is
// set, until release is called or max has passed, and returns release,
// which restores the collector's percentage as it was. It is safe to call
// release more than once.
func holdCollector(max time.Duration) (release func()) {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		return func() {} // no limit: nothing would bound the heap
	}
	prev := debug.SetGCPercent(-1)
	var once sync.Once
	release = func() { once.Do(func() { debug.SetGCPercent(prev) }) }
	time.AfterFunc(max, release)
	return release
}
