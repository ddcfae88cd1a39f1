package tools_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
)

// stuckEngine recognises page 1 of a scan made of grey pages (the page
// number in the grey level, 50 a page) as a long text; the other pages
// stay in the engine until release is closed or their context ends.
type stuckEngine struct {
	release chan struct{}
	mu      sync.Mutex
	given   []int
}

func (e *stuckEngine) ID() string { return "stuck 1 eng" }

func (e *stuckEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	m, err := jpeg.Decode(bytes.NewReader(img.Data))
	if err != nil {
		return nil, err
	}
	g, ok := m.(*image.Gray)
	if !ok {
		return nil, errors.New("not grey")
	}
	n := (int(g.Pix[0]) + 25) / 50
	e.mu.Lock()
	e.given = append(e.given, n)
	e.mu.Unlock()
	if n != 1 {
		select {
		case <-e.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r := &ocr.Result{Confidence: 0.9}
	for i := range 300 {
		w := fmt.Sprintf("quoll%d", i)
		r.Words = append(r.Words, ocr.Word{Text: w, X: 0.05 + 0.03*float64(i%30), Y: 0.05 + 0.03*float64(i/30), W: 0.025, H: 0.02, Confidence: 0.9})
	}
	words := make([]string, len(r.Words))
	for i, w := range r.Words {
		words[i] = w.Text
	}
	r.Text = strings.Join(words, " ")
	return r, nil
}

// vaultScans is a test connector whose one source is a Vault PDF of the
// test's own library, a scan, under the connector's name.
type vaultScans struct{ lib *vault.Library }

func (vaultScans) Ref(_ context.Context, name string, _ *sources.Env) (*sources.Named, error) {
	return &sources.Named{Ref: grant.Ref{Path: "vaultscans/" + name, Title: "Scan: " + name}}, nil
}

func (s vaultScans) Open(ctx context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	src, err := s.lib.Open(ctx, grant.KindFile, "downloads/book.pdf")
	if err != nil {
		return nil, err
	}
	return &renamed{Source: src, info: sources.Info{Path: ref.Path, Kind: ref.Kind, Title: ref.Title}}, nil
}

// renamed is a Vault source under another path, with its page reader.
type renamed struct {
	sources.Source
	info sources.Info
}

func (r *renamed) Info() sources.Info { return r.info }

func (r *renamed) Read(ctx context.Context, _ string) (*sources.Document, error) {
	doc, err := r.Source.Read(ctx, "")
	return r.rename(doc, err)
}

func (r *renamed) ReadPages(ctx context.Context, _ string, pages []int) (*sources.Document, error) {
	doc, err := r.Source.(sources.PageReader).ReadPages(ctx, "", pages)
	return r.rename(doc, err)
}

func (r *renamed) rename(doc *sources.Document, err error) (*sources.Document, error) {
	if err != nil {
		return nil, err
	}
	doc.Path = r.info.Path
	for i := range doc.Parts {
		doc.Parts[i].Path = r.info.Path
	}
	return doc, nil
}

// TestFullReadOfScanWaitsForItsPieceOnly: a full read of a real four-page
// scan whose first page fills the read cap returns page 1 recognised while
// the engine is stuck on pages 2–4, which it does not return; a full read
// recognised every page, and waited for the stuck ones, before.
func TestFullReadOfScanWaitsForItsPieceOnly(t *testing.T) {
	scanDir := filepath.Join(t.TempDir(), "scans")
	if err := samplevault.Extract(scanDir); err != nil {
		t.Fatal(err)
	}
	grey := func(level uint8) []byte {
		img := image.NewGray(image.Rect(0, 0, 16, 16))
		for i := range img.Pix {
			img.Pix[i] = level
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, nil); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	book := filepath.Join(scanDir, "downloads", "book.pdf")
	if err := os.MkdirAll(filepath.Dir(book), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(book, hostilepdf.Scan(16, 16, grey(50), grey(100), grey(150), grey(200)), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := &stuckEngine{release: make(chan struct{})}
	defer close(eng.release)
	lib, err := vault.OpenLibrary(scanDir, &vault.LibraryOptions{CacheDir: t.TempDir(), OCR: eng})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })

	vaultDir := t.TempDir()
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("vaultscans", vaultScans{lib})
	r := researchctx.Resolver{Registry: reg}
	t.Cleanup(func() { r.Close() })
	ctx := context.Background()
	plan, err := r.Resolve(ctx, researchctx.Request{Vault: vaultDir, RuntimeID: "vaultscans", TurnID: "t1", Mentions: []string{"vaultscans:book"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	// Page 1's text alone is over the cap; a generous deadline that a
	// read waiting for pages 2-4 would run out.
	ts, err := tools.Open(ctx, gr, &tools.Options{Registry: reg, MaxResultChars: 1500, CallTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	start := time.Now()
	out, err := ts.Read(ctx, tools.ReadInput{Target: "vaultscans/book", Mode: tools.ReadFull})
	if err != nil {
		t.Fatalf("full read after %v: %v", time.Since(start), err)
	}
	if !strings.Contains(out.Text, "[page 1]") || !strings.Contains(out.Text, "quoll1 ") || !out.OCR {
		t.Errorf("the piece is not page 1 recognised:\n%s", out.Text)
	}
	if strings.Contains(out.Text, "[page 2]") || out.NextCursor == "" {
		t.Errorf("the piece goes past page 1 (cursor %q):\n%s", out.NextCursor, out.Text)
	}
	eng.mu.Lock()
	given := slices.Clone(eng.given)
	eng.mu.Unlock()
	if !slices.Contains(given, 1) {
		t.Errorf("pages given to the engine: %v, want page 1", given)
	}
}
