package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
)

// wiki is a test connector: "wiki:NAME" grants the page NAME as the source
// wiki/NAME. Page "leaky" fails the way a careless connector does, with
// internal links, paths of the machine and several lines in its errors;
// page "broken" cannot be opened.
type wiki struct{}

type wikiConfig struct {
	Page string `json:"page"`
}

func (wiki) Ref(_ context.Context, name string, _ *sources.Env) (*sources.Named, error) {
	if name == "missing" {
		return nil, fmt.Errorf("%w: GET https://internal.example/wiki/missing: 404", sources.ErrNotFound)
	}
	cfg, _ := json.Marshal(wikiConfig{Page: name})
	return &sources.Named{Ref: grant.Ref{Path: "wiki/" + name, Title: "Wiki: " + name, Config: cfg}}, nil
}

func (wiki) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	var c wikiConfig
	if err := json.Unmarshal(ref.Config, &c); err != nil {
		return nil, err
	}
	info := sources.Info{Path: ref.Path, Kind: ref.Kind, Title: ref.Title}
	switch c.Page {
	case "leaky":
		return leaky{info}, nil
	case "broken":
		return nil, errors.New("dial tcp 10.0.0.7:443: connection refused\nsee /home/alice/wiki.log")
	case "impostor":
		// A source claiming to be a vault paper.
		return sourcetest.NewMemory(sources.Info{Path: "papers/2401.01234", Kind: grant.KindPaper}, sourcetest.TextDocument("papers/2401.01234", "x")), nil
	case "stray":
		return stray{info}, nil
	case "session":
		return &closing{Memory: sourcetest.NewMemory(info, sourcetest.TextDocument(ref.Path, "A page held open.\n"))}, nil
	}
	return sourcetest.NewMemory(info, sourcetest.TextDocument(ref.Path, "Sparse attention in the wiki: a local window per token.\n")), nil
}

// Strings a leaky connector's errors hold that must never reach the model.
var secrets = []string{"internal.example", "/home/", "10.0.0.7", "token=", "\n"}

type leaky struct{ info sources.Info }

func (l leaky) Info() sources.Info { return l.info }

func (l leaky) Search(context.Context, sources.Query) (*sources.Results, error) {
	return nil, errors.New("fetching https://internal.example/api/search?token=s3cret: 502 Bad Gateway\n\tat /home/alice/go/src/wiki/client.go:42")
}

func (l leaky) Read(context.Context, string) (*sources.Document, error) {
	return nil, fmt.Errorf("%w: page 7 is missing at https://internal.example/api/pages/7 (cache /home/alice/.cache/wiki/7.json)", sources.ErrNotFound)
}

func (l leaky) Relations(context.Context) (*sources.Relations, error) {
	return &sources.Relations{
		References: []sources.Work{{Title: "Attention Is All You Need", ArXivID: "1706.03762", CitationURI: "https://arxiv.org/abs/1706.03762"}},
		Problems:   []string{"backlinks from https://internal.example/api/backlinks failed", "cache file /home/alice/.cache/wiki is stale\nsecond line"},
	}, nil
}

// connectorFixture resolves the mentions through an explicit registry
// holding the wiki connector and opens a Toolset on the grant.
func connectorFixture(t *testing.T, opts *tools.Options, mentions ...string) (*tools.Toolset, *researchctx.Plan, *strings.Builder) {
	t.Helper()
	vaultDir := t.TempDir()
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("wiki", wiki{})
	r := researchctx.Resolver{Registry: reg}
	t.Cleanup(func() { r.Close() })
	plan, err := r.Resolve(context.Background(), researchctx.Request{Vault: vaultDir, RuntimeID: "wiki", TurnID: "t1", Mentions: mentions})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &tools.Options{}
	}
	var log strings.Builder
	opts.Registry = reg
	opts.Logger = newTestLogger(&sync.Mutex{}, &log)
	ts, err := tools.Open(context.Background(), gr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts, plan, &log
}

func checkClean(t *testing.T, what, s string) {
	t.Helper()
	for _, bad := range secrets {
		if strings.Contains(s, bad) {
			t.Errorf("%s holds %q: %q", what, bad, s)
		}
	}
}

