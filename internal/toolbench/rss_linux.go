//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
)

// selfRSS returns this process's peak resident set size in bytes (VmHWM),
// or 0 when it cannot be read.
func selfRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(v)
			if len(f) > 0 {
				if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}
