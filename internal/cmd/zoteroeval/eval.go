package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/sources/zotero"
	"github.com/researchctx/researchctx/tools"
)

// callTimeout bounds each tool call: generous, since a PDF's first read
// extracts its text on a machine that may be busy.
const callTimeout = 5 * time.Minute

// turnChars is each turn's budget: the most a turn may have. Every phase
// runs in a turn of its own so that none is cut by the budget.
var turnChars = grant.MaxBudget().TurnChars

// errDropped: a turn's mention was not granted.
var errDropped = errors.New("the turn's grant dropped a mention")

// host is a Zotero library served as a host serves it: a registry with
// the zotero driver, a Vault to resolve turns in, and a grant of the
// library and its groups per turn.
type host struct {
	reg      *sources.Registry
	resolver researchctx.Resolver
	vault    string
	mentions []string
	turns    int
}

// toolset resolves a new turn granting the libraries and opens the tools
// on its grant.
func (h *host) toolset(ctx context.Context) (*tools.Toolset, error) {
	h.turns++
	plan, err := h.resolver.Resolve(ctx, researchctx.Request{Vault: h.vault, RuntimeID: "zoteroeval", TurnID: "t" + strconv.Itoa(h.turns),
		Mentions: h.mentions, Budget: &grant.BudgetOverrides{TurnChars: &turnChars}})
	if err != nil {
		return nil, err
	}
	if len(plan.Dropped) > 0 || plan.Mode != grant.ModeMCP {
		return nil, fmt.Errorf("%w: %+v (mode %s)", errDropped, plan.Dropped, plan.Mode)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		return nil, err
	}
	return tools.Open(ctx, gr, &tools.Options{Registry: h.reg, CallTimeout: callTimeout})
}

