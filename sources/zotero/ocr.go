package zotero

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"strconv"
	"sync"

	ocrengine "github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/ocrpages"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdf/pageimage"
	"github.com/researchctx/researchctx/internal/pdfcache"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources"
)

// ocrVersion changes whenever what the OCR cache holds changes. The
// entries are named as the Vault's are, by the PDF's content and the
// engine, so that an entry is never served for another file.
const ocrVersion = "zotero-ocr-1"

// notYet is the note of a scanned page the engine has not read yet.
const notYet = "not recognised yet: OCR runs in the background"

// ocrState is what a library knows of OCR: its engine (nil for none) and
// why there is none, found once; the store of recognised pages, under the
// library's own cache folder (never Zotero's); and the background queue of
// PDFs whose scanned pages no read asked for yet.
type ocrState struct {
	opt ocr.Engine

	once     sync.Once
	eng      ocr.Engine
	note     string
	renderer string
	store    ocrpages.Store

	mu      sync.Mutex
	sums    map[string][2]string // by attachment path: the stamp and content SHA-256 last found
	queued  map[string]bool      // entries ever queued
	queue   []ocrJob
	running bool
	ctx     context.Context // of the background work, ended by closeOCR
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// ocrJob is a PDF whose scanned pages wait for the background.
type ocrJob struct {
	ref ocrpages.Ref
	src ocrpages.Source
	// index is the library index's key of the item the PDF hangs on,
	// forgotten once its pages are recognised so that the next search
	// extracts it again with their text ("" for none).
	index string
}

// ocrEngine returns the library's OCR engine, or nil and the one-line note
// that says why there is none.
func (c *pdfCache) ocrEngine() (ocr.Engine, string) {
	o := &c.ocr
	o.once.Do(func() {
		dir := ""
		if c.l.cacheDir != "" {
			dir = filepath.Join(c.l.cacheDir, "ocr")
		}
		switch {
		case o.opt == ocr.Off():
			o.note = "no OCR: it is turned off"
		case o.opt != nil:
			o.eng = o.opt
		default:
			// The probe is remembered with the OCR cache.
			o.eng, o.note = ocrengine.Default(dir)
		}
		if o.eng != nil {
			o.renderer = pageimage.Renderer()
		}
		o.store.Dir = dir
		// A background page waits for the calls in flight, and a call
		// waiting for a page another run holds does not hold it back.
		o.store.Yield, o.store.Pause = c.l.calls.Yield, c.l.calls.Pause
		o.store.InFlight = c.l.calls.InFlight
		o.ctx, o.cancel = context.WithCancel(context.Background())
	})
	return o.eng, o.note
}

// closeOCR ends the background OCR and waits for it, so that nothing is
// written to the cache folder after it returns.
func (c *pdfCache) closeOCR() {
	c.ocrEngine()
	o := &c.ocr
	o.cancel()
	o.wg.Wait()
}

// opener opens the file of ref for the pdf package, through a view of its
// folder (see fileRef.open).
func (r fileRef) opener() pdfcache.Opener {
	return func() (io.ReaderAt, int64, io.Closer, error) {
		view, f, st, err := r.open()
		if err != nil {
			return nil, 0, nil, err
		}
		return f, st.Size(), closers{f, view}, nil
	}
}

// closers closes each of its closers.
type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}

// ocrRef names the OCR cache entry of the attachment key (its file at ref)
// under engine: by its content when the PDF cache can hash it, else in
// memory, by its stamp.
func (c *pdfCache) ocrRef(ctx context.Context, key string, ref fileRef, engine string) (ocrpages.Ref, error) {
	view, f, st, err := ref.open()
	if err != nil {
		return ocrpages.Ref{}, err
	}
	f.Close()
	view.Close()
	stamp := strconv.FormatInt(st.Size(), 10) + ":" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
	name := func(parts ...string) string {
		h := sha256.New()
		for _, p := range parts {
			io.WriteString(h, p)
			h.Write([]byte{0})
		}
		return hex.EncodeToString(h.Sum(nil)[:16])
	}
	if c.l.cacheDir == "" {
		return ocrpages.Ref{Key: name(ocrVersion, key, stamp, engine), Engine: engine}, nil
	}
	o := &c.ocr
	o.mu.Lock()
	memo, ok := o.sums[key]
	o.mu.Unlock()
	sum := memo[1]
	if !ok || memo[0] != stamp {
		pc := pdfcache.Cache{Dir: filepath.Join(c.l.cacheDir, "pdf")}
		sum, err = pc.Sum(ctx, pdfcache.FileInfo{Path: key + "/" + fileHash(ref.root+"\x00"+ref.rel+"\x00"+stamp), Size: st.Size(), ModTime: st.ModTime(), ID: safefs.FileID(st)}, ref.opener())
		if err != nil {
			return ocrpages.Ref{Key: name(ocrVersion, key, stamp, engine), Engine: engine}, nil
		}
		o.mu.Lock()
		if o.sums == nil {
			o.sums = map[string][2]string{}
		}
		o.sums[key] = [2]string{stamp, sum}
		o.mu.Unlock()
	}
	return ocrpages.Ref{Key: name(ocrVersion, key, sum, engine), Sum: sum, Engine: engine}, nil
}

