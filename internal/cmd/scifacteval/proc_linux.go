//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// peakRSS returns the process's peak resident set size (VmHWM).
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := strings.Fields(string(v))
			if kb, err := strconv.Atoi(f[0]); err == nil {
				return strconv.FormatFloat(float64(kb)/1024, 'f', 1, 64) + " MB"
			}
		}
	}
	return "n/a"
}