// evaluate measures one data directory against its truth.
func evaluate(ctx context.Context, c config) (*report, error) {
	tr, err := readTruth(c.Truth)
	if err != nil {
		return nil, err
	}
	data, err := filepath.Abs(c.Data)
	if err != nil {
		return nil, err
	}
	base, err := filepath.Abs(c.Base)
	if err != nil {
		return nil, err
	}
	layout := filepath.Base(data)
	wal := false
	if dd, ok := tr.DataDirs[layout]; ok {
		wal = dd.WalPending
	} else if _, err := os.Stat(filepath.Join(data, "zotero.sqlite-wal")); err == nil {
		wal = true
	}
	// Zotero's folders, and the outside files, hashed before anything is read.
	watched := []string{data, base}
	for _, it := range tr.Items {
		for _, a := range it.Attachments {
			if a.RelativeTo == "absolute" && a.Exists {
				watched = append(watched, a.File)
			}
		}
	}
	before, err := hashTrees(watched)
	if err != nil {
		return nil, err
	}

	tmp, err := os.MkdirTemp("", "zoteroeval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	h := &host{reg: vault.RegisterLibrary(sources.NewRegistry()), vault: filepath.Join(tmp, "vault"), mentions: []string{"zotero:"}}
	if err := samplevault.Extract(h.vault); err != nil {
		return nil, err
	}
	h.reg.Register(zotero.Kind, zotero.New(zotero.Options{DataDir: data, BaseDir: base, CacheDir: filepath.Join(tmp, "cache")}))
	h.resolver.Registry = h.reg
	h.resolver.CacheRoot = filepath.Join(tmp, "hostcache")
	defer h.resolver.Close()
	for _, l := range tr.Libraries {
		if l.GroupID != 0 {
			h.mentions = append(h.mentions, "zotero:groups/"+strconv.Itoa(l.GroupID))
		}
	}

	r := &report{Layout: layout, FieldOK: map[string]int{}}
	var visible []*truthItem
	for i := range tr.Items {
		it := &tr.Items[i]
		if it.WalOnly && !wal {
			continue
		}
		visible = append(visible, it)
	}
	steps := []func(context.Context, *host, *report, []*truthItem, *truth, bool) error{
		measureMetadata, measureMarks, measureSearch, measurePages, measureRefusals,
	}
	for _, step := range steps {
		if err := step(ctx, h, r, visible, tr, wal); err != nil {
			return nil, err
		}
	}

	after, err := hashTrees(watched)
	if err != nil {
		return nil, err
	}
	r.Changed = diffTrees(before, after)
	if c.Verbose {
		w := c.Log
		if w == nil {
			w = os.Stderr
		}
		r.printMisses(w)
	}
	return r, nil
}

// itemName is the SDK's name of a truth item or attachment key.
func itemName(it *truthItem, key string) string {
	return "zotero:" + it.prefix() + "items/" + key
}

// measureMetadata reads every item's metadata and record, and lists every
// collection and tag, each granted in a turn of its own, to see which items
// they hold.
func measureMetadata(ctx context.Context, h *host, r *report, items []*truthItem, tr *truth, wal bool) error {
	ts, err := h.toolset(ctx)
	if err != nil {
		return err
	}
	defer ts.Close()
	views := map[*truthItem]*itemView{}
	for _, it := range items {
		if it.Trashed {
			continue
		}
		name := itemName(it, it.Key)
		md, err := ts.Read(ctx, tools.ReadInput{Target: name, Mode: tools.ReadMetadata})
		if err != nil {
			r.Meta = append(r.Meta, fmt.Sprintf("%s: %v", it.Key, err))
			views[it] = &itemView{}
			continue
		}
		v := &itemView{Title: md.Title, Creators: md.Authors, Year: md.Year, DOI: md.DOI, Notes: map[string]string{}}
		views[it] = v
		rel, err := ts.Relations(ctx, tools.RelationsInput{Paper: name, Kind: tools.RelRelated})
		if err != nil {
			r.Meta = append(r.Meta, fmt.Sprintf("%s related: %v", it.Key, err))
		} else {
			for _, c := range rel.Related {
				_, key, _ := strings.Cut(c.CitationURI, "/items/")
				v.Related = append(v.Related, key)
			}
		}
		for _, n := range it.Notes {
			out, err := ts.Read(ctx, tools.ReadInput{Target: itemName(it, n.Key), Mode: tools.ReadFull})
			if err != nil {
				r.Meta = append(r.Meta, fmt.Sprintf("%s note %s: %v", it.Key, n.Key, err))
				continue
			}
			v.Notes[n.Key] = out.Text
		}
		full, err := ts.Read(ctx, tools.ReadInput{Target: name, Mode: tools.ReadFull})
		if err != nil {
			r.Meta = append(r.Meta, fmt.Sprintf("%s record: %v", it.Key, err))
			continue
		}
		if date, ok := recordDate(full.Text); ok {
			r.Records++
			if date == it.Date {
				r.RecordDates++
			} else {
				r.Meta = append(r.Meta, fmt.Sprintf("%s record date %q, want %q", it.Key, date, it.Date))
			}
		}
	}

	// Who each collection and tag lists, by library.
	type listing struct{ library, kind, name string }
	var lists []listing
	seenList := map[listing]bool{}
	for _, c := range tr.Collections {
		lists = append(lists, listing{c.Library, "collections", c.Path})
	}
	for _, it := range items {
		for _, t := range it.Tags {
			l := listing{it.Library, "tags", t.Tag}
			if !seenList[l] {
				seenList[l] = true
				lists = append(lists, l)
			}
		}
	}
	listed := map[listing]map[string]bool{}
	for _, l := range lists {
		var segs []string
		for _, s := range strings.Split(l.name, "/") {
			segs = append(segs, url.PathEscape(s))
		}
		if l.kind == "tags" {
			segs = []string{url.PathEscape(l.name)}
		}
		name := "zotero:" + libraryPrefix(l.library) + l.kind + "/" + strings.Join(segs, "/")
		keys, err := h.listing(ctx, name)
		if err != nil {
			r.Meta = append(r.Meta, fmt.Sprintf("listing %s: %v", name, err))
		}
		listed[l] = keys
	}
	trashed := map[string]bool{}
	for _, it := range items {
		if it.Trashed {
			trashed[it.Key] = true
		}
	}
	for _, it := range items {
		if it.Trashed {
			for l, keys := range listed {
				if keys[it.Key] && l.library == it.Library {
					r.Refusals = append(r.Refusals, fmt.Sprintf("trashed item %s listed by %s %s", it.Key, l.kind, l.name))
					r.trashListed = true
				}
			}
			continue
		}
		v := views[it]
		v.InCollection, v.InTag = map[string]bool{}, map[string]bool{}
		for l, keys := range listed {
			if l.library != it.Library {
				continue
			}
			if l.kind == "collections" {
				v.InCollection[l.name] = keys[it.Key]
			} else {
				v.InTag[l.name] = keys[it.Key]
			}
		}
		r.Items++
		for f, ok := range scoreItem(it, *v, trashed) {
			if ok {
				r.FieldOK[f]++
			} else {
				r.Meta = append(r.Meta, fmt.Sprintf("%s %s: got %s", it.Key, f, viewField(*v, f)))
			}
		}
	}
	if wal {
		r.WAL = len(tr.WalOnlyKeys)
	}
	return nil
}

// listing grants name alone in a turn of its own and returns the keys of
// the items its read lists: none when the name is not granted (a tag only
// trashed items have names nothing).
func (h *host) listing(ctx context.Context, name string) (map[string]bool, error) {
	saved := h.mentions
	h.mentions = []string{name}
	ts, err := h.toolset(ctx)
	h.mentions = saved
	if errors.Is(err, errDropped) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer ts.Close()
	out, err := ts.Read(ctx, tools.ReadInput{Target: name})
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, e := range out.Entries {
		if k := entryKey(e.Name); k != "" {
			keys[k] = true
		}
	}
	if out.Truncated {
		return keys, errors.New("the listing was cut")
	}
	return keys, nil
}

// viewField is one field of v, for a miss.
func viewField(v itemView, f string) string {
	switch f {
	case "title":
		return strconv.Quote(v.Title)
	case "creators":
		return fmt.Sprintf("%q", v.Creators)
	case "date":
		return strconv.Itoa(v.Year)
	case "DOI":
		return strconv.Quote(v.DOI)
	case "collections":
		return fmt.Sprint(v.InCollection)
	case "related":
		return fmt.Sprintf("%q", v.Related)
	case "notes":
		return fmt.Sprintf("%.300q", v.Notes)
	}
	return fmt.Sprint(v.InTag)
}

// measureMarks reads the marks of every attachment with annotations, and
// counts the keys only in the write-ahead log that are served.
func measureMarks(ctx context.Context, h *host, r *report, items []*truthItem, tr *truth, wal bool) error {
	ts, err := h.toolset(ctx)
	if err != nil {
		return err
	}
	defer ts.Close()
	walOnly := map[string]bool{}
	if wal {
		for _, k := range tr.WalOnlyKeys {
			walOnly[k] = true
		}
	}
	seen := map[string]bool{}
	for _, it := range items {
		if it.Trashed {
			continue
		}
		if walOnly[it.Key] {
			if _, err := ts.Read(ctx, tools.ReadInput{Target: itemName(it, it.Key), Mode: tools.ReadMetadata}); err == nil {
				seen[it.Key] = true
			}
		}
		for _, a := range it.Attachments {
			var want []truthAnnotation
			for _, an := range a.Annotations {
				if !an.WalOnly || wal {
					want = append(want, an)
				}
			}
			if len(want) == 0 {
				continue
			}
			out, err := ts.Read(ctx, tools.ReadInput{Target: itemName(it, a.Key), Mode: tools.ReadMarks})
			var got []tools.MarkInfo
			if err != nil {
				r.Marks.Misses = append(r.Marks.Misses, fmt.Sprintf("marks of %s: %v", a.Key, err))
			} else {
				got = out.Marks
			}
			s := scoreMarks(want, got)
			r.Marks.add(s)
			for _, an := range want {
				if walOnly[an.Key] && slices.ContainsFunc(got, func(m tools.MarkInfo) bool { return m.CitationURI == an.URIWithAnnotation }) {
					seen[an.Key] = true
				}
			}
		}
	}
	r.WALSeen = len(seen)
	return nil
}

// measureSearch searches for each annotation's comment.
func measureSearch(ctx context.Context, h *host, r *report, items []*truthItem, _ *truth, wal bool) error {
	type query struct {
		comment, uri string
	}
	var queries []query
	shared := map[string]int{}
	for _, it := range items {
		if it.Trashed {
			continue
		}
		for _, a := range it.Attachments {
			for _, an := range a.Annotations {
				if an.Comment == nil || *an.Comment == "" || an.WalOnly && !wal {
					continue
				}
				queries = append(queries, query{*an.Comment, an.URI})
				shared[*an.Comment]++
			}
		}
	}
	ts, err := h.toolset(ctx)
	if err != nil {
		return err
	}
	defer ts.Close()
	for _, q := range queries {
		// A comment several annotations share has each of their pages to
		// place: the first max(3, n) cards are looked at.
		k := max(3, shared[q.comment])
		out, err := ts.Search(ctx, tools.SearchInput{Query: q.comment, Limit: k})
		r.Searches++
		if err != nil {
			r.SearchMisses = append(r.SearchMisses, fmt.Sprintf("%q: %v", q.comment, err))
			continue
		}
		if inFirst(out.Cards, q.uri, k) {
			r.First3++
			continue
		}
		var got []string
		for _, c := range out.Cards {
			got = append(got, c.CitationURI)
		}
		r.SearchMisses = append(r.SearchMisses, fmt.Sprintf("%q: want %s in the first %d, got %q", q.comment, q.uri, k, got))
	}
	return nil
}

// measurePages reads every page of every PDF served, each PDF in a turn of
// its own.
func measurePages(ctx context.Context, h *host, r *report, items []*truthItem, _ *truth, _ bool) error {
	for _, it := range items {
		if it.Trashed {
			continue
		}
		for _, a := range it.Attachments {
			if a.ContentType != "application/pdf" || !a.Exists || a.RelativeTo == "absolute" || a.Pages == 0 {
				continue
			}
			ts, err := h.toolset(ctx)
			if err != nil {
				return err
			}
			lib := "library"
			if p := it.prefix(); p != "" {
				lib = strings.TrimSuffix(p, "/")
			}
			for n := 1; n <= a.Pages; n++ {
				r.Pages++
				want := fmt.Sprintf("zotero://open-pdf/%s/items/%s?page=%d", lib, a.Key, n)
				out, err := ts.Read(ctx, tools.ReadInput{Target: itemName(it, a.Key), Mode: tools.ReadPage, Page: n})
				switch {
				case err != nil:
					r.PageMisses = append(r.PageMisses, fmt.Sprintf("%s page %d: %v", a.Key, n, err))
				case out.CitationURI != want || out.Page != n:
					r.PageMisses = append(r.PageMisses, fmt.Sprintf("%s page %d: cited %s (page %d)", a.Key, n, out.CitationURI, out.Page))
				default:
					r.PagesCited++
				}
			}
			ts.Close()
		}
	}
	return nil
}

// measureRefusals checks that the trashed items, their files and their
// annotations, and the linked files outside the allowed folders are
// refused, and that an attachment whose file is gone reads as an error.
func measureRefusals(ctx context.Context, h *host, r *report, items []*truthItem, _ *truth, _ bool) error {
	ts, err := h.toolset(ctx)
	if err != nil {
		return err
	}
	defer ts.Close()
	refused := func(what, target string, mode tools.ReadMode) bool {
		out, err := ts.Read(ctx, tools.ReadInput{Target: target, Mode: mode, Page: 1})
		if err != nil {
			return true
		}
		r.Refusals = append(r.Refusals, fmt.Sprintf("%s %s served: %.80q", what, target, out.Text))
		return false
	}
	for _, it := range items {
		if it.Trashed {
			r.Trashed++
			ok := refused("trashed item", itemName(it, it.Key), tools.ReadMetadata)
			for _, a := range it.Attachments {
				ok = refused("trashed item's attachment", itemName(it, a.Key), tools.ReadPage) && ok
				for _, an := range a.Annotations {
					ok = refused("trashed item's annotation", an.URIWithAnnotation, tools.ReadPage) && ok
					// Its text and comment found by a search would serve it too.
					for _, q := range []string{an.Text, deref(an.Comment)} {
						if q == "" {
							continue
						}
						out, err := ts.Search(ctx, tools.SearchInput{Query: q})
						if err != nil && !errors.Is(err, tools.ErrBudgetSpent) {
							continue
						}
						for _, c := range out.Cards {
							if strings.Contains(c.CitationURI, "/items/"+a.Key) || strings.Contains(c.CitationURI, "/items/"+it.Key) {
								ok = false
								r.Refusals = append(r.Refusals, fmt.Sprintf("trashed item's annotation %s found by a search: %s", an.Key, c.CitationURI))
							}
						}
					}
				}
			}
			if ok && !r.trashListed {
				r.TrashedRefused++
			}
			continue
		}
		for _, a := range it.Attachments {
			switch {
			case a.RelativeTo == "absolute":
				r.Outside++
				if refused("outside linked file", itemName(it, a.Key), tools.ReadPage) {
					r.OutsideRefused++
				}
			case !a.Exists && a.RelativeTo != "":
				r.Missing++
				if refused("missing file", itemName(it, a.Key), tools.ReadPage) {
					r.MissingRefused++
				}
			}
		}
	}
	return nil
}

// deref is *s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// hashTrees returns the SHA-256 of every file under roots (a root may be a
// single file), by path, with its mode and modification time.
func hashTrees(roots []string) (map[string]string, error) {
	out := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			sum := info.Mode().String() + " " + info.ModTime().UTC().Format(time.RFC3339Nano)
			if d.Type().IsRegular() {
				f, err := os.Open(p)
				if err != nil {
					return err
				}
				h := sha256.New()
				_, err = io.Copy(h, f)
				f.Close()
				if err != nil {
					return err
				}
				sum += " " + hex.EncodeToString(h.Sum(nil))
			}
			out[p] = sum
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// diffTrees lists the paths added, removed or changed from a to b.
func diffTrees(a, b map[string]string) []string {
	var out []string
	for p, s := range a {
		if t, ok := b[p]; !ok {
			out = append(out, "removed "+p)
		} else if t != s {
			out = append(out, "changed "+p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, "added "+p)
		}
	}
	slices.Sort(out)
	return out
}
