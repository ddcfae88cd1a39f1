//go:build !linux

package main

// selfRSS is not measured on this system.
func selfRSS() int64 { return 0 }
