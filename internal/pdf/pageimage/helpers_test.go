package pageimage

import "strings"

// maxHostileRSS bounds the peak resident set of a process reading the
// page images of any single hostile input, as package pdf's hostile tests
// bound extraction.
const maxHostileRSS = 300 << 20

// lastLines returns the last n lines of s, for a child's stderr.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}
