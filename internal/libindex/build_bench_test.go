package libindex

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/procstat"
)

// pageLibrary generates a library of items of pagesPerItem pages each, a
// page of ~600 Zipf-distributed words from a 30,000-word vocabulary (about
// the size of a PDF page of a paper), the same text for the same key.
type pageLibrary struct {
	vocab []string
}

const pagesPerItem = 13

func newPageLibrary() *pageLibrary {
	r := rand.New(rand.NewPCG(42, 7))
	const cons, vows = "bcdfghklmnprstvz", "aeiou"
	l := &pageLibrary{vocab: make([]string, 30000)}
	for i := range l.vocab {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteByte(cons[r.IntN(len(cons))])
			b.WriteByte(vows[r.IntN(len(vows))])
		}
		l.vocab[i] = b.String()
	}
	return l
}

func (l *pageLibrary) extract(_ context.Context, key string) ([]Unit, error) {
	h := fnv.New64a()
	h.Write([]byte(key))
	r := rand.New(rand.NewPCG(h.Sum64(), 1))
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(l.vocab)-1))
	out := make([]Unit, pagesPerItem)
	for p := range out {
		var b strings.Builder
		for i := range 600 {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(l.vocab[zipf.Uint64()])
		}
		out[p] = Unit{Path: key + "/paper.pdf", Page: p + 1, Title: key, Text: b.String()}
	}
	return out, nil
}

// peakHeap samples the live heap (as the last garbage collection found
// it) and the process's resident anonymous and file-backed memory (Linux)
// until stop is called, and returns the largest samples.
func peakHeap() (stop func() (heap, anon, file uint64)) {
	var peak, peakAnon, peakFile atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			anon, file := residentKB()
			peakAnon.Store(max(peakAnon.Load(), anon<<10))
			peakFile.Store(max(peakFile.Load(), file<<10))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() (uint64, uint64, uint64) {
		close(done)
		wg.Wait()
		return peak.Load(), peakAnon.Load(), peakFile.Load()
	}
}

// residentKB returns RssAnon and RssFile of /proc/self/status, 0 where
// there is none.
func residentKB() (anon, file uint64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseUint(f[1], 10, 64)
		switch f[0] {
		case "RssAnon:":
			anon = v
		case "RssFile:":
			file = v
		}
	}
	return anon, file
}

// smapsRss returns the resident bytes of this process's mappings for which
// in, given the fields of a mapping's first line in /proc/self/smaps
// (range, perms, offset, dev, inode, path), reports true.
func smapsRss(in func(mapping [][]byte) bool) (uint64, error) {
	// Read whole and cut into lines, splitting only the mappings' first
	// lines into fields: the resident tests read it every few
	// milliseconds, and splitting its every line was most of their CPU
	// outside the kernel.
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	var n uint64
	inside := false
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		if rest, ok := bytes.CutPrefix(line, []byte("Rss:")); ok {
			if f := bytes.Fields(rest); inside && len(f) > 0 {
				kb, _ := strconv.ParseUint(string(f[0]), 10, 64)
				n += kb << 10
			}
			continue
		}
		first, _, _ := bytes.Cut(bytes.TrimLeft(line, " \t"), []byte(" "))
		if len(first) == 0 || bytes.HasSuffix(first, []byte(":")) {
			continue
		}
		inside = in(bytes.Fields(line))
	}
	return n, nil
}

// BenchmarkBuildLibrary builds an index on disk of generated libraries of
// several sizes (LIBINDEX_BENCH_ITEMS, comma-separated item counts; 700
// and 2800 by default), 13 pages an item, as one Ensure, and reports the
// pages indexed per second of wall time and of CPU time, the peak of the
// heap's live objects and the segments left:
//
//	go test ./internal/libindex -run '^$' -bench BuildLibrary -benchtime 1x
func BenchmarkBuildLibrary(b *testing.B) {
	sizes := []int{700, 2800}
	if s := os.Getenv("LIBINDEX_BENCH_ITEMS"); s != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	lib := newPageLibrary()
	for _, n := range sizes {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			items := make([]Item, n)
			for i := range items {
				items[i] = Item{Key: fmt.Sprintf("papers/p%06d", i), Stamp: "1"}
			}
			var pages, segs, merges int
			var wall, cpu time.Duration
			var peak, anon, file uint64
			var lat []time.Duration
			var etaErr [2][]float64 // per cent, ETA over the time it took
			for range b.N {
				dir := b.TempDir()
				runtime.GC()
				stop := peakHeap()
				cpu0 := procstat.CPUTime()
				st := time.Now()
				x := Open(Options{Dir: dir, Extract: lib.extract})
				// The build's ETA at a quarter and at half of the items,
				// against the time it then took.
				var at [2]time.Time
				var eta [2]time.Duration
				progress := func(done, total int) {
					for q, frac := range []int{4, 2} {
						if done == total/frac && at[q].IsZero() {
							if j := x.Running(); j != nil {
								_, _, eta[q] = j.Rate()
								at[q] = time.Now()
							}
						}
					}
				}
				j := x.Ensure(items, "bench", progress)
				<-j.Done()
				for q := range at {
					if !at[q].IsZero() && eta[q] > 0 {
						etaErr[q] = append(etaErr[q], 100*(float64(eta[q])/float64(time.Since(at[q]))-1))
					}
				}
				if err := j.Err(); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(st)
				cpu += procstat.CPUTime() - cpu0
				h, a, f := stop()
				peak, anon, file = max(peak, h), max(anon, a), max(file, f)
				snap := x.Snapshot()
				pages += snap.Docs()
				segs = len(snap.segs)
				merges += int(x.merges.Load())
				lat = append(lat, searchLatencies(b, snap, lib)...)
				x.Close()
			}
			b.ReportMetric(float64(pages)/wall.Seconds(), "pages/s")
			b.ReportMetric(float64(pages)/cpu.Seconds(), "pages/cpu-s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(anon)/(1<<20), "peak-anon-MB")
			b.ReportMetric(float64(file)/(1<<20), "peak-file-MB")
			b.ReportMetric(float64(segs), "segments")
			b.ReportMetric(float64(merges)/float64(b.N), "merges")
			for q, name := range []string{"eta-err-at-25%", "eta-err-at-50%"} {
				if len(etaErr[q]) > 0 {
					b.ReportMetric(etaErr[q][len(etaErr[q])-1], name)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "search-p95-ms")
		})
	}
}

// searchLatencies times 100 searches of two or three frequent-to-rare
// words of the library's vocabulary over the whole snapshot.
func searchLatencies(b *testing.B, snap *Snapshot, lib *pageLibrary) []time.Duration {
	var out []time.Duration
	for i := range 100 {
		q := lib.vocab[20+i*13] + " " + lib.vocab[300+i*91] + " " + lib.vocab[50+i*37]
		st := time.Now()
		if _, _, err := snap.Search(q, 10, nil); err != nil {
			b.Fatal(err)
		}
		out = append(out, time.Since(st))
	}
	return out
}

// BenchmarkManifestPublish clones and encodes a manifest of 10,000 items,
// as a build does each time it publishes.
func BenchmarkManifestPublish(b *testing.B) {
	m := newManifest()
	for i := range 10000 {
		m.entries[fmt.Sprintf("paper:papers/p%06d", i)] = entry{stamp: "12345:1700000000000000000", seg: uint64(1 + i%20)}
	}
	for i := range 20 {
		m.segs = append(m.segs, uint64(i+1))
	}
	b.ResetTimer()
	for range b.N {
		_ = m.clone().encode()
	}
}
