package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
)

// chunks is a test connector that searches a vault PDF the way chunking
// retrievers do: in fixed-size chunks of its text, pages joined, so that a
// chunk may run across a page break. "chunks:PATH" grants the PDF at PATH.
type chunks struct{}

func (chunks) Ref(_ context.Context, name string, _ *sources.Env) (*sources.Named, error) {
	return &sources.Named{Ref: grant.Ref{Path: name, Title: "Chunks of " + name, Config: json.RawMessage(`{}`)}}, nil
}

func (chunks) Open(_ context.Context, ref grant.Ref, env *sources.Env) (sources.Source, error) {
	return chunkSource{info: sources.Info{Path: ref.Path, Kind: ref.Kind, Title: ref.Title}, lib: env.Vault}, nil
}

type chunkSource struct {
	info sources.Info
	lib  sources.Documents
}

// chunkBytes is the size of a chunk.
const chunkBytes = 1200

func (s chunkSource) Info() sources.Info { return s.info }

func (s chunkSource) Read(ctx context.Context, _ string) (*sources.Document, error) {
	return s.lib.Document(ctx, s.info.Path)
}

// Search returns the chunks holding the query's first word, each located on
// the page it starts on and continued onto the pages it runs into.
func (s chunkSource) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	doc, err := s.Read(ctx, "")
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	type start struct{ off, page int }
	var starts []start
	for _, p := range doc.Parts {
		if text.Len() > 0 {
			text.WriteString("\n\n")
		}
		starts = append(starts, start{text.Len(), p.Page})
		text.WriteString(p.Text)
	}
	all := text.String()
	word := strings.Fields(q.Text)[0]
	res := &sources.Results{}
	for off := 0; off < len(all); off += chunkBytes {
		end := min(off+chunkBytes, len(all))
		if !strings.Contains(all[off:end], word) {
			continue
		}
		h := sources.Hit{Location: sources.Location{Path: doc.Path}, Title: doc.Title, Text: all[off:end], Score: 1}
		for _, st := range starts {
			switch {
			case st.off <= off:
				h.Page = st.page
			case st.off < end:
				h.Continues = append(h.Continues, sources.Continuation{Location: sources.Location{Path: doc.Path, Page: st.page}, Offset: st.off - off})
			}
		}
		res.Hits = append(res.Hits, h)
	}
	res.Total = len(res.Hits)
	return res, nil
}

// TestCardCitesEveryPage: a card whose excerpt runs across a page break
// cites both pages and logs both; one whose excerpt stops before the break
// cites its own page only.
func TestCardCitesEveryPage(t *testing.T) {
	const pdf = "papers/2401.01234/2401.01234.pdf"
	tests := []struct {
		name      string
		cardChars int
		want      []string // the card's citationUris; nil for one page
		first     string
		has       string // text the excerpt must hold
	}{
		{"excerpt across the break", 500, []string{pdf + "#page=1", pdf + "#page=2"}, pdf + "#page=1", "3.2 Strided global tokens"},
		{"excerpt before the break", 100, nil, pdf + "#page=1", "Alignment costs almost nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vaultDir := t.TempDir()
			if err := samplevault.Extract(vaultDir); err != nil {
				t.Fatal(err)
			}
			reg := vault.RegisterLibrary(sources.NewRegistry())
			reg.Register("chunks", chunks{})
			r := researchctx.Resolver{Registry: reg}
			t.Cleanup(func() { r.Close() })
			plan, err := r.Resolve(context.Background(), researchctx.Request{Vault: vaultDir, RuntimeID: "chunks", TurnID: "turn-1",
				Mentions: []string{"chunks:" + pdf}, Budget: &grant.BudgetOverrides{CardChars: intp(tt.cardChars)}})
			if err != nil {
				t.Fatal(err)
			}
			gr, err := plan.WriteGrant()
			if err != nil {
				t.Fatal(err)
			}
			ts, err := tools.Open(context.Background(), gr, &tools.Options{Registry: reg})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ts.Close() })
			out, err := ts.Search(context.Background(), tools.SearchInput{Query: "Alignment"})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Cards) != 1 {
				t.Fatalf("%d cards, want 1: %+v", len(out.Cards), out.Cards)
			}
			c := out.Cards[0]
			if diff := cmp.Diff(tt.want, c.CitationURIs); diff != "" {
				t.Errorf("citationUris (-want +got):\n%s", diff)
			}
			if c.CitationURI != tt.first || !strings.Contains(c.Excerpt, tt.has) {
				t.Errorf("card %+v: want citationUri %q and an excerpt holding %q", c, tt.first, tt.has)
			}
			u := usageOf(t, gr)
			logged := tt.want
			if logged == nil {
				logged = []string{tt.first}
			}
			if diff := cmp.Diff(logged, u.URIs()); diff != "" {
				t.Errorf("the turn's sources (-want +got):\n%s", diff)
			}
		})
	}
}
