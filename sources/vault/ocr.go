package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/sources"
)

// The OCR engine of LibraryOptions.OCR and what it reads and returns. The
// types are those of the SDK's internal ocr package, named here so that a
// host can implement an engine of its own (a cloud service, another
// program): the Vault is the one driver that has page images, so the
// interface lives with it rather than in package sources.
type (
	// OCREngine recognises page images: ID names the engine, its version
	// and languages (a cached result of another ID is not used);
	// Recognize reads one page. It must be safe for concurrent use and
	// bound its own time per page.
	OCREngine = ocr.Engine
	// OCRImage is one page's image: JPEG, PNG or binary PNM bytes.
	OCRImage = ocr.Image
	// OCRFormat is the encoding of an OCRImage.
	OCRFormat = ocr.Format
	// OCRResult is an engine's text of one page, its words with boxes
	// and confidences.
	OCRResult = ocr.Result
	// OCRWord is one recognised word.
	OCRWord = ocr.Word
)

// The formats of an OCRImage.
const (
	OCRJPEG = ocr.JPEG
	OCRPNG  = ocr.PNG
	OCRPNM  = ocr.PNM
)

// NoOCR, as LibraryOptions.OCR, turns OCR off whatever the environment
// says.
var NoOCR OCREngine = noOCR{}

type noOCR struct{}

func (noOCR) ID() string { return "off" }
func (noOCR) Recognize(context.Context, ocr.Image) (*ocr.Result, error) {
	return nil, ocr.ErrUnavailable
}

// ocrVersion changes whenever what the OCR cache holds changes: ocr-2
// records the lines' wide gaps (pdf.Line.Gaps); ocr-3 names an entry by
// the PDF's content and holds that content's SHA-256 and the engine's id,
// sealed.
const ocrVersion = "ocr-3"

// maxOCREntry bounds an OCR cache entry read back, and written: a larger
// entry is not trusted (its pages are recognised again) and not written
// (the process keeps its pages in memory). A page's text and lines are
// bounded by pdf.MaxPageText; a thousand scanned pages of a book take a
// few megabytes.
const maxOCREntry = 16 << 20

// OCR memory. A page in OCR holds its image in this process from its
// decoding to the end of the engine's run: at most pdf.MaxImagePixels grey
// bytes decoded, and as much again while they are encoded for the engine
// (ocrPageBudget). The pages in OCR at once are bounded by ocrMemory, not
// by the number of cores: the background takes at most ocrBackground of
// them, reads one more (ocrReadSlots), so that a read never waits for a
// slot the background holds.
const (
	ocrPageBudget = 2 * pdf.MaxImagePixels
	ocrMemory     = 384 << 20
	ocrReadSlots  = 1
)

// ocrBackground returns how many pages the background OCR gives the engine
// at once on cpus cores: one per core, within ocrMemory beside the reads'.
func ocrBackground(cpus int) int {
	return max(1, min(cpus, ocrMemory/ocrPageBudget-ocrReadSlots))
}

// ocrPage is one page's recognition, as the OCR cache keeps it: its text
// and lines, or why it has none.
type ocrPage struct {
	Text       string     `json:",omitempty"`
	Lines      []pdf.Line `json:",omitempty"`
	Confidence float64    `json:",omitempty"`
	Reason     string     `json:",omitempty"`
}

// ocrState is what a Library knows of OCR: its engine (nil for none) and
// why there is none, found once; the renderer for pages whose image is
// not decoded here; and counts of pages recognised, for the progress hook.
type ocrState struct {
	opt      OCREngine
	progress func(done, total int)

	once     sync.Once
	eng      OCREngine
	note     string
	renderer string

	// textBusy counts the index items whose text is being extracted: the
	// OCR of the index waits for none to be and for the build to end
	// (textIdle), so that text pages come first.
	textBusy atomic.Int32
	// gen counts the pages recognised in this process: a document
	// recognised from the cache at one count is still what the cache
	// holds while the count stays.
	gen atomic.Int64

	mu          sync.Mutex
	pending     map[string]bool // index items whose scanned pages wait for the engine
	queued      map[string]bool // items and stamps ever queued
	queue       []string        // the same, in the order they came
	running     bool            // the OCR worker runs
	done, total int
	marks       map[string]ocrMarks              // by PDF path: its recognised pages, for cards
	mem         map[string]map[int]*ocrPage      // by entry: pages recognised here and not yet on disk; all of them when the disk cache is off
	claims      map[string]map[int]chan struct{} // by entry: pages in the engine, closed when their run ends
	sums        map[string][2]string             // by PDF path: the stamp and content SHA-256 last found

	slotsOnce        sync.Once
	bgSlots, rdSlots chan struct{} // pages in OCR: background runs', reads'
	sweepOnce        sync.Once
	saveMu           sync.Mutex // held while an entry is merged and written
}

