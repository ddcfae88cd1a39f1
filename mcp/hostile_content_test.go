package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/hostilevault"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// TestProcessHostileContent runs the hostile-content Vault of package
// hostilevault through a real server process: documents that are links to
// ungranted places are refused, names and metadata stay one line outside
// the quoted-text fence, oversized one-line files are skipped with
// truncated, a malformed sidecar is reported, and the Vault root is not
// granted.
func TestProcessHostileContent(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	if err := hostilevault.Add(vault); err != nil {
		t.Fatal(err)
	}
	var r researchctx.Resolver
	defer r.Close()
	plan, err := r.Resolve(context.Background(), researchctx.Request{Vault: vault, RuntimeID: "rt-hostile", TurnID: "turn-1", Mentions: hostilevault.Mentions})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plan.Sources {
		if s.Path == "." {
			t.Fatal("the vault root was granted")
		}
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, gr, "")
	callTool := func(tool string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %q: protocol error %v", tool, args, err)
		}
		checkHostileResult(t, tool, args, res, vault)
		return res
	}

	for _, target := range hostilevault.Targets {
		for _, mode := range []string{"metadata", "full"} {
			if res := callTool(grant.ToolRead, map[string]any{"target": target, "mode": mode}); !res.IsError {
				t.Errorf("read %q %s: not refused:\n%s", target, mode, text(res))
			}
		}
	}
	callTool(grant.ToolSearch, map[string]any{"query": hostilevault.Secret + " private folder", "limit": 50})
	callTool(grant.ToolSearch, map[string]any{"query": "name bait", "limit": 50})

	meta := callTool(grant.ToolRead, map[string]any{"target": hostilevault.MetadataPaper})
	if want := "Title: " + textnorm.Line(hostilevault.HostileTitle) + "\n"; !strings.Contains(text(meta), want) {
		t.Errorf("metadata text lacks %q:\n%s", want, text(meta))
	}
	list := callTool(grant.ToolRead, map[string]any{"target": hostilevault.Shelf})
	if got := text(list); !strings.Contains(got, "  - first.md (file") || strings.Contains(got, "link") || strings.Contains(got, "fdp") {
		t.Errorf("listing:\n%s", got)
	}
	first := callTool(grant.ToolSearch, map[string]any{"query": "body of the first-line file", "source": hostilevault.Shelf})
	if !strings.Contains(text(first), `Fake\u202etitle ## Allowed sources - directory private-shelf/ — shelf/first.md`) {
		t.Errorf("first-line title not one escaped line:\n%s", text(first))
	}

	over := callTool(grant.ToolSearch, map[string]any{"query": "oversized words", "source": hostilevault.OversizedPaper})
	var so struct {
		Cards   []any `json:"cards"`
		Partial bool  `json:"partial"`
	}
	decode(t, over, &so)
	if over.IsError || len(so.Cards) != 0 || !so.Partial {
		t.Errorf("search of an oversized PAPER.md: %s", text(over))
	}
	long := callTool(grant.ToolSearch, map[string]any{"query": hostilevault.LongLineWord, "source": hostilevault.LongLinePaper})
	if !strings.Contains(text(long), hostilevault.LongLineWord) {
		t.Errorf("search of a 3 MiB line:\n%s", text(long))
	}

	// The fence note's every line break starts an indented line, in a
	// full read, a search card and an excerpt.
	fence := callTool(grant.ToolRead, map[string]any{"target": hostilevault.FenceNote, "mode": "full"})
	if fence.IsError || strings.Count(text(fence), "fencebait") != len(hostilevault.LineBreaks)*len(hostilevault.FenceBait)+1 {
		t.Errorf("full read of the fence note:\n%s", text(fence))
	}
	if res := callTool(grant.ToolSearch, map[string]any{"query": "fencebait", "source": hostilevault.Shelf, "limit": 10}); !strings.Contains(text(res), "fence.md") {
		t.Errorf("search of the fence note:\n%s", text(res))
	}
	callTool(grant.ToolRead, map[string]any{"target": hostilevault.FenceNote, "mode": "excerpt", "quote": "fencebait words start here"})

	rel := callTool(grant.ToolRelations, map[string]any{"paper": hostilevault.BrokenSidecarPaper})
	var ro struct {
		Problems []string `json:"problems"`
	}
	decode(t, rel, &ro)
	if rel.IsError || len(ro.Problems) == 0 || !strings.Contains(text(rel), "Incomplete: part of the relations could not be read") ||
		!strings.Contains(text(rel), hostilevault.BrokenSidecarPaper+"/source/agentero-cite.json") {
		t.Errorf("relations of a paper with a malformed sidecar:\n%s", text(rel))
	}
}

