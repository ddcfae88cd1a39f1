package bib_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/examples/bibsource/bib"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
)

// newVault extracts the sample Vault with testdata/refs.bib as
// library/refs.bib, and returns its root and its library.
func newVault(t *testing.T) (string, sources.Library) {
	t.Helper()
	root := t.TempDir()
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "refs.bib"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "library"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "library", "refs.bib"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return root, lib
}

// registry is an explicit registry with the bib driver: tests do not rely
// on the one the package's init fills.
func registry() *sources.Registry {
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register(bib.Kind, bib.Driver{})
	return reg
}

func openBib(t *testing.T, lib sources.Library) sources.Source {
	t.Helper()
	ctx := context.Background()
	reg := registry()
	env := &sources.Env{Vault: lib}
	n, ok, err := reg.Resolve(ctx, "bib:library/refs.bib", env)
	if !ok || err != nil {
		t.Fatalf("Resolve: %v, %v", ok, err)
	}
	want := grant.Ref{Kind: bib.Kind, Path: "library/refs.bib", Title: "refs.bib (BibTeX, 5 entries)", Config: []byte(`{"file":"library/refs.bib"}`)}
	if d := cmp.Diff(want, n.Ref); d != "" {
		t.Fatalf("Ref (-want +got):\n%s", d)
	}
	src, err := reg.Open(ctx, n.Ref, env)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestConformance(t *testing.T) {
	_, lib := newVault(t)
	src := openBib(t, lib)
	ctx := context.Background()
	if err := sourcetest.Test(ctx, src, "strided global tokens"); err != nil {
		t.Fatal(err)
	}
	inner, p, err := src.(sources.Container).Inner(ctx, "library/refs.bib/okafor2024sba")
	if err != nil || p != "" {
		t.Fatalf("Inner = %v, %q, %v", inner, p, err)
	}
	if err := sourcetest.Test(ctx, inner, "block partition"); err != nil {
		t.Fatal(err)
	}
}

// An entry is its record followed by the pages of its first PDF, read
// through the Vault's library; further PDFs are documents of their own.
func TestEntryDocuments(t *testing.T) {
	_, lib := newVault(t)
	src := openBib(t, lib)
	ctx := context.Background()
	doc, err := src.Read(ctx, "library/refs.bib/okafor2024sba")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 3 || len(doc.Parts) != 4 || doc.Parts[2].Page != 2 || doc.Parts[2].Path != "library/refs.bib/okafor2024sba" {
		t.Fatalf("document: %d pages, %d parts, part 2 at %+v", doc.Pages, len(doc.Parts), doc.Parts[min(2, len(doc.Parts)-1)].Location)
	}
	if !strings.Contains(strings.Join(strings.Fields(doc.Parts[2].Text), " "), "so the gate matters") {
		t.Errorf("page 2 lacks its quote: %.200q", doc.Parts[2].Text)
	}
	record := doc.Parts[0].Text
	for _, want := range []string{"Strided Block Attention for Long Document Encoding", "Mira Okafor, Tomas Lindqvist, Hana Sato",
		"2024 · arXiv preprint arXiv:2401.01234 · DOI 10.5555/sba.2024.0001 · arXiv 2401.01234", "Files: papers/2401.01234/2401.01234.pdf"} {
		if !strings.Contains(record, want) {
			t.Errorf("record lacks %q:\n%s", want, record)
		}
	}
	for _, s := range doc.Sections {
		if s.Part < 1 {
			t.Errorf("section %q anchored in the record", s.Title)
		}
	}
	// The survey's second file is its own document.
	extra, err := src.Read(ctx, "library/refs.bib/sato2024survey/paper.pdf")
	if err != nil || extra.Pages == 0 || extra.Parts[0].Path != "library/refs.bib/sato2024survey/paper.pdf" {
		t.Fatalf("extra PDF: %+v, %v", extra, err)
	}
	// Files outside the vault are never read, and say so without their path.
	el, err := src.Read(ctx, "library/refs.bib/elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(el.Parts[0].Text, "a file outside the vault is not read"); n != 2 || strings.Contains(el.Parts[0].Text, "/home/") || len(el.Parts) != 1 {
		t.Errorf("record of an entry with outside files:\n%s", el.Parts[0].Text)
	}
	if !strings.Contains(el.Parts[0].Text, "Jörg Müller") {
		t.Errorf("LaTeX accents not decoded:\n%s", el.Parts[0].Text)
	}
	// The catalogue lists the entries and says which was left out.
	cat, err := src.Read(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cat.Parts[0].Text, `Left out: line 55: key "bad/key" holds a character a citation cannot carry`) ||
		strings.Contains(cat.Parts[0].Text, "ghost") {
		t.Errorf("catalogue:\n%s", cat.Parts[0].Text)
	}
	for p, want := range map[string]error{
		"library/refs.bib/nosuch":              sources.ErrNotFound,
		"library/refs.bib/okafor2024sba/x.pdf": sources.ErrNotFound,
		"papers/2401.01234/2401.01234.pdf":     sources.ErrOutside,
		"/etc/passwd":                          sources.ErrOutside,
	} {
		if _, err := src.Read(ctx, p); !errors.Is(err, want) {
			t.Errorf("Read(%q) = %v, want %v", p, err, want)
		}
	}
}

func TestRelationsAndMetadata(t *testing.T) {
	_, lib := newVault(t)
	src := openBib(t, lib)
	ctx := context.Background()
	inner, _, err := src.(sources.Container).Inner(ctx, "library/refs.bib/sato2024survey")
	if err != nil {
		t.Fatal(err)
	}
	rels, err := inner.(sources.Relater).Relations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	paths := func(ws []sources.Work) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Paper)
		}
		return out
	}
	if d := cmp.Diff([]string{"library/refs.bib/okafor2024sba", "library/refs.bib/feld2024routing"}, paths(rels.References)); d != "" {
		t.Errorf("references (-want +got):\n%s", d)
	}
	if rels.Skipped != 1 || rels.Main != "library/refs.bib/sato2024survey" {
		t.Errorf("skipped %d, main %q", rels.Skipped, rels.Main)
	}
	okafor, _, _ := src.(sources.Container).Inner(ctx, "library/refs.bib/okafor2024sba")
	rels, err = okafor.(sources.Relater).Relations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"library/refs.bib/feld2024routing", "library/refs.bib/sato2024survey"}, paths(rels.CitedBy)); d != "" {
		t.Errorf("cited by (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"library/refs.bib/window2024"}, paths(rels.Related)); d != "" {
		t.Errorf("related (-want +got):\n%s", d)
	}
	m, err := okafor.(sources.Describer).Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := &sources.Metadata{Title: "Strided Block Attention for Long Document Encoding", Authors: []string{"Mira Okafor", "Tomas Lindqvist", "Hana Sato"},
		Year: 2024, Abstract: "We propose strided block attention (SBA), which splits a document into fixed blocks.", DOI: "10.5555/sba.2024.0001",
		ArXivID: "2401.01234", Pages: 3, Documents: []string{"library/refs.bib/okafor2024sba"}}
	if d := cmp.Diff(want, m); d != "" {
		t.Errorf("Describe (-want +got):\n%s", d)
	}
}

