package pdfcache

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

type countingOpener struct {
	data  []byte
	opens atomic.Int32
}

func (o *countingOpener) open() (io.ReaderAt, int64, io.Closer, error) {
	o.opens.Add(1)
	return bytes.NewReader(o.data), int64(len(o.data)), nil, nil
}

var cmpDoc = cmp.Options{cmpopts.EquateEmpty(), cmp.Comparer(func(a, b error) bool { return (a == nil) == (b == nil) })}

func TestCacheRoundTrip(t *testing.T) {
	data := fixture(t, "simple.pdf")
	want := mustExtract(t, data)
	c := &Cache{Dir: t.TempDir()}
	o := &countingOpener{data: data}
	key := FileInfo{Path: "papers/simple.pdf", Size: int64(len(data)), ModTime: time.Unix(1700000000, 5)}
	ctx := context.Background()

	got, err := c.Extract(ctx, key, o.open)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpDoc); diff != "" {
		t.Errorf("first extraction (-want +got):\n%s", diff)
	}
	got, err = c.Extract(ctx, key, o.open)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpDoc); diff != "" {
		t.Errorf("cached document (-want +got):\n%s", diff)
	}
	if n := o.opens.Load(); n != 1 {
		t.Errorf("file opened %d times, want 1 (path fast path)", n)
	}
	p, err := c.Page(ctx, key, o.open, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Pages[1], *p, cmpDoc); diff != "" {
		t.Errorf("cached page (-want +got):\n%s", diff)
	}
	if _, err := c.Page(ctx, key, o.open, 3); err == nil {
		t.Error("page 3 of 2: no error")
	}

	// A touched file (new mtime) is hashed again but not re-extracted: the
	// content hash still finds the entry.
	key.ModTime = key.ModTime.Add(time.Second)
	if _, err := c.Extract(ctx, key, o.open); err != nil {
		t.Fatal(err)
	}
	if n := o.opens.Load(); n != 2 {
		t.Errorf("file opened %d times, want 2", n)
	}
}

// forgeHeader rewrites the header of the entry b with edit, its checksum
// made to match.
func forgeHeader(t *testing.T, b []byte, edit func(*cacheHeader)) []byte {
	t.Helper()
	pre := len(cacheMagic) + 4 + 32
	n := int(binary.BigEndian.Uint32(b[len(cacheMagic):]))
	var hdr cacheHeader
	if err := json.Unmarshal(b[pre:pre+n], &hdr); err != nil {
		t.Fatal(err)
	}
	edit(&hdr)
	out, err := encodeHeader(hdr, 0)
	if err != nil {
		t.Fatal(err)
	}
	return append(out.Bytes(), b[pre+n:]...)
}

