package bib_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/examples/internal/corpus"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
)

// Real arXiv PDFs from the shared corpus, named by a Zotero-style export
// with absolute paths inside the Vault: the source passes sourcetest and a
// search finds the passage in the right paper, on its page.
func TestCorpusExport(t *testing.T) {
	pdfs := corpus.Dir(t, "pdfs")
	root := t.TempDir()
	papers := map[string]string{
		"vaswani2017": "1706.03762",
		"he2016":      "1512.03385",
		"ioffe2015":   "1502.03167",
	}
	var bibText strings.Builder
	for key, id := range papers {
		dir := filepath.Join(root, "papers", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(pdfs, "arxiv-"+id+".pdf"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".pdf"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "NOTES.md"), []byte("# Notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&bibText, "@article{%s,\n  title = {arXiv %s},\n  eprint = {%s}, archivePrefix = {arXiv},\n  file = {Full Text:%s:application/pdf}\n}\n\n",
			key, id, id, strings.ReplaceAll(filepath.ToSlash(filepath.Join(dir, id+".pdf")), ":", `\:`))
	}
	if err := os.WriteFile(filepath.Join(root, "refs.bib"), []byte(bibText.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ctx := context.Background()
	env := &sources.Env{Vault: lib}
	reg := registry()
	n, _, err := reg.Resolve(ctx, "bib:refs.bib", env)
	if err != nil {
		t.Fatal(err)
	}
	src, err := reg.Open(ctx, n.Ref, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := sourcetest.Test(ctx, src, "residual learning"); err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(ctx, sources.Query{Text: "scaled dot-product attention", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Path != "refs.bib/vaswani2017" || res.Hits[0].Page < 1 {
		t.Fatalf("hits: %+v", res.Hits)
	}
	doc, err := src.Read(ctx, "refs.bib/he2016")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages < 9 || len(doc.Parts) != doc.Pages+1 || strings.Contains(doc.Parts[0].Text, "not readable") {
		t.Errorf("he2016: %d pages, %d parts, record %q", doc.Pages, len(doc.Parts), doc.Parts[0].Text)
	}
}
