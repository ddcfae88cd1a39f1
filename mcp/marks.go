package mcp

import (
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/tools"
)

// writeMarks renders a marks read (each mark's kind, page, author and date
// on a line of the server's, its marked text and comment quoted as data),
// the problems that kept some from being read, and a metadata read's
// count of marks.
func writeMarks(b *strings.Builder, out *tools.ReadOutput) {
	if out.MarkCount > 0 {
		fmt.Fprintf(b, "Marks: %d (the user's highlights and notes; read them with mode marks)\n", out.MarkCount)
	}
	for _, p := range out.Problems {
		fmt.Fprintf(b, "Could not be read: %s\n", title(p))
	}
	if out.Mode != tools.ReadMarks {
		return
	}
	if len(out.Marks) == 0 {
		b.WriteString("No marks.\n")
		return
	}
	fmt.Fprintf(b, "%d %s:\n", len(out.Marks), plural(len(out.Marks), "mark", "marks"))
	for i, m := range out.Marks {
		fmt.Fprintf(b, "\n%d. %s%s", i+1, name(string(m.Kind)), location(m.Page, "", "", ""))
		if a := title(m.Author); a != "" {
			fmt.Fprintf(b, ", by %s", a)
		}
		if c := title(m.Created); c != "" {
			fmt.Fprintf(b, ", %s", c)
		}
		fmt.Fprintf(b, "\n   cite: %s\n", name(m.CitationURI))
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