// A connector's errors reach the model as the tools' typed one-liners:
// its sentinel, or ErrSource, and the path the model asked about; the
// connector's own message goes to the log.
func TestConnectorErrorsAreRedacted(t *testing.T) {
	ts, plan, log := connectorFixture(t, nil, "wiki:good", "wiki:leaky", "wiki:broken", "wiki:missing")
	if got := len(plan.Sources); got != 3 || plan.Dropped[0].Reason != "not found" {
		t.Fatalf("plan: %+v, dropped %+v", plan.Sources, plan.Dropped)
	}
	ctx := context.Background()
	// One failing source does not hide another's cards.
	out, err := ts.Search(ctx, tools.SearchInput{Query: "local window"})
	if err != nil || len(out.Cards) != 1 || out.Cards[0].CitationURI != "wiki/good" || !out.Partial || len(out.Skipped) != 2 {
		t.Fatalf("search: %+v, %v; want the good card, partial, two failed sources skipped", out, err)
	}
	for _, s := range out.Skipped {
		checkClean(t, "skipped source "+s.Path, s.Reason)
	}
	_, err = ts.Search(ctx, tools.SearchInput{Query: "local window", Source: "wiki/leaky"})
	if !errors.Is(err, tools.ErrSource) {
		t.Errorf("search of the leaky source: %v, want ErrSource", err)
	}
	checkClean(t, "search error", err.Error())
	_, err = ts.Read(ctx, tools.ReadInput{Target: "wiki/leaky", Mode: tools.ReadFull})
	if !errors.Is(err, sources.ErrNotFound) || !strings.Contains(err.Error(), `"wiki/leaky"`) {
		t.Errorf("read of the leaky source: %v, want ErrNotFound naming it", err)
	}
	checkClean(t, "read error", err.Error())
	_, err = ts.Read(ctx, tools.ReadInput{Target: "wiki/broken"})
	if !errors.Is(err, tools.ErrSource) || !strings.Contains(err.Error(), `"wiki/broken" could not be opened`) {
		t.Errorf("read of a source that could not be opened: %v", err)
	}
	checkClean(t, "open error", err.Error())
	// paper_relations serves any Relater; its problems are redacted too.
	rels, err := ts.Relations(ctx, tools.RelationsInput{Paper: "wiki/leaky"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rels.References) != 1 || len(rels.Problems) != 2 || !strings.Contains(rels.Problems[0], "backlinks from (redacted) failed") {
		t.Errorf("relations: %+v", rels)
	}
	for _, p := range rels.Problems {
		checkClean(t, "relations problem", p)
	}
	// The log keeps what the model was not shown.
	for _, want := range []string{"internal.example/api/search", "10.0.0.7", "internal.example/api/pages/7"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// A Toolset whose registry does not know a granted kind refuses the grant.
func TestUnknownKindRefused(t *testing.T) {
	_, plan, _ := connectorFixture(t, nil, "wiki:good")
	gr, err := grant.Path(plan.Vault, plan.RuntimeID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools.Open(context.Background(), gr, &tools.Options{Registry: vault.RegisterLibrary(sources.NewRegistry())})
	if !errors.Is(err, grant.ErrInvalid) || !strings.Contains(err.Error(), `kind "wiki", which this server does not know`) {
		t.Fatalf("Open = %v", err)
	}
}

// A host's own sources (Options.Sources) sit beside the Vault's, which
// open opens as the Toolset would: a vault paper keeps its relations.
func TestCustomSourcesKeepVaultRelations(t *testing.T) {
	custom := sourcetest.NewMemory(sources.Info{Path: "inbox/today", Kind: grant.KindFile, Title: "Inbox"},
		sourcetest.TextDocument("inbox/today", "Read the strided block attention paper again.\n"))
	opts := &tools.Options{Sources: func(ctx context.Context, g *grant.Grant, open tools.OpenFunc) ([]sources.Source, error) {
		var out []sources.Source
		for _, ref := range g.Sources {
			src, err := open(ctx, ref)
			if err != nil {
				return nil, err
			}
			out = append(out, src)
		}
		return append(out, custom), nil
	}}
	ts, _, _ := connectorFixture(t, opts, "papers/2403.05678", "wiki:good")
	ctx := context.Background()
	rels, err := ts.Relations(ctx, tools.RelationsInput{Paper: "papers/2403.05678"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rels.References) == 0 {
		t.Errorf("the vault paper lost its references: %+v", rels)
	}
	out, err := ts.Search(ctx, tools.SearchInput{Query: "strided block attention paper again"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range out.Cards {
		found = found || c.CitationURI == "inbox/today"
	}
	if !found {
		t.Errorf("the custom source gave no card: %+v", out.Cards)
	}
	if n := len(ts.Sources()); n != 3 {
		t.Errorf("%d sources, want 3", n)
	}
}

// closing is a connector source that holds a resource until closed.
type closing struct {
	*sourcetest.Memory
	closed atomic.Bool
}

func (c *closing) Close() error {
	c.closed.Store(true)
	return nil
}

// The Toolset closes the connector sources that hold resources.
func TestConnectorSourcesClosed(t *testing.T) {
	ts, _, _ := connectorFixture(t, nil, "wiki:session")
	c, ok := ts.Sources()[0].(*closing)
	if !ok {
		t.Fatalf("source %T", ts.Sources()[0])
	}
	if err := ts.Close(); err != nil || !c.closed.Load() {
		t.Errorf("Close = %v, source closed %v", err, c.closed.Load())
	}
}

// stray is a connector source whose hits and documents name vault paths
// outside it.
type stray struct{ info sources.Info }

func (s stray) Info() sources.Info { return s.info }

func (s stray) Search(context.Context, sources.Query) (*sources.Results, error) {
	return &sources.Results{Total: 1, Hits: []sources.Hit{{Location: sources.Location{Path: "papers/2401.01234/2401.01234.pdf", Page: 1},
		Text: "Strided global tokens", Score: 1}}}, nil
}

func (s stray) Read(context.Context, string) (*sources.Document, error) {
	return sourcetest.TextDocument("notes/ideas.txt", "Strided global tokens"), nil
}

// A connector cannot make the tools cite what the grant does not cover.
func TestConnectorPathsStayInside(t *testing.T) {
	ts, _, _ := connectorFixture(t, nil, "wiki:stray", "wiki:impostor")
	ctx := context.Background()
	if _, err := ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234"}); !errors.Is(err, tools.ErrNotGranted) {
		t.Errorf("read of the path an impostor claimed: %v, want ErrNotGranted", err)
	}
	if _, err := ts.Read(ctx, tools.ReadInput{Target: "wiki/impostor"}); !errors.Is(err, tools.ErrSource) {
		t.Errorf("read of the impostor: %v, want ErrSource", err)
	}
	out, err := ts.Search(ctx, tools.SearchInput{Query: "strided global tokens"})
	if err != nil || len(out.Cards) != 0 {
		t.Errorf("search: %+v, %v", out, err)
	}
	if _, err := ts.Read(ctx, tools.ReadInput{Target: "wiki/stray", Mode: tools.ReadFull}); !errors.Is(err, tools.ErrSource) {
		t.Errorf("read: %v, want ErrSource", err)
	}
}
