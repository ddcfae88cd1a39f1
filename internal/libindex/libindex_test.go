package libindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

var vocab = strings.Fields(`protein binding cell growth neural network graph kernel variance estimator
lattice entropy sampling gradient receptor tumour chromatin transformer attention sparse convex bound
spectral dynamics manifold inference posterior prior quantum field`)

// library is a generated library: item key → version → text.
type library struct {
	mu    sync.Mutex
	text  map[string]string
	calls map[string]int
	delay time.Duration
}

func newLibrary(n int, seed uint64) *library {
	l := &library{text: map[string]string{}, calls: map[string]int{}}
	r := rand.New(rand.NewPCG(seed, 2))
	for i := range n {
		l.text[fmt.Sprintf("papers/p%03d", i)] = words(r, 40+r.IntN(200))
	}
	return l
}

func words(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocab[r.IntN(len(vocab))]
	}
	return strings.Join(w, " ")
}

func (l *library) extract(ctx context.Context, key string) ([]Unit, error) {
	time.Sleep(l.delay)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls[key]++
	t, ok := l.text[key]
	if !ok {
		return nil, fmt.Errorf("%s: not found", key)
	}
	if strings.HasPrefix(t, "FAIL") {
		return nil, fmt.Errorf("%s: the PDF is malformed", key)
	}
	// Two pages per item.
	half := len(t) / 2
	return []Unit{
		{Path: key + "/paper.pdf", Page: 1, Title: key, Text: t[:half]},
		{Path: key + "/paper.pdf", Page: 2, Title: key, Text: t[half:]},
	}, nil
}

func (l *library) items() []Item {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Item
	for k, t := range l.text {
		out = append(out, Item{Key: k, Stamp: fmt.Sprint(len(t), t[:min(8, len(t))])})
	}
	return out
}

func (l *library) resetCalls() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.calls
	l.calls = map[string]int{}
	return c
}

