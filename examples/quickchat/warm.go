package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// How often the progress line is redrawn on a terminal, and printed again
// when stderr is a file or a pipe.
const (
	progressEvery     = 250 * time.Millisecond
	progressEveryPipe = 2 * time.Second
)

// prewarm opens the plan's granted sources in this process and runs one
// search over each, so that their search indexes and PDF text are built and
// cached in the vault's cache before the agent's first search (the server
// process then loads them). Search errors are left for the server to
// report; only cancellation is an error.
func prewarm(ctx context.Context, plan *researchctx.Plan, pr *progress) error {
	// Prewarming waits for the whole index (a search elsewhere would
	// answer from part of it after a few seconds).
	lib, err := vault.OpenLibrary(plan.Vault, &vault.LibraryOptions{OnProgress: pr.update, OCRProgress: pr.ocrUpdate, IndexWait: 24 * time.Hour})
	if err != nil {
		return fmt.Errorf("opening the vault: %w", err)
	}
	defer lib.Close()
	pr.start()
	defer pr.stop()
	for _, s := range plan.Sources {
		src, err := lib.Open(ctx, s.Kind, s.Path)
		if err := ctx.Err(); err != nil {
			return err
		}
		connector := false
		if err != nil {
			// A connector's source (a Zotero library, say), whose index
			// is kept in the same cache: searched until it answers
			// from a complete index, as its own wait may be shorter.
			if src, err = sources.DefaultRegistry.Open(ctx, s, &sources.Env{Vault: lib}); err != nil {
				continue
			}
			connector = true
		}
		pr.begin(s.Path)
		for {
			res, err := src.Search(ctx, sources.Query{Text: "index", Limit: 1})
			if err := ctx.Err(); err != nil {
				return err
			}
			if err != nil || res.Indexing == nil || !connector {
				break
			}
		}
		if c, ok := src.(io.Closer); ok && connector {
			c.Close()
		}
	}
	return nil
}

// progress prints a line on stderr while indexing takes longer than after:
// the source, files done of the total, pages indexed, pages per second and
// the time left, both at the index build's pace over the last half minute
// (from the start, until the build has one). On a terminal the line is
// redrawn in place; elsewhere a new line is printed every few seconds.
type progress struct {
	w     io.Writer
	tty   bool
	after time.Duration
	every time.Duration

	mu          sync.Mutex
	ref         string
	began       time.Time // when ref's indexing began
	done, total int
	pages       int
	pace        float64       // pages per second, 0 when not known yet
	eta         time.Duration // at that pace
	// ocrDone and ocrTotal count scanned pages recognised and queued, in
	// the whole library since it opened: counted apart from files, as a
	// page takes seconds where a file takes milliseconds.
	ocrDone, ocrTotal int
	shown             bool // a line was printed for ref
	quit              chan struct{}
	finished          chan struct{}
}

// newProgress returns a progress printer on w that starts printing after
// the given delay, then redraws every tick on a terminal, or prints a line
// every pipeTick elsewhere.
func newProgress(w io.Writer, after, tick, pipeTick time.Duration) *progress {
	p := &progress{w: w, after: after, every: pipeTick}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty, p.every = true, tick
		}
	}
	return p
}

// update is the vault.LibraryOptions.OnProgress hook.
func (p *progress) update(ip vault.IndexProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ip.Path != p.ref {
		return // a directory inside the source being warmed reports its own ref
	}
	p.done, p.total, p.pages, p.pace, p.eta = ip.Done, ip.Total, ip.Pages, ip.PagesPerSecond, ip.ETA
}

// ocrUpdate is the vault.LibraryOptions.OCRProgress hook.
func (p *progress) ocrUpdate(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ocrDone, p.ocrTotal = done, total
}

// ocrLocked is the line's part about recognised pages, or "".
func (p *progress) ocrLocked() string {
	if p.ocrTotal == 0 {
		return ""
	}
	return fmt.Sprintf(", OCR %d/%d pages", p.ocrDone, p.ocrTotal)
}

// begin starts counting for a granted source.
func (p *progress) begin(ref string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked()
	p.ref, p.began, p.done, p.total, p.pages, p.pace, p.eta, p.shown = ref, time.Now(), 0, 0, 0, 0, 0, false
}

func (p *progress) start() {
	p.quit, p.finished = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.finished)
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.mu.Lock()
				if p.ref != "" && time.Since(p.began) >= p.after {
					p.printLocked()
				}
				p.mu.Unlock()
			}
		}
	}()
}

func (p *progress) stop() {
	close(p.quit)
	<-p.finished
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked()
	p.ref = ""
}

// printLocked prints the current state of ref's indexing.
func (p *progress) printLocked() {
	el := time.Since(p.began)
	s := fmt.Sprintf("indexing %s… %s", p.ref, el.Round(time.Second))
	if p.total > 0 {
		pace, left := p.pace, p.eta
		if pace <= 0 && p.done > 0 {
			// The build has no pace yet: the average since the start.
			pace = float64(p.pages) / el.Seconds()
			left = time.Duration(float64(p.total-p.done) / float64(p.done) * float64(el))
		}
		s = fmt.Sprintf("indexing %s: %d/%d files, %d pages, %.0f pages/s", p.ref, p.done, p.total, p.pages, pace)
		if p.done > 0 {
			s += fmt.Sprintf(", ETA %s", left.Round(time.Second))
		}
	}
	s += p.ocrLocked()
	if p.tty {
		fmt.Fprint(p.w, "\r\x1b[K"+s)
	} else {
		fmt.Fprintln(p.w, s)
	}
	p.shown = true
}

// finishLocked ends ref's progress with a summary line, if a progress line
// was shown.
func (p *progress) finishLocked() {
	if !p.shown {
		return
	}
	s := fmt.Sprintf("indexed %s: %d files in %s", p.ref, p.total, time.Since(p.began).Round(10*time.Millisecond))
	if p.ocrTotal > 0 {
		s += fmt.Sprintf(" (%d scanned pages recognised)", p.ocrDone)
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\x1b[K"+s+"\n")
	} else {
		fmt.Fprintln(p.w, s)
	}
	p.shown = false
}
