package mcp

import (
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/tools"
)

// writeMarks renders a metadata read's count of marks and the problems
// that kept some marks from being read.
func writeMarks(b *strings.Builder, out *tools.ReadOutput) {
	if out.MarkCount > 0 {
		fmt.Fprintf(b, "Marks: %d (the user's highlights and notes; read them with mode marks)\n", out.MarkCount)
	}
	for _, p := range out.Problems {
		fmt.Fprintf(b, "Could not be read: %s\n", title(p))
	}
}

// writeMarkList renders a marks read: each mark's kind, page and colour on
// a line of the server's, its page label as pages' labels are; its author
// and date, tags, marked text and comment quoted as data (all of them come
// from the marks file or the PDF, not the server).
func writeMarkList(b *strings.Builder, out *tools.ReadOutput) {
	if len(out.Marks) == 0 {
		b.WriteString("No marks.\n")
		return
	}
	fmt.Fprintf(b, "%d %s:\n", len(out.Marks), plural(len(out.Marks), "mark", "marks"))
	for i, m := range out.Marks {
		color := ""
		if m.Color != "" {
			color = ", colour " + name(m.Color)
		}
		fmt.Fprintf(b, "\n%d. %s%s%s\n", i+1, name(string(m.Kind)), location(m.Page, m.PageLabel, "", ""), color)
		fmt.Fprintf(b, "   cite: %s\n", name(m.CitationURI))
		writeMadeBy(b, title(m.Author), title(m.Created))
		if len(m.Tags) > 0 {
			b.WriteString("   Tags:\n")
			writeQuote(b, strings.Join(m.Tags, "\n"), "   ")
		}
		if m.Text != "" {
			b.WriteString("   Marked text:\n")
			writeQuote(b, m.Text, "   ")
		}
		if m.Comment != "" {
			b.WriteString("   Comment:\n")
			writeQuote(b, m.Comment, "   ")
		}
	}
}

// writeMadeBy quotes a mark's author and date, each on a line, under a
// heading that says which it has.
func writeMadeBy(b *strings.Builder, author, created string) {
	var head string
	switch {
	case author != "" && created != "":
		head = "Author and date"
	case author != "":
		head = "Author"
	case created != "":
		head = "Date"
	default:
		return
	}
	fmt.Fprintf(b, "   %s:\n", head)
	writeQuote(b, strings.TrimSpace(author+"\n"+created), "   ")
}

// writeCardMark says a card is one of the user's marks, its comment quoted.
func writeCardMark(b *strings.Builder, c tools.Card) {
	if c.Mark.Kind == "" {
		return
	}
	fmt.Fprintf(b, "   the user's %s", name(string(c.Mark.Kind)))
	if c.Mark.Comment == "" {
		b.WriteString("\n")
		return
	}
	b.WriteString(", with the comment:\n")
	writeQuote(b, c.Mark.Comment, "   ")
}

// marksNote is what a read's note says of marks that could not be read.
func marksNote(out *tools.ReadOutput) string {
	if p := out.Problems; len(p) > 0 {
		return "Some marks could not be read: " + strings.Join(p, "; ") + "."
	}
	return ""
}
