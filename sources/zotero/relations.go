package zotero

import (
	"context"
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/sources"
)

// relations returns an item's relations: the references read from its
// PDF (see citations), tied to the library's items when they name one, the
// library items whose PDFs cite it, and its related items, Zotero's
// dc:relation objects, http://zotero.org/users/<userID>/items/<KEY> or
// http://zotero.org/groups/<groupID>/items/<KEY>, that name an item of the
// library not in the trash.
func (s *Snapshot) relations(ctx context.Context, it *Item) (*sources.Relations, error) {
	out := &sources.Relations{}
	if it.isRegular() {
		main, refs, citedBy, problems, err := s.citations(ctx, it)
		if err != nil {
			return nil, err
		}
		out.Main, out.References, out.CitedBy, out.Problems = main, refs, citedBy, problems
	}
	seen := map[*Item]bool{}
	for _, obj := range it.related {
		r := s.relatedItem(it, obj)
		if r == nil {
			out.Skipped++
			continue
		}
		if seen[r] || r == it {
			continue
		}
		seen[r] = true
		out.Related = append(out.Related, s.itemWork(r))
	}
	return out, nil
}

// relatedItem returns the item a relation's object names, or nil.
func (s *Snapshot) relatedItem(from *Item, obj string) *Item {
	rest, ok := strings.CutPrefix(obj, "http://zotero.org/")
	if !ok {
		return nil
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 || parts[2] != "items" {
		return nil
	}
	prefix := ""
	switch parts[0] {
	case "users":
		prefix = "zotero:"
	case "groups":
		id, err := strconv.Atoi(parts[1])
		if _, ok := s.groupIDs[id]; err != nil || !ok {
			return nil
		}
		prefix = "zotero:groups/" + parts[1] + "/"
	default:
		return nil
	}
	r := s.byKey[prefix+parts[3]]
	if r == nil || s.top(r).trashed {
		return nil
	}
	return r
}
