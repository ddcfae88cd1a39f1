// Package ocrpages recognises the scanned pages of PDFs with an OCR engine
// and keeps what it found: in memory, and in a sealed cache entry on disk
// named by the PDF's content and the engine. It is the part of OCR that
// every source with PDFs shares; when to recognise which pages (a read's,
// a background queue's) stays with the source.
package ocrpages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/researchctx/researchctx/internal/lowprio"
	"github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdf/pageimage"
	"github.com/researchctx/researchctx/internal/pdfcache"
	"github.com/researchctx/researchctx/internal/safefs"
)

// MaxEntry bounds a cache entry read back, and written: a larger entry is
// not trusted (its pages are recognised again) and not written (the
// process keeps its pages in memory). A page's text and lines are bounded
// by pdf.MaxPageText; a thousand scanned pages of a book take a few
// megabytes.
const MaxEntry = 16 << 20

// OCR memory. A page in OCR holds its image in this process from its
// decoding to the end of the engine's run: at most pageimage.MaxPixels grey
// bytes decoded, and as much again while they are encoded for the engine
// (PageBudget). The pages in OCR at once are bounded by Memory, not by the
// number of cores: the background takes at most Background of them, reads
// one more (ReadSlots), so that a read never waits for a slot the
// background holds.
const (
	PageBudget = 2 * pageimage.MaxPixels
	Memory     = 384 << 20
	ReadSlots  = 1
)

// Background returns how many pages the background OCR gives the engine at
// once on cpus cores: one per core, within Memory beside the reads'.
func Background(cpus int) int {
	return max(1, min(cpus, Memory/PageBudget-ReadSlots))
}

// Page is one page's recognition, as the cache keeps it: its text and
// lines, or why it has none.
type Page struct {
	Text       string     `json:",omitempty"`
	Lines      []pdf.Line `json:",omitempty"`
	Confidence float64    `json:",omitempty"`
	Reason     string     `json:",omitempty"`
	// Transient marks a Reason that is of this run, not of the page (the
	// engine's deadline passed on a loaded machine): the page is kept in
	// memory, so that this process does not try it again and again, but
	// never written to disk, so that the next process reads it.
	Transient bool `json:"-"`
}

// Ref names the cache entry of one PDF under one engine. With the disk
// cache on, Key names the entry by the PDF's path and content, and Sum is
// the content's SHA-256, which the entry holds with the engine's id: an
// entry of another file copied or linked to its name, or one left behind
// when the content changed, is not served. Sum is "" for an entry that
// lives in memory only.
type Ref struct {
	Key    string
	Sum    string
	Engine string
}

// entry is a cache entry on disk.
type entry struct {
	SHA256 string
	Engine string
	Pages  map[int]*Page
}

// Store is one library's recognised pages: those on disk under Dir, those
// recognised in this process and not yet written, and the pages in the
// engine now. The zero value keeps pages in memory only. It is safe for
// concurrent use; Dir and Progress are set before first use.
type Store struct {
	// Dir is the cache folder, "" for none.
	Dir string
	// Progress, when set, is told the pages done and to do so far.
	Progress func(done, total int)
	// Yield, when set, is called before a background page's engine run
	// and returns when the page may go on (after the calls an agent waits
	// for); the function it returns is called when the run ends.
	Yield func(ctx context.Context) (done func())
	// Pause, when set, is called before a run waits for pages another
	// run has in the engine, so that the caller does not hold that run
	// back while it waits; the function it returns is called after.
	Pause func(ctx context.Context) (resume func())
	// InFlight, when set, reports whether calls an agent waits for are
	// in flight now: a background page's engine told of it (see
	// lowprio.WithCalls) runs apart from them while none is, and below
	// them while one is.
	InFlight func() bool

	// gen counts the pages recognised in this process: a document
	// recognised from the cache at one count is still what the cache
	// holds while the count stays.
	gen atomic.Int64

	mu          sync.Mutex
	mem         map[string]map[int]*Page         // by entry: pages recognised here and not yet on disk
	claims      map[string]map[int]chan struct{} // by entry: pages in the engine, closed when their run ends
	done, total int

	sweepOnce sync.Once
	saveMu    sync.Mutex // held while an entry is merged and written
}

// Gen returns the count of pages recognised in this process so far.
func (s *Store) Gen() int64 { return s.gen.Load() }

// The pages in OCR in this process, whatever store runs them: a host
// that reads a Vault and a Zotero library stays within Memory.
var (
	slotsOnce        sync.Once
	bgSlots, rdSlots chan struct{}
)