func wait(t *testing.T, j *Job) {
	t.Helper()
	select {
	case <-j.Done():
		if err := j.Err(); err != nil {
			t.Fatalf("build: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("build did not end")
	}
}

// TestGrantNeverLeaks checks, over random grants on one shared index, that
// a search returns only the granted items' units, and with the very
// scores, match count and passages an index of the granted items alone
// gives them: the rest of the library weighs on nothing.
func TestGrantNeverLeaks(t *testing.T) {
	lib := newLibrary(80, 1)
	x := Open(Options{Dir: t.TempDir(), Extract: lib.extract, FlushEvery: time.Millisecond, MaxSegments: 3})
	defer x.Close()
	items := lib.items()
	wait(t, x.Ensure(items, "", nil))
	snap := x.Snapshot()
	if len(snap.segs) < 2 || len(snap.segs) > 3 {
		t.Fatalf("want 2 or 3 segments after merging (MaxSegments 3), got %d", len(snap.segs))
	}
	if snap.Docs() != 2*len(items) {
		t.Fatalf("%d live documents, want %d", snap.Docs(), 2*len(items))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 60 {
		granted := map[string]bool{}
		var keys []string
		var grantItems []Item
		for _, it := range items {
			if r.IntN(5) == 0 {
				granted[it.Key] = true
				keys = append(keys, it.Key)
				grantItems = append(grantItems, it)
			}
		}
		alone := Open(Options{Extract: lib.extract})
		wait(t, alone.Ensure(grantItems, "", nil))
		for range 3 {
			q := words(r, 1+r.IntN(4))
			want, wantTotal := search(t, alone.Snapshot(), q, 1000, nil)
			hits, total := search(t, snap, q, 1000, KeySet(keys))
			if total != wantTotal {
				t.Fatalf("round %d %q: total %d, want %d", round, q, total, wantTotal)
			}
			for _, h := range hits {
				if !granted[h.Key] || !strings.HasPrefix(h.Unit.Path, h.Key+"/") {
					t.Fatalf("round %d: %q returned %s (%s), not granted", round, q, h.Key, h.Unit.Path)
				}
			}
			if diff := cmp.Diff(results(want, q), results(hits, q)); diff != "" {
				t.Fatalf("round %d %q: the grant's search differs from an index of the grant alone (-want +got):\n%s", round, q, diff)
			}
		}
		alone.Close()
	}
}

// A result is what a search tells of one hit: the unit, its scores and
// the bounds of its passage.
type result struct {
	Key, Path   string
	Page        int
	Score, Norm float64
	Passage     [2]int
}

func results(hits []Hit, q string) []result {
	out := []result{}
	for _, h := range hits {
		s, e := h.Passage(q, 40)
		out = append(out, result{h.Key, h.Unit.Path, h.Unit.Page, h.Score, h.Norm, [2]int{s, e}})
	}
	return out
}

// TestOutsideScopeChangesNothing changes, adds and removes items outside a
// grant at random, and changes a granted item and changes it back, with
// merges in between: the grant's searches — each of its two filters, with
// the statistics of both (SearchIn over their Union) — answer exactly as
// before every time. Neither the other items nor the dead documents left
// in old segments count.
func TestOutsideScopeChangesNothing(t *testing.T) {
	lib := newLibrary(40, 9)
	x := Open(Options{Dir: t.TempDir(), Extract: lib.extract, FlushEvery: time.Millisecond, MaxSegments: 3})
	defer x.Close()
	var paper, dir []string // the grant: one paper, and a folder of five
	for i := range 6 {
		k := fmt.Sprintf("papers/p%03d", i)
		if i == 0 {
			paper = append(paper, k)
		} else {
			dir = append(dir, k)
		}
	}
	pf, df := KeySet(paper), KeySet(dir)
	grant := Union(pf, df)
	queries := []string{"protein binding", "neural network attention", "sparse convex bound kernel", "quantum", "axolotl", "axolotl entropy"}
	answers := func() string {
		wait(t, x.Ensure(lib.items(), "", nil))
		snap := x.Snapshot()
		var b strings.Builder
		for _, q := range queries {
			for _, f := range []*Filter{pf, df} {
				hits, total, err := snap.SearchIn(q, 20, f, grant)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%q: %d %+v\n", q, total, results(hits, q))
			}
		}
		return b.String()
	}
	want := answers()
	r := rand.New(rand.NewPCG(5, 6))
	lib.mu.Lock()
	original := lib.text[dir[0]]
	lib.mu.Unlock()
	done := make([]int, 4) // steps of each kind
	for step := range 30 {
		lib.mu.Lock()
		var forget []string
		op := r.IntN(4)
		switch op {
		case 0: // a new item, holding the queries' words
			lib.text[fmt.Sprintf("papers/q%03d", step)] = "axolotl protein " + words(r, 20+r.IntN(100))
		case 1: // an outside item changed: its old documents are dead
			for k := range lib.text {
				if k > "papers/p005" {
					lib.text[k] = "axolotl " + words(r, 20+r.IntN(300))
					break
				}
			}
		case 2: // an outside item removed
			for k := range lib.text {
				if k > "papers/p005" {
					delete(lib.text, k)
					forget = append(forget, k)
					break
				}
			}
		default: // a granted item changed and changed back
			lib.text[dir[0]] = "axolotl " + words(r, 50)
			lib.mu.Unlock()
			wait(t, x.Ensure(lib.items(), "", nil))
			lib.mu.Lock()
			lib.text[dir[0]] = original
		}
		lib.mu.Unlock()
		wait(t, x.Forget(forget))
		if got := answers(); got != want {
			t.Fatalf("step %d changed the grant's answers:\n%s", step, cmp.Diff(want, got))
		}
		done[op]++
	}
	for op, n := range done {
		if n == 0 {
			t.Errorf("no step of kind %d ran", op)
		}
	}
}

// TestIncremental checks that adding, changing and removing one item
// extracts only that item and leaves the others' postings where they are.
func TestIncremental(t *testing.T) {
	dir := t.TempDir()
	lib := newLibrary(30, 5)
	x := Open(Options{Dir: dir, Extract: lib.extract})
	defer x.Close()
	wait(t, x.Ensure(lib.items(), "", nil))
	if c := lib.resetCalls(); len(c) != 30 {
		t.Fatalf("first build extracted %d items", len(c))
	}
	segsBefore := x.Snapshot().segs

	lib.mu.Lock()
	lib.text["papers/p007"] = "zebrafish regeneration fin " + lib.text["papers/p007"]
	lib.text["papers/new"] = "axolotl limb regrowth"
	lib.mu.Unlock()
	wait(t, x.Ensure(lib.items(), "", nil))
	if c := lib.resetCalls(); len(c) != 2 || c["papers/p007"] != 1 || c["papers/new"] != 1 {
		t.Fatalf("after one change and one addition, extracted %v", c)
	}
	snap := x.Snapshot()
	for _, old := range segsBefore {
		if !contains(snap.segs, old) {
			t.Errorf("segment %d was rewritten by a one-item update", old.id)
		}
	}
	find := func(q string) []string {
		hits, _ := search(t, x.Snapshot(), q, 10, nil)
		var keys []string
		for _, h := range hits {
			keys = append(keys, h.Key)
		}
		return keys
	}
	if got := find("zebrafish"); len(got) != 1 || got[0] != "papers/p007" {
		t.Errorf("changed item: %v", got)
	}
	if got := find("axolotl"); len(got) != 1 || got[0] != "papers/new" {
		t.Errorf("added item: %v", got)
	}
	if n := x.Snapshot().Docs(); n != 31*2 {
		t.Errorf("live documents %d, want %d (the changed item's old pages are dead)", n, 62)
	}

	wait(t, x.Forget([]string{"papers/new"}))
	if got := find("axolotl"); len(got) != 0 {
		t.Errorf("removed item still found: %v", got)
	}
	if c := lib.resetCalls(); len(c) != 0 {
		t.Errorf("removing extracted %v", c)
	}
	// A new process sees the same.
	y := Open(Options{Dir: dir, Extract: lib.extract})
	if hits, _ := search(t, y.Snapshot(), "zebrafish", 5, nil); len(hits) != 1 {
		t.Errorf("a new process found %d hits", len(hits))
	}
	if j := y.Ensure(lib.items()[:0], "", nil); j != closedJob {
		t.Error("nothing to do started a build")
	}
}

func contains(segs []*segment, s *segment) bool {
	for _, x := range segs {
		if x.id == s.id {
			return true
		}
	}
	return false
}

// TestFailedItemNotRetried checks that an item that fails is recorded with
// its reason and extracted again only when its stamp changes.
func TestFailedItemNotRetried(t *testing.T) {
	lib := newLibrary(3, 9)
	lib.text["papers/bad"] = "FAIL"
	x := Open(Options{Dir: t.TempDir(), Extract: lib.extract})
	defer x.Close()
	wait(t, x.Ensure(lib.items(), "", nil))
	if _, why, ok := x.Snapshot().Status("papers/bad"); !ok || !strings.Contains(why, "malformed") {
		t.Fatalf("failure = %q, %v", why, ok)
	}
	lib.resetCalls()
	wait(t, x.Ensure(lib.items(), "", nil))
	if c := lib.resetCalls(); len(c) != 0 {
		t.Fatalf("unchanged items extracted again: %v", c)
	}
	lib.text["papers/bad"] = "FAIL again, longer"
	wait(t, x.Ensure(lib.items(), "", nil))
	if c := lib.resetCalls(); len(c) != 1 || c["papers/bad"] != 1 {
		t.Fatalf("after the file changed: %v", c)
	}
}

// TestDamagedRebuilt checks that a damaged manifest or segment is never
// trusted: what it held is extracted again.
func TestDamagedRebuilt(t *testing.T) {
	dir := t.TempDir()
	lib := newLibrary(20, 6)
	x := Open(Options{Dir: dir, Extract: lib.extract})
	wait(t, x.Ensure(lib.items(), "", nil))
	x.Close()
	lib.resetCalls()
	const query = "protein kernel"
	want, _ := search(t, x.Snapshot(), query, 5, nil)

	// newest returns the file name and bytes of the newest segment.
	newest := func() (string, []byte) {
		segs, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
		if len(segs) == 0 {
			t.Fatal("no segment")
		}
		p := segs[len(segs)-1]
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Base(p), data
	}
	// Offsets into a segment file of the parts checked apart.
	segHead := func(data []byte) int { return len(segmentMagic) + 2 }
	postings := func(data []byte) int {
		// The index's postDoc, posStart and pos come after its head
		// (see internal/index's codec): damage the middle of pos.
		off := bytes.Index(data, []byte("RCTXIDX\x00"))
		if off < 0 {
			t.Fatal("no index in the segment")
		}
		c := func(i int) int { return int(binary.LittleEndian.Uint32(data[off+12+4*i:])) }
		nd, nt, np, npos, nb := c(0), c(1), c(2), c(3), c(6)
		head := off + 12 + 7*4 + 4*(4*nd+2*(nt+1)+2*nb+1)
		return head + 4*(2*np+1) + 4*(npos/2)
	}
	text := func(data []byte) int {
		id, _ := parseSegmentName(func() string { n, _ := newest(); return n }())
		s, err := decodeSegment(id, data[:len(data)-4])
		if err != nil {
			t.Fatal(err)
		}
		for d := range s.len() {
			if u := s.unit(d); u.Path == want[0].Unit.Path && u.Page == want[0].Unit.Page {
				return int(uintptr(unsafe.Pointer(unsafe.StringData(u.Text)))-uintptr(unsafe.Pointer(&data[0]))) + len(u.Text)/2
			}
		}
		t.Fatal("the best hit's unit is not in the newest segment")
		return 0
	}
	for _, tc := range []struct {
		name    string
		file    string // "" for the newest segment
		at      func([]byte) int
		trusted int // documents a new process takes before its first search
	}{
		{"segment head", "", segHead, 0},
		{"postings block", "", postings, 40},
		{"unit text", "", text, 40},
		{"manifest", manifestName, func(data []byte) int { return len(data) / 3 }, 0},
	} {
		name, data := newest()
		if tc.file != "" {
			name = tc.file
			var err error
			if data, err = os.ReadFile(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		data[tc.at(data)] ^= 0x55
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		y := Open(Options{Dir: dir, Extract: lib.extract})
		if n := y.Snapshot().Docs(); n != tc.trusted {
			t.Fatalf("damaged %s: %d documents trusted, want %d", tc.name, n, tc.trusted)
		}
		if tc.trusted > 0 {
			// Found when read: the search fails rather than answer
			// from it, and the segment is dropped.
			if hits, _, err := y.Snapshot().Search(query, 5, nil); !errors.Is(err, ErrDamaged) {
				t.Fatalf("damaged %s: search gave %d hits and %v, want ErrDamaged", tc.name, len(hits), err)
			}
			if n := y.Snapshot().Docs(); n != 0 {
				t.Fatalf("damaged %s: %d documents still trusted after the damage was found", tc.name, n)
			}
		}
		wait(t, y.Ensure(lib.items(), "", nil))
		if c := lib.resetCalls(); len(c) != 20 {
			t.Fatalf("damaged %s: %d items extracted again, want 20", tc.name, len(c))
		}
		got, _ := search(t, y.Snapshot(), query, 5, nil)
		if len(got) != len(want) || got[0].Key != want[0].Key {
			t.Fatalf("damaged %s: after the rebuild %v, want %v", tc.name, got, want)
		}
		y.Close()
	}
}

// TestConcurrentBuilders runs two processes building the same index at
// once while this one keeps opening it: every snapshot a reader loads
// names only whole, valid segments, and the end result holds every item.
func TestConcurrentBuilders(t *testing.T) {
	if os.Getenv("LIBINDEX_BUILDER") != "" {
		return
	}
	dir := t.TempDir()
	procs := make([]*exec.Cmd, 2)
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuilderProcess$")
		cmd.Env = append(os.Environ(), "LIBINDEX_BUILDER="+dir)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = cmd
	}
	var stop atomic.Bool
	var loads, bad atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			y := Open(Options{Dir: dir})
			y.mu.Lock()
			d, err := y.dir(false)
			if err == nil {
				m, err := y.loadManifest(d)
				data, rerr := d.ReadSealed(manifestName, maxManifest)
				if err == nil && rerr == nil {
					full, _ := decodeManifest(data)
					if full != nil && len(full.segs) != len(m.segs) {
						// A listed segment that did not load: a reader
						// met a half-written or missing segment (a merge
						// may remove one between the two reads; recheck).
						if m2, _ := y.loadManifest(d); len(m2.segs) != len(full.segs) {
							bad.Add(1)
						}
					}
					loads.Add(1)
				}
				d.Close()
			}
			y.mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	for _, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("builder process: %v", err)
		}
	}
	stop.Store(true)
	<-done
	if bad.Load() > 0 {
		t.Errorf("%d of %d manifest loads named a segment that did not load", bad.Load(), loads.Load())
	}
	lib := newLibrary(120, 8)
	x := Open(Options{Dir: dir, Extract: lib.extract})
	snap := x.Snapshot()
	for _, it := range lib.items() {
		if stamp, _, ok := snap.Status(it.Key); !ok || stamp != it.Stamp {
			t.Fatalf("%s not indexed after two builders (%q, %v)", it.Key, stamp, ok)
		}
	}
	if n := snap.Docs(); n != 240 {
		t.Errorf("live documents %d, want 240", n)
	}
	if j := x.Ensure(lib.items(), "", nil); j != closedJob {
		t.Error("a complete index started a build")
	}
}

// TestBuilderProcess is one builder of TestConcurrentBuilders.
func TestBuilderProcess(t *testing.T) {
	dir := os.Getenv("LIBINDEX_BUILDER")
	if dir == "" {
		t.Skip("run by TestConcurrentBuilders")
	}
	seed := uint64(8)
	if s := os.Getenv("LIBINDEX_BUILDER_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	lib := newLibrary(120, seed)
	lib.delay = time.Millisecond
	x := Open(Options{Dir: dir, Extract: lib.extract, FlushEvery: 5 * time.Millisecond, MaxSegments: 4})
	items := lib.items()
	// Ask in three waves so that builds, merges and reloads interleave.
	for i := 0; i < 3; i++ {
		wait(t, x.Ensure(items[:len(items)*(i+1)/3], "", nil))
	}
}

// TestOtherVersionRebuilt checks that an index written under another
// Version (units made another way) is rebuilt, never searched.
func TestOtherVersionRebuilt(t *testing.T) {
	dir := t.TempDir()
	lib := newLibrary(10, 4)
	x := Open(Options{Dir: dir, Extract: lib.extract, Version: "units-1"})
	wait(t, x.Ensure(lib.items(), "", nil))
	lib.resetCalls()
	y := Open(Options{Dir: dir, Extract: lib.extract, Version: "units-2"})
	if n := y.Snapshot().Docs(); n != 0 {
		t.Fatalf("%d documents of another version searched", n)
	}
	wait(t, y.Ensure(lib.items(), "", nil))
	if c := lib.resetCalls(); len(c) != 10 {
		t.Fatalf("%d items extracted again, want 10", len(c))
	}
	z := Open(Options{Dir: dir, Extract: lib.extract, Version: "units-2"})
	if n := z.Snapshot().Docs(); n != 20 {
		t.Fatalf("the rebuilt index holds %d documents, want 20", n)
	}
	if n, err := Docs(dir); err != nil || n != 20 {
		t.Fatalf("Docs = %d, %v; want 20", n, err)
	}
}

// TestVersionOf: a version learnt through VersionOf is asked for once and
// decides as Version does: the index of another is rebuilt, never
// searched (its segments, read meanwhile, are not kept), and the index
// of the same is searched.
func TestVersionOf(t *testing.T) {
	dir := t.TempDir()
	lib := newLibrary(10, 4)
	wait(t, Open(Options{Dir: dir, Extract: lib.extract, Version: "units-1"}).Ensure(lib.items(), "", nil))
	lib.resetCalls()
	var calls atomic.Int32
	versionOf := func(v string) func() string {
		return func() string {
			calls.Add(1)
			time.Sleep(20 * time.Millisecond) // as a program run to learn it
			return v
		}
	}
	y := Open(Options{Dir: dir, Extract: lib.extract, VersionOf: versionOf("units-2")})
	if n := y.Snapshot().Docs(); n != 0 {
		t.Fatalf("%d documents of another version searched", n)
	}
	if len(y.segs) != 0 {
		t.Errorf("%d segments of another version kept", len(y.segs))
	}
	wait(t, y.Ensure(lib.items(), "", nil))
	if c := lib.resetCalls(); len(c) != 10 {
		t.Fatalf("%d items extracted again, want 10", len(c))
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("VersionOf called %d times, want once", n)
	}
	z := Open(Options{Dir: dir, Extract: lib.extract, VersionOf: versionOf("units-2")})
	if n := z.Snapshot().Docs(); n != 20 {
		t.Fatalf("the index of the same version holds %d documents, want 20", n)
	}
}

// search is Snapshot.Search for a test: an error fails it.
func search(t *testing.T, s *Snapshot, q string, k int, f *Filter) ([]Hit, int) {
	t.Helper()
	hits, total, err := s.Search(q, k, f)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return hits, total
}

// TestDamagedFoundDuringBuild finds a damaged segment while this process
// is building: the segment leaves the snapshot at once, the build does
// not publish it again, and the next Ensure extracts its items again.
func TestDamagedFoundDuringBuild(t *testing.T) {
	dir := t.TempDir()
	lib := newLibrary(20, 7)
	x := Open(Options{Dir: dir, Extract: lib.extract})
	wait(t, x.Ensure(lib.items(), "", nil))
	x.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	if len(segs) != 1 {
		t.Fatalf("%d segments, want 1", len(segs))
	}
	data, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	id, _ := parseSegmentName(filepath.Base(segs[0]))
	s, err := decodeSegment(id, data[:len(data)-4])
	if err != nil {
		t.Fatal(err)
	}
	// Damage every unit's text, so that any hit meets it.
	var at []int
	for d := range s.len() {
		u := s.unit(d)
		at = append(at, int(uintptr(unsafe.Pointer(unsafe.StringData(u.Text)))-uintptr(unsafe.Pointer(&data[0])))+len(u.Text)/2)
	}
	for _, i := range at {
		data[i] ^= 0x55
	}
	if err := os.WriteFile(segs[0], data, 0o600); err != nil {
		t.Fatal(err)
	}
	lib.resetCalls()

	y := Open(Options{Dir: dir, Extract: lib.extract})
	defer y.Close()
	lib.mu.Lock()
	lib.text["papers/new"] = "axolotl protein kernel"
	lib.delay = 200 * time.Millisecond
	lib.mu.Unlock()
	job := y.Ensure(lib.items(), "", nil)
	if isDone(job) {
		t.Fatal("the build ended before the search")
	}
	if _, _, err := y.Snapshot().Search("protein kernel", 5, nil); !errors.Is(err, ErrDamaged) {
		t.Fatalf("search during the build: %v, want ErrDamaged", err)
	}
	wait(t, job)
	if n := y.Snapshot().Docs(); n != 2 {
		t.Fatalf("after the build %d documents, want the new item's 2", n)
	}
	lib.mu.Lock()
	lib.delay = 0
	lib.mu.Unlock()
	wait(t, y.Ensure(lib.items(), "", nil))
	if c := lib.resetCalls(); len(c) != 21 {
		t.Fatalf("%d items extracted, want 21 (the new one, then the damaged segment's 20)", len(c))
	}
	// A new process sees the rebuilt index, without the damaged segment.
	z := Open(Options{Dir: dir, Extract: lib.extract})
	defer z.Close()
	if n := z.Snapshot().Docs(); n != 42 {
		t.Fatalf("a new process sees %d documents, want 42", n)
	}
	if _, _, err := z.Snapshot().Search("protein kernel", 50, nil); err != nil {
		t.Fatalf("a new process: %v", err)
	}
}

func isDone(j *Job) bool {
	select {
	case <-j.Done():
		return true
	default:
		return false
	}
}

// TestStaleTempsRemovedAtOpen plants the temporary files that a builder
// killed during a segment or manifest write leaves (its pid gone), and one
// of a live process, and checks that the next process's first look at the
// index — a search, not a build — removes the first and keeps the other,
// and that the index still answers as before.
func TestStaleTempsRemovedAtOpen(t *testing.T) {
	dir := t.TempDir()
	lib := newLibrary(10, 9)
	x := Open(Options{Dir: dir, Extract: lib.extract})
	wait(t, x.Ensure(lib.items(), "", nil))
	x.Close()
	want, _ := search(t, x.Snapshot(), "protein kernel", 5, nil)

	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf(".tmp-%d-0123456789abcdef", gone.Process.Pid)
	live := fmt.Sprintf(".tmp-%d-fedcba9876543210", os.Getppid())
	for _, name := range []string{dead, live} {
		if err := os.WriteFile(filepath.Join(dir, name), bytes.Repeat([]byte("seg"), 1<<20), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	y := Open(Options{Dir: dir, Extract: lib.extract})
	defer y.Close()
	got, _ := search(t, y.Snapshot(), "protein kernel", 5, nil)
	if len(got) == 0 || len(got) != len(want) {
		t.Errorf("search after the sweep: %d hits, want %d", len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, dead)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dead writer's temporary file is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, live)); err != nil {
		t.Errorf("a live process's temporary file was removed: %v", err)
	}
}

// TestKilledBuilderTemps kills real builder processes (SIGKILL) while they
// write segments and manifests, four times, and checks each time that the
// temporary file the interrupted write left is removed by the next
// process's first look at the index, which then still completes it.
func TestKilledBuilderTemps(t *testing.T) {
	if os.Getenv("LIBINDEX_BUILDER") != "" {
		return
	}
	dir := t.TempDir()
	tempsIn := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
		return m
	}
	for kill := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuilderProcess$")
		// Each builder indexes other texts, so that each has writing to do.
		cmd.Env = append(os.Environ(), "LIBINDEX_BUILDER="+dir, fmt.Sprintf("LIBINDEX_BUILDER_SEED=%d", 100+kill))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for len(tempsIn()) == 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Microsecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
		left := tempsIn()
		if len(left) == 0 {
			t.Fatalf("kill %d: the builder was not caught writing", kill)
		}
		lib := newLibrary(120, uint64(200+kill))
		x := Open(Options{Dir: dir, Extract: lib.extract})
		x.Snapshot()
		if got := tempsIn(); len(got) != 0 {
			t.Errorf("kill %d: %d of %d temporary files left after the next open", kill, len(got), len(left))
		}
		wait(t, x.Ensure(lib.items(), "", nil))
		if n := x.Snapshot().Docs(); n != 240 {
			t.Errorf("kill %d: live documents %d, want 240", kill, n)
		}
		x.Close()
	}
}

// TestTieredMerges checks that a build whose buffer fills many times
// merges segments of one size as it goes, never writes a segment much
// larger than MaxSegmentBytes, and ends with every item searchable.
func TestTieredMerges(t *testing.T) {
	// Its hundreds of small segments are each written with an fsync,
	// which it mostly waits on: it waits beside TestMergedAwayRemoved.
	t.Parallel()
	lib := newLibrary(400, 11)
	const maxSeg = 24 << 10
	x := Open(Options{Dir: t.TempDir(), Extract: lib.extract, BufferBytes: 4 << 10, MaxSegmentBytes: maxSeg, MaxSegments: 1000})
	defer x.Close()
	items := lib.items()
	wait(t, x.Ensure(items, "", nil))
	snap := x.Snapshot()
	if x.merges.Load() == 0 {
		t.Fatal("no merge while the buffer filled many times")
	}
	if n := snap.Docs(); n != 2*len(items) {
		t.Fatalf("%d live documents, want %d", n, 2*len(items))
	}
	small := 0
	for _, s := range snap.segs {
		if len(s.data) > maxSeg+8<<10 {
			t.Errorf("segment %d is %d bytes, over MaxSegmentBytes %d", s.id, len(s.data), maxSeg)
		}
		if len(s.data) <= maxSeg/2 {
			small++
		}
	}
	// At most SegmentsPerTier-1 in each of the two tiers below the
	// largest segments (a buffer is 4 KiB, a tier 8 times the last).
	if small >= 2*SegmentsPerTier {
		t.Errorf("%d small segments left unmerged (of %d)", small, len(snap.segs))
	}
	w := &writer{x: x, man: snap.man}
	if pick := w.tierMerge(); pick != nil {
		t.Errorf("a full tier was left unmerged: %v", pick)
	}
	for _, it := range items[:20] {
		if _, _, ok := snap.Status(it.Key); !ok {
			t.Errorf("%s not indexed", it.Key)
		}
	}
}

// TestMergedAwayRemoved checks that a build removes the segments it
// merges away as it goes, not when it ends: every time an item is
// extracted, the index folder holds at most one segment file more than
// the published manifest lists (a merge's output not yet published), and
// the build's own table of segments no more than the folder. Before, a
// long build kept every segment it had merged away until its end, on
// disk and in memory.
func TestMergedAwayRemoved(t *testing.T) {
	// A folder of its own; it mostly waits on its segments' fsyncs.
	t.Parallel()
	lib := newLibrary(400, 13)
	dir := t.TempDir()
	var (
		x     *Index
		mu    sync.Mutex
		worst int
		segs  int
	)
	// observe returns how many segment files the folder holds beyond the
	// manifest's, and how many segments the build keeps beyond the folder.
	observe := func() (unlisted, kept int) {
		listed, files := 0, 0
		x.mu.Lock()
		if x.snap != nil {
			listed = len(x.snap.man.segs)
		}
		inMemory := len(x.segs)
		x.mu.Unlock()
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if _, ok := parseSegmentName(de.Name()); ok {
				files++
			}
		}
		return files - listed, inMemory - files
	}
	extract := func(ctx context.Context, key string) ([]Unit, error) {
		if x != nil {
			// A merge publishes its manifest, then removes its inputs'
			// files one by one: an observation made in between sees them
			// for microseconds. Segments kept until the build's end stay,
			// so an excess is counted only when it is still there after a
			// few looks over some milliseconds.
			unlisted, kept := observe()
			for try := 0; (unlisted > 1 || kept > 1) && try < 20; try++ {
				time.Sleep(time.Millisecond)
				u, k := observe()
				unlisted, kept = min(unlisted, u), min(kept, k)
			}
			mu.Lock()
			worst = max(worst, unlisted)
			segs = max(segs, kept)
			mu.Unlock()
		}
		return lib.extract(ctx, key)
	}
	x = Open(Options{Dir: dir, Extract: extract, BufferBytes: 4 << 10, MaxSegmentBytes: 24 << 10, MaxSegments: 1000})
	defer x.Close()
	wait(t, x.Ensure(lib.items(), "", nil))
	if x.merges.Load() < 3 {
		t.Fatalf("%d merges: the build did not merge enough to tell", x.merges.Load())
	}
	if worst > 1 {
		t.Errorf("the folder held %d segment files the manifest did not list", worst)
	}
	if segs > 1 {
		t.Errorf("the build kept %d segments more than the folder holds", segs)
	}
}

// TestMissingSegmentLeftOut: a manifest that lists a segment file no
// longer there (removed by a writer's merge after the manifest was read,
// and still gone after the reads again) loads without it, and the items
// it held are extracted again.
func TestMissingSegmentLeftOut(t *testing.T) {
	dir := t.TempDir()
	lib := newLibrary(60, 17)
	x := Open(Options{Dir: dir, Extract: lib.extract, BufferBytes: 4 << 10, MaxSegments: 1000})
	wait(t, x.Ensure(lib.items(), "", nil))
	x.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
	if len(segs) < 2 {
		t.Fatalf("%d segments, want several", len(segs))
	}
	if err := os.Remove(segs[0]); err != nil {
		t.Fatal(err)
	}
	lib.resetCalls()
	y := Open(Options{Dir: dir, Extract: lib.extract, BufferBytes: 4 << 10, MaxSegments: 1000})
	defer y.Close()
	snap := y.Snapshot()
	if n, all := snap.Docs(), 2*len(lib.items()); n == 0 || n >= all {
		t.Fatalf("%d documents without the removed segment, want some of %d", n, all)
	}
	wait(t, y.Ensure(lib.items(), "", nil))
	if n := y.Snapshot().Docs(); n != 2*len(lib.items()) {
		t.Errorf("%d documents after the items were extracted again, want %d", n, 2*len(lib.items()))
	}
	if got := len(lib.resetCalls()); got == 0 || got >= len(lib.items()) {
		t.Errorf("%d items extracted again, want those of the removed segment only", got)
	}
}

// TestJobRate checks a build's pace: items and pages per second over the
// samples kept, and the time left for the items queued.
func TestJobRate(t *testing.T) {
	j := &Job{done: make(chan struct{}), total: 100}
	if i, p, eta := j.Rate(); i != 0 || p != 0 || eta != 0 {
		t.Fatalf("rate before any item: %v %v %v", i, p, eta)
	}
	start := time.Now()
	for k := range 21 {
		j.mu.Lock()
		j.n, j.pages = k, 10*k
		j.record(start.Add(time.Duration(k) * 500 * time.Millisecond))
		j.mu.Unlock()
	}
	// 20 items in 10 s: 2 items and 20 pages a second, 80 items left.
	items, pages, eta := j.Rate()
	if items != 2 || pages != 20 || eta != 40*time.Second {
		t.Errorf("rate %v items/s, %v pages/s, ETA %v; want 2, 20, 40s", items, pages, eta)
	}
	// Samples older than the window are dropped: the pace follows the
	// last half minute.
	for k := 21; k <= 200; k++ {
		j.mu.Lock()
		j.n, j.pages = 20+(k-20)/5, 10*k
		j.record(start.Add(time.Duration(k) * 500 * time.Millisecond))
		j.mu.Unlock()
	}
	if items, _, _ := j.Rate(); items < 0.35 || items > 0.45 {
		t.Errorf("rate %v items/s after slowing to 0.4", items)
	}
	if len(j.samples) > 32 {
		t.Errorf("%d samples kept", len(j.samples))
	}
}

// TestMarkUnitsKept checks that a mark unit keeps its kind, comment and
// own URI on disk, that its comment is searched with its text and not its title, and
// that its key sorts before its document's pages (ties go to the mark).
func TestMarkUnitsKept(t *testing.T) {
	dir := t.TempDir()
	extract := func(ctx context.Context, key string) ([]Unit, error) {
		return []Unit{
			{Path: key + "/paper.pdf", Page: 1, Title: "Lattice", Text: "protein binding cell growth"},
			{Path: key + "/paper.pdf", Page: 1, Title: "Lattice", Text: "protein binding", Mark: "highlight", Comment: "check the wombat assay", URI: "zotero://open-pdf/library/items/AAAAAAAA?annotation=BBBBBBBB"},
		}, nil
	}
	x := Open(Options{Dir: dir, Extract: extract, Version: "v"})
	wait(t, x.Ensure([]Item{{Key: "papers/a", Stamp: "1"}}, "", nil))
	x.Close()
	y := Open(Options{Dir: dir, Extract: extract, Version: "v"})
	defer y.Close()
	snap := y.Snapshot()
	hits, _, err := snap.Search("wombat", 5, nil)
	if err != nil || len(hits) != 1 {
		t.Fatalf("wombat: %d hits, err %v", len(hits), err)
	}
	want := Unit{Path: "papers/a/paper.pdf", Page: 1, Title: "Lattice", Text: "protein binding", Mark: "highlight", Comment: "check the wombat assay", URI: "zotero://open-pdf/library/items/AAAAAAAA?annotation=BBBBBBBB"}
	if diff := cmp.Diff(want, *hits[0].Unit); diff != "" {
		t.Errorf("mark unit read back (-want +got):\n%s", diff)
	}
	if hits, _, _ := snap.Search("lattice", 5, nil); len(hits) != 1 || hits[0].Unit.Mark != "" {
		t.Errorf("the title finds the page alone: %+v", hits)
	}
	if hits, _, _ := snap.Search("protein", 5, nil); len(hits) != 2 {
		t.Errorf("protein: %d hits, want the page and the mark", len(hits))
	}
	// Among equal scores the mark goes first.
	page, mark := Unit{Path: "p.pdf", Page: 3}, Unit{Path: "p.pdf", Page: 3, Mark: "note"}
	if unitKey(mark) >= unitKey(page) || unitKey(mark) >= unitKey(Unit{Path: "p.pdf", Page: 1}) {
		t.Errorf("mark key %q does not sort before its page's %q", unitKey(mark), unitKey(page))
	}
}
