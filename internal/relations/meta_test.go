package relations

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
)

func TestArXivYear(t *testing.T) {
	for id, want := range map[string]int{
		"1706.03762": 2017, "2401.01234": 2024, "0704.0001": 2007, "hep-th/9901001": 1999,
		"math.GT/0309136": 2003, "cs/0112017": 2001, "0613.0001": 0, "1713.00001": 0, "": 0, "abc": 0,
	} {
		if got := arXivYear(id); got != want {
			t.Errorf("arXivYear(%q) = %d, want %d", id, got, want)
		}
	}
}

// TestTitleMatchFromPDFMeta: in a library whose metadata.json holds titles
// only, a title match is confirmed by the year or first author the paper's
// own PDF shows, or by the year its arXiv id encodes; with neither it
// stays unlinked, as before.
func TestTitleMatchFromPDFMeta(t *testing.T) {
	v, _ := openVault(t, map[string]string{
		"papers/citer/metadata.json": js(t, obj{"title": "A Citing Paper"}),
		"papers/citer/citer.pdf":     "%PDF-1.4 citer\n",
		"papers/res/metadata.json":   js(t, obj{"title": "Deep Residual Learning for Image Recognition"}),
		"papers/res/res.pdf":         "%PDF-1.4 res\n",
		"papers/attn/metadata.json":  js(t, obj{"title": "Attention Is All You Need", "arxiv_id": "1706.03762"}),
		"papers/attn/attn.pdf":       "%PDF-1.4 attn\n",
		"papers/bare/metadata.json":  js(t, obj{"title": "Windows in Long Documents"}),
		"papers/bare/bare.pdf":       "%PDF-1.4 bare\n",
	})
	text := "A Citing Paper\nReferences\n" +
		"[1] K. He, X. Zhang, S. Ren, and J. Sun. Deep residual learning for image recognition. In CVPR, 2016.\n" +
		// The arXiv id is the library's, not the entry's: only the year confirms.
		"[2] A. Vaswani, N. Shazeer. Attention is all you need. In NIPS, 2017.\n" +
		"[3] L. Late. Windows in long documents. In ICML, 2010.\n"
	metas := map[string]PaperMeta{"papers/res": {Title: "Deep Residual Learning for Image Recognition", Authors: []string{"Kaiming He"}}}
	for _, withMeta := range []bool{false, true} {
		opts := &Options{CacheDir: "-", Text: func(_ context.Context, p *catalog.Paper) (string, error) {
			if p.Ref == "papers/citer" {
				return text, nil
			}
			return "nothing cited\n", nil
		}}
		if withMeta {
			opts.Meta = func(_ context.Context, p *catalog.Paper) (PaperMeta, error) { return metas[p.Ref], nil }
		}
		var got []string
		for _, w := range mustRelations(t, New(v, opts), "papers/citer").References {
			got = append(got, w.Paper)
		}
		want := []string{"", "papers/attn", ""}
		if withMeta {
			want = []string{"papers/res", "papers/attn", ""}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("meta %v: linked (-want +got):\n%s", withMeta, diff)
		}
	}
}