func TestCacheCorruptEntryRebuilt(t *testing.T) {
	data := fixture(t, "simple.pdf")
	want := mustExtract(t, data)
	ctx := context.Background()
	damage := map[string]func(b []byte) []byte{
		"truncated":         func(b []byte) []byte { return b[:len(b)/2] },
		"page byte flipped": func(b []byte) []byte { b[len(b)-5] ^= 0x20; return b },
		"header byte flipped": func(b []byte) []byte {
			b[len(cacheMagic)+4+32+10] ^= 0x01
			return b
		},
		"empty": func(b []byte) []byte { return nil },
		// Entries whose checksums hold but whose records claim more than
		// the extraction limits let a page or a document hold: refused
		// before anything is read.
		"page record over the page limit": func(b []byte) []byte {
			return forgeHeader(t, b, func(h *cacheHeader) { h.Pages[0].Len = 1 << 29 })
		},
		"pages over the document limit": func(b []byte) []byte {
			return forgeHeader(t, b, func(h *cacheHeader) {
				for range pdf.MaxDocumentText/pdf.MaxPageText + 1 {
					h.Pages = append(h.Pages, cachePageRef{Off: 0, Len: pdf.MaxPageText + maxRecordExtra, Sum: h.Pages[0].Sum})
				}
			})
		},
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			c := &Cache{Dir: t.TempDir()}
			o := &countingOpener{data: data}
			key := FileInfo{Path: "a.pdf", Size: int64(len(data)), ModTime: time.Unix(1, 0)}
			if _, err := c.Extract(ctx, key, o.open); err != nil {
				t.Fatal(err)
			}
			entries, _ := filepath.Glob(filepath.Join(c.Dir, "v*", "*", "*.pdfc"))
			if len(entries) != 1 {
				t.Fatalf("entries: %v", entries)
			}
			b, _ := os.ReadFile(entries[0])
			if err := os.WriteFile(entries[0], f(b), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := c.Page(ctx, key, o.open, 1)
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != want.Pages[0].Text {
				t.Errorf("page 1 after damage: %q", p.Text)
			}
			got, err := c.Extract(ctx, key, o.open)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpDoc); diff != "" {
				t.Errorf("rebuilt document (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCacheConcurrent(t *testing.T) {
	data := fixture(t, "twocol.pdf")
	want := mustExtract(t, data)
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Cache{Dir: dir} // separate values, as separate processes would have
			o := &countingOpener{data: data}
			d, err := c.Extract(context.Background(), FileInfo{Path: "x.pdf", Size: int64(len(data)), ModTime: time.Unix(2, 0)}, o.open)
			if err == nil && d.Pages[0].Text != want.Pages[0].Text {
				err = io.ErrUnexpectedEOF
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	tmp, _ := filepath.Glob(filepath.Join(dir, "*", "*", ".tmp-*"))
	if len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// BenchmarkCachedPage reads one page of a cached paper: a 15-page one
// without XMP, and a 13-page one whose document XMP is 20 KB.
func BenchmarkCachedPage(b *testing.B) {
	for _, name := range []string{"arxiv-1706.03762.pdf", "scirep-leibig.pdf"} {
		b.Run(strings.TrimSuffix(name, ".pdf"), func(b *testing.B) {
			path := filepath.Join(corpus.Dir(b, "pdfs"), name)
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			c := &Cache{Dir: b.TempDir()}
			o := &countingOpener{data: data}
			key := FileInfo{Path: path, Size: int64(len(data)), ModTime: time.Unix(3, 0)}
			ctx := context.Background()
			d, err := c.Extract(ctx, key, o.open)
			if err != nil {
				b.Fatal(err)
			}
			n := len(d.Pages)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := c.Page(ctx, key, o.open, 1+i%n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// countingExtractor counts the extractions the cache asks for.
type countingExtractor struct{ n atomic.Int32 }

func (e *countingExtractor) Extract(ctx context.Context, r io.ReaderAt, size int64, opts *pdf.Options) (*pdf.Document, error) {
	e.n.Add(1)
	return pdf.Extract(ctx, r, size, opts)
}

// TestCacheRemembersFailures checks that a document that fails, over a
// limit or as malformed, is extracted once: a later Cache on the same
// folder (another process) gets the same typed error without reading the
// file, until it allows more or the file changes.
func TestCacheRemembersFailures(t *testing.T) {
	tests := []struct {
		name   string
		data   []byte
		opts   pdf.Options
		bigger pdf.Options // options under which the failure no longer stands
		want   error
		limit  pdf.Limit
	}{
		{"not a PDF", []byte("hello, world\n"), pdf.Options{}, pdf.Options{MaxBytes: 2 * pdf.DefaultMaxBytes}, pdf.ErrMalformed, ""},
		{"too many pages", fixture(t, "simple.pdf"), pdf.Options{MaxPages: 1}, pdf.Options{MaxPages: 2}, pdf.ErrTooLarge, pdf.LimitPages},
		{"time limit", hostilepdf.ManyPages(400), pdf.Options{Timeout: 20 * time.Millisecond}, pdf.Options{Timeout: time.Minute}, pdf.ErrTooLarge, pdf.LimitTime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ext := &countingExtractor{}
			o := &countingOpener{data: tt.data}
			key := FileInfo{Path: "papers/x.pdf", Size: int64(len(tt.data)), ModTime: time.Unix(1700000000, 0)}
			check := func(err error, extractions, opens int32) {
				t.Helper()
				if !errors.Is(err, tt.want) {
					t.Errorf("err = %v, want %v", err, tt.want)
				}
				var le *pdf.LimitError
				if tt.limit != "" && (!errors.As(err, &le) || le.Limit != tt.limit) {
					t.Errorf("err = %v, want the %s limit", err, tt.limit)
				}
				if n := ext.n.Load(); n != extractions {
					t.Errorf("%d extractions, want %d", n, extractions)
				}
				if n := o.opens.Load(); n != opens {
					t.Errorf("file opened %d times, want %d", n, opens)
				}
			}
			_, err := (&Cache{Dir: dir, Extractor: ext, Options: &tt.opts}).Extract(context.Background(), key, o.open)
			check(err, 1, 1)
			// Another process, same options: remembered, the file not even opened.
			_, err = (&Cache{Dir: dir, Extractor: ext, Options: &tt.opts}).Page(context.Background(), key, o.open, 1)
			check(err, 1, 1)
			// A touched file is hashed, and the content still fails without extraction.
			key.ModTime = key.ModTime.Add(time.Second)
			_, err = (&Cache{Dir: dir, Extractor: ext, Options: &tt.opts}).Extract(context.Background(), key, o.open)
			check(err, 1, 2)
			// Larger limits try again.
			_, err = (&Cache{Dir: dir, Extractor: ext, Options: &tt.bigger}).Extract(context.Background(), key, o.open)
			if n := ext.n.Load(); n != 2 {
				t.Errorf("with larger options: %d extractions, want 2 (err %v)", n, err)
			}
		})
	}
}

// TestCacheForgetsCallerTimeout checks that a caller's context that ends
// is not remembered: it says nothing about the file.
func TestCacheForgetsCallerTimeout(t *testing.T) {
	data := hostilepdf.ManyPages(400)
	dir := t.TempDir()
	ext := &countingExtractor{}
	o := &countingOpener{data: data}
	key := FileInfo{Path: "papers/x.pdf", Size: int64(len(data)), ModTime: time.Unix(1700000000, 0)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := (&Cache{Dir: dir, Extractor: ext}).Extract(ctx, key, o.open); !errors.Is(err, pdf.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	d, err := (&Cache{Dir: dir, Extractor: ext}).Extract(context.Background(), key, o.open)
	if err != nil || len(d.Pages) != 400 {
		t.Fatalf("second call: %v", err)
	}
	if n := ext.n.Load(); n != 2 {
		t.Errorf("%d extractions, want 2", n)
	}
}

// BenchmarkRememberedFailure measures what a costly document costs a
// later process once its failure is in the cache: a path record and an
// entry header read.
func BenchmarkRememberedFailure(b *testing.B) {
	data := hostilepdf.TextBomb(400, 1<<20)
	o := &countingOpener{data: data}
	key := FileInfo{Path: "papers/bomb.pdf", Size: int64(len(data)), ModTime: time.Unix(1700000000, 0)}
	dir := b.TempDir()
	start := time.Now()
	if _, err := (&Cache{Dir: dir, Options: &pdf.Options{Timeout: time.Second}}).Extract(context.Background(), key, o.open); !errors.Is(err, pdf.ErrTooLarge) {
		b.Fatalf("first extraction: %v", err)
	}
	first := time.Since(start)
	for b.Loop() {
		if _, err := (&Cache{Dir: dir, Options: &pdf.Options{Timeout: time.Second}}).Extract(context.Background(), key, o.open); !errors.Is(err, pdf.ErrTooLarge) {
			b.Fatal(err)
		}
	}
	b.ReportMetric(first.Seconds(), "first-s")
}

// TestCacheEntryBounds checks that an entry claiming more than the
// extraction limits let it hold is refused as corrupt before it is read:
// in its header when its pages add up to more than a document may hold,
// and before the allocation when one record is longer than a page may be.
func TestCacheEntryBounds(t *testing.T) {
	data := fixture(t, "simple.pdf")
	c := &Cache{Dir: t.TempDir()}
	key := FileInfo{Path: "a.pdf", Size: int64(len(data)), ModTime: time.Unix(1, 0)}
	o := &countingOpener{data: data}
	if _, err := c.Extract(context.Background(), key, o.open); err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(c.Dir, "v*", "*", "*.pdfc"))
	if len(entries) != 1 {
		t.Fatalf("entries: %v", entries)
	}
	orig, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	sum := strings.TrimSuffix(filepath.Base(entries[0]), ".pdfc")
	d, err := c.openDir()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	open := func(edit func(*cacheHeader)) (*cacheEntry, error) {
		if err := os.WriteFile(entries[0], forgeHeader(t, orig, edit), 0o644); err != nil {
			t.Fatal(err)
		}
		return openEntry(d, c.entryPath(sum), sum)
	}

	_, err = open(func(h *cacheHeader) {
		for range pdf.MaxDocumentText/pdf.MaxPageText + 1 {
			h.Pages = append(h.Pages, cachePageRef{Len: pdf.MaxPageText + maxRecordExtra, Sum: h.Pages[0].Sum})
		}
	})
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("pages over the document's limit: err = %v, want ErrCorrupt", err)
	}

	e, err := open(func(h *cacheHeader) { h.Pages[0].Len = pdf.MaxPageText + maxRecordExtra + 1 })
	if err != nil {
		t.Fatalf("one long record within the document's limit: %v", err)
	}
	defer e.f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = e.page(1)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("record over a page's limit: err = %v, want ErrCorrupt", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing the record allocated %d bytes", n)
	}
}
