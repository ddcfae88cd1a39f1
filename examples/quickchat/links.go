package main

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/usage"
)

// sourceLink is one source of the turn, for display and -json.
type sourceLink struct {
	URI string `json:"uri"` // the citation URI, as logged
	URL string `json:"url"` // what a terminal or browser opens
	// Tool is the tool that handed the URI out first.
	Tool string `json:"tool"`
	// Use is the strongest use over the turn: read, else searched, else
	// related; a page read after a search card named it is read.
	Use usage.Use `json:"use"`
	// External marks a doi.org or arxiv.org link.
	External bool `json:"external"`
	// InGrant marks a vault file the turn may read; a vault file outside
	// the grant was only named on a relation card.
	InGrant bool `json:"inGrant"`
	// Locators, for a work reached by several URIs (a library paper's PDF
	// and its arXiv link), lists them all, URI first.
	Locators []string `json:"locators,omitempty"`
}

// showSources reads the turn's sources back from usage.jsonl, as a host does
// for its agent:completed event, and prints them as links grouped by their
// strongest use: read, else seen on a search card, else on a relation card.
func (r *demoRun) showSources() error {
	return r.listSources(true)
}

// listSources prints the sources so far, under the step heading or, in the
// interactive mode, without it.
func (r *demoRun) listSources(heading bool) error {
	usagePath := grant.UsagePath(r.grantPath)
	u, err := usage.Read(usagePath, r.plan.TurnID, &r.plan.Scope)
	if err != nil {
		return err
	}
	r.usage = u
	r.sources = r.sources[:0]
	for _, used := range u.Sources {
		r.sources = append(r.sources, sourceLink{URI: used.URI, URL: openURL(r.plan.Vault, used.URI), Tool: used.Tools[0], Use: used.Use,
			External: used.Place == usage.Outside, InGrant: used.Place == usage.InGrant, Locators: used.Locators})
	}
	o := r.out
	if heading {
		o.step("6", "Sources of this turn, read back from usage.jsonl (what a host shows under the answer)")
	}
	logged := fmt.Sprintf("   %d tool calls logged, %d of the turn's %d characters used", u.Calls, u.Chars, r.plan.Budget.TurnChars)
	if len(r.calls) > u.Calls {
		logged += " (a refused call returns nothing and is not logged)"
	}
	o.line(logged)
	if len(r.sources) == 0 {
		o.line("   (none: the agent received nothing from the vault)")
		return nil
	}
	// Each source once, under its strongest use (as usage.Turn.Groups
	// puts it), each group in order of first use, numbered down the list.
	groups := map[usage.Use][]int{}
	for i, s := range r.sources {
		groups[s.Use] = append(groups[s.Use], i)
	}
	n := 0
	for _, use := range []usage.Use{usage.UseRead, usage.UseSearched, usage.UseRelated} {
		if len(groups[use]) == 0 {
			continue
		}
		o.line("   " + o.bold(string(use)) + o.dim("  "+useLabel[use]))
		for _, i := range groups[use] {
			s := r.sources[i]
			n++
			note := ""
			switch {
			case s.External:
				note = "outside the vault"
			case !s.InGrant:
				note = "in the library, not in this grant: seen on a card only"
			}
			if note != "" {
				note = "  " + o.dim(note)
			}
			if len(s.Locators) > 1 {
				// One work reached by several locators: one source.
				note += "  " + o.dim("also "+strings.Join(s.Locators[1:], ", "))
			}
			o.line(fmt.Sprintf("   %3d. %s%s", n, o.link(s.URL, s.URI), note))
		}
	}
	if !o.color {
		o.line(o.dim(fmt.Sprintf("   Vault paths open as file://%s/<path> (on a terminal each source is a link).", filepath.ToSlash(r.plan.Vault))))
	}
	return nil
}

// useLabel says what the sources of each use are.
var useLabel = map[usage.Use]string{
	usage.UseRead:     "what the agent read (context_read)",
	usage.UseSearched: "seen on search cards only (context_search)",
	usage.UseRelated:  "seen on relation cards only: references, cited by, related (paper_relations)",
}

// openURL turns a citation URI into a URL a terminal or browser opens: a
// file:// URL into the vault (keeping the #page= or #section= fragment),
// or the https link itself.
func openURL(vaultRoot, uri string) string {
	c, err := cite.Parse(uri)
	if err != nil || c.DOI != "" || c.ArXiv != "" || cite.IsZotero(c.Path) {
		// A link of its own: Zotero's URIs open Zotero.
		return uri
	}
	// The URI's path is already percent-encoded for a URL path.
	path, frag, _ := strings.Cut(uri, "#")
	f := url.URL{Scheme: "file", Path: filepath.ToSlash(vaultRoot) + "/"}
	s := f.String() + path
	if frag != "" {
		s += "#" + frag
	}
	return s
}
