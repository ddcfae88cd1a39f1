package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// fixture is a turn on the sample vault: the current paper, the notes
// directory, the extensionless reading list and the vision organisation
// folder are granted.
type fixture struct {
	vault string
	plan  *researchctx.Plan
	grant string
	ts    *tools.Toolset
}

func newFixture(t *testing.T, budget *grant.BudgetOverrides, mentions ...string) *fixture {
	t.Helper()
	return newFixtureWith(t, budget, nil, mentions...)
}

// newFixtureWith is newFixture on a sample vault that prep changed first.
func newFixtureWith(t *testing.T, budget *grant.BudgetOverrides, prep func(vault string), mentions ...string) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	if prep != nil {
		prep(dir)
	}
	if mentions == nil {
		mentions = []string{"notes", "reading-list", "papers/vision"}
	}
	return openTurn(t, dir, "rt", budget, mentions)
}

// openTurn grants mentions and the current paper of the sample vault at
// dir to runtime's first turn and opens a Toolset for the grant. Turns of
// other runtimes on the same vault share what the vault keeps (its
// caches).
func openTurn(t *testing.T, dir, runtime string, budget *grant.BudgetOverrides, mentions []string) *fixture {
	t.Helper()
	var res researchctx.Resolver
	t.Cleanup(func() { res.Close() })
	plan, err := res.Resolve(context.Background(), researchctx.Request{
		Vault: dir, RuntimeID: runtime, TurnID: "turn-1", CurrentPaper: "papers/2401.01234",
		Mentions: mentions, Budget: budget,
	})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.Open(context.Background(), gr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return &fixture{vault: dir, plan: plan, grant: gr, ts: ts}
}

// noLeak fails when a result or error names the machine's vault path or the
// hidden secret.
func (f *fixture) noLeak(t *testing.T, s string) {
	t.Helper()
	for _, bad := range []string{f.vault, "not-a-real-secret"} {
		if strings.Contains(s, bad) {
			t.Errorf("leak of %q in %q", bad, s)
		}
	}
}

func TestSearch(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	out, err := f.ts.Search(ctx, tools.SearchInput{Query: "strided global tokens are a blunt instrument"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Cards) == 0 || len(out.Cards) > f.plan.Budget.SearchCards {
		t.Fatalf("%d cards, want 1..%d", len(out.Cards), f.plan.Budget.SearchCards)
	}
	top := out.Cards[0]
	if top.CitationURI != "papers/2401.01234/2401.01234.pdf#page=2" || top.Source != "papers/2401.01234" || top.Kind != "paper" || top.Page != 2 {
		t.Errorf("top card = %+v, want the Limitations page of papers/2401.01234", top)
	}
	if !strings.Contains(top.Excerpt, "blunt instrument") {
		t.Errorf("top excerpt %q lacks the phrase", top.Excerpt)
	}
	for _, c := range out.Cards {
		if n := len([]rune(c.Excerpt)); n > f.plan.Budget.CardChars {
			t.Errorf("card excerpt of %d characters exceeds the card cap", n)
		}
		f.noLeak(t, c.Excerpt)
	}
	if out.Budget.Used == 0 || out.Budget.Used+out.Budget.Remaining != f.plan.Budget.TurnChars {
		t.Errorf("budget report %+v", out.Budget)
	}

	again, err := f.ts.Search(ctx, tools.SearchInput{Query: "strided global tokens are a blunt instrument"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(out.Cards, again.Cards); diff != "" {
		t.Errorf("ranking is not deterministic (-first +second):\n%s", diff)
	}

	t.Run("source filter", func(t *testing.T) {
		out, err := f.ts.Search(ctx, tools.SearchInput{Query: "slot routing results", Source: "notes"})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Cards) == 0 {
			t.Fatal("no cards from notes")
		}
		for _, c := range out.Cards {
			if c.Source != "notes" || !strings.HasPrefix(c.Path, "notes/") {
				t.Errorf("card from %s (%s) with source=notes", c.Source, c.Path)
			}
		}
	})
	t.Run("section citation with a space in the file name", func(t *testing.T) {
		out, err := f.ts.Search(ctx, tools.SearchInput{Query: "稀疏注意力 召回率", Source: "notes"})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Cards) == 0 || out.Cards[0].Path != "notes/meeting 2024-03-12.md" {
			t.Fatalf("CJK search: %+v", out.Cards)
		}
		if want := "notes/meeting%202024-03-12.md#section=%E5%A4%87%E6%B3%A8%EF%BC%88%E4%B8%AD%E6%96%87%EF%BC%89"; out.Cards[0].CitationURI != want {
			t.Errorf("URI %q, want %q", out.Cards[0].CitationURI, want)
		}
	})
	t.Run("organisation folder reaches its papers", func(t *testing.T) {
		out, err := f.ts.Search(ctx, tools.SearchInput{Query: "gated residual pathways shallow classifiers", Source: "papers/vision"})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Cards) == 0 || out.Cards[0].Path != "papers/vision/resnet-like/paper.pdf" {
			t.Fatalf("cards %+v", out.Cards)
		}
	})
	t.Run("limit", func(t *testing.T) {
		out, err := f.ts.Search(ctx, tools.SearchInput{Query: "attention", Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Cards) != 2 || !out.Truncated {
			t.Errorf("limit 2: %d cards, truncated %v", len(out.Cards), out.Truncated)
		}
	})
	t.Run("hidden file never found", func(t *testing.T) {
		out, err := f.ts.Search(ctx, tools.SearchInput{Query: "token not-a-real-secret"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range out.Cards {
			f.noLeak(t, c.Excerpt)
			if strings.Contains(c.Path, ".secret") {
				t.Errorf("hidden file in a card: %s", c.Path)
			}
		}
	})
	for _, tt := range []struct {
		name string
		in   tools.SearchInput
		want error
	}{
		{"empty query", tools.SearchInput{Query: "  "}, tools.ErrInvalidArgument},
		{"negative limit", tools.SearchInput{Query: "x", Limit: -1}, tools.ErrInvalidArgument},
		{"source not granted", tools.SearchInput{Query: "x", Source: "papers/2403.05678"}, tools.ErrNotGranted},
		{"source with dot-dot", tools.SearchInput{Query: "x", Source: "notes/../papers"}, tools.ErrNotGranted},
		{"private source", tools.SearchInput{Query: "x", Source: ".agentero"}, tools.ErrNotGranted},
		{"path inside a source", tools.SearchInput{Query: "x", Source: "notes/ideas.txt"}, tools.ErrInvalidArgument},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.ts.Search(ctx, tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			f.noLeak(t, err.Error())
		})
	}
}

func TestReadModes(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	tests := []struct {
		name  string
		in    tools.ReadInput
		check func(t *testing.T, out *tools.ReadOutput)
	}{
		{"metadata is the default", tools.ReadInput{Target: "papers/2401.01234"}, func(t *testing.T, out *tools.ReadOutput) {
			if out.Mode != "metadata" || out.Title != "Strided Block Attention for Long Document Encoding" || out.Pages != 3 ||
				out.ArXivID == "" || out.DOI == "" || len(out.Authors) == 0 || out.Abstract == "" || len(out.Sections) < 5 || out.Text != "" {
				t.Errorf("metadata = %+v", out)
			}
			if out.CitationURI != "papers/2401.01234/2401.01234.pdf" {
				t.Errorf("URI %q", out.CitationURI)
			}
		}},
		{"page", tools.ReadInput{Target: "papers/2401.01234", Mode: "page", Page: 2}, func(t *testing.T, out *tools.ReadOutput) {
			if out.Page != 2 || !strings.Contains(out.Text, "Strided global tokens are a blunt instrument") || out.CitationURI != "papers/2401.01234/2401.01234.pdf#page=2" {
				t.Errorf("page 2 = %+v", out)
			}
		}},
		{"citation URI as target reads its page", tools.ReadInput{Target: "papers/2401.01234/2401.01234.pdf#page=3"}, func(t *testing.T, out *tools.ReadOutput) {
			if out.Mode != "page" || out.Page != 3 || out.Text == "" {
				t.Errorf("URI target = %+v", out)
			}
		}},
		{"excerpt ignores case, whitespace and line breaks", tools.ReadInput{Target: "papers/2401.01234", Quote: "STRIDED global tokens let every   block see a coarse summary"}, func(t *testing.T, out *tools.ReadOutput) {
			if out.Mode != "excerpt" || out.Page != 1 || out.Matches < 1 || !strings.Contains(out.Text, "grows linearly") || len([]rune(out.Text)) > 1500 {
				t.Errorf("excerpt = %+v", out)
			}
		}},
		{"section", tools.ReadInput{Target: "papers/2401.01234", Mode: "section", Section: "3.1 Block partition"}, func(t *testing.T, out *tools.ReadOutput) {
			if !strings.Contains(out.Text, "block size of 256 tokens") || out.Page != 1 {
				t.Errorf("section = %+v", out)
			}
		}},
		{"region by layout id", tools.ReadInput{Target: "papers/2401.01234", Mode: "region", Region: "table-1"}, func(t *testing.T, out *tools.ReadOutput) {
			if out.Page != 2 || out.CitationURI != "papers/2401.01234/2401.01234.pdf#region=table-1" || out.Text == "" {
				t.Errorf("region = %+v", out)
			}
		}},
		{"directory lists one level and nothing else", tools.ReadInput{Target: "notes"}, func(t *testing.T, out *tools.ReadOutput) {
			var names []string
			for _, e := range out.Entries {
				names = append(names, e.Name+":"+string(e.Kind))
			}
			want := []string{"archive:directory", "ideas.txt:file", "meeting 2024-03-12.md:file", "reading-plan.md:file"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if out.Text != "" {
				t.Error("a directory read returned text")
			}
		}},
		{"organisation folder lists its papers", tools.ReadInput{Target: "papers/vision"}, func(t *testing.T, out *tools.ReadOutput) {
			kinds := map[string]grant.Kind{}
			for _, e := range out.Entries {
				kinds[e.Name] = e.Kind
			}
			if kinds["resnet-like"] != "paper" || kinds["patch-tokens"] != "paper" {
				t.Errorf("entries %+v", out.Entries)
			}
		}},
		{"file in a directory by URI with a space", tools.ReadInput{Target: "notes/meeting%202024-03-12.md#section=Action%20items"}, func(t *testing.T, out *tools.ReadOutput) {
			if out.Mode != "section" || out.Section != "Action items" || out.Text == "" || out.CitationURI != "notes/meeting%202024-03-12.md#section=Action%20items" {
				t.Errorf("section of a note = %+v", out)
			}
		}},
		{"extensionless file", tools.ReadInput{Target: "reading-list", Mode: "full"}, func(t *testing.T, out *tools.ReadOutput) {
			if !strings.Contains(out.Text, "papers/2401.01234") || out.CitationURI != "reading-list" {
				t.Errorf("reading-list = %+v", out)
			}
		}},
		{"paper inside a granted organisation folder has metadata", tools.ReadInput{Target: "papers/vision/resnet-like"}, func(t *testing.T, out *tools.ReadOutput) {
			if out.Title != "Residual Pathways for Shallow Image Classifiers" || out.Pages != 2 || out.DOI == "" || len(out.Entries) != 0 {
				t.Errorf("nested paper metadata = %+v", out)
			}
		}},
		{"paper inside a granted organisation folder", tools.ReadInput{Target: "papers/vision/resnet-like/paper.pdf#page=2"}, func(t *testing.T, out *tools.ReadOutput) {
			if !strings.Contains(out.Text, "Gated residual pathways are a cheap default") {
				t.Errorf("nested paper page = %+v", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := f.ts.Read(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, out)
			f.noLeak(t, out.Text+out.Title)
		})
	}
}

func TestReadFullPagedByCursor(t *testing.T) {
	small := 700
	f := newFixture(t, &grant.BudgetOverrides{ReadChars: &small})
	ctx := context.Background()
	out, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Mode: "full"})
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	pages := 0
	for {
		if n := len([]rune(out.Text)); n > small {
			t.Fatalf("piece of %d characters above the read cap", n)
		}
		all.WriteString(out.Text)
		pages++
		if out.NextCursor == "" {
			break
		}
		if !out.Truncated {
			t.Error("a piece with a cursor is not marked truncated")
		}
		if pages > 100 {
			t.Fatal("cursor never ends")
		}
		out, err = f.ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Cursor: out.NextCursor})
		if err != nil {
			t.Fatal(err)
		}
	}
	text := all.String()
	if pages < 3 || !strings.Contains(text, "[page 3]") || !strings.Contains(text, "blunt instrument") {
		t.Errorf("paged full read: %d pieces, %d characters", pages, len(text))
	}
	if _, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Cursor: "c1.bogus"}); !errors.Is(err, tools.ErrInvalidArgument) {
		t.Errorf("bogus cursor: %v", err)
	}
}

