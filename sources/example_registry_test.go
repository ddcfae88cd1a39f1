package sources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
)

// memos is a connector over memos kept outside the Vault (here, in a map):
// "memo:NAME" names one. A real connector opens a database or a web API
// from what its Config holds.
type memos map[string]string

type memoConfig struct {
	ID string `json:"id"`
}

// Ref turns a mention into the source to grant: its path (what the model
// and the host call it) and the config the server re-opens it from.
func (m memos) Ref(_ context.Context, name string, _ *sources.Env) (*sources.Named, error) {
	if _, ok := m[name]; !ok {
		return nil, fmt.Errorf("%w: no memo %q", sources.ErrNotFound, name)
	}
	cfg, err := json.Marshal(memoConfig{ID: name})
	if err != nil {
		return nil, err
	}
	return &sources.Named{Ref: grant.Ref{Path: "memo/" + name, Title: "Memo " + name, Config: cfg}}, nil
}

// Open re-opens the source from the grant alone.
func (m memos) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	var c memoConfig
	if err := json.Unmarshal(ref.Config, &c); err != nil {
		return nil, err
	}
	text, ok := m[c.ID]
	if !ok {
		return nil, fmt.Errorf("%w: no memo %q", sources.ErrNotFound, c.ID)
	}
	return sourcetest.NewMemory(sources.Info{Path: ref.Path, Kind: ref.Kind, Title: ref.Title}, sourcetest.TextDocument(ref.Path, text)), nil
}

// A connector registers a kind; the resolver grants what a "kind:name"
// mention names, and the server opens it from the grant's Ref. A host
// links connectors into sources.DefaultRegistry (sources.Register, from
// the connector package's init); a test keeps a registry of its own.
func ExampleRegistry() {
	reg := sources.NewRegistry()
	reg.Register("memo", memos{"reading-group": "Next week: sparse attention with a local window per token.\n"})
	ctx := context.Background()

	// The host's resolver, for the mention "memo:reading-group".
	n, ok, err := reg.Resolve(ctx, "memo:reading-group", &sources.Env{})
	if !ok || err != nil {
		log.Fatal(ok, err)
	}
	fmt.Printf("grant: kind %s, path %s, config %s\n", n.Ref.Kind, n.Ref.Path, n.Ref.Config)

	// The server process, from the grant.
	src, err := reg.Open(ctx, n.Ref, &sources.Env{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := src.Search(ctx, sources.Query{Text: "local window", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Println("hit:", h.Path)
	}

	// A kind no driver is registered for is refused.
	_, err = sources.NewRegistry().Open(ctx, n.Ref, &sources.Env{})
	fmt.Println(err)
	// Output:
	// grant: kind memo, path memo/reading-group, config {"id":"reading-group"}
	// hit: memo/reading-group
	// unknown source kind "memo" (source "memo/reading-group"): no connector for it is linked into this program
}
