package libindex

import (
	"cmp"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/safefs"
)

// build runs the job: it takes the index lock (so one process writes at a
// time), reads the manifest as the last writer left it, extracts the
// queued items on all workers and publishes segments as it goes, merges
// segments when there are too many, and ends when the queue is empty.
func (x *Index) build(job *Job) {
	defer x.builds.Done()
	err := x.runBuild(job)
	x.mu.Lock()
	for err == nil && (len(x.queue) > 0 || len(x.forget) > 0) && x.ctx.Err() == nil {
		// An Ensure queued items after the build found its queue empty
		// and before it ended: it was handed this job and waits for it,
		// so the job takes them in before it is done. Ending it here
		// would let that search answer, as complete, without them.
		x.mu.Unlock()
		err = x.runBuild(job)
		x.mu.Lock()
	}
	if err != nil {
		// Nothing more can be written: what was asked is dropped rather
		// than retried in a loop; the next Ensure asks again.
		clear(x.queue)
		clear(x.forget)
	}
	x.job = nil
	x.checked = time.Time{}
	x.mu.Unlock()
	job.mu.Lock()
	job.err = err
	job.mu.Unlock()
	close(job.done)
}

// writer is a build's hold on the index folder.
type writer struct {
	x   *Index
	dir *safefs.Dir // nil for an index in memory
	man *manifest
}

func (x *Index) runBuild(job *Job) error {
	w := &writer{x: x}
	if x.opts.Dir != "" {
		dir, err := x.dir(true)
		if err != nil {
			return err
		}
		defer dir.Close()
		lock, err := dir.OpenAppend(lockName)
		if err != nil {
			return err
		}
		defer lock.Close()
		if err := lockFile(lock); err != nil {
			return err
		}
		defer unlockFile(lock)
		w.dir = dir
		x.mu.Lock()
		w.man, _ = x.loadManifest(dir)
		x.diskStat = manifestStat(dir)
		x.snap = x.snapshotOf(w.man)
		x.mu.Unlock()
	} else {
		x.mu.Lock()
		w.man = x.memSnapshot().man
		x.mu.Unlock()
	}
	for {
		x.mu.Lock()
		batch := make([]Item, 0, len(x.queue))
		for k, s := range x.queue {
			batch = append(batch, Item{k, s})
			x.inflight[k] = s
		}
		clear(x.queue)
		forget := make([]string, 0, len(x.forget))
		for k := range x.forget {
			forget = append(forget, k)
		}
		clear(x.forget)
		x.mu.Unlock()
		if len(batch) == 0 && len(forget) == 0 {
			break
		}
		if len(forget) > 0 {
			m := w.man.clone()
			for _, k := range forget {
				delete(m.entries, k)
			}
			if err := w.publish(m, nil); err != nil {
				return err
			}
		}
		err := w.index(job, batch)
		x.mu.Lock()
		clear(x.inflight)
		x.mu.Unlock()
		if err != nil {
			return err
		}
	}
	if err := w.merge(); err != nil {
		return err
	}
	w.removeOrphans()
	return nil
}

// memSnapshot returns the snapshot in memory, making an empty one. Called
// with x.mu held.
func (x *Index) memSnapshot() *Snapshot {
	if x.snap == nil {
		x.snap = x.snapshotOf(x.newManifest())
	}
	return x.snap
}

// extracted is one item's units, tokenised.
type extracted struct {
	item  Item
	units []Unit
	toks  []index.Tokenized
	err   string
}

