package vault

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// Directory limits.
const (
	// defaultScanFiles is how many files a directory search reads when the
	// query sets no cap.
	defaultScanFiles = 10000
	// maxScanDepth bounds how deep a directory search descends.
	maxScanDepth = 16
)

// restamp is how long a directory's scan is trusted before a search starts
// a rescan in the background (a variable for tests).
var restamp = 2 * time.Second

// Directory is a granted folder. Its text files and loose PDFs, at any depth
// within the scan caps, are searched (a PDF page by page, see PDF); the
// papers inside it (an organisation folder of papers) are searched through
// their paper sources. Reading it lists one level; reading a file inside it
// gives that file's text.
type Directory struct {
	lib *Library
	ref string

	mu         sync.Mutex
	state      *dirState // what searches use; nil before the first
	refreshing bool      // a background rescan is running
	// build is held (a value in it) while the directory is scanned, so
	// that scans are not run twice at once; a search waiting for another's
	// scan gives up when its context ends (see lockBuild).
	build chan struct{}
}

// dirState is one scan of a directory and the index built from it.
type dirState struct {
	scanCap   int
	scanned   time.Time
	stamp     string
	truncated bool
	items     []libindex.Item  // the text files and papers inside, as index items
	filter    *libindex.Filter // admits items
	took      time.Duration    // how long the scan took
	// provisional: papers already indexed were stamped from the index,
	// not from their files (the first scan of a process); a rescan starts
	// as soon as the first search over it has answered (checkLater).
	provisional bool
	// ensured is the last snapshot in which every item was found indexed
	// at its stamp: until the index changes, searches skip that check.
	ensured atomic.Pointer[libindex.Snapshot]
}

func (l *Library) newDirectory(ref string) (*Directory, error) {
	return &Directory{lib: l, ref: ref, build: make(chan struct{}, 1)}, nil
}

// Info implements sources.Source.
func (d *Directory) Info() sources.Info {
	return sources.Info{Path: d.ref, Kind: grant.KindDirectory, Title: path.Base(d.ref)}
}

// inside returns p relative to the directory, or a sources.ErrOutside error.
func (d *Directory) inside(p string) (string, error) {
	switch {
	case p == "" || p == d.ref:
		return ".", nil
	case d.ref == ".":
		return p, nil
	case strings.HasPrefix(p, d.ref+"/"):
		return p[len(d.ref)+1:], nil
	}
	return "", outsideErr(p, d.ref)
}

// view returns the safe view confined to the directory: symbolic links that
// leave it are refused even when they stay inside the Vault.
func (d *Directory) view() (*safefs.FS, error) {
	if d.ref == "." {
		return d.lib.v.FS(), nil
	}
	sub, err := d.lib.v.FS().Sub(d.ref)
	if err != nil {
		return nil, fsErr(err)
	}
	return sub, nil
}

func closeView(d *Directory, f *safefs.FS) {
	if d.ref != "." {
		f.Close()
	}
}

// Read implements sources.Source: a file inside the directory (or inside a paper in
// it); a PDF outside any paper is read page by page, as its PDF source reads
// it. The directory itself, or a folder in it, is a sources.ErrIsDirectory error:
// list it instead.
func (d *Directory) Read(ctx context.Context, p string) (*sources.Document, error) {
	ctx, end := d.lib.calls.Begin(ctx) // the background yields to it
	defer end()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := d.inside(p)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, fmt.Errorf("%w: %s", sources.ErrIsDirectory, d.ref)
	}
	full := path.Join(d.ref, rel)
	if src, sub, err := d.paperAt(ctx, full); err != nil || src != nil {
		if err != nil {
			return nil, err
		}
		return src.Read(ctx, sub)
	}
	f, err := d.view()
	if err != nil {
		return nil, err
	}
	defer closeView(d, f)
	st, err := f.Stat(rel)
	if err != nil {
		return nil, fsErr(err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%w: %s", sources.ErrIsDirectory, full)
	}
	if isPDF(full) {
		src, err := d.lib.Open(ctx, grant.KindFile, full)
		if err != nil {
			return nil, fsErr(err)
		}
		return src.Read(ctx, "")
	}
	text, err := f.ReadText(rel, 0)
	if err != nil {
		return nil, fsErr(err)
	}
	return units.TextDocument(full, text), nil
}

