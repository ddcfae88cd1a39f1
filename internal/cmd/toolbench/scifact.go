package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
	"github.com/researchctx/researchctx/tools"
)

// corpusDir is the vault folder that holds the abstracts; it is the one
// granted source of the SciFact turns.
const corpusDir = "corpus"

// runtimeID names the benchmark's session folder in the vault.
const runtimeID = "toolbench"

// k is the cut-off of every ranking metric and the search limit.
const k = 10

// writeCorpus writes every abstract as corpus/<doc_id>.txt under root: the
// title line, then one sentence per line.
func writeCorpus(root string, docs []scifact.Abstract) error {
	dir := filepath.Join(root, corpusDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range docs {
		if err := os.WriteFile(filepath.Join(dir, d.ID+".txt"), []byte(d.FileText()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// docID maps a card's path back to its SciFact document id.
func docID(p string) string {
	return strings.TrimSuffix(path.Base(p), ".txt")
}

// session drives the tools as a host does: one plan for the granted corpus,
// and a grant rewritten with a new turn id before every turn, so each claim
// has the whole turn budget.
type session struct {
	plan  *researchctx.Plan
	grant string
	turn  int
}

// newSession resolves a request that mentions the corpus folder, with ten
// cards per search and the largest turn budget, and writes its grant.
func newSession(ctx context.Context, res *researchctx.Resolver, root string) (*session, error) {
	cards, turnChars := k, grant.MaxBudget().TurnChars
	plan, err := res.Resolve(ctx, researchctx.Request{
		Vault:     root,
		RuntimeID: runtimeID,
		TurnID:    "turn-0",
		Mentions:  []string{corpusDir},
		Budget:    &grant.BudgetOverrides{SearchCards: &cards, TurnChars: &turnChars},
	})
	if err != nil {
		return nil, err
	}
	if plan.Mode != grant.ModeMCP || len(plan.Sources) != 1 || plan.Sources[0].Kind != grant.KindDirectory {
		return nil, fmt.Errorf("the plan does not grant the corpus folder: mode %s, sources %v, dropped %v",
			plan.Mode, plan.Sources, plan.Dropped)
	}
	s := &session{plan: plan}
	if s.grant, err = plan.WriteGrant(); err != nil {
		return nil, err
	}
	return s, nil
}

// next starts a new turn: same scope and fingerprint, new turn id.
func (s *session) next() error {
	s.turn++
	s.plan.TurnID = fmt.Sprintf("turn-%d", s.turn)
	_, err := s.plan.WriteGrant()
	return err
}

// quality is the ranking quality of one system over the claims.
type quality struct {
	NDCG, Recall float64
}

// evaluation is what one pass of the claims through context_search measured.
type evaluation struct {
	Claims int
	Tools  quality // context_search
	BM25   quality // the baseline, same claims, same run
	// QuoteClaims counts the claims with an evidence document among their
	// cards; QuoteHits those whose first card of an evidence document
	// quotes one of its rationale sentences.
	QuoteClaims, QuoteHits int
	// QuoteSplit is QuoteClaims and QuoteHits by claim id parity:
	// [0] the even ids, [1] the odd ones, the half held out when the
	// passage picker is tuned on the even half.
	QuoteSplit [2]struct{ Claims, Hits int }
	// EvidenceClaims counts the claims that have an evidence document with
	// rationale sentences at all.
	EvidenceClaims int
	// Latency holds each claim's Search call, sorted.
	Latency []time.Duration
}

// QuoteShareOf is the quote share of one half of the claims (see
// QuoteSplit).
func (e *evaluation) QuoteShareOf(half int) float64 {
	h := e.QuoteSplit[half]
	if h.Claims == 0 {
		return 0
	}
	return float64(h.Hits) / float64(h.Claims)
}

// QuoteShare is QuoteHits over QuoteClaims.
func (e *evaluation) QuoteShare() float64 {
	if e.QuoteClaims == 0 {
		return 0
	}
	return float64(e.QuoteHits) / float64(e.QuoteClaims)
}

// Percentile returns the p-th latency (0 ≤ p ≤ 1), nearest rank.
func (e *evaluation) Percentile(p float64) time.Duration {
	return percentile(e.Latency, p)
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p*float64(len(sorted)-1)+0.5)]
}

// evaluate runs every claim through ts.Search, limit k, starting a new turn
// every perTurn claims, and scores the rankings and the card quotes next to
// the BM25 baseline. A turn must hold perTurn searches of k full cards.
func evaluate(ctx context.Context, s *session, ts *tools.Toolset, docs []scifact.Abstract, claims []scifact.Claim, perTurn int) (*evaluation, error) {
	if b := s.plan.Budget; perTurn < 1 || perTurn*k*b.CardChars > b.TurnChars {
		return nil, fmt.Errorf("%d searches of %d cards do not fit in one turn's budget", perTurn, k)
	}
	byID := make(map[string]scifact.Abstract, len(docs))
	for _, d := range docs {
		byID[d.ID] = d
	}
	bm := scifact.NewBM25(docs)
	ev := &evaluation{Claims: len(claims)}
	for i, c := range claims {
		if i%perTurn == 0 {
			if err := s.next(); err != nil {
				return nil, err
			}
		}
		st := time.Now()
		out, err := ts.Search(ctx, tools.SearchInput{Query: c.Claim, Limit: k})
		ev.Latency = append(ev.Latency, time.Since(st))
		if err != nil {
			return nil, fmt.Errorf("claim %d: %w", c.ID, err)
		}
		ids := make([]string, len(out.Cards))
		for i, card := range out.Cards {
			ids[i] = docID(card.Path)
		}
		rel := c.Relevant()
		ev.Tools.NDCG += scifact.NDCG(ids, rel, k)
		ev.Tools.Recall += scifact.Recall(ids, rel, k)
		base := bm.Search(c.Claim, k)
		ev.BM25.NDCG += scifact.NDCG(base, rel, k)
		ev.BM25.Recall += scifact.Recall(base, rel, k)

		if hasEvidence(c) {
			ev.EvidenceClaims++
		}
		if card, ok := firstEvidenceCard(c, out.Cards); ok {
			ev.QuoteClaims++
			half := &ev.QuoteSplit[c.ID%2]
			half.Claims++
			id := docID(card.Path)
			if quotesRationale(byID[id], c.Docs[id], card.Excerpt) {
				ev.QuoteHits++
				half.Hits++
			}
		}
	}
	if n := float64(len(claims)); n > 0 {
		ev.Tools.NDCG /= n
		ev.Tools.Recall /= n
		ev.BM25.NDCG /= n
		ev.BM25.Recall /= n
	}
	slices.Sort(ev.Latency)
	return ev, nil
}

// hasEvidence reports whether a claim has an evidence document with
// rationale sentences.
func hasEvidence(c scifact.Claim) bool {
	for _, r := range c.Docs {
		if len(r) > 0 {
			return true
		}
	}
	return false
}

// firstEvidenceCard returns the best-ranked card of an evidence document of
// the claim (one with rationale sentences).
func firstEvidenceCard(c scifact.Claim, cards []tools.Card) (tools.Card, bool) {
	for _, card := range cards {
		if len(c.Docs[docID(card.Path)]) > 0 {
			return card, true
		}
	}
	return tools.Card{}, false
}

// quotesRationale reports whether an excerpt of the abstract's file text
// holds a whole rationale sentence, or lies within a longer one. An excerpt
// that is not verbatim from the text quotes nothing.
func quotesRationale(a scifact.Abstract, rationale []int, excerpt string) bool {
	if excerpt == "" {
		return false
	}
	start := strings.Index(a.FileText(), excerpt)
	if start < 0 {
		return false
	}
	return scifact.Covers(a, rationale, start, start+len(excerpt))
}
