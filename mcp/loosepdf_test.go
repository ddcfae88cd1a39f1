package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/tools"
)

// TestProcessLoosePDFs serves PDFs outside any paper unit from a real
// server process: one mentioned directly, a folder of PDFs without the
// paper layout, and one named by a selection. Every read mode answers with
// page citations; a damaged, an encrypted and an over-limit PDF are one
// clear error each
// and the server goes on, then exits cleanly.
func TestProcessLoosePDFs(t *testing.T) {
	// A server process, a vault of its own, and no time bound.
	t.Parallel()
	vault := vaultfix.Sample(t)
	sba, err := os.ReadFile(filepath.Join(vault, "papers", "2401.01234", "2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	plain := hostilepdf.Plain("Quokkas sleep in hollow logs by day.")
	// An AES-256 PDF with a user password, made by qpdf for package pdf's
	// tests: read from there rather than encrypted here, so that this
	// test binary, which the tests start as the server, links no PDF
	// writer (whose start-up every server process would pay).
	locked, err := os.ReadFile(filepath.Join("..", "internal", "pdf", "testdata", "encrypted", "user-r6-aes-256.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	for rel, data := range map[string][]byte{
		"downloads/sba.pdf":  sba,
		"downloads/copy.pdf": sba,
		"inbox/quokka.pdf":   plain,
		"inbox/broken.pdf":   []byte("%PDF-1.7\nthis is not a PDF body\n"),
		"inbox/locked.pdf":   locked,
		"inbox/huge.pdf":     hostilepdf.ManyPages(pdf.DefaultMaxPages + 1),
	} {
		p := filepath.Join(vault, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gr := writeGrant(t, researchctx.Request{
		Vault: vault, RuntimeID: "rt-loose", TurnID: "turn-1",
		Mentions:   []string{"downloads/sba.pdf", "inbox"},
		Selections: []researchctx.Selection{{Path: "downloads/copy.pdf", Text: "The pooled summary is added to each block through a gated residual connection"}},
	})
	s := startServer(t, gr, "")

	var search tools.SearchOutput
	res := call(t, s.cs, grant.ToolSearch, map[string]any{"query": "block partition", "source": "downloads/sba.pdf"})
	mustOK(t, res)
	decode(t, res, &search)
	if len(search.Cards) == 0 || search.Cards[0].CitationURI != "downloads/sba.pdf#page=1" {
		t.Fatalf("cards %+v", search.Cards)
	}
	// The folder's PDFs are indexed in the background: on a loaded
	// machine the search answers from part of them first.
	search = searchIndexed(t, s.cs, map[string]any{"query": "quokkas hollow logs"})
	if len(search.Cards) == 0 || search.Cards[0].CitationURI != "inbox/quokka.pdf#page=1" {
		t.Fatalf("cards over the folder %+v", search.Cards)
	}

	for _, tt := range []struct {
		args map[string]any
		cite string
		has  string
	}{
		{map[string]any{"target": "downloads/sba.pdf"}, "downloads/sba.pdf", ""},
		{map[string]any{"target": "downloads/sba.pdf", "mode": "section", "section": "§3.2"}, "downloads/sba.pdf#page=2", "For a stride s"},
		{map[string]any{"target": "downloads/sba.pdf#page=3"}, "downloads/sba.pdf#page=3", "Big Bird"},
		{map[string]any{"target": "downloads/sba.pdf", "quote": "every block see a coarse summary of the whole document"}, "downloads/sba.pdf#page=1", "let every block see a coarse"},
		{map[string]any{"target": "downloads/sba.pdf", "mode": "full"}, "downloads/sba.pdf#page=1", "[page 1]"},
		{map[string]any{"target": "downloads/copy.pdf", "page": 2}, "downloads/copy.pdf#page=2", "4 Experiments"},
		{map[string]any{"target": "inbox/quokka.pdf"}, "inbox/quokka.pdf", ""},
	} {
		res := call(t, s.cs, grant.ToolRead, tt.args)
		mustOK(t, res)
		var out tools.ReadOutput
		decode(t, res, &out)
		if out.CitationURI != tt.cite || !strings.Contains(out.Text, tt.has) {
			t.Errorf("read %v = {cite %q, text %.60q}, want %q with %q", tt.args, out.CitationURI, out.Text, tt.cite, tt.has)
		}
		if tt.args["target"] == "downloads/sba.pdf" && tt.args["mode"] == nil && tt.args["quote"] == nil &&
			(out.Title != "Strided Block Attention for Long Document Encoding" || out.Pages != 3 || len(out.Authors) != 3 || len(out.Sections) != 9) {
			t.Errorf("metadata %+v", out)
		}
	}

	for _, tt := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{grant.ToolRead, map[string]any{"target": "inbox/broken.pdf", "page": 1}, []string{"inbox/broken.pdf", "unreadable", "malformed"}},
		{grant.ToolRead, map[string]any{"target": "inbox/locked.pdf"}, []string{"inbox/locked.pdf", "unreadable", "encrypted"}},
		{grant.ToolRead, map[string]any{"target": "inbox/huge.pdf", "mode": "full"}, []string{"inbox/huge.pdf", "unreadable", "page count limit"}},
		{grant.ToolSearch, map[string]any{"query": "quick brown fox", "source": "inbox/huge.pdf"}, []string{"inbox/huge.pdf", "unreadable"}},
	} {
		res := call(t, s.cs, tt.tool, tt.args)
		msg := text(res)
		if !res.IsError || strings.Contains(msg, vault) || strings.Contains(msg, "\n") {
			t.Errorf("%s %v: isError %v, %q: want one line without the vault path", tt.tool, tt.args, res.IsError, msg)
		}
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %v: %q does not say %q", tt.tool, tt.args, msg, w)
			}
		}
	}
	// The server goes on after the errors.
	mustOK(t, call(t, s.cs, grant.ToolSearch, map[string]any{"query": "strided global tokens"}))
	// A loose PDF has relations as a paper has.
	mustOK(t, call(t, s.cs, grant.ToolRelations, map[string]any{"paper": "downloads/sba.pdf"}))

	u := turnUsage(t, gr, "turn-1")
	uris := strings.Join(u.URIs(), " ")
	for _, want := range []string{"downloads/sba.pdf#page=1", "downloads/sba.pdf#page=2", "downloads/copy.pdf#page=2", "inbox/quokka.pdf#page=1"} {
		if !strings.Contains(uris, want) {
			t.Errorf("usage %v lacks %s", u.URIs(), want)
		}
	}
	if err := s.close(); err != nil {
		t.Errorf("server exit: %v (stderr: %s)", err, s.stderr)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != ExitOK {
		t.Errorf("exit code %d, want 0 (stderr: %s)", code, s.stderr)
	}
}
