package researchctx

import (
	"context"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// TestSelectionOfAMark: a selection that is one of the user's commented
// marks carries its comment into the evidence and the prompt, within the
// quote's cap; other selections carry none.
func TestSelectionOfAMark(t *testing.T) {
	vault := vaultfix.Sample(t)
	const pdf = "papers/2401.01234/2401.01234.pdf"
	const comment = "Gate init matters: check the Aldana and Ferreira residual design before we reuse it."
	long := strings.Repeat("x", MaxQuote-20)
	for _, tc := range []struct {
		name    string
		sel     Selection
		comment string
	}{
		{"the highlight", Selection{Text: "The pooled summary is added to each block", Path: pdf, Page: 2}, comment},
		{"the highlight, a word more", Selection{Text: "The pooled summary is added to each block through", Path: pdf, Page: 2}, comment},
		{"the current paper's underline", Selection{Text: "aligned to sentence boundaries"}, "Does alignment still help with 512-token blocks?"},
		{"not a mark", Selection{Text: "A block size of 256 tokens was the best trade-off in our experiments", Path: pdf, Page: 1}, ""},
		{"the highlight, placed by its text", Selection{Text: "The pooled summary is added to each block", Path: pdf, Page: 1}, comment},
		{"a long selection leaves little room", Selection{Text: "The pooled summary is added to each block " + long, Path: pdf, Page: 2}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res Resolver
			defer res.Close()
			plan, err := res.Resolve(context.Background(), Request{Vault: vault, RuntimeID: "rt", TurnID: "t", CurrentPaper: "papers/2401.01234", Selections: []Selection{tc.sel}})
			if err != nil {
				t.Fatal(err)
			}
			ev := plan.Evidence[0]
			if ev.Comment != tc.comment {
				t.Errorf("comment %q, want %q", ev.Comment, tc.comment)
			}
			if n := len([]rune(ev.Quote)) + len([]rune(ev.Comment)); n > MaxQuote {
				t.Errorf("quote and comment are %d characters, over %d", n, MaxQuote)
			}
			prompt := plan.Prompt()
			if tc.comment != "" && !strings.Contains(prompt, "with their comment:\n> "+tc.comment+"\n") {
				t.Errorf("prompt lacks the comment:\n%s", prompt)
			}
			if tc.comment == "" && strings.Contains(prompt, "with their comment") {
				t.Errorf("prompt has a comment:\n%s", prompt)
			}
		})
	}
}
