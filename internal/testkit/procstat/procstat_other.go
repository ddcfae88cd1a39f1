//go:build !linux

package procstat

import "time"

// PeakRSS is not measured on this system.
func PeakRSS() int64 { return 0 }

// PeakRSSOf is not measured on this system.
func PeakRSSOf(pid int) int64 { return 0 }

// CPUTime is not measured on this system.
func CPUTime() time.Duration { return 0 }

// MinorFaults is not counted on this system.
func MinorFaults() int64 { return 0 }
