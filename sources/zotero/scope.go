package zotero

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// scope is what a name selects in a snapshot.
type scope struct {
	name  string // canonical name, as the grant's config keeps it
	path  string // the source's path
	title string
	doc   string // the document the name points at inside the source, or ""

	libraryID int
	kind      string // library, collection, tag, item
	coll      *Collection
	tag       string
	item      *Item // the regular item or standalone note
	main      *Item // the attachment or note an item's name named, or nil
}

// scope resolves a name (what follows "zotero:").
func (s *Snapshot) scope(name string) (*scope, error) {
	segs, err := splitName(name)
	if err != nil {
		return nil, err
	}
	notFound := func(what string) error {
		return fmt.Errorf("%w: zotero:%s: %s", sources.ErrNotFound, textnorm.Line(name), what)
	}
	lib := s.userLib
	prefix := "zotero:"
	libTitle := "Zotero library"
	if len(segs) >= 2 && segs[0] == "groups" {
		id, err := strconv.Atoi(segs[1])
		libID, ok := s.groupIDs[id]
		if err != nil || !ok {
			return nil, notFound("no such group library")
		}
		lib, prefix = libID, "zotero:groups/"+strconv.Itoa(id)+"/"
		libTitle = "Zotero group: " + textnorm.Line(s.groups[libID].name)
		segs = segs[2:]
		if len(segs) == 0 {
			return &scope{name: "groups/" + strconv.Itoa(id), path: strings.TrimSuffix(prefix, "/"), title: libTitle, libraryID: lib, kind: "library"}, nil
		}
	} else if len(segs) == 0 || len(segs) == 1 && segs[0] == "library" {
		if lib < 0 {
			return nil, notFound("the database has no user library")
		}
		return &scope{name: "library", path: "zotero:library", title: libTitle, libraryID: lib, kind: "library"}, nil
	}
	enc := func(ss []string) string {
		out := make([]string, len(ss))
		for i, x := range ss {
			out[i] = escapeSeg(x)
		}
		return strings.Join(out, "/")
	}
	base := strings.TrimPrefix(prefix, "zotero:")
	switch segs[0] {
	case "collections":
		if len(segs) < 2 {
			return nil, notFound("names no collection")
		}
		c := s.collection(lib, segs[1:])
		if c == nil {
			return nil, notFound("no such collection")
		}
		return &scope{name: base + "collections/" + enc(segs[1:]), path: prefix + "collections/" + strings.Join(segs[1:], "/"),
			title: "Zotero collection: " + textnorm.Line(s.collPath(c)), libraryID: lib, kind: "collection", coll: c}, nil
	case "tags":
		if len(segs) < 2 {
			return nil, notFound("names no tag")
		}
		tag := strings.Join(segs[1:], "/")
		if len(s.tagged[prefix+tag]) == 0 {
			return nil, notFound("no item has this tag")
		}
		return &scope{name: base + "tags/" + enc(segs[1:]), path: prefix + "tags/" + tag,
			title: "Zotero tag: " + textnorm.Line(tag), libraryID: lib, kind: "tag", tag: tag}, nil
	case "items":
		if len(segs) != 2 {
			return nil, notFound("names no item")
		}
		it := s.byKey[prefix+segs[1]]
		if it == nil {
			if t := s.trashedKey(lib, segs[1]); t {
				return nil, notFound("the item is in the trash")
			}
			return nil, notFound("no such item")
		}
		top := s.top(it)
		if top.trashed {
			return nil, notFound("the item is in the trash")
		}
		sc := &scope{name: base + "items/" + top.Key, path: s.path(top), title: textnorm.Line(top.Title()), libraryID: lib, kind: "item", item: top}
		if sc.title == "" {
			sc.title = "Zotero item " + top.Key
		}
		if it.isAnnotation() {
			if p := s.items[it.parentID]; p != nil && it.parentID != 0 {
				it = p
			}
		}
		if top != it && (it.isAttachment() || it.isNote()) {
			// An attachment's or a note's key grants its item under the
			// document's own name, and the document is the source's
			// main one: a selection on an attachment's page is placed
			// and cited in that attachment.
			sc.name, sc.path, sc.main = base+"items/"+it.Key, s.path(it), it
		}
		return sc, nil
	}
	return nil, notFound("not a Zotero name (zotero:, zotero:collections/…, zotero:items/<KEY>, zotero:tags/…, zotero:groups/<id>/…)")
}