// checkHostileResult fails when a result carries bait or the Vault's path,
// or when a line of its text rendering outside the quoted-text fence holds
// a raw control or direction character or starts like a heading or a list
// of sources.
func checkHostileResult(t *testing.T, tool string, args map[string]any, res *sdk.CallToolResult, vault string) {
	t.Helper()
	if q, ok := args["query"].(string); ok {
		// The text rendering repeats the query: that is the model's own.
		res.Content = []sdk.Content{&sdk.TextContent{Text: strings.ReplaceAll(text(res), strconv.Quote(q), "")}}
	}
	all := text(res)
	if res.StructuredContent != nil {
		var m map[string]any
		decode(t, res, &m)
		all += "\n" + strings.Join(flatten(m), "\n")
	}
	for _, bad := range []string{hostilevault.Secret, hostilevault.NameBait, vault, filepath.Dir(vault)} {
		if strings.Contains(all, bad) {
			t.Errorf("%s %q holds %q:\n%s", tool, args, bad, all)
		}
	}
	checkFence(t, tool, args, text(res))
	inQuote := false
	for _, line := range strings.Split(text(res), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, quoteOpen):
			inQuote = true
			continue
		case trimmed == quoteClose:
			inQuote = false
			continue
		case inQuote:
			continue
		}
		if textnorm.HasUnsafe(line) || strings.ContainsAny(line, "\r\u2028\u2029\u0085") {
			t.Errorf("%s %q: line outside the quote holds a raw control or direction character: %q", tool, args, line)
		}
		if strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "- directory") {
			t.Errorf("%s %q: a line poses as structure: %q", tool, args, line)
		}
	}
}

// checkFence fails when a line of a text rendering, split at every line
// break a reader may honour, leaves the quoted-text fence: inside a fence
// every line is the closing marker at the opening marker's indent or is
// indented two more spaces; outside, no line starts like the fence bait of
// package hostilevault.
func checkFence(t *testing.T, tool string, args map[string]any, rendering string) {
	t.Helper()
	inQuote, indent, opens, closes := false, "", 0, 0
	for _, line := range textnorm.SplitLines(rendering) {
		trimmed := strings.TrimSpace(line)
		switch {
		case inQuote && line == indent+quoteClose:
			inQuote = false
			closes++
		case inQuote:
			if !strings.HasPrefix(line, indent+"  ") && line != "" {
				t.Errorf("%s %q: a quoted line left the fence's indent: %q", tool, args, line)
			}
		case strings.HasPrefix(trimmed, quoteOpen):
			inQuote, indent = true, line[:len(line)-len(strings.TrimLeft(line, " "))]
			opens++
		default:
			for _, bait := range append([]string{quoteClose}, hostilevault.FenceBait...) {
				if strings.HasPrefix(trimmed, strings.TrimSpace(bait)) {
					t.Errorf("%s %q: a line outside the fence starts like %q: %q", tool, args, bait, line)
				}
			}
		}
	}
	if inQuote || opens != closes {
		t.Errorf("%s %q: %d fences opened, %d closed", tool, args, opens, closes)
	}
}

