package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/sources"
)

// TestLayoutIndexIDsWin: a figure or table the layout index lists keeps the
// index's id in metadata and is what #table=N reads; what the index does
// not list comes from the captions.
func TestLayoutIndexIDsWin(t *testing.T) {
	root := t.TempDir()
	pdfBytes, err := os.ReadFile(filepath.Join(paperSampleRoot(t), "papers/2401.01234/2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	writeVaultFile(t, root, "papers/p/p.pdf", pdfBytes)
	writeVaultFile(t, root, "papers/p/source/layout.json", []byte(`{"schemaVersion":3,"regions":[
		{"id":"p2-r08","pageIndex":1,"kind":"table","text":"the host's own table text","bbox":{"x":0.1176,"y":0.5436,"w":0.7647,"h":0.0758}}]}`))
	writeVaultFile(t, root, "papers/p/source/layout-index.json", []byte(`{"schemaVersion":1,"items":[
		{"id":"tab-a","kind":"table","page":2,"pageIndex":1,"title":"Table 1: Results at 4,096 tokens.","layoutRegionId":"p2-r08"}]}`))
	p := openPaper(t, paperLibrary(t, root), "papers/p")
	ctx := context.Background()
	md, err := p.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range md.Figures {
		ids = append(ids, f.ID+" "+f.Kind+" "+f.Number)
	}
	if diff := cmp.Diff([]string{"tab-a table 1", "figure-1 figure 1"}, ids); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	for _, id := range []string{"tab-a", "table-1"} {
		r, err := p.Region(ctx, id)
		if err != nil {
			t.Fatalf("Region(%s): %v", id, err)
		}
		if r.ID != id || r.Page != 2 || r.Kind != "table" || !strings.HasPrefix(r.Text, "the host's own table text") {
			t.Errorf("Region(%s) = %+v, want the listed table", id, r)
		}
	}
	r, err := p.Region(ctx, "figure-1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Page != 2 || !strings.HasPrefix(r.Text, "Figure 1: Peak attention memory") || r.Location != (sources.Location{Path: "papers/p/p.pdf", Page: 2, Region: "figure-1"}) {
		t.Errorf("Region(figure-1) = %+v, want the captioned figure", r)
	}
}
