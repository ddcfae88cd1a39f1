// Package libindex is the search index of a whole library: one index of
// every paper and text file that any source of the library has searched,
// kept in segments on disk and updated item by item.
//
// An item (a paper unit or a text file, by key) is indexed at a stamp (what
// the caller derives from the files' sizes and modification times). When a
// search names an item whose stamp changed, only that item is extracted
// again: its new units go into a new segment and the manifest points the
// item at it, which leaves its old documents dead in the old segment until
// a background merge drops them. A search over a subset of the library (a
// grant) runs over the same segments with a document filter, and its
// statistics (document count, document frequencies, field lengths) are
// those of the live documents of a filter too (see index.Scope): nothing
// outside it, dead documents included, changes what the search returns.
//
// Building runs in the background on all cores. A caller that cannot wait
// for it searches what is published so far: segments are published every
// second while the index is small, then each time the build's buffer is
// full. Segments are merged in tiers as a build goes, none larger than
// Options.MaxSegmentBytes, so that what a build holds in memory and what
// it costs per page do not grow with the library.
package libindex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/safefs"
)

// A Unit is one searchable document of an item: a PDF page, a text file, a
// section of a long Markdown file.
type Unit struct {
	Path, Label, Section string
	Page                 int
	Title, Text          string
	// Mark, for a unit that is one of the researcher's marks, is its kind;
	// Text is then the page text it marks (empty for a note) and Comment
	// the researcher's comment, indexed with it. Both are "" for others.
	Mark, Comment string
	// URI, when set, is the unit's own citation URI (a Zotero mark's,
	// which has no page to be cited by); "" for most units.
	URI string
	// BodyStart is where the indexed body starts in Text: a first line
	// that is the Title is indexed once, as the title. It is not stored.
	BodyStart int
}

// An Item is something to index, by key, at a stamp.
type Item struct {
	Key, Stamp string
}

// ExtractFunc returns the units of the item key. An error other than the
// context's is recorded as the item's failure, with the error's text as the
// reason, and the item is not tried again until its stamp changes; the
// units returned with it, if any, are still indexed.
type ExtractFunc func(ctx context.Context, key string) ([]Unit, error)

// Options configure an Index.
type Options struct {
	// Dir is the folder of the index files; "" keeps the index in memory.
	Dir string
	// Extract produces items' units. It is called from several goroutines
	// at once.
	Extract ExtractFunc
	// Version names what Extract produces: an index written under another
	// version is rebuilt, never searched.
	Version string
	// VersionOf, when set, gives the version instead of Version, called
	// once: a version that takes long to learn (an OCR engine's, which
	// runs a program) is then learnt while the index on disk is read
	// rather than before.
	VersionOf func() string
	// Workers is how many items are extracted at once; 0 means four
	// times GOMAXPROCS.
	Workers int
	// FlushEvery is how often a running build publishes what it has
	// indexed while the index holds few segments, so that a search early
	// in a first build finds something; 0 means one second. After that a
	// segment is published when its buffer is full (BufferBytes).
	FlushEvery time.Duration
	// BufferBytes bounds the segment a build holds in memory before it
	// writes it out: its units' text and an estimate of its postings; 0
	// means DefaultBufferBytes.
	BufferBytes int
	// MaxSegmentBytes is the largest segment a merge writes, which bounds
	// the memory a merge takes (about three times it); 0 means
	// DefaultMaxSegmentBytes. Segments are merged in tiers (see
	// SegmentsPerTier), so each byte is rewritten a few times at most,
	// however large the library.
	MaxSegmentBytes int
	// MaxSegments is the number of segments above which a build ends by
	// merging the smaller half of them, within MaxSegmentBytes; 0 means
	// 8. A library larger than MaxSegments × MaxSegmentBytes keeps more
	// segments, each near MaxSegmentBytes.
	MaxSegments int
	// Progress, when set, is called while a build runs with the number of
	// items done and queued so far.
	Progress func(done, total int)
	// Yield, when set, is called by a build worker before it extracts an
	// item, and the function it returns once the item is extracted. It
	// may block, to leave the cores to work that comes first (the calls
	// a user waits for); ctx is the index's, ended by Close.
	Yield func(ctx context.Context) (done func())
}

