package vault_test

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// TestUntitledPaperTakesItsPDFsTitle: a library paper without metadata.json
// (a PDF and NOTES.md) is titled as its PDF titles itself on the relation
// cards that name it and by its source; Stat, which reads no PDF, gives its
// folder's name, as PaperInfo says.
func TestUntitledPaperTakesItsPDFsTitle(t *testing.T) {
	pdf, err := os.ReadFile(filepath.Join(corpus.Dir(t, "pdfs"), "arxiv-1706.03762.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, body := range map[string][]byte{
		// Cited by the untitled paper's reference section (abs/1409.0473).
		"papers/bahdanau/metadata.json": []byte(`{"title": "Neural Machine Translation by Jointly Learning to Align and Translate", "arxiv_id": "1409.0473"}`),
		"papers/vaswani/vaswani.pdf":    pdf,
		"papers/vaswani/NOTES.md":       []byte("Read again before the group meeting.\n"),
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := vault.OpenLibrary(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ctx := context.Background()
	const want = "Attention Is All You Need"
	for _, p := range []string{"papers/vaswani", "papers/vaswani/vaswani.pdf", "papers/vaswani/NOTES.md"} {
		it, err := lib.Stat(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if it.Paper == nil || it.Paper.Title != "vaswani" {
			t.Errorf("Stat(%s).Paper = %+v, want the folder's name as title", p, it.Paper)
		}
	}
	paper, err := lib.Open(ctx, grant.KindPaper, "papers/vaswani")
	if err != nil {
		t.Fatal(err)
	}
	if got := paper.Info().Title; got != want {
		t.Errorf("the paper source's title %q, want %q", got, want)
	}
	src, err := lib.Open(ctx, grant.KindPaper, "papers/bahdanau")
	if err != nil {
		t.Fatal(err)
	}
	rels, err := src.(sources.Relater).Relations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range rels.CitedBy {
		if w.Paper == "papers/vaswani" {
			found = true
			if w.Title != want {
				t.Errorf("cited-by card of the untitled paper: title %q, want %q", w.Title, want)
			}
		}
	}
	if !found {
		t.Errorf("cited by %+v, want papers/vaswani among them", rels.CitedBy)
	}
}

// TestPaperWithoutIdentifiersMatchedByItsPDF: papers without metadata.json
// are known by the identifier their PDF shows (the arXiv stamp), so a
// reference to one is that library paper, cited by its PDF as the related
// list cites it, never also by its arXiv link.
func TestPaperWithoutIdentifiersMatchedByItsPDF(t *testing.T) {
	ids := []string{"1706.03762", "1409.0473", "1607.06450"}
	dir := t.TempDir()
	for _, id := range ids {
		pdf, err := os.ReadFile(filepath.Join(corpus.Dir(t, "pdfs"), "arxiv-"+id+".pdf"))
		if err != nil {
			t.Fatal(err)
		}
		unit := filepath.Join(dir, "papers", id)
		if err := os.MkdirAll(unit, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string][]byte{id + ".pdf": pdf, "NOTES.md": []byte("To read.\n")} {
			if err := os.WriteFile(filepath.Join(unit, name), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	lib, err := vault.OpenLibrary(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ctx := context.Background()
	rels := map[string]*sources.Relations{}
	for _, id := range ids {
		src, err := lib.Open(ctx, grant.KindPaper, "papers/"+id)
		if err != nil {
			t.Fatal(err)
		}
		if rels[id], err = src.(sources.Relater).Relations(ctx); err != nil {
			t.Fatal(err)
		}
	}
	has := func(ws []sources.Work, ref string) bool {
		for _, w := range ws {
			if w.Paper == ref && w.CitationURI == ref+"/"+path.Base(ref)+".pdf" {
				return true
			}
		}
		return false
	}
	// The Transformer paper cites both others; they are cited by it.
	for _, id := range []string{"1409.0473", "1607.06450"} {
		if !has(rels["1706.03762"].References, "papers/"+id) {
			t.Errorf("references of 1706.03762 lack the library paper papers/%s: %+v", id, rels["1706.03762"].References)
		}
		if !has(rels[id].CitedBy, "papers/1706.03762") {
			t.Errorf("cited by of %s lacks papers/1706.03762: %+v", id, rels[id].CitedBy)
		}
	}
	// A second library on the vault (a new process) reads the
	// identifiers back from the cache with the references.
	lib2, err := vault.OpenLibrary(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lib2.Close()
	src, err := lib2.Open(ctx, grant.KindPaper, "papers/1706.03762")
	if err != nil {
		t.Fatal(err)
	}
	again, err := src.(sources.Relater).Relations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !has(again.References, "papers/1409.0473") {
		t.Errorf("from the cache, references of 1706.03762 lack papers/1409.0473: %+v", again.References)
	}
	for id, r := range rels {
		for _, l := range [][]sources.Work{r.References, r.CitedBy, r.Related} {
			for _, w := range l {
				if slices.Contains(ids, w.ArXivID) && w.Paper == "" {
					t.Errorf("relations of %s: a card of library paper %s by its link only: %+v", id, w.ArXivID, w)
				}
			}
		}
	}
}