// Slots returns the process's semaphore of the pages in OCR of background
// runs or of reads (see Memory), sized on the cores of its first use.
func (s *Store) Slots(background bool) chan struct{} {
	slotsOnce.Do(func() {
		bgSlots = make(chan struct{}, Background(runtime.GOMAXPROCS(0)))
		rdSlots = make(chan struct{}, ReadSlots)
	})
	if background {
		return bgSlots
	}
	return rdSlots
}

// dir opens the cache folder through the safe file layer (no link down,
// regular files only, written only inside it), removing, at its first
// open in a process, what killed writers left.
func (s *Store) dir() (*safefs.Dir, error) {
	if s.Dir == "" {
		return nil, errors.New("no OCR cache folder")
	}
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, err
	}
	d, err := safefs.OpenDir(dir, safefs.Create)
	if err != nil {
		return nil, err
	}
	s.sweepOnce.Do(func() { d.RemoveStaleTemps() })
	return d, nil
}

// Load returns the pages of entry ref that this process recognised and
// those on disk, nil when there are none. An entry that is not a sealed
// regular file within MaxEntry, or that is of another content or engine,
// counts as none.
func (s *Store) Load(ref Ref) map[int]*Page {
	if ref.Sum == "" {
		return s.LoadIn(nil, ref)
	}
	d, err := s.dir()
	if err != nil {
		return s.LoadIn(nil, ref)
	}
	defer d.Close()
	return s.LoadIn(d, ref)
}

// OpenDir opens the store's folder for LoadIn: a caller that loads the
// entries of several files (a search's hits) opens it once, not once an
// entry. Close it when done.
func (s *Store) OpenDir() (*safefs.Dir, error) { return s.dir() }

// LoadIn is Load with the store's folder d as OpenDir opened it; with d
// nil it returns the pages kept in memory only.
func (s *Store) LoadIn(d *safefs.Dir, ref Ref) map[int]*Page {
	// Memory first: a save writes the disk, then forgets the pages here.
	s.mu.Lock()
	out := clonePages(s.mem[ref.Key])
	s.mu.Unlock()
	if ref.Sum == "" || d == nil {
		return out
	}
	b, err := d.ReadSealed(ref.Key+".ocr", MaxEntry)
	var e entry
	if err != nil || json.Unmarshal(b, &e) != nil || e.SHA256 != ref.Sum || e.Engine != ref.Engine {
		return out
	}
	if out == nil {
		out = map[int]*Page{}
	}
	for n, p := range e.Pages {
		if _, ok := out[n]; !ok && p != nil {
			out[n] = p
		}
	}
	return out
}

// Keep records page n of entry ref, recognised here, in memory.
func (s *Store) Keep(ref Ref, n int, p *Page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		s.mem = map[string]map[int]*Page{}
	}
	if s.mem[ref.Key] == nil {
		s.mem[ref.Key] = map[int]*Page{}
	}
	s.mem[ref.Key][n] = p
	s.gen.Add(1)
}

// Save writes what is known of entry ref to disk and forgets the pages
// kept in memory for it; a cache that cannot be written (or an entry over
// MaxEntry) keeps them in memory, costing the work again in the next
// process, nothing else.
func (s *Store) Save(ref Ref) {
	if ref.Sum == "" {
		return
	}
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	pages := s.Load(ref)
	for n, p := range pages {
		if p.Transient {
			delete(pages, n)
		}
	}
	b, err := json.Marshal(entry{SHA256: ref.Sum, Engine: ref.Engine, Pages: pages})
	if err != nil || len(b)+4 > MaxEntry {
		return
	}
	d, err := s.dir()
	if err != nil {
		return
	}
	defer d.Close()
	if d.WriteSealed(ref.Key+".ocr", b) != nil {
		return
	}
	s.mu.Lock()
	for n := range pages {
		delete(s.mem[ref.Key], n)
	}
	if len(s.mem[ref.Key]) == 0 {
		delete(s.mem, ref.Key)
	}
	s.mu.Unlock()
}

// Source is the PDF whose pages are recognised: its file, opened at each
// run, the document its text layer gave, and the renderer of pages whose
// image is not decoded here ("" for none).
type Source struct {
	Open     pdfcache.Opener
	Doc      *pdf.Document
	Renderer string
}

// Scanned returns the pages of doc (1-based) that have no text layer and
// no error: those OCR reads.
func Scanned(doc *pdf.Document) []int {
	var out []int
	for i, p := range doc.Pages {
		if p.NoTextLayer && p.Err == nil {
			out = append(out, i+1)
		}
	}
	return out
}