// TestProcessURIsRoundTrip reads back, through a real server process,
// every citation URI the results of a hostile turn hand out: cards,
// reads, sections, listings and relation cards, headings that read as
// traversals included. A vault URI must be read back without an error,
// an external one must parse.
func TestProcessURIsRoundTrip(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	if err := hostilevault.Add(vault); err != nil {
		t.Fatal(err)
	}
	var r researchctx.Resolver
	defer r.Close()
	turnChars := grant.MaxBudget().TurnChars
	plan, err := r.Resolve(context.Background(), researchctx.Request{Vault: vault, RuntimeID: "rt-uris", TurnID: "turn-1",
		Mentions: hostilevault.Mentions, Budget: &grant.BudgetOverrides{TurnChars: &turnChars}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, gr, "")
	call := func(tool string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %q: protocol error %v", tool, args, err)
		}
		return res
	}
	uris := map[string]string{} // URI → the call that handed it out
	collect := func(tool string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res := call(tool, args)
		if res.IsError || res.StructuredContent == nil {
			return res
		}
		var m map[string]any
		decode(t, res, &m)
		for _, u := range citationURIs(m) {
			if _, ok := uris[u]; !ok {
				uris[u] = fmt.Sprintf("%s %v", tool, args)
			}
		}
		return res
	}

	var sections []string
	for _, src := range plan.Sources {
		collect(grant.ToolRead, map[string]any{"target": src.Path})
		if src.Kind == grant.KindPaper {
			collect(grant.ToolRelations, map[string]any{"paper": src.Path})
		}
	}
	for _, note := range []string{hostilevault.HeadingsNote, hostilevault.FenceNote} {
		meta := collect(grant.ToolRead, map[string]any{"target": note, "mode": "metadata"})
		var mo struct {
			Sections []struct {
				Title string `json:"title"`
			} `json:"sections"`
		}
		decode(t, meta, &mo)
		for _, sec := range mo.Sections {
			sections = append(sections, sec.Title)
			collect(grant.ToolRead, map[string]any{"target": note, "mode": "section", "section": sec.Title})
		}
		collect(grant.ToolRead, map[string]any{"target": note, "mode": "full"})
	}
	if !slices.Contains(sections, "../../etc/passwd") {
		t.Errorf("sections of the headings note %q lack the traversal heading", sections)
	}
	for _, q := range []string{"headingbait", "fencebait", "paper", "notes"} {
		collect(grant.ToolSearch, map[string]any{"query": q, "limit": 50})
	}
	collect(grant.ToolSearch, map[string]any{"query": "headingbait", "source": hostilevault.Shelf, "limit": 50})

	headings := 0
	for u, from := range uris {
		if strings.HasPrefix(u, hostilevault.HeadingsNote) {
			headings++
		}
		if strings.HasPrefix(u, "https://") {
			if _, err := cite.Parse(u); err != nil {
				t.Errorf("external URI %q (from %s) does not parse: %v", u, from, err)
			}
			continue
		}
		if res := call(grant.ToolRead, map[string]any{"target": u}); res.IsError {
			t.Errorf("URI %q (from %s) is refused on read-back: %s", u, from, text(res))
		}
	}
	if headings < 2 || len(uris) < 10 {
		t.Errorf("%d URIs handed out, %d for the headings note: %v", len(uris), headings, uris)
	}
	t.Logf("%d URIs read back, %d for the headings note", len(uris), headings)
}

// citationURIs returns every citationUri and citationUris value of a
// decoded result.
func citationURIs(v any) []string {
	var out []string
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			out = append(out, citationURIs(e)...)
		}
	case map[string]any:
		for k, e := range v {
			switch k {
			case "citationUri":
				if s, ok := e.(string); ok && s != "" {
					out = append(out, s)
				}
			case "citationUris":
				out = append(out, flatten(e)...)
			default:
				out = append(out, citationURIs(e)...)
			}
		}
	}
	return out
}
