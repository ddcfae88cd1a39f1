//go:build unix

package relations

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system, all threads) the test process
// has used. Benchmarks report it per op beside wall time, which on a busy
// shared machine measures the queue more than the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
