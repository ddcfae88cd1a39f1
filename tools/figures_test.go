package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
)

func TestReadFigures(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()

	meta, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers/vision/resnet-like"})
	if err != nil {
		t.Fatal(err)
	}
	want := []tools.FigureInfo{
		{ID: "figure-1", Kind: "figure", Number: "1", Page: 1, Caption: "Figure 1: Gate values of a six-layer classifier during training. Early blocks open first; the last block stays nearly closed."},
		{ID: "table-1", Kind: "table", Number: "1", Page: 1, Caption: "Table 1: Top-1 accuracy (%) with and without gated residual pathways."},
	}
	if diff := cmp.Diff(want, meta.Figures); diff != "" {
		t.Errorf("metadata figures (-want +got):\n%s", diff)
	}
	// The paper's PDF lists them too.
	meta, err = f.ts.Read(ctx, tools.ReadInput{Target: "papers/vision/resnet-like/paper.pdf", Mode: tools.ReadMetadata})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, meta.Figures); diff != "" {
		t.Errorf("metadata figures of the PDF (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		target, uri string
		has         []string
	}{
		{"papers/vision/resnet-like/paper.pdf#table=1", "papers/vision/resnet-like/paper.pdf#table=1",
			[]string{"Table 1: Top-1 accuracy (%) with and without gated residual pathways.", "4 layers 71.9 73.0"}},
		{"papers/vision/resnet-like/paper.pdf#figure=1", "papers/vision/resnet-like/paper.pdf#figure=1",
			[]string{"Figure 1: Gate values of a six-layer classifier during training."}},
		// The layout index lists this one: its region, cited as asked.
		{"papers/2401.01234/2401.01234.pdf#figure=1", "papers/2401.01234/2401.01234.pdf#figure=1",
			[]string{"Figure 1: Peak attention memory"}},
		{"papers/2401.01234/2401.01234.pdf#region=figure-1", "papers/2401.01234/2401.01234.pdf#region=figure-1",
			[]string{"Figure 1: Peak attention memory"}},
	} {
		out, err := f.ts.Read(ctx, tools.ReadInput{Target: tt.target})
		if err != nil {
			t.Errorf("%s: %v", tt.target, err)
			continue
		}
		if out.Mode != tools.ReadRegion || out.CitationURI != tt.uri || out.Page != 1 && out.Page != 2 {
			t.Errorf("%s: mode %s, page %d, URI %q; want region, cited %q", tt.target, out.Mode, out.Page, out.CitationURI, tt.uri)
		}
		for _, s := range tt.has {
			if !strings.Contains(out.Text, s) {
				t.Errorf("%s: text %q lacks %q", tt.target, out.Text, s)
			}
		}
	}

	for _, tt := range []struct {
		target string
		want   error
	}{
		{"papers/vision/resnet-like/paper.pdf#figure=9", sources.ErrNotFound},
		{"papers/vision/resnet-like/paper.pdf#algorithm=1", sources.ErrNotFound},
		{"papers/2403.05678/2403.05678.pdf#figure=1", tools.ErrNotGranted},
	} {
		if out, err := f.ts.Read(ctx, tools.ReadInput{Target: tt.target}); !errors.Is(err, tt.want) {
			t.Errorf("%s = %+v, %v; want %v", tt.target, out, err, tt.want)
		}
	}
}

// TestReadFigureByCursor: the rest of a figure read by #table=N is cited
// by #table=N too.
func TestReadFigureByCursor(t *testing.T) {
	readChars := 260
	f := newFixture(t, &grant.BudgetOverrides{ReadChars: &readChars})
	ctx := context.Background()
	const uri = "papers/vision/resnet-like/paper.pdf#table=1"
	out, err := f.ts.Read(ctx, tools.ReadInput{Target: uri})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Truncated || out.NextCursor == "" || out.CitationURI != uri {
		t.Fatalf("first part = %+v, want a cut read cited %s", out, uri)
	}
	text := out.Text
	for out.NextCursor != "" {
		if out, err = f.ts.Read(ctx, tools.ReadInput{Cursor: out.NextCursor}); err != nil {
			t.Fatal(err)
		}
		if out.CitationURI != uri {
			t.Errorf("continued part cited %q, want %s", out.CitationURI, uri)
		}
		text += out.Text
	}
	if !strings.Contains(text, "8 layers 74.8 77.1") {
		t.Errorf("the parts %q lack the table's last row", text)
	}
}

func TestSearchCaptionCard(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	out, err := f.ts.Search(ctx, tools.SearchInput{Query: "gate values of a six-layer classifier during training"})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, c := range out.Cards {
		uris = append(uris, c.CitationURI)
	}
	if len(out.Cards) == 0 || out.Cards[0].CitationURI != "papers/vision/resnet-like/paper.pdf#figure=1" {
		t.Fatalf("cards cite %q; want the first to cite the figure its caption is", uris)
	}
	// The URI a card gives reads the figure.
	read, err := f.ts.Read(ctx, tools.ReadInput{Target: out.Cards[0].CitationURI})
	if err != nil || !strings.Contains(read.Text, "Gate values") {
		t.Errorf("reading the card's URI: %+v, %v", read, err)
	}
}

// A card cited #figure=N carries figure N's caption only: when its
// excerpt would run on into the next figure's caption, it stops there.
func TestFigureCardOwnCaption(t *testing.T) {
	prep := func(vault string) {
		p := filepath.Join(vault, "shelf", "captions.pdf")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data := hostilepdf.Plain("Figure 1: Quokkas asleep in hollow logs by day.", "Figure 2: Wombats digging burrows at night.")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixtureWith(t, nil, prep, "shelf")
	out, err := f.ts.Search(context.Background(), tools.SearchInput{Query: "quokkas asleep hollow logs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Cards) == 0 {
		t.Fatal("no cards")
	}
	c := out.Cards[0]
	if c.CitationURI != "shelf/captions.pdf#figure=1" || strings.Contains(c.Excerpt, "Wombats") || !strings.Contains(c.Excerpt, "Quokkas asleep") {
		t.Errorf("card %q cites %s; want figure 1's caption alone, cited #figure=1", c.Excerpt, c.CitationURI)
	}
}
