//go:build !unix

package main

// childMaxRSS is not available here.
func childMaxRSS() int64 { return 0 }
