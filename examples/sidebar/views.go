package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// callView is one tool call as the page draws it.
type callView struct {
	ID   string          `json:"id"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args,omitempty"`
	// Note says why the scripted agent makes the call.
	Note string `json:"note,omitempty"`
	// Status is running while the call runs, then completed, refused
	// (a tool error: not granted, not found, budget spent), denied (by the
	// permission policy), failed, cancelled or unfinished.
	Status     string     `json:"status"`
	Permission string     `json:"permission,omitempty"`
	Error      string     `json:"error,omitempty"`
	Summary    string     `json:"summary,omitempty"`
	Items      []itemView `json:"items,omitempty"`
}

// itemView is one card, read or entry of a call's result.
type itemView struct {
	Title   string    `json:"title,omitempty"`
	Where   string    `json:"where,omitempty"`
	Excerpt string    `json:"excerpt,omitempty"`
	Note    string    `json:"note,omitempty"`
	Link    *linkView `json:"link,omitempty"`
}

// linkView is a citation URI and what the page opens for it.
type linkView struct {
	URI      string `json:"uri"`
	Href     string `json:"href,omitempty"` // empty: nothing to open
	External bool   `json:"external,omitempty"`
}

// docPrefix is where the demo serves the vault's documents.
const docPrefix = "/doc/"

// link maps a citation URI to what the page opens: a vault document
// served by the demo, with the URI's fragment (#page=N for the browser's
// PDF viewer, #section=… for a note's heading), or the https or zotero://
// link itself.
func link(uri string) *linkView {
	if uri == "" {
		return nil
	}
	l := &linkView{URI: uri}
	u, err := cite.Parse(uri)
	switch {
	case err != nil:
		// A connector's locator: nothing the demo can open.
	case u.DOI != "" || u.ArXiv != "":
		l.Href, l.External = u.String(), true
	case cite.IsZotero(u.Path):
		// Zotero's own URI: it opens Zotero at the place.
		l.Href, l.External = u.String(), true
	default:
		_, frag, _ := strings.Cut(uri, "#")
		l.Href = docHref(u.Path, frag)
	}
	return l
}

// docHref is the demo's URL of a vault file, with a fragment.
func docHref(p, frag string) string {
	h := docPrefix + cite.File(p)
	if frag != "" {
		h += "#" + frag
	}
	return h
}

// sourcesView is the turn's sources, grouped as the SDK groups them.
type sourcesView struct {
	Groups    []sourceGroup `json:"groups"`
	Calls     int           `json:"calls"`
	Chars     int           `json:"chars"`
	TurnChars int           `json:"turnChars"`
	Skipped   int           `json:"skipped,omitempty"`
	// Summary is the calls and characters in words, as the page shows
	// them.
	Summary string `json:"summary"`
}

// sourceGroup is one use: read, searched or related.
type sourceGroup struct {
	Use     usage.Use    `json:"use"`
	Label   string       `json:"label"`
	Sources []sourceItem `json:"sources"`
}

// sourceItem is one source: its locator, its title and where it lies.
type sourceItem struct {
	linkView
	N          int         `json:"n"` // its number within its group, from 1
	Title      string      `json:"title,omitempty"`
	Where      string      `json:"where,omitempty"`
	Place      usage.Place `json:"place"`
	PlaceLabel string      `json:"placeLabel"`
	Tools      []string    `json:"tools"`
}

// folderListing is the place of a source that is a folder the agent
// listed.
const folderListing = "folder listing"

var useLabel = map[usage.Use]string{
	usage.UseRead:     "Read: text the agent received",
	usage.UseSearched: "Searched: seen on a search card",
	usage.UseRelated:  "Related: seen on a relation card",
}

var placeLabel = map[usage.Place]string{
	usage.InGrant:   "in the grant",
	usage.InLibrary: "in the library, not in this grant: seen on a card only",
	usage.Outside:   "outside the vault",
}

