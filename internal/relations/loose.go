package relations

import (
	"context"
	"slices"

	"github.com/researchctx/researchctx/internal/catalog"
)

// maxLoose bounds the loose PDFs one graph reads.
const maxLoose = 20000

// addLoose sets g.all to the catalogue's papers and the library's loose
// PDFs (Options.Loose), in path order after the papers, and stamps the
// folders listed. A failing listing leaves the graph without loose PDFs;
// only a cancelled ctx is an error.
func (l *Graph) addLoose(ctx context.Context, g *graph) error {
	g.all = g.cat.Papers()
	g.loose = map[string]*catalog.Paper{}
	if l.opts.Loose == nil {
		return nil
	}
	paths, dirs, err := l.opts.Loose(ctx)
	if err != nil {
		return ctx.Err()
	}
	for _, d := range dirs {
		// A PDF added to or removed from a listed folder changes the
		// folder's modification time: the freshness check sees it.
		g.stamps = append(g.stamps, l.stat(d))
	}
	paths = slices.Clone(paths)
	slices.Sort(paths)
	g.all = slices.Clone(g.all)
	for _, rel := range slices.Compact(paths) {
		if len(g.loose) == maxLoose {
			break
		}
		clean, err := catalog.Clean(rel)
		if err != nil || clean != rel || g.cat.PaperOf(clean) != nil {
			continue // a paper's own file, or a bad name
		}
		p := &catalog.Paper{Ref: clean, PDF: clean}
		g.loose[clean] = p
		g.all = append(g.all, p)
	}
	return nil
}

// paper returns the library paper ref, or the loose PDF ref, or nil.
func (g *graph) paper(ref string) *catalog.Paper {
	if p := g.cat.Paper(ref); p != nil {
		return p
	}
	return g.loose[ref]
}

// markCopies fills g.copyOf: the loose PDFs whose own identifiers (IDs)
// or title (Meta) are a catalogue paper's.
func (g *graph) markCopies() {
	g.copyOf = map[string]*catalog.Paper{}
	if len(g.loose) == 0 {
		return
	}
	byTitle := map[string]*catalog.Paper{}
	for _, p := range g.cat.Papers() {
		if t := normTitle(p.Title()); t != "" {
			byTitle[t] = p
		}
	}
	for ref := range g.loose {
		own := g.ownIDs[ref]
		q := g.cat.Match(own[0], own[1])
		if q == nil {
			q = byTitle[normTitle(g.meta[ref].Title)]
		}
		if q != nil {
			g.copyOf[ref] = q
		}
	}
	for k, p := range g.byOwn {
		if g.copyOf[p.Ref] != nil {
			delete(g.byOwn, k) // the paper's identifiers, not the copy's
		}
	}
}
