package vault

import (
	"context"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/lowprio"
	ocrengine "github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/ocrpages"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdf/pageimage"
	"github.com/researchctx/researchctx/internal/pdfcache"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources"
)

// ocrVersion changes whenever what the OCR cache holds changes: ocr-2
// records the lines' wide gaps (pdf.Line.Gaps); ocr-3 names an entry by
// the PDF's content and holds that content's SHA-256 and the engine's id,
// sealed.
const ocrVersion = "ocr-3"

// The OCR memory bounds (see ocrpages.Memory).
const (
	ocrPageBudget = ocrpages.PageBudget
	ocrMemory     = ocrpages.Memory
	ocrReadSlots  = ocrpages.ReadSlots
)

// ocrBackground returns how many pages the background OCR gives the engine
// at once on cpus cores.
func ocrBackground(cpus int) int { return ocrpages.Background(cpus) }

// ocrPage is one page's recognition, as the OCR cache keeps it.
type ocrPage = ocrpages.Page

// ocrRef names the OCR cache entry of a PDF under an engine. With the disk
// cache on, the entry is named by the PDF's path and content (its SHA-256,
// as the PDF cache has it); without one, or when the PDF cannot be hashed,
// the entry lives in this process's memory, named by the file's path and
// stamp.
type ocrRef = ocrpages.Ref

// ocrWorker is the Library's OCR: its engine (nil for none) and why there
// is none, found once; the renderer for pages whose image is not decoded
// here; the store of recognised pages; and the queue of index items whose
// scanned pages wait for the engine, which its worker recognises in the
// background. It holds only what it needs of the Library, wired by
// newLibrary.
type ocrWorker struct {
	opt      ocr.Engine
	progress func(done, total int)

	fsys       *safefs.FS
	cachePath  func(parts ...string) string
	calls      *lowprio.Calls
	ctx        context.Context        // the background's, cancelled by Close
	background func(f func()) bool    // Library.background
	index      func() *libindex.Index // the library index, which the worker has take in what it recognised
	textIdle   func() bool            // no index item's text is extracted and no build runs
	paper      func(ctx context.Context, ref string) (*Paper, error)
	open       func(ctx context.Context, kind grant.Kind, path string) (sources.Source, error)

	once     sync.Once
	eng      ocr.Engine
	note     string
	renderer string

	// store holds the recognised pages, on disk and in memory, and the
	// pages in the engine now.
	store ocrpages.Store

	mu      sync.Mutex
	pending map[string]bool      // index items whose scanned pages wait for the engine
	queued  map[string]bool      // items and stamps ever queued
	queue   []string             // the same, in the order they came
	running bool                 // the OCR worker runs
	marks   map[string]ocrMarks  // by PDF path: its recognised pages, for cards
	sums    map[string][2]string // by PDF path: the stamp and content SHA-256 last found
}

// ocrMarks are the confidences of a PDF's recognised pages under one stamp.
type ocrMarks struct {
	key  string
	conf map[int]float64
}

// engine returns the library's OCR engine, or nil and the one-line note
// that says why there is none.
func (o *ocrWorker) engine() (ocr.Engine, string) {
	o.once.Do(func() {
		switch {
		case o.opt == ocr.Off():
			o.note = "no OCR: it is turned off"
		case o.opt != nil:
			o.eng = o.opt
		default:
			// The probe is remembered with the OCR cache.
			o.eng, o.note = ocrengine.Default(o.cachePath("ocr"))
		}
		if o.eng != nil {
			o.renderer = pageimage.Renderer()
		}
		o.store.Dir, o.store.Progress = o.cachePath("ocr"), o.progress
		// A background page waits for the calls in flight, and a call
		// waiting for a page another run holds does not hold it back.
		o.store.Yield, o.store.Pause = o.calls.Yield, o.calls.Pause
		o.store.InFlight = o.calls.InFlight
	})
	return o.eng, o.note
}

// pageStore returns the library's store of recognised pages.
func (o *ocrWorker) pageStore() *ocrpages.Store {
	o.engine()
	return &o.store
}