// The defaults of Options' sizes. With them a build holds at most about
// 100 MB whatever the size of the library: the segment being filled, the
// items being extracted, and a merge of at most DefaultMaxSegmentBytes.
const (
	DefaultBufferBytes     = 8 << 20
	DefaultMaxSegmentBytes = 48 << 20
	// SegmentsPerTier is how many segments of about one size a build lets
	// pile up before it merges them into one.
	SegmentsPerTier = 8
)

// Index is a library index. It is safe for concurrent use.
type Index struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	snap     *Snapshot
	segs     map[uint64]*segment // loaded segments by id
	bad      map[uint64]bool     // segments found damaged, never loaded again
	checked  time.Time           // when the manifest on disk was last looked at
	diskStat string              // size and time of the manifest loaded
	queue    map[string]string   // key → stamp, waiting for the builder
	inflight map[string]string   // key → stamp, taken by the builder
	forget   map[string]bool     // keys to drop from the manifest
	job      *Job                // the running build, nil when idle

	merges atomic.Int64 // segments written by merges, for tests and benchmarks
	// released is when searches last released their segments' pages
	// (UnixNano); residentBase is the process's file-backed resident
	// memory when it opened the index, and a search releases the pages
	// when it has grown by residentHeadroom and releaseGap has passed
	// since they were last released (see releaseSearched).
	released         atomic.Int64
	residentBase     int64
	residentHeadroom int64
	releaseGap       time.Duration
	releasePlanned   atomic.Bool    // a release is planned (releaseLater)
	builds           sync.WaitGroup // running builds, which Close waits for
	swept            atomic.Bool    // the folder's stale temporary files were removed
	version          func() string  // Options.Version or VersionOf's, learnt once
}

// Open returns the index of opts.Dir. Nothing is read until the first
// Snapshot.
func Open(opts Options) *Index {
	if opts.Workers <= 0 {
		// Four per core: extraction also waits on files and on the PDF
		// cache's synced writes, and the segment writer on its own syncs;
		// extra workers keep the cores busy meanwhile.
		opts.Workers = 4 * runtime.GOMAXPROCS(0)
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = time.Second
	}
	if opts.MaxSegments <= 0 {
		opts.MaxSegments = 8
	}
	if opts.BufferBytes <= 0 {
		opts.BufferBytes = DefaultBufferBytes
	}
	if opts.MaxSegmentBytes <= 0 {
		opts.MaxSegmentBytes = DefaultMaxSegmentBytes
	}
	ctx, cancel := context.WithCancel(context.Background())
	x := &Index{opts: opts, ctx: ctx, cancel: cancel, segs: map[uint64]*segment{}, bad: map[uint64]bool{}, queue: map[string]string{}, inflight: map[string]string{}, forget: map[string]bool{}, residentHeadroom: searchResidentHeadroom, releaseGap: releaseGap}
	x.version = sync.OnceValue(func() string {
		if opts.VersionOf != nil {
			return opts.VersionOf()
		}
		return opts.Version
	})
	x.released.Store(time.Now().UnixNano())
	x.residentBase, _ = fileResident()
	return x
}

// Close stops a running build and waits for it to end, so that nothing is
// written to the index folder after Close returns. Searches still work.
func (x *Index) Close() error {
	x.cancel()
	x.builds.Wait()
	return nil
}

// A Job is a build in the background.
type Job struct {
	done        chan struct{}
	mu          sync.Mutex
	n, total    int
	pages       int // units indexed
	samples     []sample
	err         error
	subscribers map[string]func(done, total int)
}

// Done is closed when the build has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Progress returns how many items the build has done and how many it has
// been asked for.
func (j *Job) Progress() (done, total int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n, j.total
}

// Err returns why the build stopped early (the index could not be written,
// say), once Done is closed.
func (j *Job) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Subscribe has f called with the build's progress until it ends; a
// later Subscribe with the same name replaces f.
func (j *Job) Subscribe(name string, f func(done, total int)) {
	j.mu.Lock()
	if j.subscribers == nil {
		j.subscribers = map[string]func(int, int){}
	}
	j.subscribers[name] = f
	j.mu.Unlock()
}

