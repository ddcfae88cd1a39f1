package index

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
)

// TestSciFactQuality is the retrieval quality gate: on the SciFact
// training claims the index must reach nDCG@10 0.70 and beat plain BM25
// computed in the same run; BestPassage at a 400-character cap must quote a
// rationale sentence for at least 40 % of (claim, evidence document) pairs.
func TestSciFactQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus gate skipped in -short mode")
	}
	ix, docs, claims := sciFactIndex(t)
	bm := scifact.NewBM25(docs)
	byID := map[string]scifact.Abstract{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	var nd, bnd float64
	pairs, quoted := 0, 0
	for _, c := range claims {
		hits, _ := ix.Search(c.Claim, 10)
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = strings.TrimSuffix(h.Key, ".txt")
		}
		nd += scifact.NDCG(ids, c.Relevant(), 10)
		bnd += scifact.NDCG(bm.Search(c.Claim, 10), c.Relevant(), 10)
		for id, rationale := range c.Docs {
			a, ok := byID[id]
			if !ok || len(rationale) == 0 {
				continue
			}
			pairs++
			if s, e := ix.BestPassage(a.FileText(), c.Claim, 400); scifact.Covers(a, rationale, s, e) {
				quoted++
			}
		}
	}
	n := float64(len(claims))
	nd, bnd = nd/n, bnd/n
	share := float64(quoted) / float64(pairs)
	t.Logf("nDCG@10 %.4f, BM25 %.4f; rationale quoted at 400 chars %.3f", nd, bnd, share)
	if nd < 0.70 {
		t.Errorf("nDCG@10 = %.4f, want ≥ 0.70", nd)
	}
	if nd <= bnd {
		t.Errorf("nDCG@10 = %.4f does not beat BM25 %.4f", nd, bnd)
	}
	if share < 0.40 {
		t.Errorf("rationale quoted for %.3f of pairs, want ≥ 0.40", share)
	}
}

// TestSciFactRoundTrip checks that an index read back from its binary form
// ranks every SciFact training claim exactly as the index it was written
// from: same documents, order, scores and match counts.
func TestSciFactRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus gate skipped in -short mode")
	}
	ix, _, claims := sciFactIndex(t)
	data := encodeB(t, ix)
	got, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims {
		want, wn := ix.Search(c.Claim, 20)
		hits, n := got.Search(c.Claim, 20)
		if diff := cmp.Diff(want, hits); diff != "" || n != wn {
			t.Errorf("Search(%q) after round trip: %d matched, want %d (-want +got):\n%s", c.Claim, n, wn, diff)
		}
	}
	t.Logf("%d claims, index %d bytes", len(claims), len(data))
}

func BenchmarkBuild(b *testing.B) {
	docs, _, err := scifact.Load(corpusDir(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var bd Builder
		for _, d := range docs {
			title, body, _ := strings.Cut(d.FileText(), "\n")
			bd.Add(Doc{Key: d.ID + ".txt", Title: title, Body: body})
		}
		bd.Index()
	}
}

// BenchmarkSearch runs the training claims against a warm index; ns/op is
// per claim, with the 95th percentile reported alongside.
func BenchmarkSearch(b *testing.B) {
	ix, _, claims := sciFactIndex(b)
	var lat []time.Duration
	i := 0
	for b.Loop() {
		st := time.Now()
		ix.Search(claims[i%len(claims)].Claim, 10)
		lat = append(lat, time.Since(st))
		i++
	}
	b.ReportMetric(float64(percentile(lat, 0.95).Microseconds())/1000, "p95-ms")
}

// BenchmarkFirstSearch is the work of a fresh process with the index on
// disk: decode it and answer one query.
func BenchmarkFirstSearch(b *testing.B) {
	ix, _, claims := sciFactIndex(b)
	data := encodeB(b, ix)
	for b.Loop() {
		r, err := Read(strings.NewReader(string(data)))
		if err != nil {
			b.Fatal(err)
		}
		r.Search(claims[0].Claim, 10)
	}
}

func BenchmarkBestPassage(b *testing.B) {
	ix, docs, claims := sciFactIndex(b)
	text := docs[0].FileText()
	for b.Loop() {
		ix.BestPassage(text, claims[0].Claim, 400)
	}
}
