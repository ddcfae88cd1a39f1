package zotero

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// unitsVersion changes whenever what goes into an item's search units
// changes, so that an index built the old way is rebuilt rather than
// misread.
const unitsVersion = "zotero-units-1"

// defaultIndexWait is how long a search waits for the library index by
// default before it answers from what is indexed so far.
const defaultIndexWait = 3 * time.Second

// testHookExtract, when set by a test, is called before an item's units
// are extracted for the index, so that a test can hold a build up.
var testHookExtract func(key string)

// libIndex returns the library index of the data directory, kept under
// the cache folder's "index" folder (in memory when there is no cache
// folder). Its items are the regular items, standalone notes and
// standalone attachments of every library of the data directory, keyed
// by library prefix and key (as Snapshot.byKey).
func (l *Library) libIndex() *libindex.Index {
	l.ixOnce.Do(func() {
		dir := ""
		if l.cacheDir != "" {
			dir = filepath.Join(l.cacheDir, "index")
		}
		// The OCR engine too: an index built with another (or none) is
		// built again, its scans' text read by the one now configured.
		engine := "none"
		if eng, _ := l.pdfs.ocrEngine(); eng != nil {
			engine = eng.ID()
		}
		l.ix = libindex.Open(libindex.Options{Dir: dir, Extract: l.extract, Version: unitsVersion + ":" + engine,
			Yield: l.calls.YieldBuild})
	})
	return l.ix
}

// extract returns the search units of a top-level item: its record, its
// notes, its attachments' text and its annotations. Attachments that
// cannot be read are the item's failure, one per line (see skipsOf); the
// units of the rest are still indexed. An item no longer in the library
// (deleted, or in the trash) has none.
func (l *Library) extract(ctx context.Context, key string) ([]libindex.Unit, error) {
	if testHookExtract != nil {
		testHookExtract(key)
	}
	l.pendMu.Lock()
	snap := l.pending[key]
	if snap != nil {
		delete(l.pending, key)
	}
	l.pendMu.Unlock()
	if snap == nil {
		// Queued by a search whose entry a later one replaced or
		// cleared: the latest snapshot is at least as new.
		snap = l.last()
	}
	if snap == nil {
		return nil, nil
	}
	it := snap.byKey[key]
	if it == nil {
		return nil, nil
	}
	us, skips, err := snap.itemUnits(ctx, it)
	if err != nil {
		return nil, err
	}
	out := units.IndexUnits(us)
	if len(skips) > 0 {
		var b strings.Builder
		for _, sk := range skips {
			b.WriteString(sk.Path + "\t" + textnorm.Line(sk.Reason) + "\n")
		}
		return out, errors.New(b.String())
	}
	return out, nil
}

// skipsOf decodes an index failure written by extract.
func skipsOf(failure string) []sources.Skip {
	var out []sources.Skip
	for _, line := range strings.Split(failure, "\n") {
		p, why, ok := strings.Cut(line, "\t")
		if ok && strings.HasPrefix(p, "zotero:") {
			out = append(out, sources.Skip{Path: p, Reason: why})
		}
	}
	return out
}

// itemUnits returns the search units of a top-level item and the
// attachments of it that cannot be read, with why.
func (s *Snapshot) itemUnits(ctx context.Context, it *Item) ([]units.Unit, []sources.Skip, error) {
	var us []units.Unit
	var skips []sources.Skip
	title := textnorm.Line(it.Title())
	if doc, err := s.read(ctx, it); err == nil {
		us = append(us, units.Of(doc)...)
		if title == "" {
			title = doc.Title
		}
	}
	for _, c := range s.children(it) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if c.isNote() {
			if doc, err := s.read(ctx, c); err == nil {
				us = append(us, units.Of(doc)...)
			}
			continue
		}
		if c.linkMode == linkLinkedURL {
			continue
		}
		doc, err := s.read(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			skips = append(skips, sources.Skip{Path: s.path(c), Reason: skipReason(err)})
		} else {
			us = append(us, units.Of(doc)...)
		}
	}
	us = append(us, units.OfMarks(s.marks(ctx, it).Marks, title)...)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return us, skips, nil
}

// skipReason says why an attachment was not searched.
func skipReason(err error) string {
	var u *units.UnreadableError
	if errors.As(err, &u) {
		return u.Error()
	}
	return reasonOf(err)
}

// scopeIndex is a scope's items in one snapshot, with the filter that
// narrows the library index to them (its masks kept between searches).
type scopeIndex struct {
	snap   *Snapshot
	items  []*Item
	keys   []string // the items' keys in the index
	filter *libindex.Filter
}

