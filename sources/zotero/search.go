package zotero

import (
	"context"
	"errors"
	"sort"

	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/internal/units"
	"github.com/researchctx/researchctx/sources"
)

// searchIndex is the search index of a source's items in one snapshot.
type searchIndex struct {
	snap    *Snapshot
	ix      *units.Index
	skipped []sources.Skip
}

// Search finds q in the items the source holds: their records (metadata
// and abstract), notes, annotations (text and comment) and the pages of
// their PDF attachments. The index is built in memory for the snapshot at
// the first search after a change and kept until the next; a PDF that
// cannot be read (missing, refused, damaged) is listed in Skipped with why.
func (s *Source) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	snap, sc, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idx == nil || s.idx.snap != snap {
		idx, err := snap.index(ctx, snap.tops(sc))
		if err != nil {
			return nil, err
		}
		s.idx = idx
	}
	return s.idx.search(q), nil
}

// search searches items without keeping the index.
func (s *Snapshot) search(ctx context.Context, items []*Item, q sources.Query) (*sources.Results, error) {
	idx, err := s.index(ctx, items)
	if err != nil {
		return nil, err
	}
	return idx.search(q), nil
}

func (x *searchIndex) search(q sources.Query) *sources.Results {
	res := x.ix.Search(q)
	res.Skipped = append([]sources.Skip(nil), x.skipped...)
	return res
}

// index builds the search units of items.
func (s *Snapshot) index(ctx context.Context, items []*Item) (*searchIndex, error) {
	var us []units.Unit
	out := &searchIndex{snap: s}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		title := textnorm.Line(it.Title())
		if doc, err := s.read(ctx, it); err == nil {
			us = append(us, units.Of(doc)...)
			if title == "" {
				title = doc.Title
			}
		}
		for _, c := range s.children(it) {
			if c.isNote() {
				if doc, err := s.read(ctx, c); err == nil {
					us = append(us, units.Of(doc)...)
				}
				continue
			}
			if c.linkMode == linkLinkedURL {
				continue
			}
			doc, err := s.read(ctx, c)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				out.skipped = append(out.skipped, sources.Skip{Path: s.path(c), Reason: skipReason(err)})
			} else {
				us = append(us, units.Of(doc)...)
			}
		}
		us = append(us, units.OfMarks(s.marks(ctx, it).Marks, title)...)
	}
	sort.Slice(out.skipped, func(i, j int) bool { return out.skipped[i].Path < out.skipped[j].Path })
	out.ix = units.Build(us)
	return out, nil
}

// skipReason says why an attachment was not searched.
func skipReason(err error) string {
	var u *unreadableError
	if errors.As(err, &u) {
		return u.Error()
	}
	return reasonOf(err)
}