// sourcesView groups a turn's usage for the page, with each vault
// source's document title.
func (s *server) sourcesView(ctx context.Context, u usage.Turn, plan *researchctx.Plan) *sourcesView {
	v := &sourcesView{Calls: u.Calls, Chars: u.Chars, TurnChars: plan.Budget.TurnChars, Skipped: u.Skipped, Groups: []sourceGroup{}}
	v.Summary = fmt.Sprintf("%s logged · %d of %d characters used", plural(u.Calls, "tool call"), u.Chars, plan.Budget.TurnChars)
	g := u.Groups()
	for _, grp := range []struct {
		use  usage.Use
		list []usage.Used
	}{{usage.UseRead, g.Read}, {usage.UseSearched, g.Searched}, {usage.UseRelated, g.Related}} {
		sg := sourceGroup{Use: grp.use, Label: useLabel[grp.use], Sources: []sourceItem{}}
		for i, used := range readingOrder(grp.list) {
			it := sourceItem{linkView: *link(used.URI), N: i + 1, Place: used.Place, PlaceLabel: placeLabel[used.Place], Tools: used.Tools}
			it.Title, it.Where = s.describe(ctx, used.URI)
			if st, err := s.lib.Stat(ctx, used.URI); err == nil && st.Kind != grant.KindFile {
				// A folder the agent listed: logged as every URI handed
				// out, but there is no document to open.
				it.Href, it.Where = "", folderListing
			}
			sg.Sources = append(sg.Sources, it)
		}
		v.Groups = append(v.Groups, sg)
	}
	return v
}

// readingOrder orders a group's sources as a reader goes through them:
// documents in the order the agent first used them, and within a document
// its pages in page order (a locator without a page, such as a section or
// the document itself, first), else in the order of first use. The page
// numbers the sources of each group from 1 in this order, so that a
// group reads as a list of its own.
func readingOrder(list []usage.Used) []usage.Used {
	type key struct {
		doc, page, first int
	}
	docs := map[string]int{}
	keys := make(map[string]key, len(list))
	for i, used := range list {
		doc, page := used.URI, 0
		if u, err := cite.Parse(used.URI); err == nil && u.Path != "" {
			doc, page = u.Path, u.Page
		}
		if _, ok := docs[doc]; !ok {
			docs[doc] = len(docs)
		}
		keys[used.URI] = key{docs[doc], page, i}
	}
	out := append([]usage.Used(nil), list...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := keys[out[i].URI], keys[out[j].URI]
		if a.doc != b.doc {
			return a.doc < b.doc
		}
		if a.page != b.page {
			return a.page < b.page
		}
		return a.first < b.first
	})
	return out
}

// describe returns a vault URI's document title (its paper's, for a
// paper's file) and its place in words.
func (s *server) describe(ctx context.Context, uri string) (title, where string) {
	u, err := cite.Parse(uri)
	if err != nil || u.Path == "" {
		return "", ""
	}
	switch {
	case u.Page > 0:
		where = fmt.Sprintf("page %d", u.Page)
	case u.Section != "":
		where = "§ " + u.Section
	case u.Region != "":
		where = u.Region
	case u.Item != "":
		where = strings.Replace(u.Item, "-", " ", 1) // "figure 3"
	}
	if it, err := s.lib.Stat(ctx, u.Path); err == nil {
		if it.Paper != nil {
			it = &vault.Item{Kind: grant.KindPaper, Path: it.Paper.Path, Paper: it.Paper}
		}
		return s.lib.Title(ctx, it), where
	}
	return path.Base(u.Path), where
}

