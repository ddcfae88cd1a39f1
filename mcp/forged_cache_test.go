package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilevault"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/tools"
)

// TestProcessForgedCaches forges the two caches that map a granted paper to
// a file — the catalogue (paper → PDF) and the PDF cache's path record
// (PDF path → cached text) — after an earlier process wrote them, so that
// the granted papers/2401.01234 points at the ungranted private/secret.pdf,
// and checks through a real server process that no result serves its text
// and no usage line names it.
func TestProcessForgedCaches(t *testing.T) {
	t.Parallel()
	const paper, ownPDF, secret = "papers/2401.01234", "papers/2401.01234/2401.01234.pdf", "private/secret.pdf"
	vault := vaultfix.Sample(t)
	data, err := os.ReadFile(filepath.Join(vault, "papers/2403.05678/2403.05678.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(vault, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, secret), data, 0o644); err != nil {
		t.Fatal(err)
	}

	// An earlier turn that had both: it caches the catalogue, both PDFs'
	// text and their path records. A line of the secret's text that the
	// granted paper does not hold is the marker.
	wide := writeGrant(t, researchctx.Request{Vault: vault, RuntimeID: "rt-wide", TurnID: "turn-1", Mentions: []string{paper, secret}})
	narrow := writeGrant(t, researchctx.Request{Vault: vault, RuntimeID: "rt-narrow", TurnID: "turn-1", Mentions: []string{paper}})
	ts, err := tools.Open(context.Background(), wide, nil)
	if err != nil {
		t.Fatal(err)
	}
	readAll := func(target string) string {
		var b strings.Builder
		for page := 1; page <= 3; page++ {
			out, err := ts.Read(context.Background(), tools.ReadInput{Target: target, Mode: tools.ReadPage, Page: page})
			if err != nil {
				break
			}
			b.WriteString(out.Text)
		}
		return b.String()
	}
	secretText, ownText := readAll(secret), readAll(ownPDF)
	ts.Close()
	marker := ""
	lines := strings.Split(secretText, "\n")
	for _, line := range lines[len(lines)/2:] { // body text, not a title relation cards may show
		if line = strings.TrimSpace(line); len(line) >= 30 && !strings.Contains(ownText, line) {
			marker = line
			break
		}
	}
	if marker == "" || ownText == "" {
		t.Fatalf("no marker line: %d and %d characters read", len(secretText), len(ownText))
	}

	if err := hostilevault.ForgeCatalogue(vault, paper, secret); err != nil {
		t.Fatal(err)
	}
	if err := hostilevault.ForgePDFPathRecord(vault, ownPDF, secret); err != nil {
		t.Fatal(err)
	}

	s := startServer(t, narrow, "")
	words := strings.Join(strings.Fields(marker)[:min(6, len(strings.Fields(marker)))], " ")
	calls := []struct {
		tool string
		args map[string]any
	}{
		{grant.ToolRead, map[string]any{"target": paper}},
		{grant.ToolRead, map[string]any{"target": paper, "mode": "full"}},
		{grant.ToolRead, map[string]any{"target": ownPDF, "mode": "page", "page": 1}},
		{grant.ToolRead, map[string]any{"target": ownPDF, "mode": "excerpt", "quote": marker}},
		{grant.ToolSearch, map[string]any{"query": words, "limit": 20}},
		{grant.ToolSearch, map[string]any{"query": words, "source": paper, "limit": 20}},
		{grant.ToolRelations, map[string]any{"paper": paper}},
	}
	own := false
	for _, c := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		cancel()
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		all := text(res)
		if res.StructuredContent != nil {
			var m map[string]any
			decode(t, res, &m)
			all += "\n" + strings.Join(flatten(m), "\n")
		}
		if c.tool == grant.ToolSearch {
			all = strings.ReplaceAll(all, words, "") // the query is echoed
		}
		if c.args["quote"] != nil {
			all = strings.ReplaceAll(all, marker, "")
		}
		if strings.Contains(all, marker) || strings.Contains(all, secret) {
			t.Errorf("%s %v served the forged mapping:\n%s", c.tool, c.args, all)
		}
		own = own || strings.Contains(all, ownPDF)
	}
	if !own {
		t.Error("no result named the paper's own PDF")
	}
	log, err := os.ReadFile(grant.UsagePath(narrow))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), secret) || !strings.Contains(string(log), ownPDF) {
		t.Errorf("usage log:\n%s", log)
	}
}