// ocrID names the library's engine for the index's version: an index
// built with another engine (or none) is rebuilt.
func (o *ocrWorker) id() string {
	if eng, _ := o.engine(); eng != nil {
		return eng.ID()
	}
	return "none"
}

// refOf returns the OCR cache entry of the PDF at rel, stat'ed as st,
// under engine.
func (o *ocrWorker) refOf(ctx context.Context, rel string, st fs.FileInfo, engine string) ocrRef {
	return o.refIn(ctx, nil, rel, st, engine)
}

// refIn is refOf reading the PDF cache through dirs (nil: its folder
// opened for this lookup alone).
func (o *ocrWorker) refIn(ctx context.Context, dirs *cacheDirs, rel string, st fs.FileInfo, engine string) ocrRef {
	stamp := fileStamp(st)
	if sum := o.pdfSum(ctx, dirs, rel, st, stamp); sum != "" {
		return ocrRef{Key: stampOf(ocrVersion, rel, sum, engine), Sum: sum, Engine: engine}
	}
	return ocrRef{Key: stampOf(ocrVersion, rel, stamp, engine), Engine: engine}
}

// pdfSum returns the SHA-256 of the PDF at rel, stat'ed as st (stamp), as
// the PDF cache knows it or hashes it, remembered for the stamp; "" when
// the disk cache is off or the file cannot be read. The PDF cache's folder
// is dirs' when dirs is not nil.
func (o *ocrWorker) pdfSum(ctx context.Context, dirs *cacheDirs, rel string, st fs.FileInfo, stamp string) string {
	dir := o.cachePath("pdf")
	if dir == "" {
		return ""
	}
	o.mu.Lock()
	memo, ok := o.sums[rel]
	o.mu.Unlock()
	if ok && memo[0] == stamp {
		return memo[1]
	}
	c := pdfcache.Cache{Dir: dir}
	key, open := pdfcache.FileInfo{Path: rel, Size: st.Size(), ModTime: st.ModTime(), ID: safefs.FileID(st)}, fileOpener(o.fsys, rel)
	var sum string
	var err error
	if dirs == nil {
		sum, err = c.Sum(ctx, key, open)
	} else if d := dirs.pdfDir(&c); d != nil {
		sum, err = c.SumIn(ctx, d, key, open)
	}
	if err != nil || sum == "" {
		return ""
	}
	o.mu.Lock()
	if o.sums == nil {
		o.sums = map[string][2]string{}
	}
	o.sums[rel] = [2]string{stamp, sum}
	o.mu.Unlock()
	return sum
}

// fileOpener opens the file at rel of fsys (the Vault's) for the page
// cache.
func fileOpener(fsys *safefs.FS, rel string) pdfcache.Opener {
	return func() (io.ReaderAt, int64, io.Closer, error) {
		file, err := fsys.Open(rel)
		if err != nil {
			return nil, 0, nil, err
		}
		fst, err := file.Stat()
		if err != nil {
			file.Close()
			return nil, 0, nil, err
		}
		return file, fst.Size(), file, nil
	}
}

// recognised returns doc with the text of its pages without a text layer
// recognised from their images: what the OCR cache holds, and, of the
// pages run names (1-based; nil: none), those the cache does not hold,
// recognised by the library's engine within ctx. A page another call is
// recognising is waited for only when it is one of run. So a call never
// waits for the engine on pages it did not name: a read recognises the
// pages it returns, and the rest say "not recognised yet" (see
// queueOCR). It returns doc itself when every page has text. The result
// is kept for the next call on the same doc; notes says, by page, what
// became of each page without a text layer. Once pages are recognised,
// the citation graph is told (see relations.Graph.Changed).
func (f *pdfFile) recognised(ctx context.Context, doc *pdf.Document, run []int) *pdf.Document {
	return f.recognisedBy(ctx, doc, run, false)
}

