//go:build !unix

package pdf

import "time"

// cpuTime is the CPU time this process has used: not measured here.
func cpuTime() time.Duration { return 0 }
