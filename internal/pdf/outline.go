package pdf

import (
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// maxOutlineItems bounds the bookmarks read.
const maxOutlineItems = 20000

// outline reads the bookmark tree in document order.
func (d *doc) outline() []OutlineItem {
	root := d.xr.Catalog()
	ol := d.dict(root["Outlines"])
	if ol == nil {
		return nil
	}
	var items []OutlineItem
	seen := map[int]bool{}
	var walk func(first types.Object, level int)
	walk = func(first types.Object, level int) {
		for o := first; o != nil && level < 64 && len(items) < maxOutlineItems; {
			if nr := objNr(o); nr > 0 {
				if seen[nr] {
					return
				}
				seen[nr] = true
			}
			it := d.dict(o)
			if it == nil {
				return
			}
			title := strings.Join(strings.Fields(d.text(it["Title"])), " ")
			items = append(items, OutlineItem{Title: title, Page: d.destPage(it), Level: level})
			if c, ok := it["First"]; ok {
				walk(c, level+1)
			}
			o = it["Next"]
		}
	}
	walk(ol["First"], 0)
	return items
}

// destPage resolves an outline item's /Dest or GoTo action to a page number.
func (d *doc) destPage(it types.Dict) int {
	dest := it["Dest"]
	if dest == nil {
		if a := d.dict(it["A"]); a != nil && d.name(a["S"]) == "GoTo" {
			dest = a["D"]
		}
	}
	return d.resolveDest(dest, 0)
}

func (d *doc) resolveDest(dest types.Object, depth int) int {
	if depth > 4 {
		return 0
	}
	switch v := d.resolve(dest).(type) {
	case types.Array:
		if len(v) == 0 {
			return 0
		}
		if nr := objNr(v[0]); nr > 0 {
			return d.pageIndex[nr]
		}
		if n, ok := d.num(v[0]); ok && n >= 0 { // remote-style page index
			return int(n) + 1
		}
	case types.Dict:
		return d.resolveDest(v["D"], depth+1)
	case types.Name, types.StringLiteral, types.HexLiteral:
		key := string(d.rawString(v))
		return d.resolveDest(d.namedDest(key), depth+1)
	}
	return 0
}

// namedDest looks a named destination up in /Dests or the /Names tree.
func (d *doc) namedDest(key string) types.Object {
	root := d.xr.Catalog()
	if dests := d.dict(root["Dests"]); dests != nil {
		if o, ok := dests[key]; ok {
			return o
		}
	}
	if d.destNames == nil {
		d.destNames = d.nameTree(d.dict(d.dict(root["Names"])["Dests"]))
	}
	return d.destNames[key]
}

// maxNameTreeNodes bounds the nodes of a name tree read (each once).
const maxNameTreeNodes = 100_000

// nameTree reads a name tree (§7.9.6) into a map, once per document: each
// node is visited at most once, however its /Kids refer to each other, so a
// tree whose kids repeat or cycle costs its size, not its paths.
func (d *doc) nameTree(root types.Dict) map[string]types.Object {
	out := map[string]types.Object{}
	seen := map[int]bool{}
	nodes := 0
	var walk func(t types.Dict, depth int)
	walk = func(t types.Dict, depth int) {
		if t == nil || depth > 32 || nodes >= maxNameTreeNodes {
			return
		}
		nodes++
		ns := d.array(t["Names"])
		for i := 0; i+1 < len(ns); i += 2 {
			k := string(d.rawString(ns[i]))
			if _, dup := out[k]; !dup {
				out[k] = ns[i+1]
			}
		}
		for _, k := range d.array(t["Kids"]) {
			if nr := objNr(k); nr > 0 {
				if seen[nr] {
					continue
				}
				seen[nr] = true
			}
			walk(d.dict(k), depth+1)
		}
	}
	walk(root, 0)
	return out
}
