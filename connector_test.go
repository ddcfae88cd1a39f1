package researchctx

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
)

// notebook is a test connector: "nb:NAME" grants the notebook NAME (the
// source nb/NAME), "nb:NAME/page.md" one of its pages.
type notebook map[string]string // page path → Markdown

func (nb notebook) Ref(_ context.Context, name string, _ *sources.Env) (*sources.Named, error) {
	book, page, _ := strings.Cut(name, "/")
	switch book {
	case "lab":
	case "offline":
		return nil, errors.New("GET https://internal.example/nb/offline: 503\n/home/alice/nb.log")
	default:
		return nil, sources.ErrNotFound
	}
	n := &sources.Named{Ref: grant.Ref{Path: "nb/" + book, Title: "Lab notebook", Config: json.RawMessage(`{"book":"` + book + `"}`)}}
	if page != "" {
		n.Doc = "nb/" + name
	}
	return n, nil
}

func (nb notebook) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	var docs []*sources.Document
	for p, text := range nb {
		docs = append(docs, sourcetest.TextDocument(p, text))
	}
	return sourcetest.NewMemory(sources.Info{Path: ref.Path, Kind: ref.Kind, Title: ref.Title}, docs...), nil
}

func TestResolveConnector(t *testing.T) {
	vaultDir := testVault(t)
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("nb", notebook{"nb/lab/2024-03.md": "# March\n\n## Window sweep\n\nA window of 512 tokens was best on SciLong.\n"})
	r := Resolver{Registry: reg}
	defer r.Close()
	plan, err := r.Resolve(context.Background(), Request{
		Vault: vaultDir, RuntimeID: "rt", TurnID: "t1",
		Mentions: []string{"nb:lab", "nb:lab", "nb:offline", "nb:nosuch", "notes"},
		Selections: []Selection{
			{Text: "A window of 512 tokens was best", Path: "nb:lab/2024-03.md"},
			{Text: "Something on a page", Path: "nb:lab/2024-03.md", Page: 2},
			{Text: "A window of 512 tokens", Path: "nb:lab/2024-03.md", Page: -3},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []grant.Ref{
		{Kind: "nb", Path: "nb/lab", Title: "Lab notebook", Config: json.RawMessage(`{"book":"lab"}`)},
		{Kind: grant.KindDirectory, Path: "notes", Title: "notes"},
	}
	if d := cmp.Diff(want, plan.Sources); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
	wantDrop := []Dropped{{Path: "nb:lab/2024-03.md", Reason: DropPage},
		{Path: "nb:offline", Reason: "cannot be read"}, {Path: "nb:nosuch", Reason: "not found"}}
	if d := cmp.Diff(wantDrop, plan.Dropped); d != "" {
		t.Errorf("dropped (-want +got):\n%s", d)
	}
	wantEv := []Evidence{
		{Path: "nb/lab/2024-03.md", Title: "March", Section: "Window sweep", Quote: "A window of 512 tokens was best",
			CitationURI: "nb/lab/2024-03.md#section=Window%20sweep"},
		{Path: "nb/lab/2024-03.md", Title: "March", Page: 2, Quote: "Something on a page", CitationURI: "nb/lab/2024-03.md#page=2"},
		// A negative page is dropped; the quote is placed by its text.
		{Path: "nb/lab/2024-03.md", Title: "March", Section: "Window sweep", Quote: "A window of 512 tokens",
			CitationURI: "nb/lab/2024-03.md#section=Window%20sweep"},
	}
	if d := cmp.Diff(wantEv, plan.Evidence); d != "" {
		t.Errorf("evidence (-want +got):\n%s", d)
	}
	if plan.Mode != grant.ModeMCP || plan.Fingerprint != plan.Scope.Fingerprint() {
		t.Errorf("mode %s, fingerprint %s", plan.Mode, plan.Fingerprint)
	}
	if p := plan.Prompt(); !strings.Contains(p, `- nb nb/lab ("Lab notebook")`) {
		t.Errorf("prompt does not show the source:\n%s", p)
	}
	// The grant carries the connector's source, config included.
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	g, err := grant.Read(gr)
	if err != nil || g.Sources[0].Kind != "nb" || !strings.Contains(string(g.Sources[0].Config), `"lab"`) {
		t.Errorf("grant: %+v, %v", g, err)
	}
	// Without the registry the scheme is a vault path, which does not exist.
	plain, err := (&Resolver{Registry: vault.RegisterLibrary(sources.NewRegistry())}).Resolve(context.Background(), Request{Vault: vaultDir, RuntimeID: "rt", TurnID: "t1", Mentions: []string{"nb:lab"}})
	if err != nil || len(plain.Sources) != 0 || len(plain.Dropped) != 1 {
		t.Errorf("without the connector: %+v, %v", plain, err)
	}
}

// A path granted as a vault source first is not granted again as a
// connector's: its documents would be cited where there are none.
func TestResolveConnectorPathTaken(t *testing.T) {
	vaultDir := testVault(t)
	vaultfix.Write(t, vaultDir, map[string]string{"nb/lab": "a plain file named like the notebook"})
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("nb", notebook{"nb/lab/2024-03.md": "# March\n"})
	r := Resolver{Registry: reg}
	defer r.Close()
	plan, err := r.Resolve(context.Background(), Request{Vault: vaultDir, RuntimeID: "rt", TurnID: "t1",
		Selections: []Selection{{Text: "a plain file", Path: "nb/lab"}, {Text: "March", Path: "nb:lab/2024-03.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Sources) != 1 || plan.Sources[0].Kind != grant.KindFile || len(plan.Dropped) != 1 ||
		plan.Dropped[0].Reason != "granted already as another kind of source" || plan.Evidence[1].CitationURI != "" {
		t.Errorf("sources %+v, dropped %+v, evidence %+v", plan.Sources, plan.Dropped, plan.Evidence)
	}
}
