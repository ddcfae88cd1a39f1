package mcp

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
)

// These tests run the real Toolset over the sample Vault behind the MCP
// server, with an in-memory client: every tool, every read mode, every kind
// of refusal, as a model sees them.

func TestSearchOverMCP(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	cs := serveGrant(t, gr)

	tests := []struct {
		name     string
		args     map[string]any
		wantPath string // a card must come from this file
	}{
		{"paper text", map[string]any{"query": "strided global tokens blunt instrument"}, "papers/2401.01234/2401.01234.pdf"},
		{"two-column paper", map[string]any{"query": "slot routing slower per token"}, "papers/2403.05678/2403.05678.pdf"},
		{"directory, Chinese", map[string]any{"query": "召回率", "source": "notes"}, "notes/meeting 2024-03-12.md"},
		{"directory, Japanese", map[string]any{"query": "局所窓", "source": "notes"}, "notes/ideas.txt"},
		{"one card", map[string]any{"query": "attention", "limit": 1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, grant.ToolSearch, tt.args)
			mustOK(t, res)
			var out tools.SearchOutput
			decode(t, res, &out)
			if len(out.Cards) == 0 {
				t.Fatalf("no cards:\n%s", text(res))
			}
			if lim, ok := tt.args["limit"].(int); ok && len(out.Cards) > lim {
				t.Errorf("%d cards, want ≤ %d", len(out.Cards), lim)
			}
			found := tt.wantPath == ""
			for _, c := range out.Cards {
				if c.Path == tt.wantPath {
					found = true
				}
				if c.CitationURI != "" && !strings.Contains(text(res), "cite: "+c.CitationURI) {
					t.Errorf("text rendering lacks %q", c.CitationURI)
				}
				if c.Excerpt == "" || strings.Contains(c.Excerpt, "not-a-real-secret") {
					t.Errorf("card excerpt %q", c.Excerpt)
				}
			}
			if !found {
				t.Errorf("no card from %s:\n%s", tt.wantPath, text(res))
			}
			if out.Budget.Used <= 0 || out.Budget.Remaining <= 0 {
				t.Errorf("budget report %+v", out.Budget)
			}
			if !strings.Contains(text(res), "Budget:") {
				t.Errorf("text rendering lacks the budget line")
			}
		})
	}
}

