//go:build !linux

package main

import "time"

// selfRSS is not measured on this system.
func selfRSS() int64 { return 0 }

// cpuTime is not measured on this system.
func cpuTime() time.Duration { return 0 }
