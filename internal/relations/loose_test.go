package relations

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
)

// TestLoosePDFs: a loose PDF of the library is read, matched and matchable
// as a paper is, under its own path; a loose copy of a library paper is
// neither (the paper is the work), though its own references are read.
func TestLoosePDFs(t *testing.T) {
	v, _ := openVault(t, map[string]string{
		"papers/citer/metadata.json": js(t, obj{"title": "A Citing Paper", "year": 2020, "authors": []string{"Cy Citer"}}),
		"papers/citer/citer.pdf":     "%PDF-1.4 citer\n",
		"downloads/res.pdf":          "%PDF-1.4 res\n",
		"downloads/copy.pdf":         "%PDF-1.4 copy\n",
		"downloads/cites-back.pdf":   "%PDF-1.4 back\n",
	})
	texts := map[string]string{
		"papers/citer": "A Citing Paper\nIntro\nResidual nets [1] are deep.\nReferences\n" +
			"[1] K. He, X. Zhang. Deep residual learning for image recognition. In CVPR, 2016.\n",
		"downloads/copy.pdf": "A Citing Paper\nReferences\n[1] K. He. Deep residual learning for image recognition. In CVPR, 2016.\n",
		"downloads/cites-back.pdf": "Back\nReferences\n[1] C. Citer. A citing paper. 2020.\n" +
			"[2] K. He. Deep residual learning for image recognition. In CVPR, 2016.\n",
	}
	metas := map[string]PaperMeta{
		"downloads/res.pdf":  {Title: "Deep Residual Learning for Image Recognition", Authors: []string{"Kaiming He"}, Year: 2016},
		"downloads/copy.pdf": {Title: "A Citing Paper", Authors: []string{"Cy Citer"}},
	}
	l := New(v, &Options{CacheDir: "-",
		Text: func(_ context.Context, p *catalog.Paper) (string, error) { return texts[p.Ref] + "\n", nil },
		Meta: func(_ context.Context, p *catalog.Paper) (PaperMeta, error) { return metas[p.Ref], nil },
		Loose: func(context.Context) ([]string, []string, error) {
			return []string{"downloads/res.pdf", "downloads/copy.pdf", "downloads/cites-back.pdf", "papers/citer/citer.pdf", "../out.pdf"}, nil, nil
		},
	})
	paths := func(ws []Work) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Paper)
		}
		return out
	}
	citer := mustRelations(t, l, "papers/citer")
	if diff := cmp.Diff([]string{"downloads/res.pdf"}, paths(citer.References)); diff != "" {
		t.Errorf("citer references (-want +got):\n%s", diff)
	}
	if c := citer.References[0]; c.PDF != "downloads/res.pdf" || c.Label != "1" || len(c.Contexts) != 1 || c.ContextPDF != "papers/citer/citer.pdf" {
		t.Errorf("reference card %+v", c)
	}
	// The copy of papers/citer is not a citer of its own; cites-back is,
	// and its reference to the citer (title, year) links the paper. Library
	// citers come by path.
	res := mustRelations(t, l, "downloads/res.pdf")
	if diff := cmp.Diff([]string{"downloads/cites-back.pdf", "papers/citer"}, paths(res.CitedBy)); diff != "" {
		t.Errorf("res cited-by (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"downloads/cites-back.pdf"}, paths(mustRelations(t, l, "papers/citer").CitedBy)); diff != "" {
		t.Errorf("citer cited-by (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"downloads/res.pdf"}, paths(mustRelations(t, l, "downloads/copy.pdf").References)); diff != "" {
		t.Errorf("the copy's own references (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"papers/citer/citer.pdf", "downloads/none.pdf"} {
		if _, err := l.Relations(context.Background(), bad); !errors.Is(err, catalog.ErrNotPaper) {
			t.Errorf("Relations(%s) = %v, want ErrNotPaper", bad, err)
		}
	}
}