// A BibTeX file the connector cannot parse is not granted: the error is
// typed and names the line, and a name that is not a .bib file names
// nothing.
func TestRefErrors(t *testing.T) {
	root, lib := newVault(t)
	if err := os.WriteFile(filepath.Join(root, "library", "broken.bib"), []byte("@article{k,\n title = {never closed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reg := registry()
	env := &sources.Env{Vault: lib}
	for name, want := range map[string]string{
		"bib:library/broken.bib":      "library/broken.bib: malformed BibTeX: line 2: a brace opened here is never closed",
		"bib:library/refs.bib/nosuch": `not found: library/refs.bib has no entry "nosuch"`,
		"bib:notes/ideas.txt":         "not found: a bib name is a .bib file",
		"bib:library/missing.bib":     "not found",
		"bib:../outside.bib":          "not part of this source",
	} {
		_, ok, err := reg.Resolve(ctx, name, env)
		if !ok || err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), root) {
			t.Errorf("Resolve(%q) = %v, %v; want an error containing %q", name, ok, err, want)
		}
	}
	// An Open whose config names another file than the source is refused.
	_, err := reg.Open(ctx, grant.Ref{Kind: bib.Kind, Path: "library/refs.bib", Config: []byte(`{"file":"library/broken.bib"}`)}, env)
	if err == nil {
		t.Error("Open with a config naming another file succeeded")
	}
}

