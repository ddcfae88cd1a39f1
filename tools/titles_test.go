package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/tools"
)

// A document has one title: the plan's source, the prompt's evidence, the
// search cards and context_read all give the one context_read shows, for
// a paper without metadata.json (the PDF's title, not its folder's name),
// a loose PDF (its own title, not its file name) and the sample vault's
// papers. Real PDFs: the corpus laid out as a library and as downloads.
func TestOneTitle(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every corpus PDF")
	}
	pdfs := corpus.Dir(t, "pdfs")
	dir := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(pdfs)
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{"papers/2401.01234": "papers/2401.01234/2401.01234.pdf", "papers/2403.05678": "papers/2403.05678/2403.05678.pdf"}
	var mentions []string
	var sels []researchctx.Selection
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".pdf") || strings.Contains(name, "scan") || strings.Contains(name, "-ocr") {
			continue // a scan's title is the OCR's to find
		}
		data, err := os.ReadFile(filepath.Join(pdfs, name))
		if err != nil {
			t.Fatal(err)
		}
		target, file := "downloads/"+name, "downloads/"+name
		if id, ok := strings.CutPrefix(strings.TrimSuffix(name, ".pdf"), "arxiv-"); ok {
			// The README's layout: the PDF alone, named after its folder.
			target, file = "papers/"+id, "papers/"+id+"/"+id+".pdf"
		}
		full := filepath.Join(dir, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
		targets[target] = file
		if len(sels) < 6 {
			sels = append(sels, researchctx.Selection{Path: file, Page: 1, Text: "words the user selected"})
		} else {
			mentions = append(mentions, target)
		}
	}
	sels = append(sels, researchctx.Selection{Path: "papers/2401.01234/2401.01234.pdf", Page: 1, Text: "A block size of 256 tokens was the best trade-off in our experiments"})
	mentions = append(mentions, "papers/2403.05678")

	var res researchctx.Resolver
	defer res.Close()
	big, turn := grant.MaxBudget().ReadChars, grant.MaxBudget().TurnChars
	plan, err := res.Resolve(context.Background(), researchctx.Request{
		Vault: dir, RuntimeID: "rt", TurnID: "turn-1", Selections: sels, Mentions: mentions,
		Budget: &grant.BudgetOverrides{ReadChars: &big, TurnChars: &turn},
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
	defer ts.Close()

	shown := map[string]string{} // by target and by file: the title context_read shows
	for target, file := range targets {
		out, err := ts.Read(context.Background(), tools.ReadInput{Target: target, Mode: tools.ReadMetadata})
		if err != nil {
			t.Fatalf("context_read %s: %v", target, err)
		}
		if out.Title == "" || out.Title == filepath.Base(target) {
			t.Errorf("context_read %s: title %q, want the PDF's own", target, out.Title)
		}
		shown[target], shown[file] = out.Title, out.Title
	}
	if len(plan.Sources) != len(targets) {
		t.Errorf("%d sources, want %d", len(plan.Sources), len(targets))
	}
	for _, s := range plan.Sources {
		if s.Title != shown[s.Path] {
			t.Errorf("plan source %s titled %q, context_read shows %q", s.Path, s.Title, shown[s.Path])
		}
	}
	if len(plan.Evidence) != len(sels) {
		t.Fatalf("%d evidence items, want %d", len(plan.Evidence), len(sels))
	}
	for _, ev := range plan.Evidence {
		if ev.Title != shown[ev.Path] {
			t.Errorf("evidence from %s titled %q, context_read shows %q", ev.Path, ev.Title, shown[ev.Path])
		}
	}
	sr, err := ts.Search(context.Background(), tools.SearchInput{Query: "introduction results", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(sr.Cards) == 0 {
		t.Fatal("no cards")
	}
	for _, c := range sr.Cards {
		if want, ok := shown[c.Path]; ok && c.Title != want {
			t.Errorf("card from %s titled %q, context_read shows %q", c.Path, c.Title, want)
		}
	}
}