// newScopeIndex returns the scope index of items of snap.
func newScopeIndex(snap *Snapshot, items []*Item) *scopeIndex {
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = snap.key(it)
	}
	return &scopeIndex{snap: snap, items: items, keys: keys, filter: libindex.KeySet(keys)}
}

// key is a top-level item's key in the library index.
func (s *Snapshot) key(it *Item) string { return s.libPrefix(it.libraryID) + it.Key }

// Search finds q in the items the source holds: their records (metadata
// and abstract), notes, annotations (text and comment) and the pages of
// their PDF attachments, through the data directory's library index
// narrowed to them. Items whose stamp changed since they were indexed
// are indexed again; while the index takes them in, a search waits at
// most the library's index wait and then answers from what is indexed,
// saying so in sources.Results.Indexing. An attachment that cannot be
// read (missing, refused, damaged) is listed in Skipped with why.
func (s *Source) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	start := time.Now()
	snap, sc, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	st := s.sx
	if st == nil || st.snap != snap {
		st = newScopeIndex(snap, snap.tops(sc))
		s.sx = st
	}
	s.mu.Unlock()
	return s.l.search(ctx, start, st, q)
}

// search searches the library index over a scope's items, having them
// indexed at their current stamps first (see Source.Search).
func (l *Library) search(ctx context.Context, start time.Time, st *scopeIndex, q sources.Query) (*sources.Results, error) {
	ctx, end := l.calls.Begin(ctx) // the background yields to it
	defer end()
	x := l.libIndex()
	snap := st.snap
	items := make([]libindex.Item, len(st.items))
	for i, it := range st.items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items[i] = libindex.Item{Key: st.keys[i], Stamp: snap.stamp(it)}
	}
	// The items to extract are read from the snapshot their stamps were
	// taken in.
	before := x.Snapshot()
	l.pendMu.Lock()
	if x.Running() == nil {
		// Nothing waits to be extracted: the snapshots kept for the
		// items queued before (forgotten since, or a build stopped)
		// are let go.
		clear(l.pending)
	}
	for _, it := range items {
		if stamp, _, ok := before.Status(it.Key); !ok || stamp != it.Stamp {
			if l.pending == nil {
				l.pending = map[string]*Snapshot{}
			}
			l.pending[it.Key] = snap
		}
	}
	l.pendMu.Unlock()
	var indexing *sources.Indexing
	if job := x.Ensure(items, "", nil); !isClosed(job.Done()) {
		// The build this call waits for is not held back for it.
		resume := l.calls.Pause(ctx)
		t := time.NewTimer(max(time.Until(start.Add(l.wait)), 0))
		select {
		case <-job.Done():
		case <-t.C:
			d, n := job.Progress()
			indexing = &sources.Indexing{Done: d, Total: n}
		case <-ctx.Done():
			t.Stop()
			resume()
			return nil, ctx.Err()
		}
		t.Stop()
		resume()
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	xs := x.Snapshot()
	hits, total, err := xs.Search(q.Text, 2*limit, st.filter) // room for the marks left out
	if errors.Is(err, libindex.ErrDamaged) {
		// The damaged segment is dropped and its items extracted again;
		// no search reads it twice, so this ends.
		return l.search(ctx, start, st, q)
	}
	if err != nil {
		return nil, err
	}
	res := units.Results(hits, total, limit, q)
	l.markOCR(ctx, snap, res.Hits)
	for _, it := range items {
		if stamp, failure, ok := xs.Status(it.Key); ok && stamp == it.Stamp && failure != "" {
			res.Skipped = append(res.Skipped, skipsOf(failure)...)
		}
	}
	sort.Slice(res.Skipped, func(i, j int) bool { return res.Skipped[i].Path < res.Skipped[j].Path })
	if indexing != nil {
		res.Indexing, res.Truncated = indexing, true
	}
	l.forgetGone(snap, xs)
	return res, nil
}

// markOCR marks the hits on pages whose text was recognised by OCR with
// the engine's confidence, as a read marks them, from the OCR cache only:
// a search never waits for the engine.
func (l *Library) markOCR(ctx context.Context, snap *Snapshot, hits []sources.Hit) {
	eng, _ := l.pdfs.ocrEngine()
	if eng == nil {
		return
	}
	conf := map[string]map[int]float64{} // by PDF: the recognised pages' confidence
	for i := range hits {
		h := &hits[i]
		if h.Page <= 0 {
			continue
		}
		m, ok := conf[h.Path]
		if !ok {
			m = map[int]float64{}
			if a := snap.item(h.Path); a != nil && a.isPDF() {
				if fr, err := l.locate(a); err == nil {
					if ref, err := l.pdfs.ocrRef(ctx, h.Path, fr, eng.ID()); err == nil {
						for n, p := range l.pdfs.ocr.store.Load(ref) {
							if p.Text != "" {
								m[n] = p.Confidence
							}
						}
					}
				}
			}
			conf[h.Path] = m
		}
		if c, ok := m[h.Page]; ok {
			h.OCR = &sources.OCR{Confidence: c}
		}
	}
}