// paperAt returns the source of the paper unit inside the directory that
// holds p, and the path to ask it for ("" for the paper itself); nil when
// no paper of the directory holds p.
func (d *Directory) paperAt(ctx context.Context, p string) (src *Paper, sub string, err error) {
	cat, err := d.lib.v.Catalogue(ctx)
	if err != nil {
		return nil, "", err
	}
	paper := cat.PaperOf(p)
	if paper == nil {
		return nil, "", nil
	}
	if _, err := d.inside(paper.Ref); err != nil || paper.Ref == d.ref {
		// The directory is inside the paper, or is the paper: plain files.
		return nil, "", nil
	}
	if src, err = d.lib.paperSource(ctx, paper.Ref); err != nil {
		return nil, "", err
	}
	if p != paper.Ref {
		sub = p
	}
	return src, sub, nil
}

// List implements sources.Lister: one level, folders first, then files, each in
// name order; hidden entries and .agentero never appear.
func (d *Directory) List(ctx context.Context, p string, max int) ([]sources.Entry, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	rel, err := d.inside(p)
	if err != nil {
		return nil, false, err
	}
	f, err := d.view()
	if err != nil {
		return nil, false, err
	}
	defer closeView(d, f)
	st, err := f.Stat(rel)
	if err != nil {
		return nil, false, fsErr(err)
	}
	if !st.IsDir() {
		return nil, false, fmt.Errorf("%w: %s is not a folder", sources.ErrUnsupported, path.Join(d.ref, rel))
	}
	des, err := f.ReadDir(rel)
	if err != nil {
		return nil, false, fsErr(err)
	}
	cat, err := d.lib.v.Catalogue(ctx)
	if err != nil {
		return nil, false, err
	}
	entries := make([]sources.Entry, 0, len(des))
	for _, de := range des {
		full := path.Join(d.ref, rel, de.Name())
		e := sources.Entry{Name: de.Name(), Path: full, Kind: grant.KindFile}
		switch {
		case de.IsDir() && cat.Paper(full) != nil:
			e.Kind = grant.KindPaper
		case de.IsDir():
			e.Kind = grant.KindDirectory
		default:
			if info, err := de.Info(); err == nil {
				e.Size = info.Size()
			}
		}
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		di, dj := entries[i].Kind != grant.KindFile, entries[j].Kind != grant.KindFile
		if di != dj {
			return di
		}
		return entries[i].Name < entries[j].Name
	})
	truncated := false
	if max > 0 && len(entries) > max {
		entries, truncated = entries[:max], true
	}
	return entries, truncated, nil
}

// Search implements sources.Source: the text files of the directory and the papers
// inside it, through the library index filtered to them. While the index
// takes in what it lacks, a search waits at most the library's IndexWait
// and then answers from what is indexed, saying so in sources.Results.Indexing.
func (d *Directory) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	ctx, end := d.lib.calls.Begin(ctx) // the background yields to it
	defer end()
	start := time.Now()
	scanCap := q.ScanFiles
	if scanCap <= 0 {
		scanCap = defaultScanFiles
	}
	st, err := d.current(ctx, scanCap)
	if err != nil {
		return nil, err
	}
	// The rescan that checks a provisional state starts once this search
	// has answered: on a small machine it would otherwise take the cores
	// the first answer of a new process waits for.
	defer d.checkAfter(ctx, st)
	res, err := d.lib.idx.searchAt(ctx, start, st.items, st.filter, q, d.ref, &st.ensured)
	if err != nil {
		return nil, err
	}
	if st.provisional {
		stale, err := d.confirmHits(ctx, st, res)
		if err != nil {
			return nil, err
		}
		if stale {
			// The index is behind the papers (copied or synced with the
			// Vault, or extracted by another version): stamp every paper
			// now and answer as a build does, from what is indexed within
			// the wait and saying how far the index is, rather than with
			// what was left of the hits.
			if now, err := d.rescanNow(ctx, st); err == nil {
				st = now
				if res, err = d.lib.idx.searchAt(ctx, start, st.items, st.filter, q, d.ref, &st.ensured); err != nil {
					return nil, err
				}
			}
		}
	}
	res.Truncated = res.Truncated || st.truncated
	return res, nil
}

