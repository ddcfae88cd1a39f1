package pdf

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/pdf/object"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

// TestAuditXRef checks which limit the cross-reference audit finds each
// file over, before pdfcpu reads it, and that the file is still read
// through the rebuilt table, as a broken one is.
func TestAuditXRef(t *testing.T) {
	for _, tt := range []struct {
		name string
		data []byte
		want Limit // "" for a file within its means
	}{
		{"plain document", hostilepdf.Plain("a plain page"), ""},
		{"xref stream of a few extra entries", hostilepdf.XRefStreamFlood(100), ""},
		{"one object listed 100 times", hostilepdf.DuplicateObjectFlood(100, 1000), ""},
		{"xref stream of 500k entries in 6 kB", hostilepdf.XRefStreamFlood(500_000), LimitObjects},
		{"xref stream of 4M free entries", hostilepdf.XRefStreamFreeFlood(4_000_000), LimitObjects},
		{"object stream claiming 4M objects", hostilepdf.ObjectStreamFlood(4_000_000), LimitObjects},
		{"classic xref claiming 4M objects", hostilepdf.ClassicXRefHugeSize(4_000_000), LimitObjects},
		{"one 100 kB object listed 4000 times", hostilepdf.DuplicateObjectFlood(4000, 100_000), LimitObjectBytes},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := object.AuditXRef(context.Background(), bytes.NewReader(tt.data), int64(len(tt.data)))
			var le *LimitError
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("audit: %v, want nil", err)
			case tt.want != "" && (!errors.As(err, &le) || le.Limit != tt.want || !errors.Is(err, ErrTooLarge)):
				t.Fatalf("audit: %v, want the %s limit", err, tt.want)
			}
			d, err := extractBytes(t, tt.data, nil)
			if err != nil {
				t.Fatalf("extract: %v", err)
			}
			if len(d.Pages) != 1 || d.Pages[0].Err != nil || d.Pages[0].Text == "" {
				t.Errorf("pages = %+v, want one page of text", d.Pages)
			}
		})
	}
}

// TestAuditXRefHeaders checks that the object headers of a file are held
// to its allowance whatever its table says, or when it has none: pdfcpu's
// own repair makes an entry of every one.
func TestAuditXRefHeaders(t *testing.T) {
	for name, data := range map[string][]byte{
		"with its table":    hostilepdf.ManyObjects(100_000),
		"without its table": hostilepdf.NoXRef(hostilepdf.ManyObjects(100_000)),
	} {
		err := object.AuditXRef(context.Background(), bytes.NewReader(data), int64(len(data)))
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != LimitObjects {
			t.Errorf("100,000 objects %s: audit = %v, want the objects limit", name, err)
		}
		if _, err := extractBytes(t, data, nil); !errors.As(err, &le) || le.Limit != LimitObjects {
			t.Errorf("100,000 objects %s: extract = %v, want the objects limit", name, err)
		}
	}
	data := hostilepdf.NoXRef(hostilepdf.ManyObjects(1000))
	if err := object.AuditXRef(context.Background(), bytes.NewReader(data), int64(len(data))); !errors.Is(err, object.ErrUnaudited) {
		t.Errorf("1,000 objects without a table: audit = %v, want errUnaudited", err)
	}
	if _, err := extractBytes(t, data, nil); err != nil {
		t.Errorf("1,000 objects without a table: %v", err)
	}
}

// TestAnnotationTextLimits checks that the text of free-text annotations
// counts against the page's glyph limit and the document's: a page whose
// annotations repeat a long text fails with the page's limit, and once the
// document's budget is spent every later page fails with it, while the
// heap stays far below what the text would take.
func TestAnnotationTextLimits(t *testing.T) {
	data := hostilepdf.AnnotFlood(200, 2000, 1000)
	var peak uint64
	stop := sampleHeap(&peak)
	d, err := extractBytes(t, data, nil)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	if got := outcome(d, nil); got != "pages: 50 glyphs per page, 150 glyphs per document" {
		t.Errorf("outcome = %q", got)
	}
	// 400 M characters of annotation text; the limits keep the heap to
	// the page text the limits allow.
	if peak > 200<<20 {
		t.Errorf("heap peaked at %d MB", peak>>20)
	}
	t.Logf("heap peak %d MB", peak>>20)

	// Short lines cost their boxes too: 70,000 one-letter lines are within
	// the glyph limit and over the page's text.
	d, err = extractBytes(t, hostilepdf.Annots(1, 1, strings.Repeat("a\n", 70_000)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var le *LimitError
	if !errors.As(d.Pages[0].Err, &le) || le.Limit != LimitPageText || d.Pages[0].Text != "" {
		t.Errorf("70,000 annotation lines: err = %v, want the page's text limit", d.Pages[0].Err)
	}

	// A few annotations stay within the limits and are read.
	d, err = extractBytes(t, hostilepdf.AnnotFlood(2, 20, 1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Pages {
		if p.Err != nil || len(p.Lines) < 21 {
			t.Errorf("page %d: %d lines, err %v; want the page's line and 20 annotations", p.Number, len(p.Lines), p.Err)
		}
	}
}

// sampleHeap records the peak of runtime.MemStats.HeapAlloc in *peak
// until the returned function is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}

// FuzzAuditXRef checks that the cross-reference audit ends on any input
// without panicking, with nil or a limit of its own.
func FuzzAuditXRef(f *testing.F) {
	seedPDFs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		err := object.AuditXRef(context.Background(), bytes.NewReader(data), int64(len(data)))
		var le *LimitError
		if err != nil && !errors.Is(err, object.ErrUnaudited) && (!errors.As(err, &le) || (le.Limit != LimitObjects && le.Limit != LimitObjectBytes)) {
			t.Fatalf("audit: %v", err)
		}
	})
}
