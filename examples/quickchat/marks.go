package main

import (
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/tools"
)

// marksView renders a marks read: each of the user's marks with its page,
// the words it marks and the comment.
func (r *demoRun) marksView(out *tools.ReadOutput) string {
	o := r.out
	var b strings.Builder
	cut := ""
	if out.Truncated {
		cut = " (cut: more with nextCursor)"
	}
	fmt.Fprintf(&b, "%d marks%s · %s", len(out.Marks), cut, o.dim(budgetNote(out.Budget)))
	for _, p := range out.Problems {
		fmt.Fprintf(&b, "\n    could not read: %s", p)
	}
	for i, m := range out.Marks {
		fmt.Fprintf(&b, "\n[%d] %s, p. %d — %s", i+1, m.Kind, m.Page, o.cyan(orNoLink(m.CitationURI)))
		if m.Text != "" {
			fmt.Fprintf(&b, "\n    %s", o.dim(fmt.Sprintf("%q", demo.Clip(oneLine(m.Text), 110))))
		}
		if m.Comment != "" {
			fmt.Fprintf(&b, "\n    note: %s", demo.Clip(oneLine(m.Comment), 110))
		}
	}
	return b.String()
}
