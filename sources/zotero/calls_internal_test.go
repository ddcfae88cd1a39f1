package zotero

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/wait"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources"
)

// TestBackgroundIndexYieldsToCalls: the library index's build, started by
// a library's first search while another call is in flight, holds its
// workers back for that call (one at a time goes on), and still ends: the
// search that waits for it gets the whole library.
func TestBackgroundIndexYieldsToCalls(t *testing.T) {
	dir := copyLayout(t, "Zotero")
	d := New(Options{DataDir: dir, CacheDir: t.TempDir(), IndexWait: 10 * time.Minute})
	t.Cleanup(func() { closeDriver(t, d) })
	lib := source(t, d, "")
	l, err := d.library(&sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	_, end := l.calls.Begin(context.Background())
	defer end()
	res, err := lib.Search(context.Background(), sources.Query{Text: "MapReduce Google File System", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexing != nil || len(res.Hits) == 0 {
		t.Fatalf("the build under a call left %+v, %d hits; want the whole library", res.Indexing, len(res.Hits))
	}
	if _, total := l.calls.Held(); total == 0 {
		t.Error("no worker of the build was held back for the call in flight")
	}
}

// gatedEngine holds each page it is given until the test lets one go
// (release), and counts the pages it was given.
type gatedEngine struct {
	given   atomic.Int32
	release chan struct{}
}

func (e *gatedEngine) ID() string { return "gated 1 eng" }

func (e *gatedEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	e.given.Add(1)
	select {
	case <-e.release:
	case <-ctx.Done():
	}
	return &ocr.Result{Text: "Numbats eat termites", Confidence: 0.9}, nil
}

// TestBackgroundOCRYieldsToCalls: the background OCR of a scanned
// attachment, under way when a call begins, holds its pages back for the
// call (one at a time goes on) before the engine, and still ends.
func TestBackgroundOCRYieldsToCalls(t *testing.T) {
	dir := copyLayout(t, "Zotero")
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	pages := make([][]byte, 8)
	for i := range pages {
		pages[i] = jpg.Bytes()
	}
	scan := filepath.Join(dir, "storage", "XHS4W622", "Sutskever et al. - 2014 - Sequence to Sequence Learning with Neural Networks.pdf")
	if err := os.MkdirAll(filepath.Dir(scan), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scan, hostilepdf.Scan(16, 16, pages...), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := &gatedEngine{release: make(chan struct{})}
	d := New(Options{DataDir: dir, CacheDir: t.TempDir(), IndexWait: 10 * time.Minute, OCR: eng})
	l, err := d.library(&sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The pages let go, nothing is written to the cache folder after
		// the test.
		close(eng.release)
		l.pdfs.closeOCR()
		closeDriver(t, d)
	})
	// The library's first search has the scan's pages recognised in the
	// background; the first ones enter the engine and wait there.
	if _, err := source(t, d, "").Search(context.Background(), sources.Query{Text: "numbats", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "a page in the engine", func() bool { return eng.given.Load() > 0 })
	_, before := l.calls.Held()
	_, end := l.calls.Begin(context.Background())
	defer end()
	for eng.given.Load() < int32(len(pages)) {
		select {
		case eng.release <- struct{}{}:
		case <-time.After(time.Minute):
			t.Fatalf("the engine was given %d of %d pages under a call", eng.given.Load(), len(pages))
		}
	}
	if _, after := l.calls.Held(); after == before {
		t.Error("no page of the background OCR was held back for the call in flight")
	}
	// The engine's program is told of the calls, so that its session is
	// ranked below the server's while one is in flight
	// (lowprio.RunContext).
	if f := l.pdfs.ocr.store.InFlight; f == nil || !f() {
		t.Error("the background OCR's engine is not told of the call in flight")
	}
	end()
	if f := l.pdfs.ocr.store.InFlight; f != nil && f() {
		t.Error("the background OCR's engine is told of a call that has ended")
	}
}