// slots returns the semaphore of the pages in OCR of background runs or
// of reads (see ocrMemory).
func (o *ocrState) slots(background bool) chan struct{} {
	o.slotsOnce.Do(func() {
		o.bgSlots = make(chan struct{}, ocrBackground(runtime.GOMAXPROCS(0)))
		o.rdSlots = make(chan struct{}, ocrReadSlots)
	})
	if background {
		return o.bgSlots
	}
	return o.rdSlots
}

// ocrMarks are the confidences of a PDF's recognised pages under one stamp.
type ocrMarks struct {
	key  string
	conf map[int]float64
}

// engine returns the library's OCR engine, or nil and the one-line note
// that says why there is none.
func (l *Library) ocrEngine() (OCREngine, string) {
	o := &l.ocr
	o.once.Do(func() {
		switch {
		case o.opt == NoOCR:
			o.note = "no OCR: it is turned off"
		case o.opt != nil:
			o.eng = o.opt
		default:
			// The probe is remembered with the OCR cache.
			o.eng, o.note = ocr.Default(l.cachePath("ocr"))
		}
		if o.eng != nil {
			o.renderer = pdf.Renderer()
		}
	})
	return o.eng, o.note
}

// ocrID names the library's engine for the index's version: an index
// built with another engine (or none) is rebuilt.
func (l *Library) ocrID() string {
	if eng, _ := l.ocrEngine(); eng != nil {
		return eng.ID()
	}
	return "none"
}

// ocrRef names the OCR cache entry of a PDF as it is now, under an
// engine. With the disk cache on, the entry is named by the PDF's path and
// content (its SHA-256, as the PDF cache has it) and holds that SHA-256
// and the engine's id: an entry of another file copied or linked to its name, or
// a file's entry left behind when its content changed, is not served,
// however computable the name. Without a disk cache, or when the PDF
// cannot be hashed, the entry lives in this process's memory, named by
// the file's path and stamp.
type ocrRef struct {
	key    string // the entry's name
	sum    string // the PDF's SHA-256; "" for an entry in memory
	engine string
}

// ocrRefOf returns the OCR cache entry of the PDF at rel, stat'ed as st,
// under engine.
func (l *Library) ocrRefOf(ctx context.Context, rel string, st fs.FileInfo, engine string) ocrRef {
	stamp := fileStamp(st)
	if sum := l.pdfSum(ctx, rel, st, stamp); sum != "" {
		return ocrRef{key: stampOf(ocrVersion, rel, sum, engine), sum: sum, engine: engine}
	}
	return ocrRef{key: stampOf(ocrVersion, rel, stamp, engine), engine: engine}
}