func (j *Job) add(n int) {
	j.mu.Lock()
	j.total += n
	j.mu.Unlock()
}

// Pages returns how many units (pages, sections, files) the build has
// indexed so far.
func (j *Job) Pages() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.pages
}

// sample is a Job's progress at one moment, for its rate.
type sample struct {
	at       time.Time
	n, pages int
}

// rateWindow is how far back a Job's rate looks: long enough to smooth
// over merges and large papers, short enough to follow a change of pace.
const rateWindow = 30 * time.Second

// Rate returns how many items and pages (units) the build indexes per
// second, over the last half minute or so (since its first item, when
// younger), and how long it needs for the items left at that rate; all
// zero until it has run for a quarter of a second.
func (j *Job) Rate() (items, pages float64, eta time.Duration) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.samples) < 2 {
		return 0, 0, 0
	}
	a, b := j.samples[0], j.samples[len(j.samples)-1]
	sec := b.at.Sub(a.at).Seconds()
	if sec < 0.25 {
		return 0, 0, 0
	}
	items, pages = float64(b.n-a.n)/sec, float64(b.pages-a.pages)/sec
	if items > 0 {
		eta = time.Duration(float64(j.total-j.n) / items * float64(time.Second))
	}
	return items, pages, eta
}

// record samples the progress: the newest sample follows the build, and a
// new one starts every second; those older than rateWindow are dropped.
// The first is taken at the first item, so that the folder's walk and the
// first extraction do not count against the rate. Called with j.mu held.
func (j *Job) record(now time.Time) {
	s := sample{now, j.n, j.pages}
	if k := len(j.samples); k >= 2 && j.samples[k-1].at.Sub(j.samples[k-2].at) < time.Second {
		j.samples[k-1] = s
		return
	}
	j.samples = append(j.samples, s)
	drop := 0
	for drop < len(j.samples)-2 && now.Sub(j.samples[drop+1].at) >= rateWindow {
		drop++
	}
	j.samples = j.samples[drop:]
}

func (j *Job) step(progress func(int, int), pages int) {
	j.mu.Lock()
	j.n++
	j.pages += pages
	j.record(time.Now())
	n, total := j.n, j.total
	subs := make([]func(int, int), 0, len(j.subscribers))
	for _, f := range j.subscribers {
		subs = append(subs, f)
	}
	j.mu.Unlock()
	if progress != nil {
		progress(n, total)
	}
	for _, f := range subs {
		f(n, total)
	}
}

var closedJob = func() *Job {
	j := &Job{done: make(chan struct{})}
	close(j.done)
	return j
}()

// Ensure has the items indexed at their stamps: the ones the snapshot
// already holds at that stamp (indexed or failed) are left alone, the
// others are queued for a build in the background. The Job returned is
// done at once when nothing was stale. When progress is set and a build
// runs, it is subscribed under name (see Job.Subscribe) and called at once
// with the progress so far.
func (x *Index) Ensure(items []Item, name string, progress func(done, total int)) *Job {
	snap := x.Snapshot()
	x.mu.Lock()
	var stale, waiting int
	for _, it := range items {
		if e, ok := snap.man.entries[it.Key]; ok && e.stamp == it.Stamp {
			continue
		}
		if s, ok := x.queue[it.Key]; ok && s == it.Stamp {
			waiting++ // queued by another caller
			continue
		}
		if s, ok := x.inflight[it.Key]; ok && s == it.Stamp {
			waiting++ // being extracted
			continue
		}
		x.queue[it.Key] = it.Stamp
		stale++
	}
	if stale == 0 && (x.job == nil || waiting == 0) {
		x.mu.Unlock()
		return closedJob
	}
	job := x.job
	start := job == nil
	if start {
		job = &Job{done: make(chan struct{})}
		x.job = job
	}
	job.add(stale)
	if progress != nil {
		job.Subscribe(name, progress)
	}
	x.mu.Unlock()
	if progress != nil {
		progress(job.Progress())
	}
	if start {
		x.builds.Add(1)
		go x.build(job)
	}
	return job
}