// recognisedBy is recognised for a background run (background: its pages
// take the background's slots) or a call's.
func (f *pdfFile) recognisedBy(ctx context.Context, doc *pdf.Document, run []int, background bool) *pdf.Document {
	if len(ocrpages.Scanned(doc)) == 0 {
		return doc
	}
	o := f.l.ocr
	store := o.pageStore()
	want := false // a page of run has no text layer
	for _, n := range run {
		want = want || n >= 1 && n <= len(doc.Pages) && doc.Pages[n-1].NoTextLayer && doc.Pages[n-1].Err == nil
	}
	gen := store.Gen()
	f.ocrMu.Lock()
	if f.ocrBase == doc && (f.ocrDone || !want && f.ocrGen == gen) {
		out := f.ocrDoc
		f.ocrMu.Unlock()
		return out
	}
	f.ocrMu.Unlock()
	eng, note := o.engine()
	var rec map[int]*ocrPage
	recognisedNow := false
	if eng != nil {
		var ref ocrRef
		if st, err := f.l.v.FS().Stat(f.rel); err == nil {
			ref = o.refOf(ctx, f.rel, st, eng.ID())
		} else {
			f.mu.Lock()
			ref = ocrRef{Key: stampOf(ocrVersion, f.rel, f.stamp, eng.ID()), Engine: eng.ID()}
			f.mu.Unlock()
		}
		rec, recognisedNow = store.Pages(ctx, eng, ocrpages.Source{Open: fileOpener(o.fsys, f.rel), Doc: doc, Renderer: o.renderer}, run, ref, background)
		if recognisedNow {
			o.mu.Lock()
			delete(o.marks, f.rel)
			o.mu.Unlock()
		}
		note = "not recognised yet: OCR runs in the background of indexing"
	}
	rd, notes, done := ocrpages.Merge(doc, rec, eng != nil, note)
	out := *rd
	if out.Title == "" && len(out.Pages) > 0 && out.Pages[0].Recognised {
		// A scan's title is what its first page sets as one; the
		// catalogue learns it as it would a text layer's title block.
		if out.Title = ocrTitle(&out.Pages[0]); out.Title != "" {
			if st, err := f.l.v.FS().Stat(f.rel); err == nil {
				f.l.v.LearnTitle(f.rel, st, out.Title)
			}
		}
	}
	f.ocrMu.Lock()
	if want || f.ocrBase != doc || !f.ocrDone {
		// A reader that read the cache while the engine ran does not
		// undo what the run found.
		f.ocrBase, f.ocrDoc, f.ocrNotes, f.ocrDone, f.ocrWaits, f.ocrGen = doc, &out, notes, done, !done, gen
	}
	res := f.ocrDoc
	f.ocrMu.Unlock()
	if recognisedNow {
		f.l.rel.graph().Changed(f.rel)
	}
	return res
}

