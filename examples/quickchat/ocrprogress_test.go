package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/researchctx/researchctx/sources/vault"
)

// TestProgressCountsOCRPages: the progress line counts scanned pages
// recognised apart from files, and the summary says how many were.
func TestProgressCountsOCRPages(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, 0, time.Millisecond, time.Millisecond)
	p.begin("scans")
	p.update(vault.IndexProgress{Path: "scans", Done: 3, Total: 10, Pages: 30})
	p.ocrUpdate(4, 25)
	p.mu.Lock()
	p.printLocked()
	p.ocrDone = 25
	p.finishLocked()
	p.mu.Unlock()
	want := regexp.MustCompile(`^indexing scans: 3/10 files, 30 pages, \d+ pages/s(, ETA \S+)?, OCR 4/25 pages\nindexed scans: 10 files in \S+ \(25 scanned pages recognised\)\n$`)
	if !want.MatchString(buf.String()) {
		t.Errorf("progress:\n%s", buf.String())
	}
}
