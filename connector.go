package researchctx

import (
	"errors"
	"io"
	"path"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// registry returns the connectors the Resolver's requests may name.
func (r *Resolver) registry() *sources.Registry {
	if r.Registry != nil {
		return r.Registry
	}
	return sources.DefaultRegistry
}

// unknownKind reports whether s reads as "kind:name" for a kind no
// connector of the registry knows, so that a mention of a connector the
// host forgot to link is not taken for a missing vault file.
func (r *resolution) unknownKind(s string) bool {
	kind, name, ok := strings.Cut(s, ":")
	return ok && name != "" && grant.Kind(kind).Valid() && r.reg.Driver(grant.Kind(kind)) == nil
}

// connector grants what a "kind:name" mention or selection path names
// through its connector. ok is false when s names no registered kind: it
// is then a vault path. A name the connector cannot grant is dropped.
func (r *resolution) connector(s string) (n *sources.Named, ok bool) {
	n, ok, err := r.reg.Resolve(r.ctx, s, &sources.Env{Vault: r.lib})
	if !ok {
		return nil, false
	}
	if err != nil {
		// A connector's own message may name what the host's logs should
		// not show: the reason is the resolver's.
		switch {
		case errors.Is(err, sources.ErrNotFound):
			r.drop(s, DropNotFound)
		case errors.Is(err, sources.ErrOutside):
			r.drop(s, DropOutside)
		default:
			r.drop(s, DropUnreadable)
		}
		return nil, true
	}
	ref := n.Ref
	if r.seen[ref.Path] {
		for _, g := range r.plan.Sources {
			if g.Path == ref.Path && g.Kind != ref.Kind {
				// Its documents would be cited in a source that has none.
				r.drop(s, DropKindTaken)
				return nil, true
			}
		}
		return n, true
	}
	r.seen[ref.Path] = true
	ref.Title = textnorm.Line(ref.Title)
	if ref.Title == "" {
		ref.Title = textnorm.Line(path.Base(ref.Path))
	}
	r.plan.Sources = append(r.plan.Sources, ref)
	return n, true
}

// addConnectorSelection adds a selection whose path names a connector's
// document ("bib:refs.bib/vaswani2017"): the source is granted, and the
// evidence is cited in the document, placed on its page or in its section
// when the selection came without one. It reports false for a vault path.
func (r *resolution) addConnectorSelection(sel Selection, ev Evidence) bool {
	n, ok := r.connector(sel.Path)
	if !ok {
		return false
	}
	if sel.Page < 0 {
		// A page the document cannot have would cite nowhere, as for a
		// vault file: dropped, the quote kept and placed by its text.
		r.drop(sel.Path, DropPage)
		sel.Page, ev.Page = 0, 0
	}
	if n == nil {
		// Dropped: the quote is still what the user sees.
		r.plan.Evidence = append(r.plan.Evidence, ev)
		return true
	}
	doc := n.Doc
	if doc == "" {
		doc = n.Ref.Path
	}
	ev.Path = doc
	var span pageSpan // the pages the quote runs over, when it is placed
	src, err := r.reg.Open(r.ctx, n.Ref, &sources.Env{Vault: r.lib})
	if err == nil {
		if c, ok := src.(io.Closer); ok {
			defer c.Close()
		}
		var d *sources.Document
		if d, err = src.Read(r.ctx, n.Doc); err == nil && d == nil {
			err = sources.ErrNotFound
		}
		if err == nil {
			ev.Title = textnorm.Line(d.Title)
			if !r.checkQuote(d, &sel, &ev, &span) {
				r.drop(sel.Path, DropQuote)
				if ev.Page == 0 && ev.Section == "" {
					// Nowhere in the document: the user's words, uncited.
					if ev.Title == "" {
						ev.Title = n.Ref.Title
					}
					r.plan.Evidence = append(r.plan.Evidence, ev)
					return true
				}
			}
		}
	}
	ev.Unreadable = err != nil && r.ctx.Err() == nil
	if ev.Title == "" {
		ev.Title = n.Ref.Title
	}
	if sel.Page > 0 {
		ev.CitationURI = cite.Page(doc, sel.Page)
		ev.CitationURIs = span.uris(doc, sel.Page)
	} else {
		ev.CitationURI = citation(doc, sel)
	}
	r.plan.Evidence = append(r.plan.Evidence, ev)
	return true
}
