package zotero

import (
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// relations returns an item's related items: Zotero's dc:relation objects,
// http://zotero.org/users/<userID>/items/<KEY> or
// http://zotero.org/groups/<groupID>/items/<KEY>, that name an item of the
// library not in the trash. References parsed from the PDF are not read
// yet.
func (s *Snapshot) relations(it *Item) *sources.Relations {
	out := &sources.Relations{}
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
		w := sources.Work{Title: textnorm.Line(r.Title()), Year: year(r.Fields["date"]), DOI: r.Fields["DOI"], Paper: s.path(r), CitationURI: cite.File(s.path(r))}
		for i, c := range r.Creators {
			if i == 3 {
				w.Authors = append(w.Authors, "et al.")
				break
			}
			w.Authors = append(w.Authors, textnorm.Line(c.Name()))
		}
		out.Related = append(out.Related, w)
	}
	return out
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
