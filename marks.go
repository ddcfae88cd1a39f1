package researchctx

import (
	"strings"

	"github.com/researchctx/researchctx/internal/textnorm"
)

// writeMarkComment adds to the prompt the comment of the user's mark that
// a selection is, quoted like the selection.
func writeMarkComment(b *strings.Builder, ev Evidence) {
	if ev.Comment == "" {
		return
	}
	kind := textnorm.Line(string(ev.MarkKind))
	if kind == "" {
		kind = "mark"
	}
	b.WriteString("The user's own " + kind + " on this passage, with their comment:\n")
	for _, line := range textnorm.SplitLines(ev.Comment) {
		b.WriteString("> " + line + "\n")
	}
}