func TestReadOverMCP(t *testing.T) {
	vault := vaultfix.Sample(t)
	req := demoRequest(vault)
	req.Budget = &grant.BudgetOverrides{ReadChars: intp(1500)}
	gr := writeGrant(t, req)
	cs := serveGrant(t, gr)

	tests := []struct {
		name     string
		args     map[string]any
		check    func(t *testing.T, out *tools.ReadOutput)
		wantText string // in the text rendering
	}{
		{
			name: "metadata (default)",
			args: map[string]any{"target": "papers/2401.01234"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if out.Mode != tools.ReadMetadata || out.Pages != 3 || len(out.Sections) == 0 {
					t.Errorf("mode %q, pages %d, %d sections", out.Mode, out.Pages, len(out.Sections))
				}
			},
			wantText: "Strided Block Attention for Long Document Encoding",
		},
		{
			name: "excerpt",
			args: map[string]any{"target": "papers/2401.01234", "mode": "excerpt", "quote": "A block size of 256 tokens was the best trade-off"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if out.Page != 1 || !strings.Contains(out.CitationURI, "#page=1") {
					t.Errorf("page %d, uri %q", out.Page, out.CitationURI)
				}
			},
			wantText: "256 tokens",
		},
		{
			name: "excerpt across a hyphenated line end",
			args: map[string]any{"target": "papers/2403.05678", "quote": "wherever they occur in the document"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if out.Mode != tools.ReadExcerpt || out.Page != 1 {
					t.Errorf("mode %q, page %d", out.Mode, out.Page)
				}
			},
		},
		{
			name: "page",
			args: map[string]any{"target": "papers/2401.01234", "mode": "page", "page": 2},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if out.Page != 2 || out.CitationURI != "papers/2401.01234/2401.01234.pdf#page=2" {
					t.Errorf("page %d, uri %q", out.Page, out.CitationURI)
				}
			},
			wantText: "page 2",
		},
		{
			name: "page with a printed label",
			args: map[string]any{"target": "papers/2406.09876/2406.09876.pdf#page=3"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if out.Page != 3 || out.PageLabel != "2" {
					t.Errorf("page %d label %q", out.Page, out.PageLabel)
				}
			},
			wantText: "(printed 2)",
		},
		{
			name: "region",
			args: map[string]any{"target": "papers/2401.01234", "mode": "region", "region": "figure-1"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if out.Page != 2 || out.CitationURI == "" {
					t.Errorf("page %d, uri %q", out.Page, out.CitationURI)
				}
			},
		},
		{
			name: "section of a note by citation URI",
			args: map[string]any{"target": "notes/meeting%202024-03-12.md#section=Slot%20routing%20results"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if out.Mode != tools.ReadSection || out.Text == "" {
					t.Errorf("mode %q, text %q", out.Mode, out.Text)
				}
			},
		},
		{
			name: "full, cut and paged",
			args: map[string]any{"target": "papers/2401.01234", "mode": "full"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if !out.Truncated || out.NextCursor == "" {
					t.Errorf("truncated %v, cursor %q", out.Truncated, out.NextCursor)
				}
			},
			wantText: "cursor",
		},
		{
			name: "directory lists one level, no hidden files",
			args: map[string]any{"target": "notes"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				var names []string
				for _, e := range out.Entries {
					names = append(names, e.Name)
				}
				if !slices.Contains(names, "ideas.txt") || !slices.Contains(names, "archive") || slices.Contains(names, ".secret") {
					t.Errorf("entries %v", names)
				}
				if out.Text != "" {
					t.Errorf("a directory read returned text")
				}
			},
			wantText: "ideas.txt",
		},
		{
			name: "file in a granted directory",
			args: map[string]any{"target": "notes/ideas.txt", "mode": "full"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if !strings.Contains(out.Text, "局所窓") {
					t.Errorf("text %q", out.Text)
				}
			},
		},
		{
			name: "extensionless plain file",
			args: map[string]any{"target": "reading-list", "mode": "full"},
			check: func(t *testing.T, out *tools.ReadOutput) {
				if !strings.Contains(out.Text, "papers/2401.01234") {
					t.Errorf("text %q", out.Text)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, grant.ToolRead, tt.args)
			mustOK(t, res)
			var out tools.ReadOutput
			decode(t, res, &out)
			tt.check(t, &out)
			if tt.wantText != "" && !strings.Contains(text(res), tt.wantText) {
				t.Errorf("text rendering lacks %q:\n%s", tt.wantText, text(res))
			}
			if out.Text != "" && !strings.Contains(text(res), quoteOpen) {
				t.Errorf("text not fenced as quoted data:\n%s", text(res))
			}
			if out.CitationURI != "" && !strings.Contains(text(res), "cite: "+out.CitationURI) {
				t.Errorf("text rendering lacks the citation URI %q", out.CitationURI)
			}
		})
	}

	t.Run("cursor continues", func(t *testing.T) {
		var first, second tools.ReadOutput
		decode(t, call(t, cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234", "mode": "full"}), &first)
		res := call(t, cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234", "mode": "full", "cursor": first.NextCursor})
		mustOK(t, res)
		decode(t, res, &second)
		if second.Text == "" || second.Text == first.Text {
			t.Errorf("second page of text %q", second.Text)
		}
	})
}

func TestRelationsOverMCP(t *testing.T) {
	vault := vaultfix.Sample(t)
	cs := serveGrant(t, writeGrant(t, demoRequest(vault)))

	res := call(t, cs, grant.ToolRelations, map[string]any{"paper": "papers/2401.01234"})
	mustOK(t, res)
	var out tools.RelationsOutput
	decode(t, res, &out)
	byTitle := map[string]tools.RelationCard{}
	for _, l := range [][]tools.RelationCard{out.References, out.CitedBy, out.Related} {
		for _, c := range l {
			byTitle[c.Title] = c
		}
	}
	var resnet, repro bool
	for _, c := range out.References {
		if c.PaperPath == "papers/vision/resnet-like" {
			resnet = true
			if c.InGrant {
				t.Errorf("resnet-like is not granted but marked inGrant")
			}
		}
	}
	for _, c := range out.CitedBy {
		if strings.Contains(c.Title, "Reproduction Study") {
			repro = true
			if c.PaperPath != "" || c.CitationURI != "https://doi.org/10.5555/repro.2024.0310" {
				t.Errorf("reproduction card %+v", c)
			}
		}
	}
	if !resnet || !repro {
		t.Errorf("references to resnet-like %v, reproduction study in cited-by %v:\n%s", resnet, repro, text(res))
	}
	if len(out.Related) == 0 {
		t.Errorf("no related papers")
	}
	for _, want := range []string{"References (", "Cited by (", "Related in the library (", "in library, not granted"} {
		if !strings.Contains(text(res), want) {
			t.Errorf("text rendering lacks %q", want)
		}
	}

	one := call(t, cs, grant.ToolRelations, map[string]any{"paper": "papers/2401.01234", "kind": "cited_by", "limit": 1})
	mustOK(t, one)
	var slim tools.RelationsOutput
	decode(t, one, &slim)
	if len(slim.CitedBy) != 1 || len(slim.References) != 0 || len(slim.Related) != 0 {
		t.Errorf("kind cited_by limit 1: %d references, %d cited by, %d related", len(slim.References), len(slim.CitedBy), len(slim.Related))
	}
}

// TestRefusals: what the model may not do comes back as an isError result
// with a one-line message, and nothing is handed out.
func TestRefusals(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	cs := serveGrant(t, gr)

	tests := []struct {
		name string
		tool string
		args map[string]any
		want error // the tools sentinel whose message the result starts with
	}{
		{"paper named by a relation card, not granted", grant.ToolRead, map[string]any{"target": "papers/vision/resnet-like"}, tools.ErrNotGranted},
		{"hidden file in a granted directory", grant.ToolRead, map[string]any{"target": "notes/.secret", "mode": "full"}, nil},
		{"missing file", grant.ToolRead, map[string]any{"target": "notes/nope.md"}, sources.ErrNotFound},
		{"unknown mode", grant.ToolRead, map[string]any{"target": "papers/2401.01234", "mode": "everything"}, tools.ErrInvalidArgument},
		{"page out of range", grant.ToolRead, map[string]any{"target": "papers/2401.01234", "page": 99}, nil},
		{"unknown region", grant.ToolRead, map[string]any{"target": "papers/2401.01234", "region": "figure-99"}, nil},
		{"text of a directory", grant.ToolRead, map[string]any{"target": "notes", "mode": "full"}, tools.ErrInvalidArgument},
		{"external link", grant.ToolRead, map[string]any{"target": "https://arxiv.org/abs/1706.03762"}, tools.ErrNotGranted},
		{"binary file", grant.ToolRead, map[string]any{"target": "notes/archive/whiteboard.png", "mode": "full"}, nil},
		{"forged cursor", grant.ToolRead, map[string]any{"target": "papers/2401.01234", "cursor": "eyJ0IjoiLi4vLi4ifQ"}, nil},
		{"search of an ungranted source", grant.ToolSearch, map[string]any{"query": "gate", "source": "papers/vision/resnet-like"}, tools.ErrNotGranted},
		{"empty query", grant.ToolSearch, map[string]any{"query": "  "}, tools.ErrInvalidArgument},
		{"relations of a directory", grant.ToolRelations, map[string]any{"paper": "notes"}, nil},
		{"relations of an ungranted paper", grant.ToolRelations, map[string]any{"paper": "papers/vision/resnet-like"}, tools.ErrNotGranted},
		{"unknown relation kind", grant.ToolRelations, map[string]any{"paper": "papers/2401.01234", "kind": "siblings"}, tools.ErrInvalidArgument},
	}
	before := turnUsage(t, gr, "turn-1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			msg := text(res)
			if !res.IsError {
				t.Fatalf("accepted: %s", msg)
			}
			if tt.want != nil && !strings.HasPrefix(msg, tt.want.Error()) {
				t.Errorf("message %q, want it to start with %q", msg, tt.want)
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, vault) || strings.Contains(msg, "not-a-real-secret") {
				t.Errorf("message %q: more than one line, a Vault path or content", msg)
			}
			if res.StructuredContent != nil {
				t.Errorf("structured content on an error: %v", res.StructuredContent)
			}
		})
	}
	if after := turnUsage(t, gr, "turn-1"); after.Chars != before.Chars || len(after.Sources) != len(before.Sources) {
		t.Errorf("refusals used the budget: %+v → %+v", before, after)
	}
}