// Pages returns what entry ref knows of the scanned pages of src, after
// recognising those of want (1-based) it does not know, within ctx. A page
// another run is recognising is waited for. ran reports whether this call
// had the engine recognise any page.
func (s *Store) Pages(ctx context.Context, eng ocr.Engine, src Source, want []int, ref Ref, background bool) (rec map[int]*Page, ran bool) {
	scanned := map[int]bool{}
	for _, n := range Scanned(src.Doc) {
		scanned[n] = true
	}
	var todo []int
	for _, n := range want {
		if scanned[n] {
			todo = append(todo, n)
		}
	}
	// In order, once each: recognise counts on it.
	slices.Sort(todo)
	want = slices.Compact(todo)
	rec = s.Load(ref)
	for ctx.Err() == nil {
		todo = todo[:0]
		for _, n := range want {
			if rec[n] == nil {
				todo = append(todo, n)
			}
		}
		if len(todo) == 0 {
			break
		}
		r, theirs := s.recognise(ctx, eng, src, todo, ref, background)
		if r {
			s.Save(ref)
			ran = true
		}
		resume := func() {}
		if s.Pause != nil && len(theirs) > 0 {
			resume = s.Pause(ctx)
		}
		for _, c := range theirs {
			select {
			case <-c:
			case <-ctx.Done():
			}
		}
		resume()
		rec = s.Load(ref)
		if !r && len(theirs) == 0 {
			break
		}
	}
	return rec, ran
}

// Merge returns doc with the text of its scanned pages that rec holds, and
// by page what became of each scanned page: its recognition, or why it has
// none, note (with engine, a page rec does not hold: it waits for the
// engine; without, every page). done reports that no scanned page waits
// for the engine. It returns doc itself when no page is scanned.
func Merge(doc *pdf.Document, rec map[int]*Page, engine bool, note string) (out *pdf.Document, notes map[int]*Page, done bool) {
	need := Scanned(doc)
	if len(need) == 0 {
		return doc, nil, true
	}
	done = true
	cp := *doc
	cp.Pages = append([]pdf.Page(nil), doc.Pages...)
	notes = map[int]*Page{}
	for _, n := range need {
		p := rec[n]
		switch {
		case !engine:
			notes[n] = &Page{Reason: note}
		case p == nil:
			notes[n] = &Page{Reason: note}
			done = false
		case p.Text == "":
			notes[n] = p
		default:
			notes[n] = p
			pg := &cp.Pages[n-1]
			pg.Text, pg.Lines, pg.NoTextLayer, pg.Recognised = p.Text, p.Lines, false, true
		}
	}
	return &cp, notes, done
}

