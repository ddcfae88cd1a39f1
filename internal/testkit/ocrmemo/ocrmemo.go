// Package ocrmemo keeps what a real OCR engine read on each page image in
// one test binary, so that a page several files or tests hold (a scan
// under two paths, whose OCR cache entries are apart; a page two tests
// scan alike) is read by the engine once: a program such as tesseract reads
// the same image the same way.
package ocrmemo

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"

	"github.com/researchctx/researchctx/ocr"
)

// Engine is an engine that gives a page image the wrapped engine has read
// in this test binary, under the same ID, what it read then; it reads the
// others with the wrapped engine and keeps what it read. An error is not
// kept: the next caller reads the page again.
type Engine struct {
	ocr.Engine
	// Fresh has every page read by the wrapped engine, for a test about
	// what the engine reads; its readings serve the Engines after it.
	Fresh bool
}

// reading is one page's reading: done is closed once res is set, or once
// the reading failed (res nil).
type reading struct {
	done chan struct{}
	res  *ocr.Result
}

// readings holds this binary's readings by key.
var readings sync.Map // string -> *reading

// closed is the done of a reading made.
var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Recognize returns the page's reading from this binary's readings, or
// from the wrapped engine. A caller that asks for a page the engine is
// reading for another waits for that reading.
func (e Engine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	k := key(e.ID(), img)
	if e.Fresh {
		res, err := e.Engine.Recognize(ctx, img)
		if err == nil {
			readings.Store(k, &reading{done: closed, res: clone(res)})
		}
		return res, err
	}
	for {
		mine := &reading{done: make(chan struct{})}
		v, loaded := readings.LoadOrStore(k, mine)
		r := v.(*reading)
		if !loaded {
			res, err := e.Engine.Recognize(ctx, img)
			if err != nil {
				readings.CompareAndDelete(k, r)
			} else {
				r.res = clone(res)
			}
			close(r.done)
			return res, err
		}
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.res != nil {
			return clone(r.res), nil
		}
	}
}

// key names a page image under an engine.
func key(engine string, img ocr.Image) string {
	return fmt.Sprintf("%s\x00%s\x00%dx%d\x00%x", engine, img.Format, img.Width, img.Height, sha256.Sum256(img.Data))
}

// clone copies r, so that no caller changes what another is given.
func clone(r *ocr.Result) *ocr.Result {
	c := *r
	c.Words = slices.Clone(r.Words)
	return &c
}
