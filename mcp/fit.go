package mcp

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/researchctx/researchctx/tools"
)

// maxResultChars bounds one tool result: the characters of its text
// rendering plus those of its structured content as JSON. Clients cap a tool
// result (Claude Code at 25,000 tokens) and drop or refuse larger ones, so
// the server cuts a result to fit whatever the grant's budget allows. With
// the default budget nothing is ever cut.
const maxResultChars = 100_000

// cutNote ends the text rendering of a result cut to fit; fitTarget leaves
// room for it, in the text and in the structured note.
const (
	cutNote   = "Part of this result was left out to fit the 100,000-character limit of one tool result; ask for less (a page, a section, a smaller limit)."
	fitTarget = maxResultChars - 1024
)

// resultChars is the size of a result as a client counts it.
func resultChars(text string, out any) int {
	data, err := json.Marshal(out)
	if err != nil {
		return utf8.RuneCountInString(text)
	}
	return utf8.RuneCountInString(text) + utf8.RuneCount(data)
}

// A cut shortens one field of an output to its first n units (characters
// of a string, items of a list); total is the field's full length.
type cut struct {
	total int
	set   func(n int)
}

// fit renders out and, when the rendering plus the structured JSON exceed
// fitTarget, shortens the fields of cuts in order: each as little as
// possible, the next only when the previous one is empty and the result
// still does not fit. It returns the rendering, ending with cutNote when
// anything was cut.
func fit[T any](out *T, render func(*T) string, cuts ...cut) (text string, cutAny bool) {
	fits := func() bool { return resultChars(render(out), out) <= fitTarget }
	if fits() {
		return render(out), false
	}
	for _, c := range cuts {
		if c.total == 0 {
			continue
		}
		c.set(0)
		if !fits() {
			continue
		}
		// The longest prefix that fits: sizes grow with n.
		lo, hi := 0, c.total
		for lo < hi {
			mid := (lo + hi + 1) / 2
			c.set(mid)
			if fits() {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		c.set(lo)
		break
	}
	return render(out) + cutNote + "\n", true
}

// cutString cuts *s to its first n characters.
func cutString(s *string) cut {
	full := *s
	starts := make([]int, 0, len(full)+1)
	for i := range full {
		starts = append(starts, i)
	}
	starts = append(starts, len(full))
	return cut{total: len(starts) - 1, set: func(n int) { *s = full[:starts[n]] }}
}

// cutList cuts *l to its first n items.
func cutList[E any](l *[]E) cut {
	full := *l
	return cut{total: len(full), set: func(n int) { *l = full[:n] }}
}

func fitSearch(in tools.SearchInput, out *tools.SearchOutput) string {
	frameSearch(out, "")
	text, cut := fit(out, func(o *tools.SearchOutput) string { return renderSearch(in, o) }, cutList(&out.Cards))
	if cut {
		out.Truncated = true
		frameSearch(out, cutNote)
		text = renderSearch(in, out) + cutNote + "\n"
	}
	return text
}

func fitRead(out *tools.ReadOutput) string {
	full := out.Text
	frameRead(out, "")
	text, cut := fit(out, renderRead,
		cutString(&out.Text),
		cutList(&out.Entries),
		cutList(&out.Sections),
		cutList(&out.Documents),
		cutString(&out.Abstract),
		cutList(&out.Authors),
	)
	if cut {
		out.Truncated = true
		note := cutNote
		text = renderRead(out) + cutNote + "\n"
		if lost := utf8.RuneCountInString(full) - utf8.RuneCountInString(out.Text); lost > 0 && out.NextCursor != "" {
			// The cursor of package tools continues after the text it
			// returned, not after what is left of it here: say so, so no
			// gap goes unnoticed.
			lostNote := fmt.Sprintf("The last %d characters of this read were left out; the cursor continues after them. Read them by page or section.", lost)
			text += lostNote + "\n"
			note += " " + lostNote
		}
		frameRead(out, note)
	}
	return text
}

func fitRelations(out *tools.RelationsOutput) string {
	lists := []*[]tools.RelationCard{&out.References, &out.CitedBy, &out.Related}
	full := make([][]tools.RelationCard, len(lists))
	longest := 0
	for i, l := range lists {
		full[i] = *l
		longest = max(longest, len(*l))
	}
	// Each list keeps at most n cards, so all three shrink together.
	each := cut{total: longest, set: func(n int) {
		for i, l := range lists {
			*l = full[i][:min(n, len(full[i]))]
		}
		// The cursor goes on from the first card left out.
		out.Repage()
	}}
	frameRelations(out, "")
	text, cut := fit(out, renderRelations, each)
	if cut {
		out.Truncated = true
		frameRelations(out, cutNote)
		text = renderRelations(out) + cutNote + "\n"
	}
	return text
}
