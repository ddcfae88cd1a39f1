package index

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
)

// TestTune sweeps each ranking constant around its default on the SciFact
// training claims and prints nDCG@10 and Recall@10. It runs only with
// INDEX_TUNE=1 and asserts nothing: it is how the defaults were chosen.
func TestTune(t *testing.T) {
	if os.Getenv("INDEX_TUNE") == "" {
		t.Skip("set INDEX_TUNE=1 to sweep the ranking constants")
	}
	docs, claims, err := scifact.Load(corpus.Dir(t, "scifact"))
	if err != nil {
		t.Fatal(err)
	}
	var b Builder
	for _, d := range docs {
		title, body, _ := strings.Cut(d.FileText(), "\n")
		if err := b.Add(Doc{Key: d.ID, Title: title, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	ix := b.Index()
	eval := func(name string, p params) {
		ix.p = p
		var nd, rc float64
		for _, c := range claims {
			hits, _ := ix.Search(c.Claim, 10)
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = h.Key
			}
			nd += scifact.NDCG(ids, c.Relevant(), 10)
			rc += scifact.Recall(ids, c.Relevant(), 10)
		}
		n := float64(len(claims))
		fmt.Printf("%-16s nDCG@10 %.4f  Recall@10 %.4f\n", name, nd/n, rc/n)
	}
	eval("defaults", defaults)
	sweep := func(name string, vals []float64, set func(*params, float64)) {
		for _, v := range vals {
			p := defaults
			set(&p, v)
			eval(fmt.Sprintf("%s=%g", name, v), p)
		}
	}
	sweep("k1", []float64{0.9, 1.5}, func(p *params, v float64) { p.k1 = v })
	sweep("wTitle", []float64{1, 3}, func(p *params, v float64) { p.wTitle = v })
	sweep("bTitle", []float64{0, 0.6}, func(p *params, v float64) { p.bTitle = v })
	sweep("bBody", []float64{0.4, 0.75}, func(p *params, v float64) { p.bBody = v })
	sweep("wSpan", []float64{0, 0.2, 0.7}, func(p *params, v float64) { p.wSpan = v })
	sweep("spanWidth", []float64{8, 25}, func(p *params, v float64) { p.spanWidth = uint32(v) })
}