// recognised returns doc, the text layer of the PDF attachment key, with
// its scanned pages' text as far as the OCR cache holds it, after the
// engine read those of pages (1-based; all: every page) it did not hold,
// within ctx; and by page what became of each scanned page. Pages still
// not read are queued for the background, so that a read never waits for
// pages it does not return.
func (c *pdfCache) recognised(ctx context.Context, key string, it *Item, doc *pdf.Document, pages []int, all bool) (*pdf.Document, map[int]*ocrpages.Page) {
	scanned := ocrpages.Scanned(doc)
	if len(scanned) == 0 {
		return doc, nil
	}
	eng, note := c.ocrEngine()
	if eng == nil {
		out, notes, _ := ocrpages.Merge(doc, nil, false, note)
		return out, notes
	}
	fr, err := c.l.locate(it)
	if err != nil {
		return doc, nil
	}
	ref, err := c.ocrRef(ctx, key, fr, eng.ID())
	if err != nil {
		return doc, nil
	}
	if all {
		pages = scanned
	}
	src := ocrpages.Source{Open: fr.opener(), Doc: doc, Renderer: c.ocr.renderer}
	rec, _ := c.ocr.store.Pages(ctx, eng, src, pages, ref, false)
	out, notes, done := ocrpages.Merge(doc, rec, true, notYet)
	if !done {
		j := ocrJob{ref: ref, src: src}
		if snap := c.l.last(); snap != nil {
			if a := snap.byKey[snap.libPrefix(it.libraryID)+it.Key]; a != nil {
				j.index = snap.key(snap.top(a))
			}
		}
		c.queueOCR(j)
	}
	return out, notes
}

// queueOCR queues a PDF for the background OCR, once per entry in a
// process: pages the engine was given and that still miss (a cache that
// cannot be written) are not given to it again and again.
func (c *pdfCache) queueOCR(j ocrJob) {
	o := &c.ocr
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.queued[j.ref.Key] || o.ctx.Err() != nil {
		return
	}
	if o.queued == nil {
		o.queued = map[string]bool{}
	}
	o.queued[j.ref.Key] = true
	o.queue = append(o.queue, j)
	if !o.running {
		o.running = true
		o.wg.Add(1)
		go c.ocrWorker()
	}
}

// ocrWorker recognises the queued PDFs' scanned pages, one PDF at a time,
// each page taking one of the background's OCR slots.
func (c *pdfCache) ocrWorker() {
	o := &c.ocr
	defer o.wg.Done()
	for {
		o.mu.Lock()
		if len(o.queue) == 0 || o.ctx.Err() != nil {
			o.running = false
			o.mu.Unlock()
			return
		}
		j := o.queue[0]
		o.queue = o.queue[1:]
		o.mu.Unlock()
		o.store.Pages(o.ctx, o.eng, j.src, ocrpages.Scanned(j.src.Doc), j.ref, true)
		if j.index != "" && o.ctx.Err() == nil {
			// Its stamp has not changed: forgotten, the item is
			// extracted again by the next search, its pages now from
			// the OCR cache.
			select {
			case <-c.l.libIndex().Forget([]string{j.index}).Done():
			case <-o.ctx.Done():
			}
		}
	}
}

// describeOCR counts the recognised pages of doc, the text layer of PDF
// attachment key, in md, from the OCR cache only: metadata never waits
// for an engine.
func (c *pdfCache) describeOCR(ctx context.Context, md *sources.Metadata, key string, it *Item, doc *pdf.Document) {
	_, notes := c.recognised(ctx, key, it, doc, nil, false)
	var sum float64
	for _, p := range notes {
		if p.Text != "" {
			md.OCRPages++
			sum += p.Confidence
		}
	}
	if md.OCRPages > 0 {
		md.OCRConfidence = ocrpages.RoundConfidence(sum / float64(md.OCRPages))
	}
}

// ocrPart sets what OCR did for part n (1-based) of a PDF: its provenance
// when its text was recognised, else why it has none.
func ocrPart(notes map[int]*ocrpages.Page, n int, part *sources.Part) {
	p := notes[n]
	switch {
	case p == nil:
	case p.Text != "" && !part.NoTextLayer:
		part.OCR = &sources.OCR{Confidence: p.Confidence}
	case part.NoTextLayer:
		part.Note = p.Reason
	}
}
