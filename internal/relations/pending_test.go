package relations

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
)

// TestTextPending: a text the hook returns with ErrTextPending gives its
// references at once, is not an error of the paper and is not kept on
// disk; the paper is read again only once Changed names its PDF (Changed
// for another PDF, or before any read, costs no read).
func TestTextPending(t *testing.T) {
	v, _ := openVault(t, map[string]string{
		"papers/scan/metadata.json":  js(t, obj{"title": "A Scanned Paper", "year": 2020}),
		"papers/scan/scan.pdf":       "%PDF-1.4 scan\n",
		"papers/alpha/metadata.json": js(t, obj{"title": "Alpha", "arxiv_id": "2001.00001"}),
		"papers/beta/metadata.json":  js(t, obj{"title": "Beta", "arxiv_id": "2002.00002"}),
	})
	const head = "A Scanned Paper\nReferences\n[1] A. Alpha. Alpha. arXiv:2001.00001.\n"
	var recognised atomic.Bool
	var reads atomic.Int32
	text := func(_ context.Context, p *catalog.Paper) (string, error) {
		reads.Add(1)
		if !recognised.Load() {
			// The second page, a scan, waits for OCR.
			return head, fmt.Errorf("%s: %w", p.PDF, ErrTextPending)
		}
		return head + "\f[2] B. Beta. Beta. arXiv:2002.00002.\n", nil
	}
	cache := t.TempDir()
	l := New(v, &Options{CacheDir: cache, Text: text, Revalidate: 1})
	l.Changed("papers/scan/scan.pdf") // before any read: nothing to read again
	refs := func() []string {
		t.Helper()
		r := mustRelations(t, l, "papers/scan")
		if r.Err != nil {
			t.Errorf("Err = %v, want none", r.Err)
		}
		var out []string
		for _, w := range r.References {
			out = append(out, w.Paper)
		}
		return out
	}
	if diff := cmp.Diff([]string{"papers/alpha"}, refs()); diff != "" {
		t.Errorf("pending references (-want +got):\n%s", diff)
	}
	refs()
	l.Changed("papers/alpha") // not a pending PDF
	refs()
	if n := reads.Load(); n != 1 {
		t.Errorf("%d reads before Changed, want 1", n)
	}
	// Another process finds nothing of the pending text on disk.
	other := New(v, &Options{CacheDir: cache, Text: text})
	mustRelations(t, other, "papers/scan")
	if n := reads.Load(); n != 2 {
		t.Errorf("%d reads with a second graph, want 2 (the pending text was kept on disk)", n)
	}
	recognised.Store(true)
	l.Changed("papers/scan/scan.pdf")
	if diff := cmp.Diff([]string{"papers/alpha", "papers/beta"}, refs()); diff != "" {
		t.Errorf("references once recognised (-want +got):\n%s", diff)
	}
	// Complete now, the text is kept: a new graph reads it from disk.
	reads.Store(0)
	mustRelations(t, New(v, &Options{CacheDir: cache, Text: text}), "papers/scan")
	if n := reads.Load(); n != 0 {
		t.Errorf("%d reads after the complete text was kept, want 0", n)
	}
}