// callResult turns a tool's structured result into the call's summary and
// items.
func callResult(c *callView, tool string, result any) {
	switch tool {
	case grant.ToolSearch:
		var out tools.SearchOutput
		if demo.Decode(result, &out) {
			more := ""
			if out.Truncated {
				more = " (more matched)"
			}
			c.Summary = fmt.Sprintf("%d cards%s · %s", len(out.Cards), more, budgetNote(out.Budget))
			for _, card := range out.Cards {
				c.Items = append(c.Items, itemView{Title: card.Title, Where: cardWhere(card.Page, card.Section), Excerpt: demo.Clip(oneLine(card.Excerpt), 220), Link: link(card.CitationURI)})
			}
		}
	case grant.ToolRead:
		var out tools.ReadOutput
		if demo.Decode(result, &out) {
			readResult(c, &out)
		}
	case grant.ToolRelations:
		var out tools.RelationsOutput
		if demo.Decode(result, &out) {
			cut := ""
			if out.Truncated {
				cut = " (lists cut at the limit)"
			}
			c.Summary = fmt.Sprintf("%d references, %d cited by, %d related%s · %s", len(out.References), len(out.CitedBy), len(out.Related), cut, budgetNote(out.Budget))
			for _, l := range []struct {
				name  string
				cards []tools.RelationCard
			}{{"reference", out.References}, {"cited by", out.CitedBy}, {"related", out.Related}} {
				for _, card := range l.cards {
					it := itemView{Title: card.Title, Where: l.name, Link: link(card.CitationURI)}
					if card.Year > 0 {
						it.Where += fmt.Sprintf(" · %d", card.Year)
					}
					switch {
					case card.PaperPath != "" && card.InGrant:
						it.Note = "in the grant"
					case card.PaperPath != "":
						it.Note = "in the library, not in the grant"
					}
					c.Items = append(c.Items, it)
				}
			}
		}
	}
}

func readResult(c *callView, out *tools.ReadOutput) {
	switch {
	case len(out.Entries) > 0:
		names := make([]string, 0, len(out.Entries))
		for _, e := range out.Entries {
			n := e.Name
			if e.Kind == "directory" {
				n += "/"
			}
			names = append(names, n)
		}
		c.Summary = fmt.Sprintf("%d entries: %s", len(out.Entries), strings.Join(names, ", "))
	case out.Mode == tools.ReadMetadata:
		c.Summary = "metadata · " + budgetNote(out.Budget)
		c.Items = append(c.Items, itemView{Title: out.Title, Where: fmt.Sprintf("%d pages", out.Pages), Link: link(out.CitationURI)})
	case out.Mode == tools.ReadMarks:
		marksResult(c, out)
	default:
		what := demo.ReadWhat(out)
		c.Summary = fmt.Sprintf("%s: %d chars · %s", what, len([]rune(out.Text)), budgetNote(out.Budget))
		c.Items = append(c.Items, itemView{Title: out.Title, Where: what, Excerpt: demo.Clip(oneLine(out.Text), 220), Link: link(out.CitationURI)})
	}
}

// marksResult shows a marks read as the agent received it: how many
// marks, the characters of their text and comments, and each mark with its
// page, its text and its own locator.
func marksResult(c *callView, out *tools.ReadOutput) {
	chars := 0
	for _, m := range out.Marks {
		chars += len([]rune(m.Text)) + len([]rune(m.Comment))
	}
	c.Summary = fmt.Sprintf("marks: %s, %d chars of text and comments · %s", plural(len(out.Marks), "mark"), chars, budgetNote(out.Budget))
	if out.Note != "" {
		c.Summary += " · " + oneLine(out.Note)
	}
	for _, m := range out.Marks {
		it := itemView{Title: string(m.Kind), Link: link(m.CitationURI)}
		if m.Page > 0 {
			it.Where = fmt.Sprintf("p. %d", m.Page)
		}
		text := oneLine(m.Text)
		if cm := oneLine(m.Comment); cm != "" {
			if text != "" {
				text += " — "
			}
			text += "comment: " + cm
		}
		it.Excerpt = demo.Clip(text, 220)
		c.Items = append(c.Items, it)
	}
	if len(out.Marks) == 0 {
		c.Items = append(c.Items, itemView{Title: out.Title, Where: "no marks", Link: link(out.CitationURI)})
	}
}

// plural is n and the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func cardWhere(page int, section string) string {
	var w []string
	if page > 0 {
		w = append(w, fmt.Sprintf("p. %d", page))
	}
	if section != "" {
		w = append(w, section)
	}
	return strings.Join(w, " · ")
}

func budgetNote(b tools.BudgetReport) string {
	return fmt.Sprintf("budget %d used, %d left", b.Used, b.Remaining)
}