// TestUsageAndBudget: every successful call appends a usage line with the
// URIs it handed out, and a spent budget is an error saying so.
func TestUsageAndBudget(t *testing.T) {
	vault := vaultfix.Sample(t)
	req := demoRequest(vault)
	req.Budget = &grant.BudgetOverrides{TurnChars: intp(3000), ReadChars: intp(2000)}
	gr := writeGrant(t, req)
	cs := serveGrant(t, gr)

	var uris []string
	calls := 0
	for i := range 10 {
		res := call(t, cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234", "page": 1 + i%3})
		if res.IsError {
			if !strings.HasPrefix(text(res), tools.ErrBudgetSpent.Error()) {
				t.Fatalf("call %d: %s", i, text(res))
			}
			break
		}
		calls++
		var out tools.ReadOutput
		decode(t, res, &out)
		uris = append(uris, out.CitationURI)
		if out.Budget.Used > 3000 {
			t.Errorf("budget used %d of 3000", out.Budget.Used)
		}
	}
	if calls == 0 || calls == 10 {
		t.Fatalf("%d calls before the budget was spent", calls)
	}
	u := turnUsage(t, gr, "turn-1")
	if u.Calls != calls {
		t.Errorf("%d usage lines, want %d", u.Calls, calls)
	}
	for _, uri := range uris {
		if !slices.Contains(u.URIs(), uri) {
			t.Errorf("usage sources %v lack %q", u.Sources, uri)
		}
	}
}

// TestGrantChangedInMemory: a grant deleted, rewritten with another scope
// or with a forged fingerprint fails every call closed.
func TestGrantChangedInMemory(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, vault, gr string)
	}{
		{"deleted", func(t *testing.T, vault, gr string) {
			if err := os.Remove(gr); err != nil {
				t.Fatal(err)
			}
		}},
		{"scope rewritten", func(t *testing.T, vault, gr string) { rewriteGrant(t, vault) }},
		{"fingerprint forged", func(t *testing.T, vault, gr string) { forgeFingerprint(t, gr) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vault := vaultfix.Sample(t)
			gr := writeGrant(t, demoRequest(vault))
			cs := serveGrant(t, gr)
			mustOK(t, call(t, cs, grant.ToolSearch, map[string]any{"query": "gate"}))
			tt.change(t, vault, gr)
			for tool, args := range map[string]map[string]any{
				grant.ToolSearch:    {"query": "gate"},
				grant.ToolRead:      {"target": "papers/2401.01234"},
				grant.ToolRelations: {"paper": "papers/2401.01234"},
			} {
				res := call(t, cs, tool, args)
				if !res.IsError || text(res) != tools.ErrGrantChanged.Error() {
					t.Errorf("%s after the grant changed: isError %v, %q", tool, res.IsError, text(res))
				}
			}
		})
	}
}