// Running returns the build running in this process, nil when idle.
func (x *Index) Running() *Job {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.job
}

// Forget drops items from the index: their documents are dead from the
// next build on, and they stop counting as indexed.
func (x *Index) Forget(keys []string) *Job {
	if len(keys) == 0 {
		return closedJob
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, k := range keys {
		x.forget[k] = true
		delete(x.queue, k)
	}
	if x.job == nil {
		x.job = &Job{done: make(chan struct{})}
		x.builds.Add(1)
		go x.build(x.job)
	}
	return x.job
}

// dir opens the index folder, creating it when create is set.
func (x *Index) dir(create bool) (*safefs.Dir, error) {
	flag := safefs.DirFlag(0)
	if create {
		flag = safefs.Create
	}
	d, err := safefs.OpenDir(x.opts.Dir, flag)
	if err == nil && x.swept.CompareAndSwap(false, true) {
		// Temporary files of segments and manifests whose writer was
		// killed before its rename: the first open in a process removes
		// them (only stale ones; see safefs.Dir.RemoveStaleTemps).
		d.RemoveStaleTemps()
	}
	return d, err
}

// manifestCheck is how often a search looks whether another process has
// published a newer manifest.
const manifestCheck = 200 * time.Millisecond

// Snapshot returns the index as last published: by this process's builds,
// or on disk by another process's. It never waits for a build.
func (x *Index) Snapshot() *Snapshot {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.opts.Dir == "" || x.job != nil {
		// Builds of this process publish as they go; while one runs, it
		// holds the lock, so no other process writes.
		return x.memSnapshot()
	}
	if x.snap != nil && time.Since(x.checked) < manifestCheck {
		return x.snap
	}
	x.checked = time.Now()
	dir, err := x.dir(false)
	if err != nil {
		if x.snap == nil {
			x.snap = x.snapshotOf(x.newManifest())
		}
		return x.snap
	}
	defer dir.Close()
	st := manifestStat(dir)
	if x.snap != nil && st == x.diskStat {
		return x.snap
	}
	m, _ := x.loadManifest(dir)
	x.diskStat = st
	x.snap = x.snapshotOf(m)
	return x.snap
}

// manifestStat describes the manifest file's state, "" when absent.
func manifestStat(dir *safefs.Dir) string {
	f, err := dir.Open(manifestName)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
}

// loadManifest reads the manifest and loads its segments (keeping those
// already loaded). A damaged manifest is an empty one: everything is
// rebuilt. A segment that cannot be loaded is left out with its items, so
// they are extracted again. Called with x.mu held.
func (x *Index) loadManifest(dir *safefs.Dir) (*manifest, error) {
	// A writer removes the segments it merged away as soon as it
	// publishes the merge: a segment of the manifest read that is gone
	// when it is mapped means a newer manifest, read again.
	for range 3 {
		m, gone, err := x.loadManifestOnce(dir, true)
		if !gone {
			return m, err
		}
	}
	m, _, err := x.loadManifestOnce(dir, false)
	return m, err
}

// loadManifestOnce is one attempt of loadManifest. With retry, a segment
// the manifest lists that no longer exists ends it, reporting gone;
// without, that segment is left out as a damaged one is.
func (x *Index) loadManifestOnce(dir *safefs.Dir, retry bool) (m *manifest, gone bool, err error) {
	// The version is learnt while the manifest and its segments are
	// read; they are kept only when it is theirs.
	version := make(chan string, 1)
	go func() { version <- x.version() }()
	data, err := dir.ReadSealed(manifestName, maxManifest)
	if err == nil {
		m, err = decodeManifest(data)
	}
	if err != nil {
		<-version
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return x.newManifest(), false, err
	}
	// Segments not yet loaded are mapped and their heads checked on all
	// cores; the rest of each is checked as searches read it.
	var need []uint64
	for _, id := range m.segs {
		if x.segs[id] == nil {
			need = append(need, id)
		}
	}
	loaded := make([]*segment, len(need))
	var missing atomic.Bool
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, id := range need {
		if x.bad[id] {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var err error
			if loaded[i], err = readSegment(dir, id); errors.Is(err, fs.ErrNotExist) {
				missing.Store(true)
			}
		}()
	}
	wg.Wait()
	if m.version != <-version {
		for _, s := range loaded {
			if s != nil && s.mapped {
				unmap(s.data) // nothing refers to it yet
			}
		}
		return x.newManifest(), false, errFormat
	}
	for _, s := range loaded {
		if s != nil {
			x.segs[s.id] = s
		}
	}
	if retry && missing.Load() {
		return nil, true, nil
	}
	usable := func(id uint64) bool { return x.segs[id] != nil && !x.bad[id] }
	keep := m.segs[:0]
	for _, id := range m.segs {
		if usable(id) {
			keep = append(keep, id)
		}
	}
	m.segs = keep
	for k, e := range m.entries {
		if e.seg != 0 && !usable(e.seg) {
			delete(m.entries, k)
		}
	}
	return m, false, nil
}

// snapshotOf makes the searchable snapshot of m, whose segments are
// loaded. Called with x.mu held.
func (x *Index) snapshotOf(m *manifest) *Snapshot {
	m = x.withoutBad(m)
	s := &Snapshot{x: x, man: m}
	var ixs []*index.Index
	for _, id := range m.segs {
		seg := x.segs[id]
		if seg == nil {
			continue
		}
		live := make([]bool, seg.len())
		for i, k := range seg.items {
			if m.entries[k].seg != id {
				continue
			}
			for d := seg.first[i]; d < seg.first[i+1]; d++ {
				live[d] = true
			}
		}
		s.segs = append(s.segs, seg)
		s.live = append(s.live, live)
		ixs = append(ixs, seg.ix)
	}
	s.set = index.NewSet(ixs...)
	s.liveScope = sync.OnceValue(func() *index.Scope { return s.set.Scope(s.live) })
	return s
}

// A Snapshot is the index at one moment. It is immutable and safe for
// concurrent use.
type Snapshot struct {
	x    *Index
	man  *manifest
	segs []*segment
	live [][]bool // live[i][d]: document d of segment i is its item's current one
	set  *index.Set
	// liveScope is the scope of every live document, for a search
	// without a filter.
	liveScope func() *index.Scope
}

// Status reports how the item key is indexed: its stamp and its failure
// ("" when it did not fail); ok is false when it is not indexed.
func (s *Snapshot) Status(key string) (stamp, failure string, ok bool) {
	e, ok := s.man.entries[key]
	return e.stamp, e.err, ok
}

// Keys calls f with every indexed item's key.
func (s *Snapshot) Keys(f func(key string)) {
	for k := range s.man.entries {
		f(k)
	}
}

// Docs returns the number of live documents.
func (s *Snapshot) Docs() int {
	n := 0
	for _, l := range s.live {
		for _, ok := range l {
			if ok {
				n++
			}
		}
	}
	return n
}

// A Hit is a search result. Its Unit's strings may be views of a mapped
// file that stays mapped for the life of the process.
type Hit struct {
	Key   string // the item's
	Unit  *Unit
	Score float64 // comparable across searches of one snapshot with the same statistics
	Norm  float64 // Score scaled into [0, 1] (see index.Hit)
	w     *weights
}

// weights are the idf of a search's query terms in its scope, made once
// for all its hits' passages.
type weights struct {
	scope *index.Scope
	text  string
	query *index.Query
	once  sync.Once
	w     map[string]float64
}

func (w *weights) of(query string) map[string]float64 {
	if query != w.text {
		return w.scope.Weights(query)
	}
	w.once.Do(func() { w.w = w.query.Weights() })
	return w.w
}

// A Filter admits the items of a search. Its per-snapshot document masks
// and statistics are kept for the next search of the same snapshot.
type Filter struct {
	allow func(key string) bool
	of    []*Filter          // a union's filters, when allow is nil
	unit  func(u *Unit) bool // nil admits every unit of an admitted item

	mu    sync.Mutex
	snap  *Snapshot
	mask  [][]bool
	scope *index.Scope
}

// NewFilter returns a filter admitting the keys allow admits.
func NewFilter(allow func(key string) bool) *Filter { return &Filter{allow: allow} }

// UnitFilter returns a filter admitting the units unit admits of the items
// allow admits.
func UnitFilter(allow func(key string) bool, unit func(u *Unit) bool) *Filter {
	return &Filter{allow: allow, unit: unit}
}

// KeySet returns a filter admitting exactly keys.
func KeySet(keys []string) *Filter {
	set := make(map[string]bool, len(keys))
	for _, k := range keys {
		set[k] = true
	}
	return NewFilter(func(k string) bool { return set[k] })
}

// Union returns a filter admitting what any of fs admits (a nil one is
// left out). Its masks are made from theirs, which each keeps.
func Union(fs ...*Filter) *Filter {
	u := &Filter{}
	for _, f := range fs {
		if f != nil {
			u.of = append(u.of, f)
		}
	}
	return u
}

// masks returns the filter's document masks in s: the live documents of
// the items it admits.
func (f *Filter) masks(s *Snapshot) [][]bool {
	mask, _ := f.at(s)
	return mask
}

// at returns the filter's masks and statistics in s.
func (f *Filter) at(s *Snapshot) ([][]bool, *index.Scope) {
	// A union's parts are read (each kept by its filter) before its own
	// lock is taken, so that no two locks are ever held at once.
	var parts [][][]bool
	if f.allow == nil {
		for _, g := range f.of {
			parts = append(parts, g.masks(s))
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.snap == s {
		return f.mask, f.scope
	}
	mask := make([][]bool, len(s.segs))
	for i, seg := range s.segs {
		m := make([]bool, seg.len())
		if f.allow == nil {
			for _, p := range parts {
				for d, ok := range p[i] {
					m[d] = m[d] || ok
				}
			}
			mask[i] = m
			continue
		}
		for j, k := range seg.items {
			lo, hi := seg.first[j], seg.first[j+1]
			if lo == hi || !s.live[i][lo] || !f.allow(k) {
				continue
			}
			for d := lo; d < hi; d++ {
				m[d] = f.unit == nil || f.unit(seg.unit(d))
			}
		}
		mask[i] = m
	}
	f.snap, f.mask, f.scope = s, mask, s.set.Scope(mask)
	return mask, f.scope
}

// Search returns the k best units for query among the live documents of
// the items f admits, and how many such documents matched, scored with the
// statistics of those documents alone; a nil f admits every live
// document. It is SearchIn(query, k, f, f).
//
// It checks what it reads: the blocks of postings of the query's terms
// and the text of the units it returns. When one is damaged it returns
// an error wrapping ErrDamaged and no hits, and drops the damaged
// segment from the index: the next Ensure extracts its items again.
func (s *Snapshot) Search(query string, k int, f *Filter) ([]Hit, int, error) {
	return s.SearchIn(query, k, f, f)
}

// SearchIn is Search with the statistics — document count, document
// frequencies, average field lengths, and so scores, ranks and passages —
// of the live documents of the items scope admits (every live document
// when scope is nil), so that searches of several filters within one
// scope score alike. f should admit items of the scope only. Nothing
// outside the scope, dead documents of its own items included, changes
// what it returns.
func (s *Snapshot) SearchIn(query string, k int, f, scope *Filter) ([]Hit, int, error) {
	if bad := s.set.Damaged(query); len(bad) > 0 {
		seg := s.segs[bad[0]]
		s.x.damaged(seg.id)
		return nil, 0, fmt.Errorf("%s: %w", segmentName(seg.id), ErrDamaged)
	}
	mask := s.live
	if f != nil {
		mask = f.masks(s)
	}
	sc := s.liveScope()
	if scope != nil {
		_, sc = scope.at(s)
	}
	pq := sc.Query(query)
	sh, total := pq.Search(k, mask)
	w := &weights{scope: sc, text: query, query: pq}
	hits := make([]Hit, len(sh))
	for i, h := range sh {
		seg := s.segs[h.Seg]
		if err := seg.checkText(h.Doc); err != nil {
			s.x.damaged(seg.id)
			return nil, 0, err
		}
		j, _ := slices.BinarySearch(seg.first, h.Doc+1)
		hits[i] = Hit{Key: seg.items[j-1], Unit: seg.unit(h.Doc), Score: h.Score, Norm: h.Norm, w: w}
	}
	s.x.releaseSearched(s.segs)
	return hits, total, nil
}

// Searches release the pages of the segments they read (see release)
// once a second, and sooner, at most every releaseGap, when the process's
// file-backed resident memory has grown by more than
// searchResidentHeadroom since the index was opened: each search reads a
// few blocks and the dictionary of every segment, and with large folios
// each read keeps up to 2 MiB resident, so that without it the searches
// of a process over an index of 30 segments of 48 MiB made most of the
// index resident. A search reading a released page faults it in again
// from the page cache, which costs a few milliseconds a search over 30
// segments; the gap bounds how often searches pay it.
const (
	releaseEvery           = time.Second
	releaseGap             = 50 * time.Millisecond
	searchResidentHeadroom = 64 << 20
)

// releaseSearched releases the pages of segs when a second has passed
// since searches last did, or when the process's file-backed resident
// memory is over its budget and releaseGap has passed; otherwise it plans
// a release a second later. One search at a time does it; the others go
// on.
func (x *Index) releaseSearched(segs []*segment) {
	if !mapsFiles {
		return
	}
	now := time.Now().UnixNano()
	last := x.released.Load()
	if since := time.Duration(now - last); since < releaseEvery {
		if since < x.releaseGap {
			x.releaseLater(segs)
			return
		}
		// The budget is what the process held when it opened the
		// index (the binary, other files), plus the headroom.
		if n, ok := fileResident(); !ok || n <= x.residentBase+x.residentHeadroom {
			x.releaseLater(segs)
			return
		}
	}
	if !x.released.CompareAndSwap(last, now) {
		return
	}
	for _, seg := range segs {
		if seg.mapped {
			release(seg.data)
		}
	}
}

// releaseLater has the pages of segs released a second from now, unless
// that is already planned, so that what the last searches of a turn read
// does not stay resident until the next search. Segments are never
// unmapped once loaded, so releasing them later is safe.
func (x *Index) releaseLater(segs []*segment) {
	if !x.releasePlanned.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(releaseEvery, func() {
		x.releasePlanned.Store(false)
		x.releaseSearched(segs)
	})
}

// damaged drops segment id, found damaged, from the index: the snapshot
// searches use from now on leaves it and its items out, so that they are
// extracted again, and no later snapshot, load or publish of a manifest
// takes it back. Its mapping stays: hits given before may still view it.
func (x *Index) damaged(id uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.bad[id] {
		return
	}
	x.bad[id] = true
	if x.snap != nil {
		x.snap = x.snapshotOf(x.snap.man)
	}
}

// withoutBad returns m without the segments found damaged (and their
// items), m itself when it names none. A running build's manifest may
// still name one until it publishes. Called with x.mu held.
func (x *Index) withoutBad(m *manifest) *manifest {
	for _, id := range m.segs {
		if x.bad[id] {
			m = m.without(id)
		}
	}
	return m
}

// Passage returns the bounds of the best passage of at most maxChars
// characters of the hit's text for query, weighing the query's words by
// their idf in the search's statistics (see index.Scope.Weights).
func (h Hit) Passage(query string, maxChars int) (start, end int) {
	return index.Passage(h.Unit.Text, h.w.of(query), maxChars)
}

// newManifest returns an empty manifest of this index's version.
func (x *Index) newManifest() *manifest {
	m := newManifest()
	m.version = x.version()
	return m
}

// Docs returns the number of live documents of the index in dir, whatever
// version wrote it: a measure for tools and benchmarks.
func Docs(dir string) (int, error) {
	d, err := safefs.OpenDir(dir, 0)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	data, err := d.ReadSealed(manifestName, maxManifest)
	if err != nil {
		return 0, err
	}
	m, err := decodeManifest(data)
	if err != nil {
		return 0, err
	}
	x := Open(Options{Dir: dir, Version: m.version})
	defer x.Close()
	return x.Snapshot().Docs(), nil
}