// allPages returns the page numbers of doc, 1 to its count.
func allPages(doc *pdf.Document) []int {
	out := make([]int, len(doc.Pages))
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// queueOCR queues the PDF, index item key, for the OCR worker when pages
// of doc (as recognised returned it) still wait for the engine.
func (f *pdfFile) queueOCR(key string, doc *pdf.Document) {
	f.ocrMu.Lock()
	waits := doc == f.ocrDoc && f.ocrWaits
	f.ocrMu.Unlock()
	if !waits {
		return
	}
	f.mu.Lock()
	stamp := f.stamp
	f.mu.Unlock()
	f.l.ocr.enqueue(key, stamp)
}

// ocrNote returns what became of page n (1-based) of doc, a document
// recognised returned, or nil.
func (f *pdfFile) ocrNote(doc *pdf.Document, n int) *ocrPage {
	f.ocrMu.Lock()
	defer f.ocrMu.Unlock()
	if doc != f.ocrDoc {
		return nil
	}
	return f.ocrNotes[n]
}

// markPart sets the OCR mark or note of part n (1-based) of doc.
func (f *pdfFile) markPart(doc *pdf.Document, n int, part *sources.Part) {
	p := f.ocrNote(doc, n)
	switch {
	case p == nil:
	case p.Text != "" && !part.NoTextLayer:
		part.OCR = &sources.OCR{Confidence: p.Confidence}
	case part.NoTextLayer:
		part.Note = p.Reason
	}
}

// describeOCR counts the recognised pages of doc in md, and gives md the
// title OCR found when it has none, from the OCR cache only: metadata
// never waits for an engine.
func (f *pdfFile) describeOCR(ctx context.Context, md *sources.Metadata, doc *pdf.Document) {
	rd := f.recognised(ctx, doc, nil)
	if rd == doc {
		return
	}
	if md.Title == "" {
		md.Title = rd.Title
	}
	var sum float64
	for i := range rd.Pages {
		if p := f.ocrNote(rd, i+1); p != nil && p.Text != "" {
			md.OCRPages++
			sum += p.Confidence
		}
	}
	if md.OCRPages > 0 {
		md.OCRConfidence = ocrpages.RoundConfidence(sum / float64(md.OCRPages))
	}
}

// mark sets the OCR mark of the hits whose page was recognised; a PDF
// hashed for its OCR cache entry is hashed within ctx.
func (o *ocrWorker) mark(ctx context.Context, hits []sources.Hit) {
	if eng, _ := o.engine(); eng == nil {
		return
	}
	// The caches' folders are opened once for all the hits: each open
	// walks down from the root, some ten system calls.
	var dirs cacheDirs
	defer dirs.close()
	for i := range hits {
		h := &hits[i]
		if h.Page <= 0 || !isPDF(h.Path) {
			continue
		}
		if c, ok := o.confidence(ctx, &dirs, h.Path, h.Page); ok {
			h.OCR = &sources.OCR{Confidence: c}
		}
	}
}

// confidence returns the confidence of page n of the PDF at rel when its
// text was recognised, from the OCR cache under the file's stamp now,
// reading the caches through dirs.
func (o *ocrWorker) confidence(ctx context.Context, dirs *cacheDirs, rel string, n int) (float64, bool) {
	st, err := o.fsys.Stat(rel)
	if err != nil {
		return 0, false
	}
	ref := o.refIn(ctx, dirs, rel, st, o.id())
	key := ref.Key
	o.mu.Lock()
	m, ok := o.marks[rel]
	o.mu.Unlock()
	if !ok || m.key != key {
		m = ocrMarks{key: key, conf: map[int]float64{}}
		store := o.pageStore()
		var d *safefs.Dir
		if ref.Sum != "" {
			d = dirs.ocrDir(store)
		}
		for p, r := range store.LoadIn(d, ref) {
			if r.Text != "" {
				m.conf[p] = r.Confidence
			}
		}
		o.mu.Lock()
		if o.marks == nil {
			o.marks = map[string]ocrMarks{}
		}
		o.marks[rel] = m
		o.mu.Unlock()
	}
	c, ok := m.conf[n]
	return c, ok
}

// cacheDirs holds the PDF and OCR caches' folders for a run of lookups
// (a search's hits), each opened on first use, at most once: a folder
// that fails to open is not tried again in the run, which then reads as
// when the cache is missing.
type cacheDirs struct {
	pdf, ocr           *safefs.Dir
	pdfTried, ocrTried bool
}

// pdfDir returns the PDF cache c's folder, nil when it cannot be opened.
func (d *cacheDirs) pdfDir(c *pdfcache.Cache) *safefs.Dir {
	if !d.pdfTried {
		d.pdfTried = true
		d.pdf, _ = c.OpenDir()
	}
	return d.pdf
}

// ocrDir returns the OCR store s's folder, nil when it cannot be opened.
func (d *cacheDirs) ocrDir(s *ocrpages.Store) *safefs.Dir {
	if !d.ocrTried {
		d.ocrTried = true
		d.ocr, _ = s.OpenDir()
	}
	return d.ocr
}

// close closes the folders opened.
func (d *cacheDirs) close() {
	for _, f := range []*safefs.Dir{d.pdf, d.ocr} {
		if f != nil {
			f.Close()
		}
	}
}

// indexed is the document of index item key as the index takes it in: its
// pages recognised as far as the OCR cache holds them. Pages the engine
// has yet to read are queued for the library's OCR worker, which reads
// them once no text is being extracted, then has the item indexed again;
// until then, searches over the item say they are partial.
func (f *pdfFile) indexed(ctx context.Context, key string, doc *pdf.Document) *pdf.Document {
	out := f.recognised(ctx, doc, nil)
	f.ocrMu.Lock()
	waits := out != doc && f.ocrWaits
	f.ocrMu.Unlock()
	f.mu.Lock()
	stamp := f.stamp
	f.mu.Unlock()
	if waits {
		f.l.ocr.enqueue(key, stamp)
	} else {
		f.l.ocr.indexed(key)
	}
	return out
}

// enqueue queues index item key, its PDF at stamp, for the OCR worker,
// starting it. An item is queued once per stamp in a process: pages the
// engine was given and that still miss (a cache that cannot be written)
// are not given to it again and again.
func (o *ocrWorker) enqueue(key, stamp string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.queued[key+"\x00"+stamp] {
		// The engine had its turn at this file: what still misses is
		// not given to it again.
		delete(o.pending, key)
		return
	}
	if o.pending[key] {
		return
	}
	if o.pending == nil {
		o.pending, o.queued = map[string]bool{}, map[string]bool{}
	}
	o.pending[key], o.queued[key+"\x00"+stamp] = true, true
	o.queue = append(o.queue, key)
	if !o.running {
		o.running = o.background(o.run)
	}
}

// indexed records that index item key holds every recognised page.
func (o *ocrWorker) indexed(key string) {
	o.mu.Lock()
	delete(o.pending, key)
	o.mu.Unlock()
}

// waiting counts the items whose scanned pages wait for the engine.
func (o *ocrWorker) waiting(items []libindex.Item) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	if len(o.pending) == 0 {
		return 0
	}
	for _, it := range items {
		if o.pending[it.Key] {
			n++
		}
	}
	return n
}