// A file with no entries is a source with nothing to find, not an error.
func TestEmptyFile(t *testing.T) {
	root, lib := newVault(t)
	if err := os.WriteFile(filepath.Join(root, "library", "empty.bib"), []byte("% nothing yet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reg := registry()
	env := &sources.Env{Vault: lib}
	n, _, err := reg.Resolve(ctx, "bib:library/empty.bib", env)
	if err != nil {
		t.Fatal(err)
	}
	src, err := reg.Open(ctx, n.Ref, env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(ctx, sources.Query{Text: "attention", Limit: 3})
	if err != nil || len(res.Hits) != 0 {
		t.Errorf("search: %+v, %v", res, err)
	}
	doc, err := src.Read(ctx, "")
	if err != nil || doc.Parts[0].Text != "No entries.\n" || n.Ref.Title != "empty.bib (BibTeX, 0 entries)" {
		t.Errorf("catalogue: %+v, %v; title %q", doc, err, n.Ref.Title)
	}
}

// Further PDFs keep their file names, spaces included, as the last
// segment of their document paths.
func TestFurtherFileNames(t *testing.T) {
	root, lib := newVault(t)
	bibText := "@misc{k, title = {T}, file = {A:../papers/2401.01234/2401.01234.pdf:application/pdf;" +
		"B:../papers/2403.05678/Full Text - Feld 2024.pdf:application/pdf;C:../papers/2406.09876/Full Text - Feld 2024.pdf:application/pdf}}"
	if err := os.WriteFile(filepath.Join(root, "library", "names.bib"), []byte(bibText), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reg := registry()
	env := &sources.Env{Vault: lib}
	n, _, err := reg.Resolve(ctx, "bib:library/names.bib/k", env)
	if err != nil || n.Doc != "library/names.bib/k" {
		t.Fatalf("Resolve: %+v, %v", n, err)
	}
	src, err := reg.Open(ctx, n.Ref, env)
	if err != nil {
		t.Fatal(err)
	}
	inner, _, err := src.(sources.Container).Inner(ctx, "library/names.bib/k")
	if err != nil {
		t.Fatal(err)
	}
	m, err := inner.(sources.Describer).Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"library/names.bib/k", "library/names.bib/k/Full Text - Feld 2024.pdf", "library/names.bib/k/2-Full Text - Feld 2024.pdf"}
	if d := cmp.Diff(want, m.Documents); d != "" {
		t.Errorf("documents (-want +got):\n%s", d)
	}
}

// A Zotero storage folder holds loose PDFs, outside any paper unit: an
// entry naming one is read and searched through the Vault's file source.
// It runs where the file source reads PDFs as documents with pages.
func TestZoteroStorage(t *testing.T) {
	root, lib := newVault(t)
	data, err := os.ReadFile(filepath.Join(root, "papers", "2401.01234", "2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "storage", "AB12CD34")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Okafor - 2024.pdf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := lib.Document(ctx, "storage/AB12CD34/Okafor - 2024.pdf"); errors.Is(err, sources.ErrNotText) {
		t.Skip("the file source does not read PDFs as documents in this build")
	}
	bibText := "@article{okafor2024, title = {Strided Block Attention}, file = {Full Text PDF:../storage/AB12CD34/Okafor - 2024.pdf:application/pdf}}"
	if err := os.WriteFile(filepath.Join(root, "library", "zotero.bib"), []byte(bibText), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := registry()
	env := &sources.Env{Vault: lib}
	n, _, err := reg.Resolve(ctx, "bib:library/zotero.bib", env)
	if err != nil {
		t.Fatal(err)
	}
	src, err := reg.Open(ctx, n.Ref, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := sourcetest.Test(ctx, src, "strided global tokens"); err != nil {
		t.Fatal(err)
	}
	doc, err := src.Read(ctx, "library/zotero.bib/okafor2024")
	if err != nil || doc.Pages != 3 || len(doc.Parts) != 4 {
		t.Fatalf("entry: %+v, %v", doc, err)
	}
	res, err := src.Search(ctx, sources.Query{Text: "the gate matters", Limit: 1})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "library/zotero.bib/okafor2024" || res.Hits[0].Page != 2 {
		t.Fatalf("search: %+v, %v", res, err)
	}
}
