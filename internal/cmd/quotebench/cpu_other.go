//go:build !linux

package main

import "time"

// threadCPU is not available here: times are wall time only.
func threadCPU() (time.Duration, bool) { return 0, false }
