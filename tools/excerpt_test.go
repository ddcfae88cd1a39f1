package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
)

// attentionToolset grants a vault holding one real paper, "Attention Is All
// You Need" (the corpus PDF, copied into a temporary vault).
func attentionToolset(t *testing.T) (*tools.Toolset, string) {
	t.Helper()
	ts, dir, _ := attentionGrant(t, nil)
	return ts, dir
}

// attentionGrant is attentionToolset with budget overrides, returning the
// grant's path too.
func attentionGrant(t *testing.T, budget *grant.BudgetOverrides) (*tools.Toolset, string, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t, "pdfs"), "arxiv-1706.03762.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "vault")
	unit := filepath.Join(dir, "papers", "1706.03762")
	if err := os.MkdirAll(unit, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"1706.03762.pdf": data,
		"metadata.json":  []byte(`{"title": "Attention Is All You Need", "arxivId": "1706.03762", "year": 2017}`),
	} {
		if err := os.WriteFile(filepath.Join(unit, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var res researchctx.Resolver
	t.Cleanup(func() { res.Close() })
	plan, err := res.Resolve(context.Background(), researchctx.Request{
		Vault: dir, RuntimeID: "rt", TurnID: "turn-1", CurrentPaper: "papers/1706.03762", Budget: budget,
	})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts, dir, gr
}

// TestExcerptApproximate reads quotes as a model writes them from a real
// paper: the passage is the page's own text, with how it matched.
func TestExcerptApproximate(t *testing.T) {
	ts, vault := attentionToolset(t)
	type result struct {
		Match       tools.Match
		Page        int
		CitationURI string
	}
	const cite6 = "papers/1706.03762/1706.03762.pdf#page=6"
	tests := []struct {
		name, quote string
		want        result
		has         string // verbatim page text the passage must hold
	}{
		{"exact", "In this work, we use sine and cosine functions of different frequencies",
			result{tools.MatchExact, 6, cite6}, "we use sine and cosine functions of different frequencies"},
		{"a word changed", "We use sine and cosine functions with different frequencies",
			result{tools.MatchApproximate, 6, cite6}, "we use sine and cosine functions of different frequencies"},
		{"two words dropped", "positional encodings have the same dimension as the embeddings so the two can be summed",
			result{tools.MatchApproximate, 6, cite6}, "so that the two can be summed"},
		{"a clause moved and an inflection", "the two can be summed, since the positional encoding has the same dimension dmodel as the embeddings",
			result{tools.MatchApproximate, 6, cite6}, "The positional encodings have the same dimension dmodel"},
		{"a caption into table cells in another order", "r the size of the neighborhood in restricted self-attention. Layer Type Maximum Path Length Complexity per Layer Sequential Operations",
			result{tools.MatchApproximate, 6, cite6}, "Layer Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ts.Read(context.Background(), tools.ReadInput{Target: "papers/1706.03762", Quote: tt.quote})
			if err != nil {
				t.Fatal(err)
			}
			got := result{out.Match, out.Page, out.CitationURI}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Read(excerpt %q) (-want +got):\n%s", tt.quote, diff)
			}
			if !strings.Contains(strings.Join(strings.Fields(out.Text), " "), tt.has) {
				t.Errorf("passage %q lacks %q", out.Text, tt.has)
			}
			switch out.Match {
			case tools.MatchExact:
				if out.Score != 1 || out.Matches < 1 {
					t.Errorf("exact match with score %v, %d matches", out.Score, out.Matches)
				}
			case tools.MatchApproximate:
				if out.Score < 0.6 || out.Score >= 1 {
					t.Errorf("approximate match with score %v", out.Score)
				}
			}
		})
	}

	t.Run("not in the paper", func(t *testing.T) {
		// The first sentence of "Deep Residual Learning for Image Recognition".
		_, err := ts.Read(context.Background(), tools.ReadInput{Target: "papers/1706.03762",
			Quote: "Deeper neural networks are more difficult to train. We present a residual learning framework to ease the training of networks that are substantially deeper than those used previously."})
		if !errors.Is(err, sources.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "the nearest are on page") || strings.Contains(msg, vault) {
			t.Errorf("message %q: want candidate pages and no machine path", msg)
		}
	})
}

// TestSectionByNumber finds "3.5 Positional Encoding" of a real paper by
// number in every form a model writes it, and by an approximate title.
func TestSectionByNumber(t *testing.T) {
	ts, _ := attentionToolset(t)
	ctx := context.Background()
	for _, arg := range []string{"3.5", "§3.5", "§ 3.5", "Sec. 3.5", "sec 3.5", "Section 3.5", "3.5 Positional Encoding", "positional encodings", "Positional encoding"} {
		out, err := ts.Read(ctx, tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadSection, Section: arg})
		if err != nil {
			t.Errorf("section %q: %v", arg, err)
			continue
		}
		if out.Section != "3.5 Positional Encoding" || !strings.Contains(out.Text, "sine and cosine functions") {
			t.Errorf("section %q read %q (%.40q…)", arg, out.Section, out.Text)
		}
	}
	for _, arg := range []string{"3.9", "§12", "attention visualizations"} {
		if _, err := ts.Read(ctx, tools.ReadInput{Target: "papers/1706.03762", Mode: tools.ReadSection, Section: arg}); !errors.Is(err, sources.ErrNotFound) {
			t.Errorf("section %q: err = %v, want ErrNotFound", arg, err)
		}
	}
	out, err := ts.Read(ctx, tools.ReadInput{Target: "papers/1706.03762"})
	if err != nil {
		t.Fatal(err)
	}
	numbers := map[string]string{}
	for _, s := range out.Sections {
		numbers[s.Title] = s.Number
	}
	want := map[string]string{"1 Introduction": "1", "3.2.1 Scaled Dot-Product Attention": "3.2.1", "3.5 Positional Encoding": "3.5", "7 Conclusion": "7"}
	for title, num := range want {
		if numbers[title] != num {
			t.Errorf("section %q has number %q, want %q (sections %v)", title, numbers[title], num, numbers)
		}
	}
}
