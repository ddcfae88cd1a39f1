package researchctx

import (
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// markMatch is the word overlap (F1 of their words) at which a selection
// is taken for one of the user's marks on its page.
const markMatch = 0.8

// addMarkComment gives ev the comment of the user's mark that the
// selection is, when it is one: a mark on the evidence's page whose marked
// text is the quote (words in common, F1 ≥ markMatch). The comment comes
// within MaxQuote with the quote: what the quote leaves, cut on a
// character boundary and ending in "…" when cut.
func (r *resolution) addMarkComment(paper *vault.PaperInfo, file string, ev *Evidence) {
	if ev.Page == 0 || file == "" || ev.Unreadable {
		return
	}
	var src sources.Source
	var err error
	if paper != nil {
		src, err = r.lib.Open(r.ctx, grant.KindPaper, paper.Path)
	} else {
		src, err = r.lib.Open(r.ctx, grant.KindFile, file)
	}
	if err != nil {
		return
	}
	mr, ok := src.(sources.MarkReader)
	if !ok {
		return
	}
	ms, err := mr.Marks(r.ctx, file)
	if err != nil {
		return
	}
	best, bestScore := -1, 0.0
	for i, m := range ms.Marks {
		if m.Page != ev.Page || m.Text == "" || m.Comment == "" {
			continue
		}
		if s := textnorm.WordF1(m.Text, ev.Quote); s >= markMatch && s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		return
	}
	room := MaxQuote - len([]rune(ev.Quote))
	if room <= 0 {
		return
	}
	c := strings.TrimSpace(ms.Marks[best].Comment)
	if len([]rune(c)) > room {
		c, _ = textnorm.Truncate(c, room-1)
		c += "…"
	}
	ev.Comment, ev.MarkKind = c, ms.Marks[best].Kind
}

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