// run recognises the queued items' pages, as many items at a time
// as the background has OCR slots (see ocrMemory), each
// once the text is in (textIdle), and has each indexed again (from the
// caches: its text is not extracted twice).
//
// It waits for the library index's build to end, not only for a moment
// between two extractions: an engine started in such a gap would take
// cores from the rest of the build, and the build's pace and ETA would
// then follow the scans it happened to meet rather than the work left.
func (o *ocrWorker) run() {
	ctx := o.ctx
	// As many files at a time as pages (see ocrBackground): each holds
	// a page's slot only while it decodes or recognises the page.
	slots := make(chan struct{}, cap(o.store.Slots(true)))
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		o.mu.Lock()
		if len(o.queue) == 0 || ctx.Err() != nil {
			o.running = false
			o.mu.Unlock()
			return
		}
		key := o.queue[0]
		o.queue = o.queue[1:]
		o.mu.Unlock()
		for !o.textIdle() && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			o.recognise(ctx, key)
			if ctx.Err() == nil {
				// Forgotten, the item is extracted again by the next
				// search that needs it, its pages now from the OCR
				// cache; it stays pending (searches over it partial)
				// until then.
				select {
				case <-o.index().Forget([]string{key}).Done():
				case <-ctx.Done():
				}
			}
		}()
	}
}

// recognise runs the engine over the scanned pages of index item key.
func (o *ocrWorker) recognise(ctx context.Context, key string) {
	switch {
	case strings.HasPrefix(key, paperItem):
		src, err := o.paper(ctx, strings.TrimPrefix(key, paperItem))
		if err != nil || src.p.PDF == "" {
			return
		}
		if doc, err := src.pdfDocument(ctx); err == nil {
			src.pdf.recognisedBy(ctx, doc, allPages(doc), true)
		}
		src.releasePDF()
	case strings.HasPrefix(key, pdfItem):
		src, err := o.open(ctx, grant.KindFile, strings.TrimPrefix(key, pdfItem))
		if err != nil {
			return
		}
		if s, ok := src.(*PDF); ok {
			if doc, err := s.pdf.document(ctx); err == nil {
				s.pdf.recognisedBy(ctx, doc, allPages(doc), true)
			}
			s.releasePDF()
		}
	}
}
