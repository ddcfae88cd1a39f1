//go:build !unix

package main

import "time"

// childMaxRSS is not available here.
func childMaxRSS() int64 { return 0 }

// childCPU is not available here.
func childCPU() time.Duration { return 0 }