// rescanNow replaces a provisional state by a scan that stamps every paper
// from its files, and returns it.
func (d *Directory) rescanNow(ctx context.Context, prev *dirState) (*dirState, error) {
	if err := d.lockBuild(ctx); err != nil {
		return nil, err
	}
	st, err := d.load(ctx, prev.scanCap, prev)
	d.unlockBuild()
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	if d.state == prev {
		d.state = st
	}
	d.mu.Unlock()
	return st, nil
}

// confirmHits checks the hits of a provisional state against the papers
// they are from: a paper whose stamp was taken from the library index
// (the first scan of a process) is stat'ed now, and its hits are dropped
// when the index's stamp is not the paper's own, so that an index copied,
// synced or forged with the Vault is never answered from, not even by the
// first search. The rescan under way re-extracts such a paper; the result
// says it is partial meanwhile. Only the papers of the hits are stat'ed,
// so the first search stays fast. stale reports a hit dropped.
func (d *Directory) confirmHits(ctx context.Context, st *dirState, res *sources.Results) (stale bool, err error) {
	stamps := make(map[string]string) // paper ref → the stamp searched
	for _, it := range st.items {
		if ref, ok := strings.CutPrefix(it.Key, paperItem); ok {
			stamps[ref] = it.Stamp
		}
	}
	checked := make(map[string]bool) // paper ref → its stamp holds
	kept := res.Hits[:0]
	for _, h := range res.Hits {
		ref := ""
		for p := path.Dir(h.Path); p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if _, ok := stamps[p]; ok {
				ref = p
				break
			}
		}
		if ref == "" {
			kept = append(kept, h) // a text file: stamped from its stat
			continue
		}
		ok, seen := checked[ref]
		if !seen {
			src, err := d.lib.paperSource(ctx, ref)
			if err := ctx.Err(); err != nil {
				return false, err
			}
			ok = err == nil && src.stamp() == stamps[ref]
			checked[ref] = ok
		}
		if ok {
			kept = append(kept, h)
			continue
		}
		res.Total--
		res.Truncated = true
		stale = true
	}
	res.Hits = kept
	res.Total = max(res.Total, len(kept))
	return stale, nil
}

// current returns the state searches use. The first search scans and
// indexes (or loads the index cache); later ones answer from the state in
// hand, and one that finds it older than restamp starts a rescan in the
// background, so no search waits for a walk of a large tree.
func (d *Directory) current(ctx context.Context, scanCap int) (*dirState, error) {
	d.mu.Lock()
	st := d.state
	if st != nil && st.scanCap == scanCap {
		// A large folder is rescanned less often: at most a tenth of the
		// time goes to rescans.
		if time.Since(st.scanned) >= max(restamp, 10*st.took) && !d.refreshing {
			d.refreshing = d.lib.background(func() { d.refresh(st) })
		}
		d.mu.Unlock()
		return st, nil
	}
	d.mu.Unlock()

	if err := d.lockBuild(ctx); err != nil {
		return nil, err
	}
	defer d.unlockBuild()
	d.mu.Lock()
	st = d.state
	d.mu.Unlock()
	if st != nil && st.scanCap == scanCap {
		return st, nil // another search built it meanwhile
	}
	st, err := d.load(ctx, scanCap, nil)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.state = st
	d.mu.Unlock()
	return st, nil
}