// recognise runs eng over the given pages of src, keeping each page's
// result in memory for entry ref, and reports whether it ran any. A page
// that another run has in the engine is left to it, and its channel
// returned in theirs, closed when that run ends. A page the caller's
// context interrupted is left out; a page whose image cannot be had, or
// that the engine fails on, gets its reason. Each page holds one of the
// store's OCR slots (see Memory) from before its image is decoded to the
// end of its engine run.
func (s *Store) recognise(ctx context.Context, eng ocr.Engine, src Source, pages []int, ref Ref, background bool) (ran bool, theirs []chan struct{}) {
	file, size, closer, err := src.Open()
	if err != nil {
		return false, nil
	}
	defer closer.Close()
	doc := src.Doc
	slots := s.Slots(background)
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
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.mem[ref.Key][n]; ok {
			return false
		}
		if c := s.claims[ref.Key][n]; c != nil {
			theirs = append(theirs, c)
			return false
		}
		if s.claims == nil {
			s.claims = map[string]map[int]chan struct{}{}
		}
		if s.claims[ref.Key] == nil {
			s.claims[ref.Key] = map[int]chan struct{}{}
		}
		s.claims[ref.Key][n] = make(chan struct{})
		return true
	}
	release := func(n int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		close(s.claims[ref.Key][n])
		delete(s.claims[ref.Key], n)
		if len(s.claims[ref.Key]) == 0 {
			delete(s.claims, ref.Key)
		}
	}
	s.mu.Lock()
	s.total += len(pages)
	s.mu.Unlock()
	s.progress(0)

	jobs := make(chan pageimage.Result)
	var wg sync.WaitGroup
	for range min(cap(slots), len(pages)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				pg := &doc.Pages[r.Page-1]
				done, pctx := func() {}, ctx
				if background && s.Yield != nil {
					done = s.Yield(ctx)
				}
				if background && s.InFlight != nil {
					pctx = lowprio.WithCalls(ctx, s.InFlight)
				}
				p := RecognisePage(pctx, eng, r, pg.Width, pg.Height)
				done()
				r.Image = nil
				<-slots // the page's image is no longer held
				s.progress(1)
				if p != nil {
					s.Keep(ref, r.Page, p)
				}
				release(r.Page)
			}
		}()
	}
	err = pageimage.Read(ctx, file, size, pages, &pageimage.Options{Renderer: src.Renderer}, func(r pageimage.Result) error {
		if !claim(r.Page) {
			s.progress(1)
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
		known := s.Load(ref)
		for _, n := range pages {
			if known[n] == nil && claim(n) {
				s.Keep(ref, n, &Page{Reason: "its image cannot be read: " + imageReason(err)})
				release(n)
				ran = true
			}
		}
	}
	return ran, theirs
}

// progress counts n more pages recognised and calls the progress hook.
func (s *Store) progress(n int) {
	s.mu.Lock()
	s.done += n
	done, total := s.done, s.total
	s.mu.Unlock()
	if s.Progress != nil {
		s.Progress(done, total)
	}
}

// RecognisePage reads one page image with eng; nil when the caller's
// context ended (nothing is known of the page then). width and height are
// the page's size in points, for the lines' font sizes and gaps.
func RecognisePage(ctx context.Context, eng ocr.Engine, r pageimage.Result, width, height float64) *Page {
	if r.Err != nil {
		if errors.Is(r.Err, pageimage.ErrNoImage) {
			return &Page{Reason: "the page is blank: it has no image"}
		}
		return &Page{Reason: "its image cannot be read: " + imageReason(r.Err)}
	}
	format := ocr.PNM
	if r.Image.Format == pageimage.JPEG {
		format = ocr.JPEG
	}
	res, err := eng.Recognize(ctx, ocr.Image{Data: r.Image.Data, Format: format, Width: r.Image.Width, Height: r.Image.Height})
	switch {
	case ctx.Err() != nil:
		return nil
	case errors.Is(err, ocr.ErrTimeout):
		return &Page{Reason: "OCR timed out on the page", Transient: true}
	case err != nil:
		return &Page{Reason: "the OCR engine failed on the page"}
	case strings.TrimSpace(res.Text) == "":
		return &Page{Reason: "OCR found no text on the page"}
	case !ocr.Plausible(res):
		return &Page{Reason: "OCR read nothing that is text on the page"}
	case len(res.Text)+len(res.Words)*16 > pdf.MaxPageText:
		return &Page{Reason: "the recognised text is over the text bytes per page limit"}
	}
	return &Page{Text: res.Text, Lines: Lines(res, width, height), Confidence: RoundConfidence(res.Confidence)}
}

// RoundConfidence rounds a confidence to two places.
func RoundConfidence(c float64) float64 { return float64(int(c*100+0.5)) / 100 }

// imageReason says in a few words why a page image could not be had.
func imageReason(err error) string {
	var le *pdf.LimitError
	switch {
	case errors.As(err, &le):
		return fmt.Sprintf("over the %s limit", le.Limit)
	case errors.Is(err, pageimage.ErrUndecodable):
		return "its encoding is not one this build decodes (install pdftoppm to render it)"
	case errors.Is(err, pdf.ErrEncrypted):
		return "encrypted"
	}
	return "malformed"
}

// Lines groups the words of res into the lines of a page width by height
// points, each with its box, its font size (the words' mean height), its
// offset in res.Text and its wide gaps: the blanks between consecutive
// words wider than pdf.WideGap font sizes, as a text layer's lines record
// them (at most pdf.MaxGaps a line).
func Lines(res *ocr.Result, width, height float64) []pdf.Line {
	var lines []pdf.Line
	for i := 0; i < len(res.Words); {
		j := i + 1
		for j < len(res.Words) && res.Words[j].Line == res.Words[i].Line {
			j++
		}
		lines = append(lines, line(res.Words[i:j], width, height))
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

// line makes one line of a page width by height points of its words, left
// to right.
func line(ws []ocr.Word, width, height float64) pdf.Line {
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

// clonePages copies a page map (its pages are not changed once made).
func clonePages(m map[int]*Page) map[int]*Page {
	if m == nil {
		return nil
	}
	out := make(map[int]*Page, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
