package vault_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/internal/testkit/wait"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// heldEngine is an engine whose pages each wait in it until the test
// lets one go (release); entered receives, as each page enters, how many
// pages are in the engine then.
type heldEngine struct {
	mu      sync.Mutex
	in      int
	entered chan int
	release chan struct{}
}

func (e *heldEngine) ID() string { return "held 1 eng" }

func (e *heldEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	e.mu.Lock()
	e.in++
	n := e.in
	e.mu.Unlock()
	e.entered <- n
	select {
	case <-e.release:
	case <-ctx.Done():
	}
	e.mu.Lock()
	e.in--
	e.mu.Unlock()
	return words(0.9, "Wombats", "dig", "burrows"), nil
}

// TestBackgroundOCRYieldsToCalls: while a call is in flight, the OCR
// worker gives the engine one background page at a time, the others
// waiting before the engine; once the calls end, it gives it as many as
// it has slots again. The engine holds every page until the test lets it
// go, so the order is the test's, not the clock's.
func TestBackgroundOCRYieldsToCalls(t *testing.T) {
	if vault.OCRBackground(runtime.GOMAXPROCS(0)) < 2 {
		t.Skip("one background OCR slot: nothing to hold back")
	}
	root := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	var pages [][]byte
	for range 6 {
		pages = append(pages, jpg.Bytes())
	}
	vaultfix.Write(t, root, map[string]string{"scans/scan.pdf": string(hostilepdf.Scan(16, 16, pages...))})
	eng := &heldEngine{entered: make(chan int, 16), release: make(chan struct{})}
	lib := openWith(t, root, t.TempDir(), eng)

	_, end := vault.BeginCall(lib, context.Background())
	defer end()
	// The search queues the scan's pages for the background OCR.
	if res := search(t, lib, "scans", "wombats"); res.Indexing == nil {
		t.Fatalf("the scan's pages were not left to the background: %+v", res)
	}
	for i := range 3 {
		if n := <-eng.entered; n != 1 {
			t.Fatalf("page %d entered the engine with %d pages in it while a call ran, want 1", i+1, n)
		}
		// The next page is decoded and waits for the call, not for a
		// slot: it is held back before the engine.
		wait.Until(t, "a second page waits for the call", func() bool {
			eng.mu.Lock()
			in := eng.in
			eng.mu.Unlock()
			if in > 1 {
				t.Fatalf("%d pages in the engine while a call ran, want 1", in)
			}
			now, _ := vault.BackgroundHeld(lib)
			return now >= 1
		})
		if i < 2 {
			eng.release <- struct{}{}
		}
	}
	// The call ends: the waiting page joins the one in the engine.
	end()
	if n := <-eng.entered; n != 2 {
		t.Errorf("after the call, a page entered the engine with %d pages in it, want 2", n)
	}
	close(eng.release)
	if res := searchAll(t, lib, "scans", "wombats dig burrows"); res.Indexing != nil || len(res.Hits) == 0 {
		t.Fatalf("the scan was not recognised: %+v", res)
	}
}

// TestBackgroundIndexYieldsToCalls: the library index's build, started
// by a folder's first search while another call is in flight, holds its
// workers back for that call (one at a time goes on), and still ends: the
// search that waits for it gets the whole folder.
func TestBackgroundIndexYieldsToCalls(t *testing.T) {
	root := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("notes/n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nPlatypuses hunt shrimp %d in streams.\n", i, i)
	}
	vaultfix.Write(t, root, files)
	lib := openWith(t, root, t.TempDir(), ocr.Off())
	_, end := vault.BeginCall(lib, context.Background())
	defer end()
	res := searchAll(t, lib, "notes", "platypuses shrimp")
	if res.Indexing != nil || res.Total != 40 {
		t.Fatalf("the build under a call left %+v, %d hits; want all 40", res.Indexing, res.Total)
	}
	if _, total := vault.BackgroundHeld(lib); total == 0 {
		t.Error("no worker of the build was held back for the call in flight")
	}
}

// TestBackgroundRescanYieldsToCalls: a directory's rescan in the
// background (the freshness check a search starts every few seconds)
// holds its stamping workers back for a call in flight, one at a time
// going on, and still ends: a paper added before it is found after it.
func TestBackgroundRescanYieldsToCalls(t *testing.T) {
	root := filepath.Join(t.TempDir(), "vault")
	files := map[string]string{}
	for i := range 24 {
		files[fmt.Sprintf("papers/p%02d/PAPER.md", i)] = fmt.Sprintf("# Paper %d\n\nQuokkas graze %d at dusk.\n", i, i)
		files[fmt.Sprintf("papers/p%02d/metadata.json", i)] = fmt.Sprintf(`{"title": "Paper %d"}`, i)
	}
	vaultfix.Write(t, root, files)
	lib := openWith(t, root, t.TempDir(), ocr.Off())
	src, err := lib.Open(context.Background(), grant.KindDirectory, "papers")
	if err != nil {
		t.Fatal(err)
	}
	find := func(q string) *sources.Results {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for {
			res, err := src.Search(context.Background(), sources.Query{Text: q, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			if res.Indexing == nil || time.Now().After(deadline) {
				return res
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if res := find("quokkas graze"); res.Total != 24 {
		t.Fatalf("before the rescan: %d hits, want 24", res.Total)
	}
	vaultfix.Write(t, root, map[string]string{
		"papers/p24/PAPER.md":      "# Paper 24\n\nWallabies box at dawn.\n",
		"papers/p24/metadata.json": `{"title": "Paper 24"}`,
	})
	_, before := vault.BackgroundHeld(lib)
	_, end := vault.BeginCall(lib, context.Background())
	vault.RescanDirectory(src)
	_, after := vault.BackgroundHeld(lib)
	end()
	if after-before < 24 {
		t.Errorf("the rescan under a call held its workers back %d times, want one per paper (25)", after-before)
	}
	if res := find("wallabies box"); res.Indexing != nil || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Path, "p24") {
		t.Errorf("the paper added before the rescan is not found after it: %+v", res)
	}
}
