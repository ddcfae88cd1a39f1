package tools_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
)

// scans is a test connector of one scanned book: page 1 recognised by
// OCR, page 2 not (no engine).
type scans struct{}

func (scans) Ref(_ context.Context, name string, _ *sources.Env) (*sources.Named, error) {
	return &sources.Named{Ref: grant.Ref{Path: "scans/" + name, Title: "Scan: " + name}}, nil
}

func (scans) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	return scanned{sources.Info{Path: ref.Path, Kind: ref.Kind, Title: ref.Title}}, nil
}

type scanned struct{ info sources.Info }

const scannedText = "Wombats dig burrows under eucalyptus roots."

func (s scanned) Info() sources.Info { return s.info }

func (s scanned) Search(_ context.Context, q sources.Query) (*sources.Results, error) {
	if !strings.Contains(strings.ToLower(q.Text), "wombat") {
		return &sources.Results{}, nil
	}
	h := sources.Hit{Location: sources.Location{Path: s.info.Path, Page: 1}, Title: s.info.Title, Text: scannedText, Score: 0.9, OCR: &sources.OCR{Confidence: 0.87}}
	return &sources.Results{Hits: []sources.Hit{h}, Total: 1}, nil
}

func (s scanned) Read(context.Context, string) (*sources.Document, error) {
	return &sources.Document{Path: s.info.Path, Title: s.info.Title, Pages: 2, Parts: []sources.Part{
		{Location: sources.Location{Path: s.info.Path, Page: 1}, Text: scannedText, OCR: &sources.OCR{Confidence: 0.87}},
		{Location: sources.Location{Path: s.info.Path, Page: 2}, NoTextLayer: true, Note: "no OCR: tesseract is not installed"},
	}}, nil
}

func (s scanned) Describe(context.Context) (*sources.Metadata, error) {
	return &sources.Metadata{Title: s.info.Title, Pages: 2, OCRPages: 1, OCRConfidence: 0.87}, nil
}

// TestOCRMarks: text recognised from page images is marked ocr with its
// confidence on cards, on pages, excerpts and full reads, and in metadata;
// a page that was not recognised says why in one line.
func TestOCRMarks(t *testing.T) {
	vaultDir := t.TempDir()
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("scans", scans{})
	r := researchctx.Resolver{Registry: reg}
	t.Cleanup(func() { r.Close() })
	ctx := context.Background()
	plan, err := r.Resolve(ctx, researchctx.Request{Vault: vaultDir, RuntimeID: "scans", TurnID: "t1", Mentions: []string{"scans:book"}})
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

	so, err := ts.Search(ctx, tools.SearchInput{Query: "wombat burrows"})
	if err != nil || len(so.Cards) != 1 {
		t.Fatalf("search: %+v, %v", so, err)
	}
	if c := so.Cards[0]; !c.OCR || c.Confidence != 0.87 || c.Page != 1 {
		t.Errorf("card %+v, want ocr at 0.87 on page 1", c)
	}
	reads := []struct {
		in   tools.ReadInput
		conf float64
		text string
	}{
		{tools.ReadInput{Target: "scans/book", Mode: tools.ReadPage, Page: 1}, 0.87, scannedText},
		{tools.ReadInput{Target: "scans/book", Mode: tools.ReadExcerpt, Quote: "dig burrows under eucalyptus"}, 0.87, "eucalyptus"},
		{tools.ReadInput{Target: "scans/book", Mode: tools.ReadFull}, 0.87, "(no text layer on this page; no OCR: tesseract is not installed)"},
	}
	for _, rd := range reads {
		out, err := ts.Read(ctx, rd.in)
		if err != nil {
			t.Fatalf("%s: %v", rd.in.Mode, err)
		}
		if !out.OCR || out.Confidence != rd.conf || !strings.Contains(out.Text, rd.text) {
			t.Errorf("%s: ocr %v at %v, text %q", rd.in.Mode, out.OCR, out.Confidence, out.Text)
		}
	}
	md, err := ts.Read(ctx, tools.ReadInput{Target: "scans/book"})
	if err != nil || !md.OCR || md.OCRPages != 1 || md.Confidence != 0.87 {
		t.Errorf("metadata: %+v, %v; want 1 recognised page at 0.87", md, err)
	}
	_, err = ts.Read(ctx, tools.ReadInput{Target: "scans/book", Mode: tools.ReadPage, Page: 2})
	if !errors.Is(err, sources.ErrNotFound) || !strings.Contains(err.Error(), "an image-only scan; no OCR: tesseract is not installed") {
		t.Errorf("page 2: %v, want no text layer with the note", err)
	}
}
