package libindex

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"
)

// resident returns RssAnon + RssFile of this process and the resident
// bytes of its mappings of segment files (from /proc/self/smaps), in
// bytes.
func resident(t *testing.T) (total, segs uint64) {
	t.Helper()
	anon, file := residentKB()
	segs, err := smapsRss(func(mapping [][]byte) bool {
		// range, perms, offset, dev, inode, path
		return len(mapping) >= 6 && bytes.Contains(mapping[5], []byte("/seg-"))
	})
	if err != nil {
		t.Fatal(err)
	}
	return (anon + file) << 10, segs
}

// TestBuildResidentBounded builds a library whose segments together are
// several times the bound, with small buffers and segments so that the
// effect shows at a small size, and checks that the process's resident
// memory (anonymous and file-backed) stays under the bound while it
// builds: the mapped segments' pages are released as the build goes, so
// what it keeps resident of them does not grow with the index it writes.
// Before, every segment loaded kept its heads' pages resident (whole
// 2 MiB folios where the kernel maps large folios), and every merged
// segment the pages of its head, read again after the merge: about
// 160 MB of segment pages at 800 items for a 104 MB index.
func TestBuildResidentBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a library of 40 MB")
	}
	lib := newPageLibrary()
	const n = 400
	items := make([]Item, n)
	for i := range items {
		items[i] = Item{Key: fmt.Sprintf("papers/p%06d", i), Stamp: "1"}
	}
	dir := t.TempDir()
	x := Open(Options{Dir: dir, Extract: lib.extract, Workers: 2, BufferBytes: 512 << 10, MaxSegmentBytes: 4 << 20})
	defer x.Close()
	base, _ := resident(t)
	j := x.Ensure(items, "test", nil)
	var peak, peakSegs uint64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-j.Done():
			done = true
		case <-tick.C:
		}
		total, segs := resident(t)
		peak, peakSegs = max(peak, total), max(peakSegs, segs)
	}
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	var size int64
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if info, err := de.Info(); err == nil {
			size += info.Size()
		}
	}
	t.Logf("index %.1f MB; resident %.1f MB before the build, peak %.1f MB (segments' pages %.1f MB)",
		float64(size)/(1<<20), float64(base)/(1<<20), float64(peak)/(1<<20), float64(peakSegs)/(1<<20))
	// The bound: what the test process held before, the buffers and a
	// merge's inputs and output (about three times MaxSegmentBytes), the
	// extraction of the items in flight and the collector's headroom.
	const bound = 80 << 20
	if peak > base+bound {
		t.Errorf("resident memory rose by %.1f MB while building, want at most %d MB (segments' pages %.1f MB)",
			float64(peak-base)/(1<<20), bound>>20, float64(peakSegs)/(1<<20))
	}
	// A merge's inputs (at most MaxSegmentBytes), rounded up to whole
	// folios.
	if peakSegs > 16<<20 {
		t.Errorf("the mapped segments held %.1f MB resident, want at most 16 MB", float64(peakSegs)/(1<<20))
	}
}

// TestSearchResidentBounded searches an index of many segments again and
// again in one process and checks that the mapped segments' pages
// resident after each search stay under a bound: searches release them
// once a second, or at once when the process's file-backed resident
// memory has grown by its headroom since the index was opened (set
// here to a few MB, and the least time between two releases to none). Before, every search kept the folios it read resident
// for the life of the process, and a few hundred searches made most of
// the index resident. It then checks that a second after a burst of
// searches, with the defaults, their pages are released.
func TestSearchResidentBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a library of 20 MB")
	}
	lib := newPageLibrary()
	const n = 200
	items := make([]Item, n)
	for i := range items {
		items[i] = Item{Key: fmt.Sprintf("papers/p%06d", i), Stamp: "1"}
	}
	dir := t.TempDir()
	opts := Options{Dir: dir, Extract: lib.extract, Workers: 2, BufferBytes: 512 << 10, MaxSegmentBytes: 2 << 20, MaxSegments: 100}
	b := Open(opts)
	wait(t, b.Ensure(items, "test", nil))
	b.Close()

	x := Open(opts)
	defer x.Close()
	snap := x.Snapshot()
	if len(snap.segs) < 8 {
		t.Fatalf("%d segments, want at least 8", len(snap.segs))
	}
	const bound = 8 << 20
	x.residentHeadroom, x.releaseGap = bound/2, 0
	var peak uint64
	for i := range 300 {
		q := lib.vocab[20+i*13] + " " + lib.vocab[300+i*91] + " " + lib.vocab[50+i*37]
		if _, _, err := snap.Search(q, 10, nil); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			_, segs := resident(t)
			peak = max(peak, segs)
		}
	}
	t.Logf("%d segments; their pages resident after a search: at most %.1f MB", len(snap.segs), float64(peak)/(1<<20))
	if peak > bound {
		t.Errorf("the mapped segments held %.1f MB resident after a search, want at most %d MB", float64(peak)/(1<<20), bound>>20)
	}

	// With the defaults, a burst of searches under the budget leaves its
	// pages resident for about a second at most: the release planned
	// after the last one drops them.
	y := Open(opts)
	defer y.Close()
	snap = y.Snapshot()
	for i := range 20 {
		q := lib.vocab[40+i*17] + " " + lib.vocab[200+i*73]
		if _, _, err := snap.Search(q, 10, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, busy := resident(t)
	time.Sleep(releaseEvery + 300*time.Millisecond)
	_, idle := resident(t)
	t.Logf("after a burst of 20 searches: %.1f MB of segments resident, %.1f MB a second later", float64(busy)/(1<<20), float64(idle)/(1<<20))
	if idle > 1<<20 {
		t.Errorf("a second after the last search the mapped segments held %.1f MB resident, want at most 1 MB", float64(idle)/(1<<20))
	}
}
