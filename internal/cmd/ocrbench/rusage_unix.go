//go:build unix

package main

import (
	"runtime"
	"syscall"
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
