package libindex

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// mappedResident returns the resident bytes of the mappings of segs'
// files (from /proc/self/smaps; 0 where there is none), telling them
// from other mappings of the same files by their addresses.
func mappedResident(segs map[uint64]*segment) uint64 {
	starts := map[uint64]bool{}
	for _, s := range segs {
		if s.mapped && len(s.data) > 0 {
			starts[uint64(uintptr(unsafe.Pointer(unsafe.SliceData(s.data))))] = true
		}
	}
	n, _ := smapsRss(func(mapping [][]byte) bool {
		lo, _, _ := bytes.Cut(mapping[0], []byte("-"))
		a, _ := strconv.ParseUint(string(lo), 16, 64)
		return starts[a]
	})
	return n
}

// richLibrary generates items of pagesPerItem pages of ~wordsPerPage
// Zipf-distributed words from a large vocabulary, so that each segment
// holds a dictionary of many rare terms, as the text of real papers does
// (numbers, names, symbols, broken words).
type richLibrary struct {
	vocab []string
}

const (
	richVocab    = 400000
	wordsPerPage = 250
)

func newRichLibrary() *richLibrary {
	r := rand.New(rand.NewPCG(42, 9))
	const cons, vows = "bcdfghklmnprstvz", "aeiou"
	l := &richLibrary{vocab: make([]string, richVocab)}
	for i := range l.vocab {
		var b strings.Builder
		for range 2 + r.IntN(4) {
			b.WriteByte(cons[r.IntN(len(cons))])
			b.WriteByte(vows[r.IntN(len(vows))])
		}
		if i%3 == 0 {
			b.WriteString(strconv.Itoa(i))
		}
		l.vocab[i] = b.String()
	}
	return l
}

func (l *richLibrary) extract(_ context.Context, key string) ([]Unit, error) {
	h := fnv.New64a()
	h.Write([]byte(key))
	r := rand.New(rand.NewPCG(h.Sum64(), 1))
	zipf := rand.NewZipf(r, 1.05, 2, uint64(len(l.vocab)-1))
	out := make([]Unit, pagesPerItem)
	for p := range out {
		var b strings.Builder
		for i := range wordsPerPage {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(l.vocab[zipf.Uint64()])
		}
		out[p] = Unit{Path: key + "/paper.pdf", Label: strconv.Itoa(p + 1), Page: p + 1, Title: key, Text: b.String()}
	}
	return out, nil
}

// openBenchIndex builds (once, kept in the system's temporary folder
// under the name of its parameters) an index of items in many small
// segments: LIBINDEX_OPEN_ITEMS items (3000 by default), segments of at
// most 8 MiB, so that it holds about 30 of them, as a library of 10,000
// real papers does with segments of 48 MiB.
func openBenchIndex(b *testing.B) (dir string, lib *richLibrary, segs int) {
	n := 3000
	if s := os.Getenv("LIBINDEX_OPEN_ITEMS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	lib = newRichLibrary()
	dir = filepath.Join(os.TempDir(), fmt.Sprintf("libindex-open-bench-%d-v%d", n, formatVersion))
	opts := Options{Dir: dir, Extract: lib.extract, Version: "bench", BufferBytes: 1 << 20, MaxSegmentBytes: 8 << 20, MaxSegments: 1000}
	items := make([]Item, n)
	for i := range items {
		items[i] = Item{Key: fmt.Sprintf("papers/p%06d", i), Stamp: "1"}
	}
	x := Open(opts)
	defer x.Close()
	if j := x.Ensure(items, "bench", nil); j != nil {
		<-j.Done()
		if err := j.Err(); err != nil {
			b.Fatal(err)
		}
	}
	return dir, lib, len(x.Snapshot().segs)
}

// BenchmarkOpenFirstSearch opens the index of openBenchIndex anew (its
// files in the page cache, none of them mapped) and times its first
// snapshot and first search, as a new server process's first search
// does, then 200 searches more (their p50 and p95), and reports the
// largest resident size of its segments' mappings after each of them,
// and after one more search a second later (as a server's next turn);
// the mappings of the iterations before stay, as they would in a process:
//
//	go test ./internal/libindex -run '^$' -bench OpenFirstSearch -benchtime 5x
func BenchmarkOpenFirstSearch(b *testing.B) {
	dir, lib, segs := openBenchIndex(b)
	var first, open, warm []time.Duration
	var fileKB, pausedKB uint64
	for i := range b.N {
		runtime.GC()
		st := time.Now()
		x := Open(Options{Dir: dir, Extract: lib.extract, Version: "bench"})
		snap := x.Snapshot()
		open = append(open, time.Since(st))
		q := lib.vocab[20+i*13] + " " + lib.vocab[3000+i*91] + " " + lib.vocab[50+i*37]
		if _, _, err := snap.Search(q, 10, nil); err != nil {
			b.Fatal(err)
		}
		first = append(first, time.Since(st))
		for k := range 200 {
			q := lib.vocab[20+k*13] + " " + lib.vocab[3000+k*91] + " " + lib.vocab[50+k*37]
			st := time.Now()
			if _, _, err := x.Snapshot().Search(q, 10, nil); err != nil {
				b.Fatal(err)
			}
			warm = append(warm, time.Since(st))
			fileKB = max(fileKB, mappedResident(x.segs)>>10)
		}
		// A search after a pause, as a server's next turn.
		time.Sleep(1100 * time.Millisecond)
		if _, _, err := x.Snapshot().Search(lib.vocab[7]+" "+lib.vocab[5000+i], 10, nil); err != nil {
			b.Fatal(err)
		}
		pausedKB = max(pausedKB, mappedResident(x.segs)>>10)
		// Its segments stay mapped, as they do for the life of a
		// process: a planned release may still run.
		x.Close()
	}
	slices.Sort(warm)
	b.ReportMetric(float64(warm[len(warm)/2].Microseconds())/1000, "warm-p50-ms")
	b.ReportMetric(float64(warm[len(warm)*95/100].Microseconds())/1000, "warm-p95-ms")
	slices.Sort(first)
	slices.Sort(open)
	b.ReportMetric(float64(segs), "segments")
	b.ReportMetric(float64(open[len(open)/2].Microseconds())/1000, "open-ms")
	b.ReportMetric(float64(first[len(first)/2].Microseconds())/1000, "first-search-ms")
	b.ReportMetric(float64(fileKB)/1024, "peak-segs-resident-MB")
	b.ReportMetric(float64(pausedKB)/1024, "segs-resident-after-pause-MB")
}