// TestSameScopeNewTurn: the host rewrites the grant every turn; the same
// scope keeps the session working, and the new turn has a fresh budget.
func TestSameScopeNewTurn(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	cs := serveGrant(t, gr)
	mustOK(t, call(t, cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234", "page": 1}))
	req := demoRequest(vault)
	req.TurnID = "turn-2"
	writeGrant(t, req)
	res := call(t, cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234", "page": 1})
	mustOK(t, res)
	if u := turnUsage(t, gr, "turn-2"); u.Calls != 1 {
		t.Errorf("turn-2 has %d usage lines, want 1", u.Calls)
	}
}

// TestResultCap: with the largest budget a grant may carry, a real read
// of a long file still comes back within maxResultChars.
func TestResultCap(t *testing.T) {
	vault := vaultfix.Sample(t)
	long := strings.Repeat("Sparse <attention> & \"global\" tokens.\n", 5000) // 190,000 characters
	if err := os.WriteFile(vault+"/notes/long.md", []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	req := demoRequest(vault)
	req.Budget = &grant.BudgetOverrides{
		ReadChars: intp(grant.MaxBudget().ReadChars), TurnChars: intp(grant.MaxBudget().TurnChars),
		SearchCards: intp(grant.MaxBudget().SearchCards), CardChars: intp(grant.MaxBudget().CardChars),
	}
	cs := serveGrant(t, writeGrant(t, req))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{grant.ToolRead, map[string]any{"target": "notes/long.md", "mode": "full"}},
		{grant.ToolSearch, map[string]any{"query": "sparse attention global tokens", "limit": 50}},
	} {
		res := call(t, cs, c.tool, c.args)
		mustOK(t, res)
		if n := size(t, res); n > maxResultChars {
			t.Errorf("%s: result of %d characters, want ≤ %d", c.tool, n, maxResultChars)
		} else {
			t.Logf("%s: result of %d characters", c.tool, n)
		}
	}
}
