package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/tools"
)

// view renders a tool result compactly: what the agent got, where it is
// from and how to cite it, in a few lines. The full result is in -json.
func (r *demoRun) view(rec *callRecord) string {
	switch rec.Tool {
	case grant.ToolSearch:
		var out tools.SearchOutput
		if structured(rec, &out) {
			return r.searchView(&out)
		}
	case grant.ToolRead:
		var out tools.ReadOutput
		if structured(rec, &out) {
			return r.readView(&out)
		}
	case grant.ToolRelations:
		var out tools.RelationsOutput
		if structured(rec, &out) {
			return r.relationsView(&out)
		}
	}
	return "(no structured result)"
}

func budgetNote(b tools.BudgetReport) string {
	return fmt.Sprintf("budget: %d used, %d left", b.Used, b.Remaining)
}

func (r *demoRun) searchView(out *tools.SearchOutput) string {
	o := r.out
	var b strings.Builder
	more := ""
	if out.Truncated {
		more = " (more matched)"
	}
	if out.Partial {
		more += " (partial: not everything was searched)"
	}
	fmt.Fprintf(&b, "%d cards%s · %s", len(out.Cards), more, o.dim(budgetNote(out.Budget)))
	for _, s := range out.Skipped {
		fmt.Fprintf(&b, "\n    could not read %s: %s", s.Path, s.Reason)
	}
	if out.SkippedMore > 0 {
		fmt.Fprintf(&b, "\n    and %d more documents that could not be read", out.SkippedMore)
	}
	for i, c := range out.Cards {
		where := []string{}
		if c.Page > 0 {
			where = append(where, fmt.Sprintf("p. %d", c.Page))
		}
		if c.Section != "" {
			where = append(where, c.Section)
		}
		loc := ""
		if len(where) > 0 {
			loc = " (" + strings.Join(where, ", ") + ")"
		}
		uri := orNoLink(c.CitationURI)
		if len(c.CitationURIs) > 0 {
			uri = strings.Join(c.CitationURIs, ", ")
		}
		fmt.Fprintf(&b, "\n[%d] %s%s — %s", i+1, demo.Clip(c.Title, 60), loc, o.cyan(uri))
		fmt.Fprintf(&b, "\n    %s", o.dim(fmt.Sprintf("%q", demo.Clip(oneLine(c.Excerpt), 110))))
	}
	return b.String()
}

func (r *demoRun) readView(out *tools.ReadOutput) string {
	o := r.out
	var b strings.Builder
	cite := o.cyan(orNoLink(out.CitationURI))
	if len(out.CitationURIs) > 0 {
		// Text from several pages cites each of them.
		cite = o.cyan(strings.Join(out.CitationURIs, ", "))
	}
	switch {
	case out.Mode == tools.ReadMarks:
		return r.marksView(out)
	case len(out.Entries) > 0:
		names := make([]string, 0, len(out.Entries))
		for _, e := range out.Entries {
			n := e.Name
			if e.Kind == "directory" {
				n += "/"
			}
			names = append(names, n)
		}
		fmt.Fprintf(&b, "%d entries: %s — %s", len(out.Entries), strings.Join(names, ", "), cite)
	case out.Mode == tools.ReadMetadata:
		fmt.Fprintf(&b, "%s — %s", demo.Clip(out.Title, 70), cite)
		facts := []string{}
		if len(out.Authors) > 0 {
			facts = append(facts, strings.Join(out.Authors, ", "))
		}
		if out.Year > 0 {
			facts = append(facts, fmt.Sprint(out.Year))
		}
		if out.Pages > 0 {
			facts = append(facts, fmt.Sprintf("%d pages", out.Pages))
		}
		if out.DOI != "" {
			facts = append(facts, "doi "+out.DOI)
		}
		if out.ArXivID != "" {
			facts = append(facts, "arXiv "+out.ArXivID)
		}
		if len(facts) > 0 {
			fmt.Fprintf(&b, "\n%s", strings.Join(facts, " · "))
		}
		if len(out.Sections) > 0 {
			titles := make([]string, 0, len(out.Sections))
			for _, s := range out.Sections {
				titles = append(titles, s.Title)
			}
			fmt.Fprintf(&b, "\nsections: %s", demo.Clip(strings.Join(titles, " · "), 120))
		}
	default:
		what := demo.ReadWhat(out)
		cut := ""
		if out.Truncated {
			cut = " (cut: more with nextCursor)"
		}
		fmt.Fprintf(&b, "%s: %d chars%s · %s — %s", what, len([]rune(out.Text)), cut, o.dim(budgetNote(out.Budget)), cite)
		fmt.Fprintf(&b, "\n    %s", o.dim(fmt.Sprintf("%q", demo.Clip(oneLine(out.Text), 110))))
	}
	return b.String()
}

func (r *demoRun) relationsView(out *tools.RelationsOutput) string {
	o := r.out
	var b strings.Builder
	cut := ""
	if out.Truncated {
		cut = " (lists cut at the limit)"
	}
	fmt.Fprintf(&b, "%d references, %d cited by, %d related%s · %s", len(out.References), len(out.CitedBy), len(out.Related), cut, o.dim(budgetNote(out.Budget)))
	lists := []struct {
		name  string
		cards []tools.RelationCard
	}{{"reference", out.References}, {"cited by", out.CitedBy}, {"related", out.Related}}
	shown := map[string]bool{}
	for _, l := range lists {
		again := 0
		for _, c := range l.cards {
			key := c.CitationURI + "\x00" + c.Title
			if shown[key] {
				again++
				continue
			}
			shown[key] = true
			title := demo.Clip(c.Title, 55)
			if c.Year > 0 {
				title += fmt.Sprintf(" (%d)", c.Year)
			}
			where := o.cyan(orNoLink(c.CitationURI))
			switch {
			case c.PaperPath != "" && c.InGrant:
				where += o.dim("  in the grant")
			case c.PaperPath != "":
				where += o.dim("  in the library, not in the grant")
			}
			fmt.Fprintf(&b, "\n%-9s  %s — %s", l.name, title, where)
		}
		switch {
		case again > 0 && again == len(l.cards):
			fmt.Fprintf(&b, "\n%-9s  %s", l.name, o.dim(fmt.Sprintf("the same %d papers as above", again)))
		case again > 0:
			fmt.Fprintf(&b, "\n%-9s  %s", l.name, o.dim(fmt.Sprintf("and %d listed above", again)))
		}
	}
	return b.String()
}

// orNoLink shows an empty citation URI: a card with nothing to open.
func orNoLink(uri string) string {
	if uri == "" {
		return "(no link)"
	}
	return uri
}

// oneLine folds runs of white space, line ends included, into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// scanLines sends the lines of in to lines until in ends or done is closed,
// and returns the read error (nil at the end of input).
func scanLines(in io.Reader, lines chan<- string, done <-chan struct{}) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		select {
		case lines <- sc.Text():
		case <-done:
			return nil
		}
	}
	return sc.Err()
}
