package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/pdf"
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
// records the lines' wide gaps (pdf.Line.Gaps).
const ocrVersion = "ocr-2"

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

	mu          sync.Mutex
	pending     map[string]bool // index items whose scanned pages wait for the engine
	queued      map[string]bool // items and stamps ever queued
	queue       []string        // the same, in the order they came
	running     bool            // the OCR worker runs
	done, total int
	marks       map[string]ocrMarks         // by PDF path: its recognised pages, for cards
	mem         map[string]map[int]*ocrPage // the OCR cache when the on-disk cache is off
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

// ocrKey is the OCR cache's key of a PDF under its stamp and engine id.
func ocrKey(rel, stamp, engine string) string {
	return stampOf(ocrVersion, rel, stamp, engine)
}

// loadOCR reads the OCR cache entry of key, nil when there is none.
func (l *Library) loadOCR(key string) map[int]*ocrPage {
	dir := l.cachePath("ocr")
	if dir == "" {
		l.ocr.mu.Lock()
		defer l.ocr.mu.Unlock()
		return clonePages(l.ocr.mem[key])
	}
	b, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if err != nil {
		return nil
	}
	var out map[int]*ocrPage
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// saveOCR writes the OCR cache entry of key; a cache that cannot be
// written costs the work again, nothing else.
func (l *Library) saveOCR(key string, pages map[int]*ocrPage) {
	dir := l.cachePath("ocr")
	if dir == "" {
		l.ocr.mu.Lock()
		defer l.ocr.mu.Unlock()
		if l.ocr.mem == nil {
			l.ocr.mem = map[string]map[int]*ocrPage{}
		}
		l.ocr.mem[key] = clonePages(pages)
		return
	}
	b, err := json.Marshal(pages)
	if err != nil || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, key+".json")) != nil {
		os.Remove(tmp.Name())
	}
}

// recognised returns doc with the text of its pages without a text layer
// recognised from their images: from the OCR cache, and, when run is set,
// by the library's engine for the pages the cache does not hold (one
// process per core, each page within the engine's deadline). It returns
// doc itself when every page has text. The result is kept for the next
// call on the same doc; notes says, by page, what became of each page
// without a text layer. A call without run never waits for the engine:
// while another call recognises the file, it gives what the cache holds.
// Once pages are recognised, the citation graph is told (see
// relations.Graph.Changed).
func (f *pdfFile) recognised(ctx context.Context, doc *pdf.Document, run bool) *pdf.Document {
	var need []int
	for i, p := range doc.Pages {
		if p.NoTextLayer && p.Err == nil {
			need = append(need, i+1)
		}
	}
	if len(need) == 0 {
		return doc
	}
	if run {
		// One engine run per file at a time; readers do not wait for it.
		f.runMu.Lock()
		defer f.runMu.Unlock()
	}
	f.ocrMu.Lock()
	if f.ocrBase == doc && (f.ocrDone || !run) {
		out := f.ocrDoc
		f.ocrMu.Unlock()
		return out
	}
	f.ocrMu.Unlock()
	eng, note := f.l.ocrEngine()
	f.mu.Lock()
	stamp := f.stamp
	f.mu.Unlock()
	id := "none"
	if eng != nil {
		id = eng.ID()
	}
	key := ocrKey(f.rel, stamp, id)
	rec := f.l.loadOCR(key)
	if rec == nil {
		rec = map[int]*ocrPage{}
	}
	var missing []int
	for _, n := range need {
		if rec[n] == nil {
			missing = append(missing, n)
		}
	}
	done := eng == nil || len(missing) == 0
	recognisedNow := false
	if run && eng != nil && len(missing) > 0 {
		if f.recognise(ctx, eng, doc, missing, rec) {
			f.l.saveOCR(key, rec)
			f.l.ocr.mu.Lock()
			delete(f.l.ocr.marks, f.rel)
			f.l.ocr.mu.Unlock()
			recognisedNow = true
		}
		done = ctx.Err() == nil
	}
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
		case p.Text == "":
			notes[n] = p
		default:
			notes[n] = p
			pg := &out.Pages[n-1]
			pg.Text, pg.Lines, pg.NoTextLayer = p.Text, p.Lines, false
		}
	}
	f.ocrMu.Lock()
	if run || f.ocrBase != doc || !f.ocrDone {
		// A reader that read the cache while the engine ran does not
		// undo what the run found.
		f.ocrBase, f.ocrDoc, f.ocrNotes, f.ocrDone, f.ocrWaits = doc, &out, notes, done, !done
	}
	res := f.ocrDoc
	f.ocrMu.Unlock()
	if recognisedNow {
		f.l.relationsGraph().Changed(f.rel)
	}
	return res
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