func TestReadRefusals(t *testing.T) {
	f := newFixture(t, nil)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("not-a-real-secret outside"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(f.vault, "notes", "link.txt"))
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		in   tools.ReadInput
		want error
	}{
		{"paper outside the grant, named by a relation card", tools.ReadInput{Target: "papers/2403.05678"}, tools.ErrNotGranted},
		{"its PDF page", tools.ReadInput{Target: "papers/2403.05678/2403.05678.pdf#page=1"}, tools.ErrNotGranted},
		{"sibling with a common prefix", tools.ReadInput{Target: "notes-private/x.md"}, tools.ErrNotGranted},
		{"dot-dot after a granted prefix", tools.ReadInput{Target: "notes/../papers/2403.05678"}, tools.ErrNotGranted},
		{"encoded dot-dot", tools.ReadInput{Target: "notes/%2e%2e/papers/2403.05678"}, tools.ErrNotGranted},
		{"encoded slash", tools.ReadInput{Target: "notes%2f..%2fpapers"}, tools.ErrNotGranted},
		{"absolute path", tools.ReadInput{Target: "/etc/passwd"}, tools.ErrNotGranted},
		{"vault's own absolute path", tools.ReadInput{Target: "VAULT/notes/ideas.txt"}, tools.ErrNotGranted},
		{"backslash", tools.ReadInput{Target: "notes\\..\\papers"}, tools.ErrNotGranted},
		{"NUL", tools.ReadInput{Target: "notes/ideas.txt\x00"}, tools.ErrNotGranted},
		{"private folder", tools.ReadInput{Target: ".agentero/citing-scan.json"}, tools.ErrNotGranted},
		{"grant file", tools.ReadInput{Target: ".agentero/context-sessions/rt/grant.json"}, tools.ErrNotGranted},
		{"hidden file in a granted directory", tools.ReadInput{Target: "notes/.secret", Mode: "full"}, sources.ErrNotFound},
		{"symlink out of a granted directory", tools.ReadInput{Target: "notes/link.txt", Mode: "full"}, tools.ErrNotGranted},
		{"binary file", tools.ReadInput{Target: "notes/archive/whiteboard.png", Mode: "full"}, tools.ErrInvalidArgument},
		{"external link", tools.ReadInput{Target: "https://doi.org/10.5555/rtm.2024.0017"}, tools.ErrNotGranted},
		{"page fragment with dot-dot", tools.ReadInput{Target: "papers/2401.01234/../2403.05678/2403.05678.pdf#page=1"}, tools.ErrNotGranted},
		{"unknown mode", tools.ReadInput{Target: "notes", Mode: "everything"}, tools.ErrInvalidArgument},
		{"excerpt without a quote", tools.ReadInput{Target: "papers/2401.01234", Mode: "excerpt"}, tools.ErrInvalidArgument},
		{"quote not found", tools.ReadInput{Target: "papers/2401.01234", Quote: "this sentence is in no paper at all"}, sources.ErrNotFound},
		{"page out of range", tools.ReadInput{Target: "papers/2401.01234", Page: 99}, sources.ErrNotFound},
		{"unknown section", tools.ReadInput{Target: "papers/2401.01234", Section: "9 Appendix Z"}, sources.ErrNotFound},
		{"unknown region", tools.ReadInput{Target: "papers/2401.01234", Region: "figure-99"}, sources.ErrNotFound},
		{"directory read as text", tools.ReadInput{Target: "notes", Mode: "full"}, tools.ErrInvalidArgument},
		{"missing file in a granted directory", tools.ReadInput{Target: "notes/nope.md"}, sources.ErrNotFound},
		{"empty target", tools.ReadInput{Target: ""}, tools.ErrInvalidArgument},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Target = strings.ReplaceAll(tt.in.Target, "VAULT", f.vault)
			out, err := f.ts.Read(ctx, tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Read(%+v) = %+v, %v; want %v", tt.in, out, err, tt.want)
			}
			f.noLeak(t, err.Error())
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestRelations(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	out, err := f.ts.Relations(ctx, tools.RelationsInput{Paper: "papers/2401.01234", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	find := func(cards []tools.RelationCard, title string) *tools.RelationCard {
		for i := range cards {
			if strings.HasPrefix(cards[i].Title, title) {
				return &cards[i]
			}
		}
		t.Fatalf("no card %q in %+v", title, cards)
		return nil
	}
	// References: localMatch by DOI into the granted organisation folder.
	if c := find(out.References, "Residual Pathways for Shallow Image Classifiers"); c.PaperPath != "papers/vision/resnet-like" || !c.InGrant || c.CitationURI != "papers/vision/resnet-like/paper.pdf" {
		t.Errorf("resnet-like reference = %+v", c)
	}
	if c := find(out.References, "Attention Is All You Need"); c.PaperPath != "" || c.CitationURI != "https://arxiv.org/abs/1706.03762" {
		t.Errorf("external arXiv reference = %+v", c)
	}
	if c := find(out.References, "Notes on block-sparse kernels"); c.CitationURI != "" || c.PaperPath != "" {
		t.Errorf("reference with no identifier = %+v", c)
	}
	// Cited by: arXiv with a version suffix, the DOI alias, never the seed's own path.
	if c := find(out.CitedBy, "Routing Tokens to Memory Slots"); c.PaperPath != "papers/2403.05678" || c.InGrant || c.CitationURI != "papers/2403.05678/2403.05678.pdf" {
		t.Errorf("cited-by 2403.05678 = %+v", c)
	}
	if c := find(out.CitedBy, "Sparse Attention for Long Documents"); c.PaperPath != "papers/2406.09876" {
		t.Errorf("cited-by via the DOI alias = %+v", c)
	}
	if c := find(out.CitedBy, "Strided Block Attention for Long Document Encoding: A Reproduction"); c.PaperPath != "" || c.CitationURI != "https://doi.org/10.5555/repro.2024.0310" {
		t.Errorf("reproduction study borrowed a path: %+v", c)
	}
	if c := find(out.CitedBy, "Sparse Kernels on Consumer GPUs"); c.CitationURI != "" {
		t.Errorf("no-id citer has a URI: %+v", c)
	}
	if len(out.Related) == 0 {
		t.Error("no related papers")
	}
	for _, c := range append(append(out.References, out.CitedBy...), out.Related...) {
		if c.PaperPath == "papers/2401.01234" {
			t.Errorf("a card borrows the paper's own path: %+v", c)
		}
		if len(c.Authors) > 4 {
			t.Errorf("card with %d authors", len(c.Authors))
		}
	}
	// A paper a card named but outside the grant stays refused.
	if _, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers/2403.05678"}); !errors.Is(err, tools.ErrNotGranted) {
		t.Errorf("read of a related paper outside the grant: %v", err)
	}
	nested, err := f.ts.Relations(ctx, tools.RelationsInput{Paper: "papers/vision/resnet-like"})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(nested.CitedBy, "Strided Block Attention for Long Document Encoding"); c.PaperPath != "papers/2401.01234" || !c.InGrant {
		t.Errorf("nested paper cited-by = %+v", c)
	}
	only, err := f.ts.Relations(ctx, tools.RelationsInput{Paper: "papers/2401.01234/2401.01234.pdf", Kind: "references"})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.CitedBy) != 0 || len(only.Related) != 0 || len(only.References) == 0 {
		t.Errorf("kind=references returned other lists: %+v", only)
	}
	for _, tt := range []struct {
		in   tools.RelationsInput
		want error
	}{
		{tools.RelationsInput{Paper: "papers/2403.05678"}, tools.ErrNotGranted},
		{tools.RelationsInput{Paper: "notes"}, tools.ErrInvalidArgument},
		{tools.RelationsInput{Paper: "papers/2401.01234", Kind: "cousins"}, tools.ErrInvalidArgument},
	} {
		if _, err := f.ts.Relations(ctx, tt.in); !errors.Is(err, tt.want) {
			t.Errorf("Relations(%+v) = %v, want %v", tt.in, err, tt.want)
		}
	}
}

func TestBudgetAndUsage(t *testing.T) {
	turn := 3000
	f := newFixture(t, &grant.BudgetOverrides{TurnChars: &turn})
	ctx := context.Background()
	// A second Toolset on the same grant stands for a second server process.
	other, err := tools.Open(ctx, f.grant, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var last tools.BudgetReport
	for i := 0; ; i++ {
		ts := f.ts
		if i%2 == 1 {
			ts = other
		}
		out, err := ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Page: i%3 + 1})
		if errors.Is(err, tools.ErrBudgetSpent) {
			if !strings.Contains(err.Error(), "budget") {
				t.Errorf("spent error does not say so: %v", err)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if out.Budget.Used <= last.Used || out.Budget.Used > turn+f.plan.Budget.ReadChars {
			t.Fatalf("budget went from %+v to %+v", last, out.Budget)
		}
		last = out.Budget
		if i > 20 {
			t.Fatal("budget never spent")
		}
	}
	if _, err := other.Search(ctx, tools.SearchInput{Query: "attention"}); !errors.Is(err, tools.ErrBudgetSpent) {
		t.Errorf("the other process still has budget: %v", err)
	}
	u, err := usage.Read(grant.UsagePath(f.grant), "turn-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Chars != last.Used || u.Sources[0].URI != "papers/2401.01234/2401.01234.pdf#page=1" {
		t.Errorf("usage = %+v, last report %+v", u, last)
	}

	// The host's next turn: same scope, new turn id: a fresh budget.
	f.plan.TurnID = "turn-2"
	if _, err := f.plan.WriteGrant(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ts.Read(ctx, tools.ReadInput{Target: "notes"}); err != nil {
		t.Errorf("new turn with the same scope: %v", err)
	}
}

func TestGrantChangedFailsClosed(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	if _, err := f.ts.Read(ctx, tools.ReadInput{Target: "notes"}); err != nil {
		t.Fatal(err)
	}
	// A wider scope under the same runtime id: the old session must not see it.
	wider, err := researchctx.Resolve(ctx, researchctx.Request{Vault: f.vault, RuntimeID: "rt", TurnID: "turn-2",
		CurrentPaper: "papers/2401.01234", Mentions: []string{"notes", "reading-list", "papers/vision", "papers/2403.05678"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wider.WriteGrant(); err != nil {
		t.Fatal(err)
	}
	for _, call := range []func() error{
		func() error { _, err := f.ts.Read(ctx, tools.ReadInput{Target: "papers/2403.05678"}); return err },
		func() error { _, err := f.ts.Read(ctx, tools.ReadInput{Target: "notes"}); return err },
		func() error { _, err := f.ts.Search(ctx, tools.SearchInput{Query: "routing"}); return err },
		func() error {
			_, err := f.ts.Relations(ctx, tools.RelationsInput{Paper: "papers/2401.01234"})
			return err
		},
	} {
		if err := call(); !errors.Is(err, tools.ErrGrantChanged) || err.Error() != "the grant changed; start a new session" {
			t.Errorf("after a scope change: %v", err)
		}
	}
	os.Remove(f.grant)
	if _, err := f.ts.Read(ctx, tools.ReadInput{Target: "notes"}); !errors.Is(err, tools.ErrGrantChanged) {
		t.Errorf("after the grant was deleted: %v", err)
	}
}

// A transport's cap on one result is applied by the Toolset itself, so the
// cut is paged by the cursor and logged exactly.
func TestMaxResultChars(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	ts, err := tools.Open(ctx, f.grant, &tools.Options{MaxResultChars: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	out, err := ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Page: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Every character of the result counts toward the cap, not only the
	// text, and the log holds exactly the result's charge.
	if n := out.Chars(); n != 300 || len(out.Text) == 0 || !out.Truncated || out.NextCursor == "" {
		t.Fatalf("capped read: charge %d (text %d), truncated %v, cursor %q", n, len([]rune(out.Text)), out.Truncated, out.NextCursor)
	}
	if u := usageOf(t, f.grant); u.Chars != out.Budget.Used || u.Chars != out.Chars() {
		t.Errorf("logged %d characters, result charge %d, report %+v", u.Chars, out.Chars(), out.Budget)
	}
	next, err := ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Cursor: out.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	page, _ := f.ts.Read(ctx, tools.ReadInput{Target: "papers/2401.01234", Page: 2})
	if !strings.HasPrefix(page.Text, out.Text+next.Text) {
		t.Error("the cursor does not continue where the cut ended")
	}
	s, err := ts.Search(ctx, tools.SearchInput{Query: "attention", Limit: 8})
	if err != nil {
		t.Fatal(err)
	}
	if total := s.Chars(); total > 300 || len(s.Cards) == 0 || !s.Truncated {
		t.Errorf("capped search: charge %d in %d cards, truncated %v", total, len(s.Cards), s.Truncated)
	}
}

// usageOf reads the fixture turn's usage.
func usageOf(t *testing.T, gr string) usage.Turn {
	t.Helper()
	u, err := usage.Read(grant.UsagePath(gr), "turn-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Skipped != 0 {
		t.Errorf("%d usage lines skipped", u.Skipped)
	}
	return u
}
