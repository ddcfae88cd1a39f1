//go:build unix

package main

import (
	"runtime"
	"syscall"
	"time"
)

// childMaxRSS returns the peak RSS of the largest child process waited
// for, in bytes.
func childMaxRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // bytes there
	}
	return ru.Maxrss * 1024
}

// childCPU returns the CPU time (user and system) of the child processes
// waited for so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
