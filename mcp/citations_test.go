package mcp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// TestProcessReadCitesEveryPage: over a real server process, a full read
// whose text spans pages names every page, in the structured result and in
// its text, and the turn's sources list each page as read.
func TestProcessReadCitesEveryPage(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	s := startServer(t, gr, "")
	res := call(t, s.cs, grant.ToolRead, map[string]any{"target": "papers/2401.01234", "mode": "full"})
	mustOK(t, res)
	var out tools.ReadOutput
	decode(t, res, &out)
	if len(out.CitationURIs) < 2 || out.CitationURIs[0] != out.CitationURI {
		t.Fatalf("citationUri %q, citationUris %v: want every page of the text, the first first", out.CitationURI, out.CitationURIs)
	}
	if want := "cite: " + strings.Join(out.CitationURIs, ", ") + "\n"; !strings.Contains(text(res), want) {
		t.Errorf("the text does not cite every page (%q):\n%s", want, text(res))
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	u, err := usage.Read(grant.UsagePath(gr), "turn-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, src := range u.Groups().Read {
		read = append(read, src.URI)
	}
	if diff := cmp.Diff(out.CitationURIs, read); diff != "" {
		t.Errorf("the turn's read sources (-want +got):\n%s", diff)
	}
}
