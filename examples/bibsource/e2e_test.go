package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/cli"
	"github.com/researchctx/researchctx/examples/bibsource/bib"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/usage"
)

// The example's host executable, built once for the tests that run it.
var (
	hostOnce sync.Once
	hostDir  string
	hostBin  string
	hostErr  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if hostDir != "" {
		os.RemoveAll(hostDir) // a run leaves nothing behind
	}
	os.Exit(code)
}

// buildHost builds this example's host executable, which links the bib
// connector, once per test run.
func buildHost(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example host")
	}
	hostOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bibsource-test-")
		if err != nil {
			hostErr = err.Error()
			return
		}
		hostDir = dir
		bin := filepath.Join(dir, "bibsource")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			hostErr = fmt.Sprintf("go build: %v\n%s", err, out)
			return
		}
		hostBin = bin
	})
	if hostBin == "" {
		t.Fatal(hostErr)
	}
	return hostBin
}

// newVault is the sample Vault with the connector's test BibTeX file as
// library/refs.bib.
func newVault(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("bib", "testdata", "refs.bib"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "library"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "library", "refs.bib"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// The connector's whole path: a mention and a selection through Resolve,
// the plan and its prompt, the grant file, the example's own host
// executable started as the MCP server (built with go build, driven by the
// go-sdk client over stdio), all three tools on the BibTeX source, and the
// turn's sources read back from the usage log.
func TestEndToEnd(t *testing.T) {
	bin := buildHost(t)
	vaultDir := newVault(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register(bib.Kind, bib.Driver{})
	r := researchctx.Resolver{Registry: reg}
	defer r.Close()
	const quote = "Strided global tokens let every block see a coarse summary of the whole document"
	plan, err := r.Resolve(ctx, researchctx.Request{
		Vault: vaultDir, RuntimeID: "bib-e2e", TurnID: "turn-1",
		Mentions:   []string{"bib:library/refs.bib", "bib:library/nosuch.bib"},
		Selections: []researchctx.Selection{{Text: quote, Path: "bib:library/refs.bib/okafor2024sba"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantRef := grant.Ref{Kind: "bib", Path: "library/refs.bib", Title: "refs.bib (BibTeX, 5 entries)", Config: json.RawMessage(`{"file":"library/refs.bib"}`)}
	if d := cmp.Diff([]grant.Ref{wantRef}, plan.Sources); d != "" {
		t.Fatalf("plan sources (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]researchctx.Dropped{{Path: "bib:library/nosuch.bib", Reason: "not found"}}, plan.Dropped); d != "" {
		t.Errorf("dropped (-want +got):\n%s", d)
	}
	wantEv := []researchctx.Evidence{{Path: "library/refs.bib/okafor2024sba", Title: "Strided Block Attention for Long Document Encoding",
		Page: 1, Quote: quote, CitationURI: "library/refs.bib/okafor2024sba#page=1"}}
	if d := cmp.Diff(wantEv, plan.Evidence); d != "" {
		t.Errorf("evidence (-want +got):\n%s", d)
	}
	prompt := plan.Prompt()
	for _, want := range []string{"- bib library/refs.bib (", "Cite: library/refs.bib/okafor2024sba#page=1"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	// The fingerprint covers the connector's config.
	other := plan.Scope
	other.Sources = []grant.Ref{wantRef}
	other.Sources[0].Config = json.RawMessage(`{"file":"library/other.bib"}`)
	if plan.Fingerprint != plan.Scope.Fingerprint() || other.Fingerprint() == plan.Fingerprint {
		t.Error("the fingerprint does not cover the connector's config")
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	g, err := grant.Read(gr)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range g.Sources {
		// The grant file is indented, its configs with it.
		var b bytes.Buffer
		if err := json.Compact(&b, s.Config); err != nil {
			t.Fatal(err)
		}
		g.Sources[i].Config = b.Bytes()
	}
	if d := cmp.Diff(plan.Sources, g.Sources); d != "" {
		t.Fatalf("the grant does not carry the source (-plan +grant):\n%s", d)
	}

	// The server: this example's executable, as an agent starts it.
	cmd := exec.Command(bin, mcp.Flag, gr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "bib-e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, &stderr)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError {
			t.Fatalf("%s %v: error result %v", tool, args, res.Content[0].(*sdk.TextContent).Text)
		}
		out, _ := res.StructuredContent.(map[string]any)
		return out
	}

	search := call(grant.ToolSearch, map[string]any{"query": "slot routing memory"})
	var uris []string
	for _, c := range search["cards"].([]any) {
		uris = append(uris, c.(map[string]any)["citationUri"].(string))
	}
	if len(uris) == 0 || !strings.HasPrefix(uris[0], "library/refs.bib/feld2024routing") {
		t.Fatalf("search cards: %v", uris)
	}

	// A search can be kept to one entry.
	one := call(grant.ToolSearch, map[string]any{"query": "strided global tokens", "source": "library/refs.bib/sato2024survey"})
	for _, c := range one["cards"].([]any) {
		if uri := c.(map[string]any)["citationUri"].(string); !strings.HasPrefix(uri, "library/refs.bib/sato2024survey") {
			t.Errorf("a search of one entry gave %s", uri)
		}
	}
	if len(one["cards"].([]any)) == 0 {
		t.Error("a search of one entry found nothing")
	}

	page := call(grant.ToolRead, map[string]any{"target": "library/refs.bib/okafor2024sba#page=2"})
	if !strings.Contains(strings.Join(strings.Fields(page["text"].(string)), " "), "so the gate matters") || page["citationUri"] != "library/refs.bib/okafor2024sba#page=2" {
		t.Errorf("page read: %v", page)
	}
	meta := call(grant.ToolRead, map[string]any{"target": "library/refs.bib/sato2024survey"})
	if meta["arxivId"] != "2406.09876" || meta["pages"] != float64(4) ||
		!slices.Equal(meta["documents"].([]any), []any{"library/refs.bib/sato2024survey", "library/refs.bib/sato2024survey/paper.pdf"}) {
		t.Errorf("metadata read: %v", meta)
	}
	listing := call(grant.ToolRead, map[string]any{"target": "library/refs.bib"})
	if n := len(listing["entries"].([]any)); n != 5 {
		t.Errorf("listing has %d entries, want 5: %v", n, listing)
	}

	rels := call(grant.ToolRelations, map[string]any{"paper": "library/refs.bib/okafor2024sba"})
	var citing []string
	for _, c := range rels["citedBy"].([]any) {
		m := c.(map[string]any)
		if m["inGrant"] != true {
			t.Errorf("citing card %v is not in the grant", m)
		}
		citing = append(citing, m["citationUri"].(string))
	}
	if d := cmp.Diff([]string{"library/refs.bib/feld2024routing", "library/refs.bib/sato2024survey"}, citing); d != "" {
		t.Errorf("cited by (-want +got):\n%s", d)
	}
	// A path outside the source is not granted, whatever the BibTeX names.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: grant.ToolRead, Arguments: map[string]any{"target": "papers/2401.01234/2401.01234.pdf"}})
	if err != nil || !res.IsError {
		t.Errorf("reading a PDF the grant does not cover: %v, %v", res, err)
	}

	u, err := usage.Read(grant.UsagePath(gr), "turn-1", &plan.Scope)
	if err != nil {
		t.Fatal(err)
	}
	byURI := map[string]usage.Used{}
	for _, s := range u.Sources {
		byURI[s.URI] = s
		if s.Place != usage.InGrant {
			t.Errorf("source %s placed %s, want %s", s.URI, s.Place, usage.InGrant)
		}
	}
	for uri, use := range map[string]usage.Use{
		uris[0]:                                 usage.UseSearched,
		"library/refs.bib/okafor2024sba#page=2": usage.UseRead,
		"library/refs.bib/sato2024survey":       usage.UseRead,    // read, and seen as a citing card
		"library/refs.bib/window2024":           usage.UseRelated, // only seen as a related card
	} {
		if byURI[uri].Use != use {
			t.Errorf("usage of %s: %+v, want use %s (all: %+v)", uri, byURI[uri], use, u.Sources)
		}
	}
	if u.Calls != 6 {
		t.Errorf("usage counts %d calls, want 6", u.Calls)
	}
}

// A server that does not link a grant's connector refuses the grant: exit
// code 2, one line on stderr, nothing on stdout.
func TestUnknownKindFailsClosed(t *testing.T) {
	bin := buildHost(t)
	vault := newVault(t)
	sc := grant.Scope{Mode: grant.ModeMCP, Tools: grant.Tools(), Budget: grant.DefaultBudget(),
		Sources: []grant.Ref{{Kind: "zotero", Path: "zotero/ITEM42", Config: json.RawMessage(`{"api":"https://internal.example/api"}`)}}}
	plan := &researchctx.Plan{Vault: vault, RuntimeID: "bib-unknown", TurnID: "t1", Scope: sc, Fingerprint: sc.Fingerprint()}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, mcp.Flag, gr)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != cli.ExitUsage {
		t.Fatalf("server exit: %v, want code %d (stderr %q)", err, cli.ExitUsage, &stderr)
	}
	line := stderr.String()
	if stdout.Len() != 0 || strings.Count(line, "\n") != 1 || !strings.Contains(line, `kind "zotero", which this server does not know`) ||
		strings.Contains(line, vault) || strings.Contains(line, "internal.example") {
		t.Errorf("stdout %q, stderr %q", &stdout, line)
	}
}
