package mcp

import (
	"strings"
	"testing"

	"github.com/researchctx/researchctx/tools"
)

// TestRenderRelationContexts: a card's label and citing sentences are
// shown under it, each quoted on one line with its page and URI.
func TestRenderRelationContexts(t *testing.T) {
	out := &tools.RelationsOutput{Paper: "papers/a", Kind: tools.RelReferences, References: []tools.RelationCard{{
		Title: "Attention Is All You Need", Year: 2017, CitationURI: "https://arxiv.org/abs/1706.03762", Label: "12",
		Contexts: []tools.RelationContext{{Page: 3, Text: "We follow [12]\nclosely.", CitationURI: "papers/a/a.pdf#page=3"}},
	}}}
	got := renderRelations(out)
	for _, want := range []string{
		`1. "Attention Is All You Need" — 2017 — cite: https://arxiv.org/abs/1706.03762 — cited as "12"` + "\n",
		`   p. 3: "We follow [12] closely." — cite: papers/a/a.pdf#page=3` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered:\n%s\nwant a line %q", got, want)
		}
	}
}
