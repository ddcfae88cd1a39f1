// Package demo holds what the example hosts share: the scripted agent
// turn they play over MCP when no real agent is given, the parsing of the
// -agent command line, and the Zotero library of -zotero.
package demo

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/tools"
)

// Turn is what the scripted turn is played for: the plan, the user's
// question and the selection.
type Turn struct {
	Plan *researchctx.Plan
	// Ask is the question: the query of the first search.
	Ask string
	// Quote and Page are the selection, when there is one.
	Quote string
	Page  int
	// Paraphrase, when set, is the selection as a model quotes it back;
	// the turn reads it too, to show an approximate match.
	Paraphrase string
}

// Call makes one tool call of the scripted turn. note says why an agent
// makes it. It returns the call's structured result, or nil when the call
// was refused or failed.
type Call func(ctx context.Context, tool string, args map[string]any, note string) (result any)

// Script plays the calls an agent would make for the turn: search for the
// question, read around the selection, read the page the best card of the
// current paper is on, list the user's marks on it, list a granted
// directory, look at the paper's relations, and try to read a related paper that is not granted (or, when
// there is none, the SDK's private folder): the last call is refused.
func Script(ctx context.Context, t Turn, call Call) {
	var paper, dir string
	for _, s := range t.Plan.Sources {
		switch {
		case s.Kind == grant.KindPaper && paper == "":
			paper = s.Path
		case s.Kind == grant.KindDirectory && dir == "":
			dir = s.Path
		}
	}
	res := call(ctx, grant.ToolSearch, map[string]any{"query": t.Ask, "limit": 3}, "cards for the question, from every granted source")
	page := 0
	var sr tools.SearchOutput
	if Decode(res, &sr) {
		for _, c := range sr.Cards {
			if c.Source == paper && c.Page > 0 {
				page = c.Page
				break
			}
		}
	}
	if ctx.Err() != nil {
		return
	}
	if paper != "" && t.Quote != "" {
		call(ctx, grant.ToolRead, map[string]any{"target": paper, "mode": tools.ReadExcerpt, "quote": t.Quote}, "the passage around the selection")
		if t.Paraphrase != "" {
			call(ctx, grant.ToolRead, map[string]any{"target": paper, "mode": tools.ReadExcerpt, "quote": t.Paraphrase}, "the selection as a model quotes it: found approximately")
		}
	}
	if paper != "" && ctx.Err() == nil {
		note := "the page a card came from"
		if page == 0 {
			page, note = max(t.Page, 1), "one page"
		}
		call(ctx, grant.ToolRead, map[string]any{"target": paper, "mode": tools.ReadPage, "page": page}, note)
	}
	if paper != "" && ctx.Err() == nil {
		call(ctx, grant.ToolRead, map[string]any{"target": paper, "mode": tools.ReadMarks}, "the user's own highlights and notes on the paper")
	}
	if dir != "" && ctx.Err() == nil {
		call(ctx, grant.ToolRead, map[string]any{"target": dir}, "a directory lists one level, nothing more")
	}
	outside := ""
	if paper != "" && ctx.Err() == nil {
		res := call(ctx, grant.ToolRelations, map[string]any{"paper": paper, "limit": 2}, "references, cited by, related")
		var rel tools.RelationsOutput
		if Decode(res, &rel) {
			for _, c := range slices.Concat(rel.CitedBy, rel.Related, rel.References) {
				if c.PaperPath != "" && !c.InGrant {
					outside = c.PaperPath
					break
				}
			}
		}
	}
	switch {
	case ctx.Err() != nil:
	case outside != "":
		call(ctx, grant.ToolRead, map[string]any{"target": outside}, "a relation card names it, but it is not in the grant")
	default:
		call(ctx, grant.ToolRead, map[string]any{"target": ".agentero/citing-scan.json"}, "the SDK's private folder is never granted")
	}
}

// Decode decodes a call's structured result into v, reporting whether
// there was one of that shape.
func Decode(result, v any) bool {
	if result == nil {
		return false
	}
	b, err := json.Marshal(result)
	return err == nil && json.Unmarshal(b, v) == nil
}