// describeOCR counts the recognised pages of doc in md, from the OCR
// cache only: metadata never waits for an engine.
func (f *pdfFile) describeOCR(ctx context.Context, md *sources.Metadata, doc *pdf.Document) {
	rd := f.recognised(ctx, doc, false)
	if rd == doc {
		return
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

// recognise runs eng over the given pages of doc, putting each page's
// result in rec, and reports whether any is worth caching. A page the
// caller's context interrupted is left out; a page whose image cannot be
// had, or that the engine fails on, gets its reason.
func (f *pdfFile) recognise(ctx context.Context, eng OCREngine, doc *pdf.Document, pages []int, rec map[int]*ocrPage) bool {
	file, err := f.l.v.FS().Open(f.rel)
	if err != nil {
		return false
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return false
	}
	o := &f.l.ocr
	o.mu.Lock()
	o.total += len(pages)
	o.mu.Unlock()
	f.l.ocrProgress(0)

	var mu sync.Mutex
	changed := false
	jobs := make(chan pdf.ImageResult)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				pg := &doc.Pages[r.Page-1]
				p := recognisePage(ctx, eng, r, pg.Width, pg.Height)
				f.l.ocrProgress(1)
				if p == nil {
					continue
				}
				mu.Lock()
				rec[r.Page], changed = p, true
				mu.Unlock()
			}
		}()
	}
	err = pdf.PageImages(ctx, file, st.Size(), pages, &pdf.ImageOptions{Renderer: o.renderer}, func(r pdf.ImageResult) error {
		select {
		case jobs <- r:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(jobs)
	wg.Wait()
	if err != nil && ctx.Err() == nil {
		mu.Lock()
		for _, n := range pages {
			if rec[n] == nil {
				rec[n], changed = &ocrPage{Reason: "its image cannot be read: " + imageReason(err)}, true
			}
		}
		mu.Unlock()
	}
	return changed
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

// markOCR sets the OCR mark of the hits whose page was recognised.
func (l *Library) markOCR(hits []sources.Hit) {
	if eng, _ := l.ocrEngine(); eng == nil {
		return
	}
	for i := range hits {
		h := &hits[i]
		if h.Page <= 0 || !isPDF(h.Path) {
			continue
		}
		if c, ok := l.ocrConfidence(h.Path, h.Page); ok {
			h.OCR = &sources.OCR{Confidence: c}
		}
	}
}

// ocrConfidence returns the confidence of page n of the PDF at rel when
// its text was recognised, from the OCR cache under the file's stamp now.
func (l *Library) ocrConfidence(rel string, n int) (float64, bool) {
	st, err := l.v.FS().Stat(rel)
	if err != nil {
		return 0, false
	}
	key := ocrKey(rel, fileStamp(st), l.ocrID())
	o := &l.ocr
	o.mu.Lock()
	m, ok := o.marks[rel]
	o.mu.Unlock()
	if !ok || m.key != key {
		m = ocrMarks{key: key, conf: map[int]float64{}}
		for p, r := range l.loadOCR(key) {
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
	out := f.recognised(ctx, doc, false)
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
// as the machine has cores (the engine bounds its own processes), each
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
	slots := make(chan struct{}, runtime.NumCPU())
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
			src.pdf.recognised(ctx, doc, true)
		}
		src.releasePDF()
	case strings.HasPrefix(key, pdfItem):
		src, err := l.Open(ctx, grant.KindFile, strings.TrimPrefix(key, pdfItem))
		if err != nil {
			return
		}
		if s, ok := src.(*PDF); ok {
			if doc, err := s.pdf.document(ctx); err == nil {
				s.pdf.recognised(ctx, doc, true)
			}
			s.releasePDF()
		}
	}
}
