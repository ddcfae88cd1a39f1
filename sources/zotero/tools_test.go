package zotero_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/sources/zotero"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// toolset resolves mentions of a Zotero layout in a turn on the sample
// Vault, writes the grant and opens the tools on it, as a server does.
func toolset(t *testing.T, layout string, mentions ...string) (*tools.Toolset, *researchctx.Plan, string) {
	t.Helper()
	dir := zoterofix.Dev(t)
	return toolsetOf(t, zotero.New(zotero.Options{DataDir: filepath.Join(dir, layout), BaseDir: filepath.Join(dir, "Attachments"), IndexWait: 10 * time.Minute}), mentions...)
}

// toolsetOf is toolset over a driver of the test's own.
func toolsetOf(t *testing.T, d *zotero.Driver, mentions ...string) (*tools.Toolset, *researchctx.Plan, string) {
	t.Helper()
	return toolsetWith(t, d, &tools.Options{}, mentions...)
}

// toolsetWith is toolsetOf with the Toolset's options (its Registry is
// set here).
func toolsetWith(t *testing.T, d *zotero.Driver, opts *tools.Options, mentions ...string) (*tools.Toolset, *researchctx.Plan, string) {
	t.Helper()
	vaultDir := t.TempDir()
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register(zotero.Kind, d)
	r := researchctx.Resolver{Registry: reg}
	t.Cleanup(func() { r.Close() })
	plan, err := r.Resolve(context.Background(), researchctx.Request{Vault: vaultDir, RuntimeID: "zotero", TurnID: "t1", Mentions: mentions})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Dropped) > 0 || plan.Mode != grant.ModeMCP {
		t.Fatalf("plan dropped %+v, mode %s", plan.Dropped, plan.Mode)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	o := *opts
	o.Registry = reg
	ts, err := tools.Open(context.Background(), gr, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts, plan, gr
}

// TestToolsCiteZotero drives the three tools on a granted collection: a
// search finds an annotation's comment on its page, cited by Zotero's
// open-pdf URI; context_read accepts that URI and a zotero: name; a page
// read, the marks (with each annotation's own URI) and the related items
// are cited by Zotero's URIs; an item outside the collection is refused;
// and usage.jsonl logs every URI handed out. Zotero's folders are
// unchanged and hold no new file afterwards.
func TestToolsCiteZotero(t *testing.T) {
	dir := zoterofix.Dev(t)
	before := zotero.HashTree(t, dir)
	ts, plan, gr := toolset(t, "Zotero-wal", "zotero:collections/Thesis")
	ctx := context.Background()

	// MapReduce (in Thesis/Chapter 1): the comment "Use this in Chapter 2."
	// is on page 2 of attachment QTBRV54N.
	s, err := ts.Search(ctx, tools.SearchInput{Query: "Use this in Chapter 2"})
	if err != nil {
		t.Fatal(err)
	}
	const page2 = "zotero://open-pdf/library/items/QTBRV54N?page=2"
	found := false
	for i, c := range s.Cards {
		if i < 3 && c.CitationURI == page2 {
			found = true
		}
	}
	if !found {
		t.Fatalf("the annotation's page is not in the first 3 cards: %+v", s.Cards)
	}

	r, err := ts.Read(ctx, tools.ReadInput{Target: page2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Page != 2 || r.CitationURI != page2 || !strings.Contains(r.Text, "zero or one output value") {
		t.Fatalf("read of %s: page %d, uri %q, text %.80q", page2, r.Page, r.CitationURI, r.Text)
	}

	m, err := ts.Read(ctx, tools.ReadInput{Target: "zotero:items/ACFJNP3J", Mode: tools.ReadMarks})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, mk := range m.Marks {
		uris = append(uris, mk.CitationURI)
	}
	const ann = "zotero://open-pdf/library/items/QTBRV54N?page=1&annotation=NXDAMBZG"
	if !slices.Contains(uris, ann) {
		t.Fatalf("marks URIs %q lack %s", uris, ann)
	}

	md, err := ts.Read(ctx, tools.ReadInput{Target: "zotero://select/library/items/ACFJNP3J"})
	if err != nil {
		t.Fatal(err)
	}
	if md.Title != "MapReduce: Simplified Data Processing on Large Clusters" || md.Pages != 13 {
		t.Fatalf("metadata of the item: %q, %d pages", md.Title, md.Pages)
	}

	rel, err := ts.Relations(ctx, tools.RelationsInput{Paper: "zotero:items/ACFJNP3J"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Related) != 1 || rel.Related[0].CitationURI != "zotero://select/library/items/A3TZQHPM" {
		t.Fatalf("related: %+v", rel.Related)
	}

	// Bitcoin is in no collection of Thesis: not granted.
	if _, err := ts.Read(ctx, tools.ReadInput{Target: "zotero://select/library/items/YBRAS9NS"}); err == nil {
		t.Fatal("an item outside the granted collection was read")
	}

	u, err := usage.Read(grant.UsagePath(gr), plan.TurnID, &plan.Scope)
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	for _, src := range u.Sources {
		logged = append(logged, src.URI)
		logged = append(logged, src.Locators...)
	}
	for _, want := range []string{page2, ann} {
		if !slices.Contains(logged, want) {
			t.Errorf("usage.jsonl lacks %s: %q", want, logged)
		}
	}
	if after := zotero.HashTree(t, dir); after != before {
		t.Fatal("Zotero's folders changed")
	}
}

// TestSelectionOnAttachment: a selection on the page of an item's second
// PDF is placed and cited in that PDF, by Zotero's URI of the page.
func TestSelectionOnAttachment(t *testing.T) {
	dir := zoterofix.Dev(t)
	vaultDir := t.TempDir()
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register(zotero.Kind, zotero.New(zotero.Options{DataDir: filepath.Join(dir, "Zotero7"), BaseDir: filepath.Join(dir, "Attachments"), IndexWait: 10 * time.Minute}))
	r := researchctx.Resolver{Registry: reg}
	defer r.Close()
	const quote = "Either the well was very deep, or she fell very slowly"
	plan, err := r.Resolve(context.Background(), researchctx.Request{Vault: vaultDir, RuntimeID: "zotero", TurnID: "t1",
		Selections: []researchctx.Selection{{Path: "zotero:items/BSIYEMI7", Page: 5, Text: quote}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Evidence) != 1 || len(plan.Sources) != 1 {
		t.Fatalf("evidence %+v, sources %+v, dropped %+v", plan.Evidence, plan.Sources, plan.Dropped)
	}
	ev := plan.Evidence[0]
	if ev.CitationURI != "zotero://open-pdf/library/items/BSIYEMI7?page=5" || !strings.Contains(ev.Quote, "very deep") {
		t.Fatalf("evidence %+v", ev)
	}
	if plan.Sources[0].Path != "zotero:items/BSIYEMI7" || plan.Sources[0].Title != "Alice's Adventures in Wonderland" {
		t.Fatalf("source %+v", plan.Sources[0])
	}
}

// TestRelatedPlacedExactly: with a collection granted, usage.Read places a
// related item's card by whether the grant holds it: The Google File
// System, related to MapReduce but in no collection of Thesis, is in the
// library, not the grant; Bahdanau et al., related to Sutskever et al. and
// in Thesis/Chapter 2/Attention, is in the grant; and the pages read are
// in the grant.
func TestRelatedPlacedExactly(t *testing.T) {
	ts, plan, gr := toolset(t, "Zotero", "zotero:collections/Thesis")
	ctx := context.Background()
	const (
		gfs      = "zotero://select/library/items/A3TZQHPM"
		bahdanau = "zotero://select/library/items/EG9MHMV3"
		page2    = "zotero://open-pdf/library/items/QTBRV54N?page=2"
	)
	for _, p := range []string{"zotero:items/ACFJNP3J", "zotero:items/QCAL5UMX"} {
		rel, err := ts.Relations(ctx, tools.RelationsInput{Paper: p})
		if err != nil {
			t.Fatal(err)
		}
		if len(rel.Related) != 1 {
			t.Fatalf("related of %s: %+v", p, rel.Related)
		}
	}
	if _, err := ts.Read(ctx, tools.ReadInput{Target: page2}); err != nil {
		t.Fatal(err)
	}
	u, err := usage.Read(grant.UsagePath(gr), plan.TurnID, &plan.Scope)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]usage.Place{}
	for _, s := range u.Sources {
		got[s.URI] = s.Place
	}
	for uri, want := range map[string]usage.Place{gfs: usage.InLibrary, bahdanau: usage.InGrant, page2: usage.InGrant} {
		if got[uri] != want {
			t.Errorf("%s placed %q, want %q (all: %v)", uri, got[uri], want, got)
		}
	}
}

// TestEPUBLocationCited: an annotation on an EPUB is cited at its place,
// zotero://open-pdf/…?cfi=<the CFI Zotero keeps, percent-encoded>: in a
// marks read, on a search card for its comment, as a context_read target,
// and in usage.jsonl, in the grant.
func TestEPUBLocationCited(t *testing.T) {
	ts, plan, gr := toolset(t, "Zotero7", "zotero:items/NNXSEDKG")
	ctx := context.Background()
	const ishmael = "zotero://open-pdf/library/items/E77HNKG7?cfi=epubcfi%28%2F6%2F14%21%2F4%2F2%2F4%2C%2F1%3A0%2C%2F1%3A16%29"
	m, err := ts.Read(ctx, tools.ReadInput{Target: "zotero:items/E77HNKG7", Mode: tools.ReadMarks})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, mk := range m.Marks {
		uris = append(uris, mk.CitationURI)
	}
	if !slices.Contains(uris, ishmael) {
		t.Fatalf("marks URIs %q lack %s", uris, ishmael)
	}
	s, err := ts.Search(ctx, tools.SearchInput{Query: "The famous opening line"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cards) == 0 || s.Cards[0].CitationURI != ishmael {
		t.Fatalf("the comment's card is not cited at its place: %+v", s.Cards)
	}
	r, err := ts.Read(ctx, tools.ReadInput{Target: ishmael})
	if err != nil || r.Mode != tools.ReadMetadata || r.Title != "Moby-Dick; or, The Whale" {
		t.Fatalf("read of %s: %+v, %v", ishmael, r, err)
	}
	u, err := usage.Read(grant.UsagePath(gr), plan.TurnID, &plan.Scope)
	if err != nil {
		t.Fatal(err)
	}
	placed := false
	for _, src := range u.Sources {
		if src.URI == ishmael && src.Place == usage.InGrant {
			placed = true
		}
	}
	if !placed {
		t.Errorf("usage.jsonl does not place %s in the grant: %+v", ishmael, u.Sources)
	}
}

// TestItemReadsItsRecord: an item with a PDF, named in a granted
// collection or granted alone, reads as its record (date as Zotero shows
// it, tags, collections, attachments) followed by its PDF's pages: the
// record is cited by the PDF's select URI, a page by its open-pdf URI,
// and a page read is the PDF's page alone. An item granted alone is read,
// not listed.
func TestItemReadsItsRecord(t *testing.T) {
	ctx := context.Background()
	for _, mention := range []string{"zotero:collections/Systems", "zotero:items/ACFJNP3J"} {
		t.Run(mention, func(t *testing.T) {
			ts, _, _ := toolset(t, "Zotero", mention)
			full, err := ts.Read(ctx, tools.ReadInput{Target: "zotero:items/ACFJNP3J", Mode: tools.ReadFull})
			if err != nil {
				t.Fatal(err)
			}
			rec, _, ok := strings.Cut(full.Text, "\n\n")
			if !ok || !strings.HasPrefix(rec, "MapReduce: Simplified Data Processing on Large Clusters\n") {
				t.Fatalf("the read does not begin with the record:\n%.600s", full.Text)
			}
			for _, want := range []string{"\nDate: 2004-12\n", "Tags: ", "distributed systems", "Collections: ", "Systems", "Attachment QTBRV54N: "} {
				if !strings.Contains(rec, want) {
					t.Errorf("the record lacks %q:\n%s", want, rec)
				}
			}
			if !strings.Contains(full.Text, "MapReduce is a programming model") {
				t.Errorf("the PDF's first page does not follow the record:\n%.1200s", full.Text)
			}
			// The record is cited by the PDF it comes with: Zotero selects
			// it under its item.
			if !slices.Contains(full.CitationURIs, "zotero://select/library/items/QTBRV54N") ||
				!slices.Contains(full.CitationURIs, "zotero://open-pdf/library/items/QTBRV54N?page=1") {
				t.Errorf("full read cited %q, want the record's and the PDF's first page", full.CitationURIs)
			}
			page, err := ts.Read(ctx, tools.ReadInput{Target: "zotero:items/ACFJNP3J", Mode: tools.ReadPage, Page: 1})
			if err != nil {
				t.Fatal(err)
			}
			if page.CitationURI != "zotero://open-pdf/library/items/QTBRV54N?page=1" || strings.Contains(page.Text, "Date: 2004-12") {
				t.Errorf("page 1 cited %q, text:\n%.300s", page.CitationURI, page.Text)
			}
		})
	}
}

// TestCacheInVault checks where a driver given no cache folder keeps a
// library's snapshots and index: below the grant's Vault's cache folder
// (sources.Library.CacheDir), in a folder of its own, not in the user's.
func TestCacheInVault(t *testing.T) {
	ts, plan, _ := toolset(t, "Zotero-wal", "zotero:collections/Thesis")
	if _, err := ts.Search(context.Background(), tools.SearchInput{Query: "Use this in Chapter 2"}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(plan.Vault, ".agentero", "cache", "zotero"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("the Vault's cache has no zotero folder with the library's caches: %d entries, %v", len(entries), err)
	}
}
