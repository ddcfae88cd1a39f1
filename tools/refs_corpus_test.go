package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/tools"
)

// corpusLibraryToolset grants a vault of three real papers from the
// corpus, with metadata as their first pages print it and no reference
// sidecars: "Attention Is All You Need" cites the other two, Layer
// Normalization by its arXiv id and Deep Residual Learning by title only.
func corpusLibraryToolset(t *testing.T) *tools.Toolset {
	t.Helper()
	ts, _ := corpusLibraryGrant(t, "papers/1706.03762", "papers/1512.03385", "papers/1607.06450")
	return ts
}

// corpusLibraryGrant is corpusLibraryToolset granting the current paper
// and the mentioned ones only; it also returns the grant's path.
func corpusLibraryGrant(t *testing.T, current string, mentions ...string) (*tools.Toolset, string) {
	t.Helper()
	pdfs := corpus.Dir(t, "pdfs")
	dir := filepath.Join(t.TempDir(), "vault")
	for _, p := range []struct{ id, meta string }{
		{"1706.03762", `{"title": "Attention Is All You Need", "arxiv_id": "1706.03762", "year": 2017, "authors": ["Ashish Vaswani"]}`},
		{"1607.06450", `{"title": "Layer Normalization", "arxiv_id": "1607.06450", "year": 2016, "authors": ["Jimmy Lei Ba"]}`},
		{"1512.03385", `{"title": "Deep Residual Learning for Image Recognition", "year": 2015, "authors": ["Kaiming He"]}`},
	} {
		data, err := os.ReadFile(filepath.Join(pdfs, "arxiv-"+p.id+".pdf"))
		if err != nil {
			t.Fatal(err)
		}
		unit := filepath.Join(dir, "papers", p.id)
		if err := os.MkdirAll(unit, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string][]byte{p.id + ".pdf": data, "metadata.json": []byte(p.meta)} {
			if err := os.WriteFile(filepath.Join(unit, name), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var res researchctx.Resolver
	t.Cleanup(func() { res.Close() })
	plan, err := res.Resolve(context.Background(), researchctx.Request{
		Vault: dir, RuntimeID: "rt", TurnID: "turn-1", CurrentPaper: current, Mentions: mentions,
	})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts, gr
}

// TestRelationsFromCorpusPDFs reads references parsed from real PDFs
// through paper_relations: every card is titled and dated, the two library
// papers are linked by path, and cited-by is the reverse edge under the
// citing paper's own path.
func TestRelationsFromCorpusPDFs(t *testing.T) {
	ts := corpusLibraryToolset(t)
	ctx := context.Background()
	// Cards carry their citing sentences, so the 40 entries take more
	// than one page of the read budget: follow the cursor.
	out, err := ts.Relations(ctx, tools.RelationsInput{Paper: "papers/1706.03762", Kind: tools.RelReferences, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for next := out.NextCursor; next != ""; {
		page, err := ts.Relations(ctx, tools.RelationsInput{Cursor: next})
		if err != nil {
			t.Fatal(err)
		}
		out.References = append(out.References, page.References...)
		next = page.NextCursor
	}
	if len(out.References) != 40 {
		t.Errorf("%d reference cards, want the paper's 40 entries", len(out.References))
	}
	// Each library reference says why it is cited: its label and a
	// sentence of the paper's body on the page its URI names.
	for _, c := range out.References {
		if c.PaperPath == "" {
			continue
		}
		if c.Label == "" || len(c.Contexts) == 0 {
			t.Errorf("%s: label %q, %d contexts; want both", c.PaperPath, c.Label, len(c.Contexts))
			continue
		}
		for _, x := range c.Contexts {
			if !strings.Contains(x.Text, "["+c.Label) && !strings.Contains(x.Text, c.Label+"]") && !strings.Contains(x.Text, ", "+c.Label) {
				t.Errorf("%s: context %q does not cite [%s]", c.PaperPath, x.Text, c.Label)
			}
			if want := fmt.Sprintf("papers/1706.03762/1706.03762.pdf#page=%d", x.Page); x.CitationURI != want {
				t.Errorf("%s: context URI %q, want %q", c.PaperPath, x.CitationURI, want)
			}
		}
	}
	type card struct {
		Title string
		Year  int
		Path  string
	}
	var linked []card
	for _, c := range out.References {
		if c.Title == "" || c.Year == 0 {
			t.Errorf("card without title or year: %+v", c)
		}
		if c.PaperPath != "" {
			linked = append(linked, card{c.Title, c.Year, c.PaperPath})
		}
	}
	want := []card{
		{"Layer Normalization", 2016, "papers/1607.06450"},
		{"Deep Residual Learning for Image Recognition", 2015, "papers/1512.03385"},
	}
	if diff := cmp.Diff(want, linked); diff != "" {
		t.Errorf("library references (-want +got):\n%s", diff)
	}
	// Cards of works outside the library keep the entry's own title.
	if c := out.References[2]; c.Title != "Massive exploration of neural machine translation architectures" || c.ArXivID != "1703.03906" {
		t.Errorf("third card = %+v, want the parsed title with its arXiv id", c)
	}
	for _, cited := range []string{"papers/1512.03385", "papers/1607.06450"} {
		back, err := ts.Relations(ctx, tools.RelationsInput{Paper: cited, Kind: tools.RelCitedBy})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range back.CitedBy {
			got = append(got, c.Title+" | "+c.PaperPath+" | "+c.CitationURI)
			// The citing paper is granted: its sentences and its label
			// come along.
			if len(c.Contexts) == 0 || !strings.HasPrefix(c.Contexts[0].CitationURI, "papers/1706.03762/1706.03762.pdf#page=") {
				t.Errorf("%s cited-by %s: contexts %+v, want the citing paper's sentences", cited, c.PaperPath, c.Contexts)
			}
			if c.Label == "" {
				t.Errorf("%s cited-by %s: no label, want the granted citing paper's", cited, c.PaperPath)
			}
		}
		if diff := cmp.Diff([]string{"Attention Is All You Need | papers/1706.03762 | papers/1706.03762/1706.03762.pdf"}, got); diff != "" {
			t.Errorf("%s cited-by (-want +got):\n%s", cited, diff)
		}
	}
}

// TestRelationContextsStayInGrant: a cited-by card of a citing paper
// outside the grant carries no text of it, neither a sentence nor the
// label it cites the paper by, and the sentences a reference card quotes
// are logged as the turn's sources.
func TestRelationContextsStayInGrant(t *testing.T) {
	ctx := context.Background()
	ts, _ := corpusLibraryGrant(t, "papers/1512.03385")
	back, err := ts.Relations(ctx, tools.RelationsInput{Paper: "papers/1512.03385", Kind: tools.RelCitedBy})
	if err != nil {
		t.Fatal(err)
	}
	if len(back.CitedBy) == 0 {
		t.Fatal("no cited-by card")
	}
	for _, c := range back.CitedBy {
		if c.InGrant || len(c.Contexts) > 0 || c.Label != "" {
			t.Errorf("cited-by %s (in grant %v) carries %d contexts and label %q, want no text from outside the grant", c.PaperPath, c.InGrant, len(c.Contexts), c.Label)
		}
	}
	ts2, gr2 := corpusLibraryGrant(t, "papers/1706.03762")
	out, err := ts2.Relations(ctx, tools.RelationsInput{Paper: "papers/1706.03762", Kind: tools.RelReferences, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	var quoted []string
	for _, c := range out.References {
		for _, x := range c.Contexts {
			quoted = append(quoted, x.CitationURI)
		}
	}
	if len(quoted) == 0 {
		t.Fatal("no reference card quotes a sentence")
	}
	logged := map[string]bool{}
	for _, l := range usageOf(t, gr2).Lines {
		for _, u := range l.URIs {
			logged[u] = true
		}
	}
	for _, u := range quoted {
		if !logged[u] {
			t.Errorf("context %s is not logged as a source", u)
		}
	}
}

// TestRelationsOfLoosePDFs: PDFs in a folder without the paper layout are
// matched and matchable as papers are: a paper's references name them by
// their path (by the arXiv stamp or a title confirmed by what the PDF
// shows), and each lists the paper as citing it.
func TestRelationsOfLoosePDFs(t *testing.T) {
	pdfs := corpus.Dir(t, "pdfs")
	dir := filepath.Join(t.TempDir(), "vault")
	for rel, src := range map[string]string{
		"papers/1706.03762/1706.03762.pdf": "arxiv-1706.03762.pdf",
		"downloads/resnet.pdf":             "arxiv-1512.03385.pdf",
		"downloads/more/layernorm.pdf":     "arxiv-1607.06450.pdf",
	} {
		data, err := os.ReadFile(filepath.Join(pdfs, src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Titles only: the year and authors come from the PDF.
	if err := os.WriteFile(filepath.Join(dir, "papers", "1706.03762", "metadata.json"), []byte(`{"title": "Attention Is All You Need"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var res researchctx.Resolver
	t.Cleanup(func() { res.Close() })
	plan, err := res.Resolve(context.Background(), researchctx.Request{
		Vault: dir, RuntimeID: "rt", TurnID: "turn-1", CurrentPaper: "papers/1706.03762", Mentions: []string{"downloads"},
	})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	ctx := context.Background()
	var linked []string
	in := tools.RelationsInput{Paper: "papers/1706.03762", Kind: tools.RelReferences, Library: true}
	for {
		out, err := ts.Relations(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range out.References {
			linked = append(linked, c.PaperPath)
			if !c.InGrant || len(c.Contexts) == 0 {
				t.Errorf("%s: in grant %v, %d contexts", c.PaperPath, c.InGrant, len(c.Contexts))
			}
		}
		if out.NextCursor == "" {
			break
		}
		in = tools.RelationsInput{Cursor: out.NextCursor}
	}
	slices.Sort(linked)
	if diff := cmp.Diff([]string{"downloads/more/layernorm.pdf", "downloads/resnet.pdf"}, linked); diff != "" {
		t.Errorf("library references (-want +got):\n%s", diff)
	}
	for _, loose := range []string{"downloads/resnet.pdf", "downloads/more/layernorm.pdf"} {
		back, err := ts.Relations(ctx, tools.RelationsInput{Paper: loose, Kind: tools.RelCitedBy})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range back.CitedBy {
			got = append(got, c.PaperPath)
		}
		if diff := cmp.Diff([]string{"papers/1706.03762"}, got); diff != "" {
			t.Errorf("%s cited-by (-want +got):\n%s", loose, diff)
		}
	}
}