// trashedKey reports an item key of the library that is in the trash.
func (s *Snapshot) trashedKey(lib int, key string) bool {
	for _, it := range s.items {
		if it.libraryID == lib && it.Key == key && it.trashed {
			return true
		}
	}
	return false
}

// collection finds a collection of the library by its key (one segment)
// or by the names of its path from a top-level collection.
func (s *Snapshot) collection(lib int, names []string) *Collection {
	if len(names) == 1 {
		for _, c := range s.collsOf(lib) {
			if c.Key == names[0] {
				return c
			}
		}
	}
	parent := 0
	var found *Collection
	for _, n := range names {
		found = nil
		for _, c := range s.collsOf(lib) {
			if c.parent == parent && c.Name == n {
				found = c
				break
			}
		}
		if found == nil {
			return nil
		}
		parent = found.id
	}
	return found
}

// collsOf returns the collections of a library, by id.
func (s *Snapshot) collsOf(lib int) []*Collection {
	var out []*Collection
	for _, c := range s.colls {
		if c.libraryID == lib {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// collPath returns a collection's names from the top, "Thesis/Chapter 2"
// (a cycle of parents ends the path).
func (s *Snapshot) collPath(c *Collection) string {
	names := []string{c.Name}
	seen := map[int]bool{c.id: true}
	for p := s.colls[c.parent]; p != nil && !seen[p.id]; p = s.colls[p.parent] {
		seen[p.id] = true
		names = append([]string{p.Name}, names...)
	}
	return strings.Join(names, "/")
}

// tops returns the regular items and standalone notes the scope holds, in
// a stable order (by key), trash excluded.
func (s *Snapshot) tops(sc *scope) []*Item {
	var out []*Item
	add := func(it *Item) {
		if it != nil && !it.trashed && it.libraryID == sc.libraryID && (it.isRegular() || it.isNote() && it.parentID == 0 || it.isAttachment() && it.parentID == 0) {
			out = append(out, it)
		}
	}
	switch sc.kind {
	case "library":
		for _, it := range s.items {
			add(it)
		}
	case "collection":
		// The collection and its subcollections, each once: a cycle of
		// parents in a damaged database ends where it repeats.
		seen := map[int]bool{}
		stack := []int{sc.coll.id}
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			c := s.colls[id]
			if c == nil || seen[id] {
				continue
			}
			seen[id] = true
			for _, iid := range c.items {
				add(s.items[iid])
			}
			stack = append(stack, c.subs...)
		}
	case "tag":
		for _, it := range s.tagged[s.libPrefix(sc.libraryID)+sc.tag] {
			add(it)
		}
	case "item":
		add(sc.item)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return slicesCompact(out)
}

func slicesCompact(items []*Item) []*Item {
	out := items[:0]
	for i, it := range items {
		if i == 0 || it != items[i-1] {
			out = append(out, it)
		}
	}
	return out
}

// holds reports whether the scope holds the document at p: an item whose
// top-level item the scope holds.
func (s *Snapshot) holds(sc *scope, p string) bool {
	it := s.item(p)
	if it == nil || it.libraryID != sc.libraryID {
		return false
	}
	top := s.top(it)
	if top.trashed {
		return false
	}
	switch sc.kind {
	case "library":
		return true
	case "item":
		return top == sc.item
	case "tag":
		for _, t := range top.Tags {
			if t == sc.tag {
				return true
			}
		}
		return false
	case "collection":
		seen := map[int]bool{}
		for _, cid := range top.colls {
			for c := s.colls[cid]; c != nil && !seen[c.id]; c = s.colls[c.parent] {
				seen[c.id] = true
				if c == sc.coll {
					return true
				}
			}
		}
	}
	return false
}

// escapeSeg percent-encodes a name segment as a Vault path's is.
func escapeSeg(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