// index extracts the batch's stale items on the workers and adds them to
// segments, published every FlushEvery.
func (w *writer) index(job *Job, batch []Item) error {
	x := w.x
	slices.SortFunc(batch, func(a, b Item) int { return cmp.Compare(a.Key, b.Key) })
	todo := batch[:0]
	for _, it := range batch {
		if e, ok := w.man.entries[it.Key]; ok && e.stamp == it.Stamp {
			job.step(x.opts.Progress, 0) // another process indexed it meanwhile
			continue
		}
		todo = append(todo, it)
	}
	in := make(chan Item)
	out := make(chan extracted, 4*x.opts.Workers)
	var wg sync.WaitGroup
	for range x.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range in {
				done := func() {}
				if x.opts.Yield != nil {
					done = x.opts.Yield(x.ctx)
				}
				units, err := x.opts.Extract(x.ctx, it.Key)
				done()
				if x.ctx.Err() != nil {
					return
				}
				e := extracted{item: it, units: units}
				if err != nil {
					e.err = err.Error()
				}
				e.toks = make([]index.Tokenized, len(units))
				for i, u := range units {
					e.toks[i] = index.Tokenize(index.Doc{Key: unitKey(u), Title: unitTitle(u), Body: unitBody(u)})
				}
				out <- e
			}
		}()
	}
	go func() {
		defer close(in)
		for _, it := range todo {
			select {
			case in <- it:
			case <-x.ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()

	var pend pending
	last := time.Now()
	for e := range out {
		if pend.bytes > 0 && pend.bytes+e.size() > x.opts.BufferBytes {
			// The buffer is full: publish it and start another.
			if err := w.flushAndMerge(&pend); err != nil {
				return err
			}
			last = time.Now()
		}
		if err := pend.add(e); err != nil {
			// The segment is full: publish it and start another.
			if err := w.flushAndMerge(&pend); err != nil {
				return err
			}
			if err := pend.add(e); err != nil {
				return err
			}
		}
		job.step(x.opts.Progress, len(e.units))
		if time.Since(last) >= x.opts.FlushEvery && len(w.man.segs) < earlySegments {
			if err := w.flushAndMerge(&pend); err != nil {
				return err
			}
			last = time.Now()
		}
	}
	if err := x.ctx.Err(); err != nil {
		return err
	}
	return w.flushAndMerge(&pend)
}

// earlySegments is how many segments a build publishes every FlushEvery
// before it publishes only full buffers.
const earlySegments = 4

// flushAndMerge publishes the pending segment and then merges a tier of
// segments that has grown full, if any.
func (w *writer) flushAndMerge(p *pending) error {
	if err := w.flush(p); err != nil {
		return err
	}
	for {
		pick := w.tierMerge()
		if pick == nil {
			return nil
		}
		if err := w.mergeIDs(pick); err != nil {
			return err
		}
	}
}

// size estimates what an extracted item holds in a pending segment: its
// units' text and fields, and its postings (a position and its share of
// a posting, 8 bytes a token).
func (e *extracted) size() int {
	n := 0
	for i, u := range e.units {
		n += len(u.Path) + len(u.Label) + len(u.Section) + len(u.Title) + len(u.Text) + 64
		if i < len(e.toks) {
			n += 8 * e.toks[i].Len()
		}
	}
	return n
}

// segSize is what segment id weighs in a merge: its file's bytes, scaled
// to its live documents.
func (x *Index) segSize(m *manifest, id uint64) int {
	s := x.segs[id]
	if s == nil || s.len() == 0 {
		return 0
	}
	return int(int64(len(s.data)) * int64(x.liveDocs(m, id)) / int64(s.len()))
}

// tierMerge returns the segments of the smallest tier that holds
// SegmentsPerTier of them, to be merged into one no larger than
// MaxSegmentBytes, or nil. Tier t holds segments of floor·8^t to
// floor·8^(t+1) bytes, where floor is an eighth of BufferBytes (smaller
// ones count as floor): as in Lucene's tiered policy, segments are merged
// with others of their size, so that every byte is rewritten about
// log₈(MaxSegmentBytes / floor) times whatever the library's size, and a
// segment of more than half MaxSegmentBytes is never merged again during a
// build.
func (w *writer) tierMerge() []uint64 {
	x := w.x
	m := w.man
	floor := max(x.opts.BufferBytes/8, 1)
	limit := x.opts.MaxSegmentBytes
	tiers := map[int][]uint64{}
	size := map[uint64]int{}
	for _, id := range m.segs {
		sz := x.segSize(m, id)
		if sz > limit/2 {
			continue
		}
		size[id] = sz
		t := 0
		for b := floor * SegmentsPerTier; max(sz, floor) >= b && t < 32; b *= SegmentsPerTier {
			t++
		}
		tiers[t] = append(tiers[t], id)
	}
	for t := range 33 {
		ids := tiers[t]
		if len(ids) < SegmentsPerTier {
			continue
		}
		slices.SortStableFunc(ids, func(a, b uint64) int { return cmp.Compare(size[a], size[b]) })
		if pick := withinLimit(ids[:SegmentsPerTier], size, limit); len(pick) >= 2 {
			return pick
		}
	}
	return nil
}

// withinLimit returns the first of ids (by ascending size) whose sizes
// add up to at most limit.
func withinLimit(ids []uint64, size map[uint64]int, limit int) []uint64 {
	sum := 0
	for i, id := range ids {
		sum += size[id]
		if sum > limit {
			return ids[:i]
		}
	}
	return ids
}

// unitTitle is what a unit's title is indexed from: its Title, none for a
// mark, found by its own words (its Title is its document's, kept for its
// card, and would weigh on the title statistics of the document's pages).
func unitTitle(u Unit) string {
	if u.Mark != "" {
		return ""
	}
	return u.Title
}

// unitBody is what a unit's body is indexed from: its text after the
// title line, and a mark's comment after the text it marks.
func unitBody(u Unit) string {
	body := u.Text[min(max(u.BodyStart, 0), len(u.Text)):]
	if u.Comment != "" {
		body += "\n" + u.Comment
	}
	return body
}

// unitKey is a unit's key in the index: ties in score break by it. A mark's
// key comes before its page's, as the closer answer among equals.
func unitKey(u Unit) string {
	k := u.Path + "#" + u.Section
	if u.Page > 0 {
		k = u.Path + "#page=" + pad6(u.Page)
	}
	if u.Mark != "" {
		k = u.Path + "#!mark" + k[len(u.Path):]
	}
	return k
}

func pad6(n int) string {
	b := []byte("000000")
	for i := 5; i >= 0 && n > 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}

// pending is a segment being built.
type pending struct {
	b      index.Builder
	items  []string
	first  []int
	units  []Unit
	failed map[string]entry // items with no units
	stamps map[string]string
	bytes  int // the estimated size of what it holds (see extracted.size)
}

func (p *pending) add(e extracted) error {
	if p.stamps == nil {
		p.stamps, p.failed, p.first = map[string]string{}, map[string]entry{}, []int{0}
	}
	if len(e.units) == 0 {
		p.failed[e.item.Key] = entry{stamp: e.item.Stamp, err: e.err}
		return nil
	}
	for i, t := range e.toks {
		if err := p.b.AddTokenized(t); err != nil {
			if i == 0 {
				return err
			}
			// A single item past the limit keeps what fits.
			break
		}
		p.units = append(p.units, e.units[i])
	}
	p.items = append(p.items, e.item.Key)
	p.first = append(p.first, len(p.units))
	p.bytes += e.size()
	p.stamps[e.item.Key] = e.item.Stamp
	if e.err != "" {
		p.failed[e.item.Key] = entry{stamp: e.item.Stamp, err: e.err}
	}
	return nil
}

// flush writes the pending segment and a manifest that points its items at
// it, and publishes the new snapshot.
func (w *writer) flush(p *pending) error {
	if len(p.items) == 0 && len(p.failed) == 0 {
		return nil
	}
	m := w.man.clone()
	var seg *segment
	if len(p.items) > 0 {
		id := m.next
		m.next++
		ix := p.b.Index()
		var err error
		seg, err = w.writeSegment(id, p.items, p.first, p.units, ix)
		if err != nil {
			return err
		}
		m.segs = append(m.segs, id)
		for _, k := range p.items {
			m.entries[k] = entry{stamp: p.stamps[k], seg: id}
		}
	}
	for k, e := range p.failed {
		if cur, ok := m.entries[k]; ok && cur.stamp == e.stamp && cur.seg != 0 {
			cur.err = e.err
			m.entries[k] = cur
			continue
		}
		m.entries[k] = e
	}
	*p = pending{}
	var add []*segment
	if seg != nil {
		add = append(add, seg)
	}
	return w.publish(m, add)
}

// writeSegment writes a segment file, streaming it (see writeSegmentTo),
// and loads it back, mapped.
func (w *writer) writeSegment(id uint64, items []string, first []int, units []Unit, ix *index.Index) (*segment, error) {
	if w.dir == nil {
		data, err := encodeSegment(items, first, units, ix)
		if err != nil {
			return nil, err
		}
		return decodeSegment(id, data)
	}
	err := w.dir.WriteSealedFunc(segmentName(id), func(f io.Writer) error {
		return writeSegmentTo(f, items, first, units, ix)
	})
	if err != nil {
		return nil, err
	}
	return readSegment(w.dir, id)
}

// publish writes m as the manifest (segments first, then the manifest, so
// a reader never meets a manifest naming a segment not yet written) and
// makes it the snapshot searches use.
func (w *writer) publish(m *manifest, add []*segment) error {
	x := w.x
	x.mu.Lock()
	m = x.withoutBad(m)
	x.mu.Unlock()
	if w.dir != nil {
		if err := w.dir.WriteSealed(manifestName, m.encode()); err != nil {
			return err
		}
	}
	x.mu.Lock()
	for _, s := range add {
		x.segs[s.id] = s
	}
	w.man = m
	x.snap = x.snapshotOf(m)
	if w.dir != nil {
		x.diskStat = manifestStat(w.dir)
	}
	mapped := make([][]byte, 0, len(x.segs))
	for _, s := range x.segs {
		if s.mapped {
			mapped = append(mapped, s.data)
		}
	}
	x.mu.Unlock()
	// What the build and the searches since the last publish read of the
	// mapped segments (heads when a segment is loaded, a merge's inputs,
	// the blocks and texts of hits) leaves the resident set: it stays in
	// the page cache, and a later read faults it in again cheaply. So a
	// build's resident set does not grow with the index it writes (see
	// release).
	for _, data := range mapped {
		release(data)
	}
	return nil
}

// liveDocs counts the documents of segment id that manifest m still points
// at.
func (x *Index) liveDocs(m *manifest, id uint64) int {
	s := x.segs[id]
	n := 0
	for i, k := range s.items {
		if m.entries[k].seg == id {
			n += s.first[i+1] - s.first[i]
		}
	}
	return n
}

// merge drops segments with no live document and, while there are more
// than MaxSegments, merges the smaller half of them (and one more) into
// one, keeping only live documents and writing no segment larger than
// MaxSegmentBytes.
func (w *writer) merge() error {
	x := w.x
	m := w.man
	var keep []uint64
	dropped := false
	for _, id := range m.segs {
		if x.liveDocs(m, id) == 0 {
			dropped = true
			continue
		}
		keep = append(keep, id)
	}
	if dropped {
		m = m.clone()
		m.segs = keep
		if err := w.publish(m, nil); err != nil {
			return err
		}
	}
	for len(w.man.segs) > x.opts.MaxSegments {
		m := w.man
		size := map[uint64]int{}
		for _, id := range m.segs {
			size[id] = x.segSize(m, id)
		}
		bySize := slices.Clone(m.segs)
		slices.SortStableFunc(bySize, func(a, b uint64) int { return cmp.Compare(size[a], size[b]) })
		pick := withinLimit(bySize[:len(bySize)/2+1], size, x.opts.MaxSegmentBytes)
		if len(pick) < 2 {
			return nil // the segments are as large as a merge may write
		}
		if err := w.mergeIDs(pick); err != nil {
			return err
		}
	}
	return nil
}

// mergeIDs merges the segments pick into one, keeping only live
// documents, in the order of the manifest. It reads the segments' mapped
// pages and then releases them from memory: a build keeps in its resident
// set what it merges now, not what it has merged.
func (w *writer) mergeIDs(pick []uint64) error {
	x := w.x
	m := w.man
	picked := map[uint64]bool{}
	for _, id := range pick {
		picked[id] = true
	}
	var segs []*index.Index
	var keepMask [][]bool
	var items []string
	first := []int{0}
	var units []Unit
	stamps := map[string]entry{}
	var inputs []*segment
	for _, id := range m.segs { // oldest first, as documents were added
		if !picked[id] {
			continue
		}
		s := x.segs[id]
		// A merge reads all of a segment: check all of it first, and
		// leave a damaged one to be extracted again.
		if err := s.verify(); err != nil {
			x.damaged(id)
			return err
		}
		mask := make([]bool, s.len())
		for i, k := range s.items {
			e := m.entries[k]
			if e.seg != id {
				continue
			}
			for d := s.first[i]; d < s.first[i+1]; d++ {
				mask[d] = true
			}
			items = append(items, k)
			for d := s.first[i]; d < s.first[i+1]; d++ {
				units = append(units, *s.unit(d))
			}
			first = append(first, len(units))
			stamps[k] = e
		}
		segs = append(segs, s.ix)
		keepMask = append(keepMask, mask)
		inputs = append(inputs, s)
	}
	nm := m.clone()
	id := nm.next
	nm.next++
	seg, err := w.writeSegment(id, items, first, units, index.Merge(segs, keepMask))
	for _, s := range inputs {
		if s.mapped {
			release(s.data)
		}
	}
	if err != nil {
		return err
	}
	nm.segs = nm.segs[:0]
	for _, old := range m.segs {
		if !picked[old] {
			nm.segs = append(nm.segs, old)
		}
	}
	nm.segs = append(nm.segs, id)
	for k, e := range stamps {
		e.seg = id
		nm.entries[k] = e
	}
	x.merges.Add(1)
	if err := w.publish(nm, []*segment{seg}); err != nil {
		return err
	}
	// The inputs' files go now, not when the build ends: a long build of
	// a large library would otherwise hold every segment it merged away,
	// on disk and in x.segs.
	w.removeOrphans()
	return nil
}

// removeOrphans deletes segment files the manifest does not list: merged
// away, or left by a build that stopped. Readers that mapped one keep
// their mapping.
func (w *writer) removeOrphans() {
	if w.dir == nil {
		return
	}
	listed := map[uint64]bool{}
	for _, id := range w.man.segs {
		listed[id] = true
	}
	des, err := os.ReadDir(w.x.opts.Dir)
	if err != nil {
		return
	}
	for _, de := range des {
		if id, ok := parseSegmentName(de.Name()); ok && !listed[id] {
			_ = w.dir.Remove(de.Name())
		}
	}
	w.x.mu.Lock()
	for id := range w.x.segs {
		if !listed[id] {
			delete(w.x.segs, id)
		}
	}
	w.x.mu.Unlock()
}
