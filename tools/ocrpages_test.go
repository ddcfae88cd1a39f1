package tools_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
)

// pageScans is a test connector of one scanned book whose source is a
// sources.PageReader recording what each read asked for.
type pageScans struct{ rec *pageCalls }

type pageCalls struct {
	mu    sync.Mutex
	calls []string
}

func (c *pageCalls) add(s string) {
	c.mu.Lock()
	c.calls = append(c.calls, s)
	c.mu.Unlock()
}

func (c *pageCalls) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = nil
	return out
}

func (pageScans) Ref(_ context.Context, name string, _ *sources.Env) (*sources.Named, error) {
	return &sources.Named{Ref: grant.Ref{Path: "pagescans/" + name, Title: "Scan: " + name}}, nil
}

func (s pageScans) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	return pageScanned{scanned{sources.Info{Path: ref.Path, Kind: ref.Kind, Title: ref.Title}}, s.rec}, nil
}

type pageScanned struct {
	scanned
	rec *pageCalls
}

func (s pageScanned) Read(ctx context.Context, p string) (*sources.Document, error) {
	s.rec.add("Read")
	return s.scanned.Read(ctx, p)
}

func (s pageScanned) ReadPages(ctx context.Context, p string, pages []int) (*sources.Document, error) {
	s.rec.add(fmt.Sprint("ReadPages ", pages))
	return s.scanned.Read(ctx, p)
}

// TestReadAsksOnlyForItsPages: context_read asks a source with slow pages
// (sources.PageReader) for the page of page mode only, for none in
// metadata, section and excerpt modes, and in full mode for the pages of
// its piece that are not ready (TestFullReadRecognisesItsPieceOnly), so
// that a read never waits for OCR of pages it does not return.
func TestReadAsksOnlyForItsPages(t *testing.T) {
	vaultDir := t.TempDir()
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	rec := &pageCalls{}
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("pagescans", pageScans{rec})
	r := researchctx.Resolver{Registry: reg}
	t.Cleanup(func() { r.Close() })
	ctx := context.Background()
	plan, err := r.Resolve(ctx, researchctx.Request{Vault: vaultDir, RuntimeID: "pagescans", TurnID: "t1", Mentions: []string{"pagescans:book"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(ctx, gr, &tools.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	tests := []struct {
		in   tools.ReadInput
		want []string
	}{
		{tools.ReadInput{Target: "pagescans/book", Mode: tools.ReadPage, Page: 1}, []string{"ReadPages [1]"}},
		{tools.ReadInput{Target: "pagescans/book", Mode: tools.ReadPage, Page: 2}, []string{"ReadPages [2]"}},
		{tools.ReadInput{Target: "pagescans/book"}, []string{"ReadPages []"}},
		{tools.ReadInput{Target: "pagescans/book", Mode: tools.ReadExcerpt, Quote: "dig burrows"}, []string{"ReadPages []"}},
		// Page 1 is at hand; page 2, in the piece and not ready, is
		// asked for.
		{tools.ReadInput{Target: "pagescans/book", Mode: tools.ReadFull}, []string{"ReadPages []", "ReadPages [2]"}},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s %d", tc.in.Mode, tc.in.Page)
		// Page 2 has no text layer: its read is an error.
		if _, err := ts.Read(ctx, tc.in); (err != nil) != (tc.in.Page == 2) {
			t.Errorf("%s: %v", name, err)
		}
		if diff := cmp.Diff(tc.want, rec.take()); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", name, diff)
		}
	}
}
