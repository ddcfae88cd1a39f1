package vault

import (
	"context"
	"slices"
	"sync"

	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/sources"
)

// A docSet is the Vault's sources.Collection: the documents a search's
// collection statistics are computed over — the document count, each query
// word's document frequency and the average field lengths, and so every
// score, rank and passage a Vault source's search returns: those of a set
// of sources of one Library, a grant's. Searches of the grant's sources
// with its docSet score alike, so their hits can be merged by score, and
// nothing outside the grant weighs on them: not another grant's documents
// in the shared index, nor the dead documents of a changed or removed
// file. A search without a Collection counts its own source's documents
// only; one with another driver's sources.Collection ignores it. Only this
// package's sources look inside one (with As), so the type is unexported:
// a Zotero collection is a different thing.
//
// The statistics are those of what the library index holds of the
// docSet's documents when the search runs. A docSet is safe for
// concurrent use.
type docSet struct {
	lib  *Library
	srcs []indexed

	mu    sync.Mutex
	parts []*libindex.Filter // the sources' filters the unions below were made of
	all   *libindex.Filter   // their union
	// unions are those of all with the filter of a source searched that
	// is not one of srcs (a paper inside a granted folder), by that
	// filter; at most maxUnions are kept.
	unions map[*libindex.Filter]*libindex.Filter
}

// As implements sources.Collection: a target of type **docSet is set to
// c.
func (c *docSet) As(target any) bool {
	p, ok := target.(**docSet)
	if ok {
		*p = c
	}
	return ok
}

// maxUnions bounds docSet.unions: each keeps a mask of every document.
const maxUnions = 16

// indexed is a source searched through the library index.
type indexed interface {
	// indexFilter returns the source's library and the filter of its
	// items in the index; a directory's is the one of its current scan
	// under the scan cap.
	indexFilter(ctx context.Context, scanCap int) (*Library, *libindex.Filter, error)
}

// Collection returns the Collection of the documents of srcs that are this
// Library's (its papers, directories, files and loose PDFs); other sources
// (a connector's, or a host's wrapper) are left out; the Library's own
// sources find it in a Query with As.
// It implements sources.Library.
func (l *Library) Collection(srcs []sources.Source) sources.Collection {
	c := &docSet{lib: l}
	for _, s := range srcs {
		if x, ok := s.(indexed); ok {
			c.srcs = append(c.srcs, x)
		}
	}
	return c
}

// statsFilter returns the filter of the documents a search through own
// counts in its statistics: own's, with those of q's Collection when it is
// this Library's.
func (l *Library) statsFilter(ctx context.Context, own *libindex.Filter, q sources.Query) (*libindex.Filter, error) {
	var c *docSet
	if q.Collection == nil || !q.Collection.As(&c) || c == nil || c.lib != l || len(c.srcs) == 0 {
		return own, nil
	}
	scanCap := q.ScanFiles
	if scanCap <= 0 {
		scanCap = defaultScanFiles
	}
	parts := make([]*libindex.Filter, 0, len(c.srcs))
	for _, s := range c.srcs {
		lib, f, err := s.indexFilter(ctx, scanCap)
		if err != nil {
			// A source that cannot be listed now (a folder removed)
			// has no documents to count.
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		if lib == l {
			parts = append(parts, f)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.all == nil || !samePointers(parts, c.parts) {
		// A directory was scanned again: its filter is new. The unions
		// are made again, and keep their masks until the next change.
		c.parts, c.all, c.unions = parts, libindex.Union(parts...), nil
	}
	if slices.Contains(parts, own) {
		return c.all, nil
	}
	u := c.unions[own]
	if u == nil {
		if len(c.unions) >= maxUnions {
			c.unions = nil
		}
		if c.unions == nil {
			c.unions = map[*libindex.Filter]*libindex.Filter{}
		}
		u = libindex.Union(own, c.all)
		c.unions[own] = u
	}
	return u, nil
}

func samePointers(a, b []*libindex.Filter) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (s *Paper) indexFilter(context.Context, int) (*Library, *libindex.Filter, error) {
	return s.l, s.filter, nil
}

func (f *File) indexFilter(context.Context, int) (*Library, *libindex.Filter, error) {
	return f.lib, f.filter, nil
}

func (s *PDF) indexFilter(context.Context, int) (*Library, *libindex.Filter, error) {
	return s.lib, s.filter, nil
}

func (d *Directory) indexFilter(ctx context.Context, scanCap int) (*Library, *libindex.Filter, error) {
	st, err := d.current(ctx, scanCap)
	if err != nil {
		return nil, nil, err
	}
	// A provisional state's rescan starts after the directory's own
	// search (checkLater), which follows the statistics.
	return d.lib, st.filter, nil
}
