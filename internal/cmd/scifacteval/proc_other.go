//go:build !linux

package main

// peakRSS is not measured on this system.
func peakRSS() string { return "n/a" }
