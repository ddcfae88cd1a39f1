package procstat

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// PeakRSS returns this process's peak resident set size in bytes (VmHWM),
// or 0 when it cannot be read.
func PeakRSS() int64 { return peakRSS("/proc/self/status") }

// PeakRSSOf returns the peak resident set size in bytes (VmHWM) of the
// running process pid (a server a test started), or 0 when it cannot be
// read.
func PeakRSSOf(pid int) int64 { return peakRSS("/proc/" + strconv.Itoa(pid) + "/status") }

func peakRSS(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			if f := bytes.Fields(v); len(f) > 0 {
				if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// CPUTime returns the user and system CPU time this process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// MinorFaults returns the page faults this process has taken that read
// no disk (its heap grown, pages of its binary or of a mapped file first
// touched), or 0 when they cannot be read.
func MinorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}
