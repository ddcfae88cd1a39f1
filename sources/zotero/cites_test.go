package zotero_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/sources/zotero"
	"github.com/researchctx/researchctx/tools"
)

// foldWords lower-cases s and keeps its letters and digits as
// space-separated words.
func foldWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

// mapReducePDF is the fixture's MapReduce paper, attachment QTBRV54N of
// item ACFJNP3J; its reference [8] is the Google File System, item
// A3TZQHPM of the library.
const mapReducePDF = "storage/QTBRV54N/Dean and Ghemawat - 2004 - MapReduce Simplified Data Processing on Large Clusters.pdf"

// TestRelationsFromZoteroPDFs: paper_relations of a Zotero item gives the
// references read from its PDF — one per entry of the reference section
// pdftotext shows, numbered as printed, each title found in that entry —
// with the one that names a library item (the Google File System, by its
// title, confirmed by its year and first author) tied to it, labelled and
// quoted from the granted PDF; and the cited item lists the citing item as
// cited-by, with its label and sentences, both being granted. The item's
// PDF names it too. Zotero's dc:relation is served as before.
func TestRelationsFromZoteroPDFs(t *testing.T) {
	needTools(t, "pdftotext")
	dir := zoterofix.Dev(t)
	data := filepath.Join(dir, "Zotero")
	text, err := exec.Command("pdftotext", filepath.Join(data, filepath.FromSlash(mapReducePDF)), "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	_, section, ok := strings.Cut(string(text), "\nReferences\n")
	if !ok {
		t.Fatal("pdftotext shows no References heading")
	}
	// The entries are numbered [1] to [n] at the start of their lines.
	n := 0
	for _, m := range regexp.MustCompile(`(?m)^\f?\[([0-9]+)\] `).FindAllStringSubmatch(section, -1) {
		if k, _ := strconv.Atoi(m[1]); k == n+1 {
			n = k
		}
	}
	if n < 10 {
		t.Fatalf("pdftotext shows %d numbered references", n)
	}
	sectionWords := foldWords(section)

	ts, _, _ := toolsetOf(t, zotero.New(zotero.Options{DataDir: data, BaseDir: filepath.Join(dir, "Attachments"), CacheDir: t.TempDir()}), "zotero:collections/Systems")
	ctx := context.Background()
	out, err := ts.Relations(ctx, tools.RelationsInput{Paper: "zotero:items/ACFJNP3J", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.References) != n {
		t.Fatalf("%d references, want the %d pdftotext shows", len(out.References), n)
	}
	var gfs *tools.RelationCard
	for i, c := range out.References {
		if c.Label != strconv.Itoa(i+1) {
			t.Errorf("reference %d labelled %q", i+1, c.Label)
		}
		if w := foldWords(c.Title); w == "" || !strings.Contains(sectionWords, w) {
			t.Errorf("reference %d: title %q is not in pdftotext's reference section", i+1, c.Title)
		}
		if c.PaperPath == "zotero:items/A3TZQHPM" {
			gfs = &out.References[i]
		} else if c.PaperPath != "" {
			t.Errorf("reference %d %q tied to %s", i+1, c.Title, c.PaperPath)
		}
	}
	if gfs == nil || gfs.Label != "8" || !gfs.InGrant || gfs.CitationURI != "zotero://select/library/items/A3TZQHPM" || len(gfs.Contexts) == 0 {
		t.Fatalf("the Google File System reference: %+v", gfs)
	}
	for _, x := range gfs.Contexts {
		if !strings.HasPrefix(x.CitationURI, "zotero://open-pdf/library/items/QTBRV54N?page=") || !strings.Contains(x.Text, "[8]") {
			t.Errorf("context %+v: not a sentence of the MapReduce PDF citing [8]", x)
		}
	}
	if len(out.Related) != 1 || out.Related[0].PaperPath != "zotero:items/A3TZQHPM" {
		t.Errorf("related: %+v", out.Related)
	}

	// The item's PDF names the paper too.
	byPDF, err := ts.Relations(ctx, tools.RelationsInput{Paper: "zotero:items/QTBRV54N", Kind: tools.RelReferences, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(byPDF.References) != n {
		t.Fatalf("named by its PDF: %d references, want %d", len(byPDF.References), n)
	}

	back, err := ts.Relations(ctx, tools.RelationsInput{Paper: "zotero:items/A3TZQHPM", Kind: tools.RelCitedBy})
	if err != nil {
		t.Fatal(err)
	}
	if len(back.CitedBy) != 1 {
		t.Fatalf("cited-by of the Google File System: %+v", back.CitedBy)
	}
	c := back.CitedBy[0]
	if c.PaperPath != "zotero:items/ACFJNP3J" || !c.InGrant || c.Label != "8" || len(c.Contexts) == 0 || !strings.HasPrefix(c.Contexts[0].CitationURI, "zotero://open-pdf/library/items/QTBRV54N?page=") {
		t.Fatalf("cited-by card: %+v", c)
	}
}

// TestRelationContextsStayInZoteroGrant: a cited-by card of a citing item
// outside the grant carries no text of its PDF, neither a sentence nor the
// label it cites the item by, only its bibliographic data.
func TestRelationContextsStayInZoteroGrant(t *testing.T) {
	dir := zoterofix.Dev(t)
	ts, _, _ := toolsetOf(t, zotero.New(zotero.Options{DataDir: filepath.Join(dir, "Zotero"), BaseDir: filepath.Join(dir, "Attachments"), CacheDir: t.TempDir()}), "zotero:items/A3TZQHPM")
	back, err := ts.Relations(context.Background(), tools.RelationsInput{Paper: "zotero:items/A3TZQHPM", Kind: tools.RelCitedBy})
	if err != nil {
		t.Fatal(err)
	}
	if len(back.CitedBy) != 1 {
		t.Fatalf("cited-by of the Google File System: %+v", back.CitedBy)
	}
	c := back.CitedBy[0]
	if c.PaperPath != "zotero:items/ACFJNP3J" || c.Title != "MapReduce: Simplified Data Processing on Large Clusters" {
		t.Fatalf("cited-by card: %+v", c)
	}
	if c.InGrant || c.Label != "" || len(c.Contexts) > 0 {
		t.Errorf("cited-by card of an item outside the grant (in grant %v) carries label %q and %d contexts", c.InGrant, c.Label, len(c.Contexts))
	}
}