// forgetGone drops from the index, once per snapshot, the items that are
// no longer in the library (deleted, or in the trash), so that their text
// does not stay in the index; a filter already leaves them out of every
// search.
func (l *Library) forgetGone(snap *Snapshot, xs *libindex.Snapshot) {
	if l.forgot.Swap(snap) == snap {
		return
	}
	var gone []string
	xs.Keys(func(k string) {
		if it := snap.byKey[k]; it == nil || snap.top(it) != it {
			gone = append(gone, k)
		}
	})
	l.libIndex().Forget(gone)
}

// isClosed reports whether c is closed, without waiting.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// stamp is what an item's search units depend on: its part in the
// snapshot (see modelStamp) and the size and modification time of its
// attachments' files now.
func (s *Snapshot) stamp(it *Item) string {
	m := s.modelStamp(it)
	var files []byte
	for _, c := range s.children(it) {
		if c.isAttachment() && c.linkMode != linkLinkedURL {
			files = append(files, c.Key+"="+s.lib.fileStamp(c)+";"...)
		}
	}
	if len(files) == 0 {
		return m
	}
	sum := sha256.Sum256(append([]byte(m+"\x00"), files...))
	return hex.EncodeToString(sum[:16])
}

// modelStamp is a hash of what the snapshot holds of a top-level item
// and what hangs on it: its record, its collections' names, its notes,
// attachments and their annotations. It is computed once per snapshot.
func (s *Snapshot) modelStamp(it *Item) string {
	l := s.lib
	l.stampMu.Lock()
	m, ok := l.stamps[it]
	l.stampMu.Unlock()
	if ok {
		return m
	}
	sum := sha256.Sum256(s.appendItem(nil, it))
	m = hex.EncodeToString(sum[:16])
	l.stampMu.Lock()
	if l.stampSnap != s {
		// Kept for the latest snapshot only: its items are the ones
		// searched from now on.
		l.stampSnap, l.stamps = s, map[*Item]string{}
	}
	l.stamps[it] = m
	l.stampMu.Unlock()
	return m
}

// fileStamp is the size and modification time of an attachment's file,
// or why it is not read. Only the stamp is taken from it, never a path.
func (l *Library) fileStamp(a *Item) string {
	ref, err := l.locate(a)
	if err != nil {
		return "!" + err.Error()
	}
	st, err := os.Stat(filepath.Join(ref.root, filepath.FromSlash(ref.rel)))
	if err != nil {
		return "-"
	}
	return strconv.FormatInt(st.Size(), 10) + ":" + strconv.FormatInt(st.ModTime().UnixNano(), 10) + ":" + st.Mode().String()
}

// appendItem appends what the snapshot holds of a top-level item and
// what hangs on it to b, each value ended by a NUL.
func (s *Snapshot) appendItem(b []byte, it *Item) []byte {
	str := func(v string) {
		b = append(b, v...)
		b = append(b, 0)
	}
	num := func(v int) {
		b = strconv.AppendInt(b, int64(v), 10)
		b = append(b, 0)
	}
	var names []string
	var one func(it *Item, depth int)
	one = func(it *Item, depth int) {
		str(it.Key)
		str(it.Type)
		if it.trashed {
			str("trashed")
		}
		names = names[:0]
		for k := range it.Fields {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			str(k)
			str(it.Fields[k])
		}
		num(len(it.Creators))
		for _, c := range it.Creators {
			str(c.Type)
			str(c.FirstName)
			str(c.LastName)
		}
		num(len(it.Tags))
		for _, t := range it.Tags {
			str(t)
		}
		num(it.linkMode)
		num(it.annType)
		for _, v := range []string{it.contentType, it.filePath, it.noteHTML, it.noteTitle,
			it.annText, it.annCmt, it.annColor, it.annLabel, it.annAuthor, it.annSort, it.annPos} {
			str(v)
		}
		if depth < 3 {
			for _, c := range it.children {
				str("child")
				one(c, depth+1)
			}
		}
		str("end")
	}
	for _, c := range s.collNames(it) {
		str(c)
	}
	str("item")
	one(it, 0)
	return b
}