// checkAfter has checkLater run once the call that searched has answered:
// when ctx ends, as a tool call's does as it returns, after the cards and
// the usage record the search left to make, which a check started
// earlier would take the cores from; at once for a context that never
// ends, and at most answerWait later for one that outlives the call.
func (d *Directory) checkAfter(ctx context.Context, st *dirState) {
	if ctx.Done() == nil {
		d.checkLater(st)
		return
	}
	var once sync.Once
	start := func() { once.Do(func() { d.checkLater(st) }) }
	stop := context.AfterFunc(ctx, start)
	time.AfterFunc(answerWait, func() {
		if stop() {
			start()
		}
	})
}

// answerWait bounds how long checkAfter waits for the context of the call
// that searched to end, for a caller whose context outlives its calls.
var answerWait = 100 * time.Millisecond

// checkLater starts the checks a first answer did not wait for: the
// catalogue's of the papers (see LibraryOptions.CheckPapersLater), and the
// rescan that checks a provisional state (see dirState.provisional),
// unless one runs or st is no longer current.
func (d *Directory) checkLater(st *dirState) {
	d.lib.v.CheckPapers()
	if !st.provisional {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == st && !d.refreshing {
		d.refreshing = d.lib.background(func() { d.refresh(st) })
	}
}

// refresh rescans in the background and swaps in the new state.
func (d *Directory) refresh(prev *dirState) {
	st, err := prev, d.lockBuild(d.lib.bgCtx)
	if err == nil {
		st, err = d.load(d.lib.bgCtx, prev.scanCap, prev)
		d.unlockBuild()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refreshing = false
	if err == nil && d.state == prev {
		d.state = st
	}
}

// lockBuild takes the right to scan the directory, waiting for another
// scan no longer than ctx allows.
func (d *Directory) lockBuild(ctx context.Context) error {
	select {
	case d.build <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *Directory) unlockBuild() { <-d.build }

// load scans the directory and returns its state. The items the library
// index holds under the directory that the scan no longer finds (a paper
// or file removed) are dropped from the index, unless the scan was cut
// short.
func (d *Directory) load(ctx context.Context, scanCap int, prev *dirState) (*dirState, error) {
	var trusted chan *libindex.Snapshot
	if prev == nil {
		// The first scan of a process maps the library index while it
		// walks, and takes the stamps of the papers the index holds from
		// it rather than from a few stats per paper: the rescan started
		// right after checks them.
		trusted = make(chan *libindex.Snapshot, 1)
		go func() { trusted <- d.lib.idx.index().Snapshot() }()
	}
	st, err := d.scan(ctx, scanCap, trusted)
	if err != nil {
		return nil, err
	}
	if prev != nil && prev.stamp == st.stamp {
		st.filter = prev.filter
		return st, nil
	}
	keys := make([]string, len(st.items))
	for i, it := range st.items {
		keys[i] = it.Key
	}
	st.filter = libindex.KeySet(keys)
	if !st.truncated {
		listed := make(map[string]bool, len(keys))
		for _, k := range keys {
			listed[k] = true
		}
		var gone []string
		x := d.lib.idx.index()
		x.Snapshot().Keys(func(k string) {
			if !listed[k] && d.covers(k) {
				gone = append(gone, k)
			}
		})
		x.Forget(gone)
	}
	return st, nil
}

// covers reports whether the library index item key lies in the directory.
func (d *Directory) covers(key string) bool {
	var p string
	ok := false
	for _, prefix := range []string{paperItem, fileItem, pdfItem} {
		if p, ok = strings.CutPrefix(key, prefix); ok {
			break
		}
	}
	if !ok {
		return false
	}
	_, err := d.inside(p)
	return err == nil && p != d.ref
}

// scan lists the directory's text candidates and papers, and stamps them by
// path, size and modification time.
func (d *Directory) scan(ctx context.Context, scanCap int, trusted <-chan *libindex.Snapshot) (*dirState, error) {
	start := time.Now()
	f, err := d.view()
	if err != nil {
		return nil, err
	}
	defer closeView(d, f)
	cat, err := d.lib.v.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	st := &dirState{scanCap: scanCap, scanned: time.Now()}
	parts := []string{"dir/2", d.ref, strconv.Itoa(scanCap)}
	oversized := false
	st.truncated, err = f.Walk(".", maxScanDepth, scanCap, func(rel string, de fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		full := path.Join(d.ref, rel)
		if de.IsDir() {
			if cat.Paper(full) != nil && full != d.ref {
				// Stamped below, several at a time.
				st.items = append(st.items, libindex.Item{Key: paperItem + full})
				return fs.SkipDir
			}
			return nil
		}
		if isPDF(rel) {
			// A loose PDF: a document with pages (see PDF). An empty
			// one is indexed too, so that a search lists it in skipped.
			if info, err := de.Info(); err == nil {
				if info.Size() > pdf.DefaultMaxBytes {
					oversized = true // above the extractor's file cap
					return nil
				}
				st.items = append(st.items, libindex.Item{Key: pdfItem + full, Stamp: pdfStamp(info)})
			}
			return nil
		}
		if binaryExt[strings.ToLower(path.Ext(rel))] {
			return nil
		}
		info, err := de.Info()
		if err != nil || info.Size() == 0 {
			return nil
		}
		if info.Size() > TextMax {
			// Too large to index (see TextMax): the search says it
			// did not see everything.
			oversized = true
			return nil
		}
		st.items = append(st.items, libindex.Item{Key: fileItem + full, Stamp: fileStamp(info)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var trust *libindex.Snapshot
	if trusted != nil {
		trust = <-trusted
	}
	st.provisional = d.stampPapers(ctx, st.items, trust)
	for _, it := range st.items {
		parts = append(parts, it.Key, it.Stamp)
	}
	st.truncated = st.truncated || oversized
	st.stamp = stampOf(parts...)
	st.took = time.Since(start)
	return st, nil
}

// fileStamp is a text file's stamp in the library index: its size, time
// and identity on this machine (safefs.FileKey), so that an index copied
// or synced from elsewhere, or forged to give a file another one's text,
// does not match the file and its units are extracted again.
func fileStamp(info fs.FileInfo) string {
	return strconv.FormatInt(info.Size(), 10) + ":" + strconv.FormatInt(info.ModTime().UnixNano(), 10) + ":" + safefs.FileKey(info)
}

// stampPapers fills in the stamps of the paper items: a few file stats per
// paper, which for thousands of papers is most of a scan, so they run on
// several goroutines. With trust, a paper trust holds takes its stamp from
// there instead, and the result reports whether any did.
func (d *Directory) stampPapers(ctx context.Context, items []libindex.Item, trust *libindex.Snapshot) bool {
	trusted := false
	if trust != nil {
		for i, it := range items {
			if !strings.HasPrefix(it.Key, paperItem) {
				continue
			}
			if stamp, _, ok := trust.Status(it.Key); ok {
				items[i].Stamp, trusted = stamp, true
			}
		}
	}
	// A rescan in the background (not a call's scan) yields to the calls
	// in flight before each paper, as the index's build does: its eight
	// stamping workers would otherwise take the cores from a search every
	// few seconds.
	bg := !d.lib.calls.InCall(ctx)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				done := func() {}
				if bg {
					done = d.lib.calls.Yield(ctx)
				}
				items[i].Stamp = "-"
				if src, err := d.lib.paperSource(ctx, strings.TrimPrefix(items[i].Key, paperItem)); err == nil {
					items[i].Stamp = src.stamp()
				}
				done()
			}
		}()
	}
	for i, it := range items {
		if it.Stamp == "" && strings.HasPrefix(it.Key, paperItem) {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	return trusted
}
