package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
)

// memo is a connector over one in-memory text, re-opened from its config,
// whose failures carry an internal link.
type memo struct{}

func (memo) Ref(context.Context, string, *sources.Env) (*sources.Named, error) {
	return nil, sources.ErrUnsupported
}

func (memo) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	var c struct{ Text string }
	if err := json.Unmarshal(ref.Config, &c); err != nil {
		return nil, err
	}
	if c.Text == "" {
		return nil, errors.New("GET https://internal.example/memo failed\nretry later")
	}
	return sourcetest.NewMemory(sources.Info{Path: ref.Path, Kind: ref.Kind}, sourcetest.TextDocument(ref.Path, c.Text)), nil
}

func memoGrant(t *testing.T, refs ...grant.Ref) (vault, gr string) {
	t.Helper()
	vault = filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(vault, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := &researchctx.Plan{Vault: vault, RuntimeID: "memo", TurnID: "t1",
		Scope: grant.Scope{Mode: grant.ModeMCP, Tools: grant.Tools(), Sources: refs, Budget: grant.DefaultBudget()}}
	plan.Fingerprint = plan.Scope.Fingerprint()
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	return vault, gr
}

// Serve re-opens a connector's source from the grant through
// ServeOptions.Registry, and a connector's failure reaches the client as
// one redacted line.
func TestServeConnector(t *testing.T) {
	_, gr := memoGrant(t,
		grant.Ref{Kind: "memo", Path: "memo/a", Config: json.RawMessage(`{"text":"A memo about strided global tokens."}`)},
		grant.Ref{Kind: "memo", Path: "memo/down", Config: json.RawMessage(`{"text":""}`)})
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("memo", memo{})
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), gr, sr, sw, &ServeOptions{Toolset: &tools.Options{Registry: reg}})
		sw.Close()
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, grant.ToolSearch, map[string]any{"query": "strided global tokens"})
	mustOK(t, res)
	var out tools.SearchOutput
	decode(t, res, &out)
	if len(out.Cards) != 1 || out.Cards[0].CitationURI != "memo/a" {
		t.Errorf("cards = %+v", out.Cards)
	}
	res = call(t, cs, grant.ToolRead, map[string]any{"target": "memo/down"})
	text := res.Content[0].(*sdk.TextContent).Text
	if !res.IsError || !strings.Contains(text, "the source failed") || strings.Contains(text, "internal.example") || strings.Contains(text, "\n") {
		t.Errorf("read of a source that failed to open: %v %q", res.IsError, text)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A server whose registry lacks a granted kind exits with ExitUsage and one
// line, before writing anything.
func TestRunUnknownKind(t *testing.T) {
	vaultDir, gr := memoGrant(t, grant.Ref{Kind: "memo", Path: "memo/a", Config: json.RawMessage(`{"text":"x"}`)})
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{Flag, gr}, strings.NewReader(""), &stdout, &stderr, &ServeOptions{Toolset: &tools.Options{Registry: vault.RegisterLibrary(sources.NewRegistry())}})
	if code != ExitUsage || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
		!strings.Contains(stderr.String(), `kind "memo", which this server does not know`) || strings.Contains(stderr.String(), vaultDir) {
		t.Errorf("code %d, stdout %q, stderr %q", code, &stdout, &stderr)
	}
}