// pdfSum returns the SHA-256 of the PDF at rel, stat'ed as st (stamp), as
// the PDF cache knows it or hashes it, remembered for the stamp; "" when
// the disk cache is off or the file cannot be read.
func (l *Library) pdfSum(ctx context.Context, rel string, st fs.FileInfo, stamp string) string {
	dir := l.cachePath("pdf")
	if dir == "" {
		return ""
	}
	o := &l.ocr
	o.mu.Lock()
	memo, ok := o.sums[rel]
	o.mu.Unlock()
	if ok && memo[0] == stamp {
		return memo[1]
	}
	c := pdf.Cache{Dir: dir}
	sum, err := c.Sum(ctx, pdf.FileInfo{Path: rel, Size: st.Size(), ModTime: st.ModTime(), ID: safefs.FileID(st)}, l.opener(rel))
	if err != nil {
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

// opener opens the Vault file at rel for the pdf package.
func (l *Library) opener(rel string) pdf.Opener {
	return func() (io.ReaderAt, int64, io.Closer, error) {
		file, err := l.v.FS().Open(rel)
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

// ocrEntry is an OCR cache entry on disk: the PDF content and engine it
// is of, and the pages.
type ocrEntry struct {
	SHA256 string
	Engine string
	Pages  map[int]*ocrPage
}

// ocrDir opens the OCR cache's folder through the safe file layer (no
// link from .agentero down, regular files only, written only inside it),
// removing, at its first open in a process, what killed writers left.
func (l *Library) ocrDir() (*safefs.Dir, error) {
	dir, err := filepath.Abs(l.cachePath("ocr"))
	if err != nil {
		return nil, err
	}
	d, err := safefs.OpenDir(dir, safefs.Create)
	if err != nil {
		return nil, err
	}
	l.ocr.sweepOnce.Do(func() { d.RemoveStaleTemps() })
	return d, nil
}

// loadOCR returns the pages of the OCR cache entry ref that this process
// recognised and those on disk, nil when there are none. An entry that is
// not a sealed regular file within maxOCREntry, or that is of another
// content or engine, counts as none.
func (l *Library) loadOCR(ref ocrRef) map[int]*ocrPage {
	o := &l.ocr
	// Memory first: a save writes the disk, then forgets the pages here.
	o.mu.Lock()
	out := clonePages(o.mem[ref.key])
	o.mu.Unlock()
	if ref.sum == "" {
		return out
	}
	d, err := l.ocrDir()
	if err != nil {
		return out
	}
	defer d.Close()
	b, err := d.ReadSealed(ref.key+".ocr", maxOCREntry)
	var e ocrEntry
	if err != nil || json.Unmarshal(b, &e) != nil || e.SHA256 != ref.sum || e.Engine != ref.engine {
		return out
	}
	if out == nil {
		out = map[int]*ocrPage{}
	}
	for n, p := range e.Pages {
		if _, ok := out[n]; !ok && p != nil {
			out[n] = p
		}
	}
	return out
}

// keepOCR records page n of entry ref, recognised here, in memory.
func (l *Library) keepOCR(ref ocrRef, n int, p *ocrPage) {
	o := &l.ocr
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.mem == nil {
		o.mem = map[string]map[int]*ocrPage{}
	}
	if o.mem[ref.key] == nil {
		o.mem[ref.key] = map[int]*ocrPage{}
	}
	o.mem[ref.key][n] = p
	o.gen.Add(1)
}

// saveOCR writes what is known of entry ref to disk, through the safe
// file layer, and forgets the pages kept in memory for it; a cache that
// cannot be written (or an entry over maxOCREntry) keeps them in memory,
// costing the work again in the next process, nothing else.
func (l *Library) saveOCR(ref ocrRef) {
	if ref.sum == "" {
		return
	}
	o := &l.ocr
	o.saveMu.Lock()
	defer o.saveMu.Unlock()
	pages := l.loadOCR(ref)
	b, err := json.Marshal(ocrEntry{SHA256: ref.sum, Engine: ref.engine, Pages: pages})
	if err != nil || len(b)+4 > maxOCREntry {
		return
	}
	d, err := l.ocrDir()
	if err != nil {
		return
	}
	defer d.Close()
	if d.WriteSealed(ref.key+".ocr", b) != nil {
		return
	}
	o.mu.Lock()
	for n := range pages {
		delete(o.mem[ref.key], n)
	}
	if len(o.mem[ref.key]) == 0 {
		delete(o.mem, ref.key)
	}
	o.mu.Unlock()
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
	var need []int
	noText := map[int]bool{}
	for i, p := range doc.Pages {
		if p.NoTextLayer && p.Err == nil {
			need = append(need, i+1)
			noText[i+1] = true
		}
	}
	if len(need) == 0 {
		return doc
	}
	var want []int
	for _, n := range run {
		if noText[n] {
			want = append(want, n)
		}
	}
	// In order, once each: recognise counts on it.
	slices.Sort(want)
	want = slices.Compact(want)
	gen := f.l.ocr.gen.Load()
	f.ocrMu.Lock()
	if f.ocrBase == doc && (f.ocrDone || len(want) == 0 && f.ocrGen == gen) {
		out := f.ocrDoc
		f.ocrMu.Unlock()
		return out
	}
	f.ocrMu.Unlock()
	eng, note := f.l.ocrEngine()
	var rec map[int]*ocrPage
	recognisedNow := false
	if eng != nil {
		var ref ocrRef
		if st, err := f.l.v.FS().Stat(f.rel); err == nil {
			ref = f.l.ocrRefOf(ctx, f.rel, st, eng.ID())
		} else {
			f.mu.Lock()
			ref = ocrRef{key: stampOf(ocrVersion, f.rel, f.stamp, eng.ID()), engine: eng.ID()}
			f.mu.Unlock()
		}
		rec = f.l.loadOCR(ref)
		for ctx.Err() == nil {
			var todo []int
			for _, n := range want {
				if rec[n] == nil {
					todo = append(todo, n)
				}
			}
			if len(todo) == 0 {
				break
			}
			ran, theirs := f.recognise(ctx, eng, doc, todo, ref, background)
			if ran {
				f.l.saveOCR(ref)
				f.l.ocr.mu.Lock()
				delete(f.l.ocr.marks, f.rel)
				f.l.ocr.mu.Unlock()
				recognisedNow = true
			}
			resume := f.l.calls.pause(ctx) // the pages it waits for are not held back for it
			for _, c := range theirs {
				select {
				case <-c:
				case <-ctx.Done():
				}
			}
			resume()
			rec = f.l.loadOCR(ref)
			if !ran && len(theirs) == 0 {
				break
			}
		}
	}
	if rec == nil {
		rec = map[int]*ocrPage{}
	}
	done := true
	out := *doc
	out.Pages = append([]pdf.Page(nil), doc.Pages...)
	notes := map[int]*ocrPage{}
	for _, n := range need {
		p := rec[n]
		switch {
		case eng == nil:
			notes[n] = &ocrPage{Reason: note}
		case p == nil:
			notes[n] = &ocrPage{Reason: "not recognised yet: OCR runs in the background of indexing"}
			done = false
		case p.Text == "":
			notes[n] = p
		default:
			notes[n] = p
			pg := &out.Pages[n-1]
			pg.Text, pg.Lines, pg.NoTextLayer, pg.Recognised = p.Text, p.Lines, false, true
		}
	}
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
	if len(want) > 0 || f.ocrBase != doc || !f.ocrDone {
		// A reader that read the cache while the engine ran does not
		// undo what the run found.
		f.ocrBase, f.ocrDoc, f.ocrNotes, f.ocrDone, f.ocrWaits, f.ocrGen = doc, &out, notes, done, !done, gen
	}
	res := f.ocrDoc
	f.ocrMu.Unlock()
	if recognisedNow {
		f.l.relationsGraph().Changed(f.rel)
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
	f.l.deferOCR(key, stamp)
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
		md.OCRConfidence = roundConfidence(sum / float64(md.OCRPages))
	}
}

// roundConfidence rounds a confidence to two places.
func roundConfidence(c float64) float64 { return float64(int(c*100+0.5)) / 100 }

// recognise runs eng over the given pages of doc, keeping each page's
// result in memory for entry ref (keepOCR), and reports whether it ran
// any. A page that another run has in the engine is left to it, and its
// channel returned in theirs, closed when that run ends. A page the
// caller's context interrupted is left out; a page whose image cannot be
// had, or that the engine fails on, gets its reason. Each page holds one
// of the library's OCR slots (see ocrMemory) from before its image is
// decoded to the end of its engine run.
func (f *pdfFile) recognise(ctx context.Context, eng OCREngine, doc *pdf.Document, pages []int, ref ocrRef, background bool) (ran bool, theirs []chan struct{}) {
	file, err := f.l.v.FS().Open(f.rel)
	if err != nil {
		return false, nil
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return false, nil
	}
	o := &f.l.ocr
	slots := o.slots(background)
	acquire := func() bool {
		select {
		case slots <- struct{}{}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if !acquire() {
		return false, nil
	}
	held := true // the slot of the next page to be decoded
	defer func() {
		if held {
			<-slots
		}
	}()
	// claim takes page n for this run unless another has it or it is
	// known; release ends the claim.
	claim := func(n int) bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		if _, ok := o.mem[ref.key][n]; ok {
			return false
		}
		if c := o.claims[ref.key][n]; c != nil {
			theirs = append(theirs, c)
			return false
		}
		if o.claims == nil {
			o.claims = map[string]map[int]chan struct{}{}
		}
		if o.claims[ref.key] == nil {
			o.claims[ref.key] = map[int]chan struct{}{}
		}
		o.claims[ref.key][n] = make(chan struct{})
		return true
	}
	release := func(n int) {
		o.mu.Lock()
		defer o.mu.Unlock()
		close(o.claims[ref.key][n])
		delete(o.claims[ref.key], n)
		if len(o.claims[ref.key]) == 0 {
			delete(o.claims, ref.key)
		}
	}
	o.mu.Lock()
	o.total += len(pages)
	o.mu.Unlock()
	f.l.ocrProgress(0)

	jobs := make(chan pdf.ImageResult)
	var wg sync.WaitGroup
	for range min(cap(slots), len(pages)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				pg := &doc.Pages[r.Page-1]
				done := func() {}
				if background {
					// A background page waits for the calls (see calls).
					done = f.l.calls.yield(ctx)
				}
				p := recognisePage(ctx, eng, r, pg.Width, pg.Height)
				done()
				r.Image = nil
				<-slots // the page's image is no longer held
				f.l.ocrProgress(1)
				if p != nil {
					f.l.keepOCR(ref, r.Page, p)
				}
				release(r.Page)
			}
		}()
	}
	err = pdf.PageImages(ctx, file, st.Size(), pages, &pdf.ImageOptions{Renderer: o.renderer}, func(r pdf.ImageResult) error {
		if !claim(r.Page) {
			f.l.ocrProgress(1)
			return nil // the slot is kept for the next page
		}
		select {
		case jobs <- r:
			held, ran = false, true
		case <-ctx.Done():
			release(r.Page)
			return ctx.Err()
		}
		if r.Page == pages[len(pages)-1] {
			return nil // the last page: no image follows
		}
		if !acquire() {
			return ctx.Err()
		}
		held = true
		return nil
	})
	if held {
		<-slots
		held = false
	}
	close(jobs)
	wg.Wait()
	if err != nil && ctx.Err() == nil {
		// The file cannot be parsed for its images: every page not
		// otherwise known gets the reason.
		known := f.l.loadOCR(ref)
		for _, n := range pages {
			if known[n] == nil && claim(n) {
				f.l.keepOCR(ref, n, &ocrPage{Reason: "its image cannot be read: " + imageReason(err)})
				release(n)
				ran = true
			}
		}
	}
	return ran, theirs
}

// ocrProgress counts n more pages recognised and calls the progress hook.
func (l *Library) ocrProgress(n int) {
	o := &l.ocr
	o.mu.Lock()
	o.done += n
	done, total := o.done, o.total
	o.mu.Unlock()
	if o.progress != nil {
		o.progress(done, total)
	}
}

// recognisePage reads one page image with eng; nil when the caller's
// context ended (nothing is known of the page then). width and height are
// the page's size in points, for the lines' font sizes and gaps.
func recognisePage(ctx context.Context, eng OCREngine, r pdf.ImageResult, width, height float64) *ocrPage {
	if r.Err != nil {
		if errors.Is(r.Err, pdf.ErrNoImage) {
			return &ocrPage{Reason: "the page is blank: it has no image"}
		}
		return &ocrPage{Reason: "its image cannot be read: " + imageReason(r.Err)}
	}
	format := ocr.PNM
	if r.Image.Format == pdf.ImageJPEG {
		format = ocr.JPEG
	}
	res, err := eng.Recognize(ctx, ocr.Image{Data: r.Image.Data, Format: format, Width: r.Image.Width, Height: r.Image.Height})
	switch {
	case ctx.Err() != nil:
		return nil
	case errors.Is(err, ocr.ErrTimeout):
		return &ocrPage{Reason: "OCR timed out on the page"}
	case err != nil:
		return &ocrPage{Reason: "the OCR engine failed on the page"}
	case strings.TrimSpace(res.Text) == "":
		return &ocrPage{Reason: "OCR found no text on the page"}
	case !ocr.Plausible(res):
		return &ocrPage{Reason: "OCR read nothing that is text on the page"}
	case len(res.Text)+len(res.Words)*16 > pdf.MaxPageText:
		return &ocrPage{Reason: "the recognised text is over the text bytes per page limit"}
	}
	return &ocrPage{Text: res.Text, Lines: ocrLines(res, width, height), Confidence: roundConfidence(res.Confidence)}
}

// imageReason says in a few words why a page image could not be had.
func imageReason(err error) string {
	var le *pdf.LimitError
	switch {
	case errors.As(err, &le):
		return fmt.Sprintf("over the %s limit", le.Limit)
	case errors.Is(err, pdf.ErrImageUndecodable):
		return "its encoding is not one this build decodes (install pdftoppm to render it)"
	case errors.Is(err, pdf.ErrEncrypted):
		return "encrypted"
	}
	return "malformed"
}

// ocrLines groups the words of res into the lines of a page width by
// height points, each with its box, its font size (the words' mean
// height), its offset in res.Text and its wide gaps: the blanks between
// consecutive words wider than pdf.WideGap font sizes, as a text layer's
// lines record them (at most pdf.MaxGaps a line).
func ocrLines(res *ocr.Result, width, height float64) []pdf.Line {
	var lines []pdf.Line
	for i := 0; i < len(res.Words); {
		j := i + 1
		for j < len(res.Words) && res.Words[j].Line == res.Words[i].Line {
			j++
		}
		lines = append(lines, ocrLine(res.Words[i:j], width, height))
		i = j
	}
	at := 0
	for i := range lines {
		if j := strings.Index(res.Text[at:], lines[i].Text); j >= 0 {
			lines[i].Start = at + j
			at += j + len(lines[i].Text)
		} else {
			lines[i].Start = at
		}
	}
	return lines
}

// ocrLine makes one line of a page width by height points of its words,
// left to right.
func ocrLine(ws []ocr.Word, width, height float64) pdf.Line {
	l := pdf.Line{Box: pdf.Box{X: ws[0].X, Y: ws[0].Y, W: ws[0].W, H: ws[0].H}}
	var hsum float64
	for _, w := range ws {
		x1, y1 := max(l.Box.X+l.Box.W, w.X+w.W), max(l.Box.Y+l.Box.H, w.Y+w.H)
		l.Box.X, l.Box.Y = min(l.Box.X, w.X), min(l.Box.Y, w.Y)
		l.Box.W, l.Box.H = x1-l.Box.X, y1-l.Box.Y
		hsum += w.H
	}
	l.FontSize = hsum / float64(len(ws)) * height
	var sb strings.Builder
	for k, w := range ws {
		if k > 0 {
			sb.WriteByte(' ')
			prev := ws[k-1]
			gap := (w.X - (prev.X + prev.W)) * width
			if gap > pdf.WideGap*l.FontSize && len(l.Gaps) < pdf.MaxGaps {
				l.Gaps = append(l.Gaps, pdf.Gap{At: sb.Len(), X: w.X})
			}
		}
		sb.WriteString(w.Text)
	}
	l.Text = sb.String()
	return l
}

// markOCR sets the OCR mark of the hits whose page was recognised; a
// PDF hashed for its OCR cache entry is hashed within ctx.
func (l *Library) markOCR(ctx context.Context, hits []sources.Hit) {
	if eng, _ := l.ocrEngine(); eng == nil {
		return
	}
	for i := range hits {
		h := &hits[i]
		if h.Page <= 0 || !isPDF(h.Path) {
			continue
		}
		if c, ok := l.ocrConfidence(ctx, h.Path, h.Page); ok {
			h.OCR = &sources.OCR{Confidence: c}
		}
	}
}

// ocrConfidence returns the confidence of page n of the PDF at rel when
// its text was recognised, from the OCR cache under the file's stamp now.
func (l *Library) ocrConfidence(ctx context.Context, rel string, n int) (float64, bool) {
	st, err := l.v.FS().Stat(rel)
	if err != nil {
		return 0, false
	}
	ref := l.ocrRefOf(ctx, rel, st, l.ocrID())
	key := ref.key
	o := &l.ocr
	o.mu.Lock()
	m, ok := o.marks[rel]
	o.mu.Unlock()
	if !ok || m.key != key {
		m = ocrMarks{key: key, conf: map[int]float64{}}
		for p, r := range l.loadOCR(ref) {
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

// clonePages copies a page map (its pages are not changed once made).
func clonePages(m map[int]*ocrPage) map[int]*ocrPage {
	if m == nil {
		return nil
	}
	out := make(map[int]*ocrPage, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
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
		f.l.deferOCR(key, stamp)
	} else {
		f.l.ocrIndexed(key)
	}
	return out
}

// deferOCR queues index item key, its PDF at stamp, for the OCR worker,
// starting it. An item is queued once per stamp in a process: pages the
// engine was given and that still miss (a cache that cannot be written)
// are not given to it again and again.
func (l *Library) deferOCR(key, stamp string) {
	o := &l.ocr
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
		o.running = l.background(l.ocrWorker)
	}
}

// ocrIndexed records that index item key holds every recognised page.
func (l *Library) ocrIndexed(key string) {
	o := &l.ocr
	o.mu.Lock()
	delete(o.pending, key)
	o.mu.Unlock()
}

// ocrWaiting counts the items whose scanned pages wait for the engine.
func (l *Library) ocrWaiting(items []libindex.Item) int {
	o := &l.ocr
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

// ocrWorker recognises the queued items' pages, as many items at a time
// as the background has OCR slots (see ocrMemory), each
// once the text is in (textIdle), and has each indexed again (from the
// caches: its text is not extracted twice).
//
// It waits for the library index's build to end, not only for a moment
// between two extractions: an engine started in such a gap would take
// cores from the rest of the build, and the build's pace and ETA would
// then follow the scans it happened to meet rather than the work left.
func (l *Library) ocrWorker() {
	o := &l.ocr
	ctx := l.bgCtx
	// As many files at a time as pages (see ocrBackground): each holds
	// a page's slot only while it decodes or recognises the page.
	slots := make(chan struct{}, cap(o.slots(true)))
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
		for !l.textIdle() && ctx.Err() == nil {
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
			l.recogniseItem(ctx, key)
			if ctx.Err() == nil {
				// Forgotten, the item is extracted again by the next
				// search that needs it, its pages now from the OCR
				// cache; it stays pending (searches over it partial)
				// until then.
				select {
				case <-l.libIndex().Forget([]string{key}).Done():
				case <-ctx.Done():
				}
			}
		}()
	}
}

// textIdle reports whether no index item's text is being extracted and
// the library index runs no build.
func (l *Library) textIdle() bool {
	return l.ocr.textBusy.Load() == 0 && l.libIndex().Running() == nil
}

// recogniseItem runs the engine over the scanned pages of index item key.
func (l *Library) recogniseItem(ctx context.Context, key string) {
	switch {
	case strings.HasPrefix(key, paperItem):
		src, err := l.paperSource(ctx, strings.TrimPrefix(key, paperItem))
		if err != nil || src.p.PDF == "" {
			return
		}
		if doc, err := src.pdfDocument(ctx); err == nil {
			src.pdf.recognisedBy(ctx, doc, allPages(doc), true)
		}
		src.releasePDF()
	case strings.HasPrefix(key, pdfItem):
		src, err := l.Open(ctx, grant.KindFile, strings.TrimPrefix(key, pdfItem))
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
