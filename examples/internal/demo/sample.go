package demo

import (
	"fmt"

	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/tools"
)

// The sample vault's demo turn: the paper, page and sentence a reader would
// have selected, and a question whose answer is spread over the paper's
// Limitations section and the group's meeting notes (see
// samplevault/README.md).
const (
	SamplePaper = "papers/2401.01234"
	SamplePage  = 1
	SampleQuote = "Strided global tokens let every block see a coarse summary of the whole document at a cost that grows linearly with its length."
	SampleAsk   = "Which limitations do strided global tokens have, and what did the slot routing results show?"
	// SampleParaphrase is the selection as a model quotes it back: the
	// excerpt finds the passage approximately.
	SampleParaphrase = "strided global tokens let each block see a coarse summary of the document at a cost growing linearly with its length"
)

// SampleMentions are the demo turn's @-mentions: a folder and an
// extensionless file.
func SampleMentions() []string { return []string{"notes", "reading-list"} }

// ReadWhat says in a few words what a context_read of text returned: the
// page, region, section or mode, the page it starts on, and how an excerpt
// matched.
func ReadWhat(out *tools.ReadOutput) string {
	var what string
	switch {
	case out.Mode == tools.ReadPage:
		what = fmt.Sprintf("page %d", out.Page)
	case out.Region != "":
		what = "region " + out.Region
	case out.Section != "":
		what = fmt.Sprintf("section %q", out.Section)
	case out.Mode == tools.ReadFull:
		what = "full text"
	default:
		what = string(out.Mode)
	}
	if out.Page > 0 && out.Mode != tools.ReadPage {
		what += fmt.Sprintf(", page %d", out.Page)
	}
	if out.Match != "" {
		what += fmt.Sprintf(", %s match (score %.2f)", out.Match, out.Score)
	}
	return what
}

// CallName is how an agent's tool call is shown: our tool's bare name, else
// the agent's name for it, else its title, else its id.
func CallName(c *acp.ToolCall) string {
	switch {
	case c.Tool != "":
		return c.Tool
	case c.Title != "":
		return c.Title
	}
	return c.ID
}
