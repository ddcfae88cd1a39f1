package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// Quality bars of the gate, on the training claims.
const (
	minNDCG       = 0.70
	minQuoteShare = 0.40
)

// sciFactTurns writes the SciFact vault, grants its corpus folder and opens
// the tools on the grant.
func sciFactTurns(tb testing.TB) (*session, *tools.Toolset, []scifact.Abstract, []scifact.Claim) {
	tb.Helper()
	docs, claims, err := scifact.Load(corpus.Dir(tb, "scifact"))
	if err != nil {
		tb.Fatal(err)
	}
	root := filepath.Join(tb.TempDir(), "vault")
	if err := writeCorpus(root, docs); err != nil {
		tb.Fatal(err)
	}
	var res researchctx.Resolver
	tb.Cleanup(func() { res.Close() })
	s, err := newSession(context.Background(), &res, root)
	if err != nil {
		tb.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), s.grant, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ts.Close() })
	return s, ts, docs, claims
}

// gateClaimsPerTurn is how many claims share a turn in the gate: a grant
// rewrite is an fsync, and one per claim would double the test's time.
const gateClaimsPerTurn = 40

// TestSciFactThroughTools is the CI gate of context_search on a granted
// directory: every training claim, limit 10, forty claims per turn, must reach
// nDCG@10 ≥ 0.70 and beat the BM25 baseline of the same run, and the first
// card of an evidence document must quote a rationale sentence for at least
// 40 % of the claims that have one among their cards.
func TestSciFactThroughTools(t *testing.T) {
	s, ts, docs, claims := sciFactTurns(t)
	ev, err := evaluate(context.Background(), s, ts, docs, claims, gateClaimsPerTurn)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d claims: context_search nDCG@10 %.4f Recall@10 %.4f; BM25 nDCG@10 %.4f Recall@10 %.4f; quotes %d/%d = %.3f",
		ev.Claims, ev.Tools.NDCG, ev.Tools.Recall, ev.BM25.NDCG, ev.BM25.Recall, ev.QuoteHits, ev.QuoteClaims, ev.QuoteShare())
	if ev.Tools.NDCG < minNDCG {
		t.Errorf("nDCG@10 = %.4f, want ≥ %.2f", ev.Tools.NDCG, minNDCG)
	}
	if ev.Tools.NDCG <= ev.BM25.NDCG {
		t.Errorf("nDCG@10 = %.4f does not beat the BM25 baseline %.4f", ev.Tools.NDCG, ev.BM25.NDCG)
	}
	if ev.QuoteShare() < minQuoteShare {
		t.Errorf("card-quote share = %.3f (%d of %d), want ≥ %.2f", ev.QuoteShare(), ev.QuoteHits, ev.QuoteClaims, minQuoteShare)
	}
	// The halves by claim id parity partition the quoted claims.
	even, odd := ev.QuoteSplit[0], ev.QuoteSplit[1]
	if even.Claims+odd.Claims != ev.QuoteClaims || even.Hits+odd.Hits != ev.QuoteHits || even.Claims == 0 || odd.Claims == 0 {
		t.Errorf("quote halves %+v and %+v do not split %d hits of %d claims", even, odd, ev.QuoteHits, ev.QuoteClaims)
	}
	// The last turn's usage log holds exactly its searches.
	u, err := usage.Read(grant.UsagePath(s.grant), s.plan.TurnID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (len(claims)-1)%gateClaimsPerTurn + 1; u.Calls != want || u.Chars == 0 || len(u.Sources) == 0 || u.Skipped != 0 {
		t.Errorf("usage of the last turn = %d calls, %d characters, %d sources, %d skipped; want %d calls with their cards",
			u.Calls, u.Chars, len(u.Sources), u.Skipped, want)
	}
}

// TestQuotesRationale pins the card-quote rule on a small abstract.
func TestQuotesRationale(t *testing.T) {
	a := scifact.Abstract{ID: "1", Title: "A title", Sentences: []string{
		"First sentence here.", "Second sentence, the evidence.", "Third one.",
	}}
	tests := []struct {
		name      string
		rationale []int
		excerpt   string
		want      bool
	}{
		{"whole sentence", []int{1}, "Second sentence, the evidence.", true},
		{"across sentences", []int{1}, "here.\nSecond sentence, the evidence.\nThird", true},
		{"inside a sentence", []int{1}, "sentence, the evid", true},
		{"other sentence", []int{1}, "First sentence here.", false},
		{"part of it only", []int{1}, "the evidence.\nThird one.", false},
		{"not verbatim", []int{1}, "Second  sentence, the evidence.", false},
		{"empty", []int{1}, "", false},
		{"bad index", []int{7}, "Third one.", false},
	}
	for _, tt := range tests {
		if got := quotesRationale(a, tt.rationale, tt.excerpt); got != tt.want {
			t.Errorf("%s: quotesRationale(%q) = %v, want %v", tt.name, tt.excerpt, got, tt.want)
		}
	}
}

// TestDocID maps card paths back to document ids.
func TestDocID(t *testing.T) {
	for p, want := range map[string]string{
		"corpus/4983.txt": "4983",
		"corpus/a/12.txt": "12",
		"corpus/notes.md": "notes.md",
		"corpus/.txt.txt": ".txt",
		"corpus/13":       "13",
	} {
		if got := docID(p); got != want {
			t.Errorf("docID(%q) = %q, want %q", p, got, want)
		}
	}
}

// BenchmarkSearchWarm is one context_search call on the warm SciFact folder,
// cycling through the claims, each in its own turn (the grant write is not
// timed).
func BenchmarkSearchWarm(b *testing.B) {
	s, ts, _, claims := sciFactTurns(b)
	ctx := context.Background()
	if _, err := ts.Search(ctx, tools.SearchInput{Query: claims[0].Claim, Limit: k}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if err := s.next(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := ts.Search(ctx, tools.SearchInput{Query: claims[i%len(claims)].Claim, Limit: k}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchSpaced is a warm search after a pause longer than the
// directory's restamp interval, as an agent's searches usually are: the
// pause is not timed, the re-check of the folder is.
func BenchmarkSearchSpaced(b *testing.B) {
	s, ts, _, claims := sciFactTurns(b)
	ctx := context.Background()
	if _, err := ts.Search(ctx, tools.SearchInput{Query: claims[0].Claim, Limit: k}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		time.Sleep(2100 * time.Millisecond)
		if err := s.next(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := ts.Search(ctx, tools.SearchInput{Query: claims[i%len(claims)].Claim, Limit: k}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstSearch is what a fresh server process does on its first
// call with the on-disk index cache present: tools.Open and one search.
func BenchmarkFirstSearch(b *testing.B) {
	benchFirstSearch(b, true)
}

// BenchmarkFirstSearchNoCache is the same with the cache deleted before
// each call, so the directory is read and indexed.
func BenchmarkFirstSearchNoCache(b *testing.B) {
	benchFirstSearch(b, false)
}

func benchFirstSearch(b *testing.B, cached bool) {
	s, ts, _, claims := sciFactTurns(b)
	ctx := context.Background()
	if _, err := ts.Search(ctx, tools.SearchInput{Query: claims[0].Claim, Limit: k}); err != nil {
		b.Fatal(err)
	}
	cache := filepath.Join(s.plan.Vault, ".agentero", "cache")
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if !cached {
			if err := os.RemoveAll(cache); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		fresh, err := tools.Open(ctx, s.grant, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fresh.Search(ctx, tools.SearchInput{Query: claims[i%len(claims)].Claim, Limit: k}); err != nil {
			b.Fatal(err)
		}
		fresh.Close()
	}
}
