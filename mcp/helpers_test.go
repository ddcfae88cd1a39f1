package mcp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/exitcode"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// demoRequest is the sample Vault's demo turn: the SBA paper open, a
// selection from it, and the notes folder, the slot-routing paper and the
// survey mentioned, plus the extensionless reading list.
func demoRequest(vault string) researchctx.Request {
	return researchctx.Request{
		Vault:        vault,
		RuntimeID:    "rt-test",
		TurnID:       "turn-1",
		CurrentPaper: "papers/2401.01234",
		Selections: []researchctx.Selection{{
			Text: "Strided global tokens let every block see a coarse summary of the whole document",
			Page: 1,
		}},
		Mentions: []string{"notes", "papers/2403.05678", "papers/2406.09876", "reading-list"},
	}
}

// writeGrant resolves req and writes its grant, returning the grant path.
func writeGrant(t testing.TB, req researchctx.Request) string {
	t.Helper()
	var r researchctx.Resolver
	defer r.Close()
	plan, err := r.Resolve(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Mode != grant.ModeMCP {
		t.Fatalf("plan is %s, dropped %v", plan.Mode, plan.Dropped)
	}
	path, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// intp returns a pointer to n, for budget overrides.
func intp(n int) *int { return &n }

// serveGrant opens a Toolset for the grant and connects an in-memory client
// to the server over it.
func serveGrant(t testing.TB, grantPath string) *sdk.ClientSession {
	t.Helper()
	g, err := grant.Read(grantPath)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), grantPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	tt, ok := t.(*testing.T)
	if !ok {
		t.Fatal("serveGrant needs a *testing.T")
	}
	return connect(tt, NewServer(ts, &ServerOptions{Tools: g.Tools, Vault: g.Vault}), nil)
}

// decode unmarshals a result's structured content into out.
func decode(t testing.TB, res *sdk.CallToolResult, out any) {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
}

// mustOK fails unless res is a successful result.
func mustOK(t testing.TB, res *sdk.CallToolResult) {
	t.Helper()
	if res.IsError {
		t.Fatalf("isError: %s", text(res))
	}
	if res.StructuredContent == nil {
		t.Fatalf("no structured content: %s", text(res))
	}
}

// turnUsage reads the usage log beside a grant for the demo turn.
func turnUsage(t testing.TB, grantPath, turnID string) usage.Turn {
	t.Helper()
	u, err := usage.Read(grant.UsagePath(grantPath), turnID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// rewriteGrant writes a grant for a changed scope over the one at path.
func rewriteGrant(t testing.TB, vault string) {
	t.Helper()
	req := demoRequest(vault)
	req.Mentions = append(req.Mentions, "papers/vision/resnet-like")
	writeGrant(t, req)
}

// forgeFingerprint edits the fingerprint field of the grant file in place.
func forgeFingerprint(t testing.TB, grantPath string) {
	t.Helper()
	data, err := os.ReadFile(grantPath)
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	fp, _ := g["fingerprint"].(string)
	g["fingerprint"] = "sha256:" + strings.Repeat("0", len(fp)-len("sha256:"))
	data, err = json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(grantPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// flatten lists every string in a decoded JSON value.
func flatten(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, flatten(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return nil
}

// The server's exit codes, as cli publishes them (cli.ExitOK and the rest;
// cli imports this package, so the tests name them here).
const (
	ExitOK    = exitcode.OK
	ExitError = exitcode.Error
	ExitUsage = exitcode.Usage
)

// searchIndexed runs context_search with args until the answer is from a
// whole index (no Indexing progress): a search answers from what is
// indexed after the library's wait, and on a loaded machine the granted
// folders may take longer than that. Each try waits that long itself.
func searchIndexed(t *testing.T, cs *sdk.ClientSession, args map[string]any) tools.SearchOutput {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		res := call(t, cs, grant.ToolSearch, args)
		mustOK(t, res)
		var out tools.SearchOutput
		decode(t, res, &out)
		if out.Indexing.Total == 0 {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("search %v: indexing never ended (%d of %d)", args, out.Indexing.Done, out.Indexing.Total)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
