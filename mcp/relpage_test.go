package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/tools"
)

// writeRefs replaces the reference sidecar of paper with n references
// titled by title(i) and returns the titles.
func writeRefs(t *testing.T, vault, paper string, n int, title func(i int) string) []string {
	t.Helper()
	var titles []string
	var cites []map[string]any
	for i := range n {
		titles = append(titles, title(i))
		cites = append(cites, map[string]any{"id": fmt.Sprintf("c%d", i+1), "metadata": map[string]any{
			"title": title(i), "year": 2020, "arxivId": fmt.Sprintf("2001.%05d", i+1)}})
	}
	data, err := json.Marshal(map[string]any{"schemaVersion": 1, "citations": cites})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, paper, "source", "agentero-cite.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return titles
}

// TestRelationsCutToFit: a page the server cuts to fit one tool result
// hands out a cursor that goes on from the first card it left out, so no
// card is lost between pages.
func TestRelationsCutToFit(t *testing.T) {
	const paper = "papers/2401.01234"
	vault := vaultfix.Sample(t)
	want := writeRefs(t, vault, paper, 600, func(i int) string {
		return fmt.Sprintf("Long reference %03d", i+1) + strings.Repeat(" on sparse attention", 9)
	})
	req := demoRequest(vault)
	req.Budget = &grant.BudgetOverrides{ReadChars: intp(100_000), TurnChars: intp(400_000), SearchCards: intp(50)}
	cs := serveGrant(t, writeGrant(t, req))
	args := map[string]any{"paper": paper, "kind": "references", "limit": 250}
	var got []string
	cut := false
	for page := 0; page < 20; page++ {
		res := call(t, cs, grant.ToolRelations, args)
		mustOK(t, res)
		cut = cut || strings.Contains(text(res), cutNote)
		var out tools.RelationsOutput
		decode(t, res, &out)
		for _, c := range out.References {
			got = append(got, c.Title)
		}
		if out.Remaining.References != len(want)-len(got) {
			t.Errorf("page %d: remaining %d, want %d", page, out.Remaining.References, len(want)-len(got))
		}
		if out.NextCursor == "" {
			break
		}
		args = map[string]any{"paper": paper, "cursor": out.NextCursor, "limit": 250}
	}
	if !cut {
		t.Error("no page was cut to fit: the test does not test the cut")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("references over all pages (-want +got):\n%s", diff)
	}
}

// TestProcessRelationsPaging: through two real server processes of one
// grant, taking turns, the cursor of paper_relations reaches every one of
// 45 references once, in order; the text says how many remain and how to
// get them; every card handed out is logged; a garbage cursor is a one-line
// tool error.
func TestProcessRelationsPaging(t *testing.T) {
	t.Parallel()
	const paper = "papers/2401.01234"
	vault := vaultfix.Sample(t)
	want := writeRefs(t, vault, paper, 45, func(i int) string { return fmt.Sprintf("Paged reference %02d", i+1) })
	gr := writeGrant(t, demoRequest(vault))
	servers := []*server{startServer(t, gr, ""), startServer(t, gr, "")}

	args := map[string]any{"paper": paper, "kind": "references", "limit": 20}
	var got, handed []string
	for page := 0; page < 5; page++ {
		res := call(t, servers[page%2].cs, grant.ToolRelations, args)
		mustOK(t, res)
		var out tools.RelationsOutput
		decode(t, res, &out)
		for _, c := range out.References {
			got = append(got, c.Title)
			handed = append(handed, c.CitationURI)
		}
		left := len(want) - len(got)
		// Cards are numbered by their place in the whole list.
		from := len(got) - len(out.References) + 1
		head := fmt.Sprintf("References (%d–%d of %d):\n%d. \"Paged reference %02d\"", from, len(got), len(want), from, from)
		if !strings.Contains(text(res), head) {
			t.Errorf("page %d: text lacks %q:\n%s", page, head, text(res))
		}
		if out.Remaining.References != left {
			t.Errorf("page %d: remaining %+v, want %d references", page, out.Remaining, left)
		}
		if out.NextCursor == "" {
			if left != 0 || strings.Contains(text(res), "cursor") {
				t.Errorf("page %d: no cursor with %d left; text %s", page, left, text(res))
			}
			break
		}
		wantLine := fmt.Sprintf("More on later pages: %d references. To continue, call paper_relations again with cursor %q.", left, out.NextCursor)
		if !strings.Contains(text(res), wantLine) || !strings.Contains(out.Note, out.NextCursor) {
			t.Errorf("page %d: text lacks %q:\n%s\nnote %q", page, wantLine, text(res), out.Note)
		}
		args = map[string]any{"paper": paper, "cursor": out.NextCursor, "limit": 20}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("references over all pages (-want +got):\n%s", diff)
	}
	var logged []string
	for _, l := range turnUsage(t, gr, "turn-1").Lines {
		if l.Tool == grant.ToolRelations {
			logged = append(logged, l.URIs...)
		}
	}
	if diff := cmp.Diff(handed, logged); diff != "" {
		t.Errorf("logged card URIs (-handed +logged):\n%s", diff)
	}
	res := call(t, servers[0].cs, grant.ToolRelations, map[string]any{"paper": paper, "cursor": "next-page"})
	if msg := text(res); !res.IsError || strings.Contains(msg, "\n") || !strings.Contains(msg, "cursor is not one this server handed out") || strings.Contains(msg, vault) {
		t.Errorf("garbage cursor: isError %v, %q", res.IsError, msg)
	}
	for _, s := range servers {
		if err := s.close(); err != nil {
			t.Errorf("server exit: %v", err)
		}
	}
}
