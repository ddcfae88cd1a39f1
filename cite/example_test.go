package cite_test

import (
	"errors"
	"fmt"

	"github.com/researchctx/researchctx/cite"
)

// Building the locators a tool result or a plan's evidence carries.
func Example() {
	fmt.Println(cite.Page("papers/1706.03762/1706.03762.pdf", 3))
	fmt.Println(cite.Section("notes/reading plan.md", "Open questions"))
	fmt.Println(cite.Region("papers/1706.03762/1706.03762.pdf", "figure-1"))
	fmt.Println(cite.File("notes/ideas.txt"))
	fmt.Println(cite.DOI("10.1109/CVPR.2016.90"))
	fmt.Println(cite.ArXiv("1706.03762"))
	// Output:
	// papers/1706.03762/1706.03762.pdf#page=3
	// notes/reading%20plan.md#section=Open%20questions
	// papers/1706.03762/1706.03762.pdf#region=figure-1
	// notes/ideas.txt
	// https://doi.org/10.1109/CVPR.2016.90
	// https://arxiv.org/abs/1706.03762
}

// A host turns a used source back into what it opens: a file at a page or
// section, or a link out of the Vault. Anything else is refused.
func ExampleParse() {
	for _, s := range []string{
		"papers/1706.03762/1706.03762.pdf#page=3",
		"notes/reading%20plan.md#section=Open%20questions",
		"https://arxiv.org/abs/1706.03762",
		"../outside.pdf",
		"https://example.com/paper.pdf",
	} {
		u, err := cite.Parse(s)
		switch {
		case errors.Is(err, cite.ErrInvalid):
			fmt.Printf("%-50s refused\n", s)
		case u.ArXiv != "" || u.DOI != "":
			fmt.Printf("%-50s open the link %s\n", s, u)
		case u.Page > 0:
			fmt.Printf("%-50s open %s at page %d\n", s, u.Path, u.Page)
		case u.Section != "":
			fmt.Printf("%-50s open %s at %q\n", s, u.Path, u.Section)
		}
	}
	// Output:
	// papers/1706.03762/1706.03762.pdf#page=3            open papers/1706.03762/1706.03762.pdf at page 3
	// notes/reading%20plan.md#section=Open%20questions   open notes/reading plan.md at "Open questions"
	// https://arxiv.org/abs/1706.03762                   open the link https://arxiv.org/abs/1706.03762
	// ../outside.pdf                                     refused
	// https://example.com/paper.pdf                      refused
}
