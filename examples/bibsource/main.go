// Command bibsource is a host executable that links the BibTeX connector of
// package bib and shows the whole path of a connector's source.
//
//	bibsource <vault> <mention> [query]
//
// It resolves a turn whose only mention is <mention> (for example
// bib:library/refs.bib), prints the plan's prompt block and writes its
// grant, then starts itself as the agentero-context MCP server for that
// grant (as an agent would, with mcp.ServerCommandLine), searches the granted
// source for query, reads the best card, asks for the relations of its
// entry, and prints the turn's sources read back from the usage log.
//
// Started as bibsource --agentero-context-mcp <grant>, it is the MCP server:
// the blank import of package bib registered the bib kind, so the server
// re-opens the BibTeX source the grant names.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	_ "github.com/researchctx/researchctx/examples/bibsource/bib" // registers the bib kind
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/usage"
)

func main() {
	// First: when started as the MCP server, serve and exit.
	mcp.ServeIfRequested(nil)
	if len(os.Args) < 3 || len(os.Args) > 4 {
		fmt.Fprintln(os.Stderr, "usage: bibsource <vault> <mention> [query]")
		os.Exit(2)
	}
	query := "attention"
	if len(os.Args) == 4 {
		query = os.Args[3]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, os.Args[1], os.Args[2], query); err != nil {
		fmt.Fprintln(os.Stderr, "bibsource:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, vault, mention, query string) error {
	vault, err := filepath.Abs(vault)
	if err != nil {
		return err
	}
	var r researchctx.Resolver
	defer r.Close()
	plan, err := r.Resolve(ctx, researchctx.Request{Vault: vault, RuntimeID: "bibsource", TurnID: "turn-1", Mentions: []string{mention}})
	if err != nil {
		return err
	}
	for _, d := range plan.Dropped {
		fmt.Fprintf(w, "dropped %s: %s\n", d.Path, d.Reason)
	}
	if plan.Mode != grant.ModeMCP {
		return fmt.Errorf("nothing was granted")
	}
	fmt.Fprint(w, plan.Prompt())
	gr, err := plan.WriteGrant()
	if err != nil {
		return err
	}
	exe, args, err := mcp.ServerCommandLine(gr)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nserver: %s %s <grant>\n", filepath.Base(exe), args[0])
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "bibsource", Version: mcp.Version}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("starting the MCP server: %w", err)
	}
	defer cs.Close()

	var search struct {
		Cards []struct {
			Path, Title, Excerpt, CitationURI string
		}
	}
	if err := call(ctx, cs, grant.ToolSearch, map[string]any{"query": query}, &search); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ncontext_search %q:\n", query)
	for _, c := range search.Cards {
		fmt.Fprintf(w, "  %s — %s\n", c.CitationURI, oneLine(c.Excerpt, 100))
	}
	if len(search.Cards) == 0 {
		return nil
	}
	top := search.Cards[0]
	var read struct {
		Title, CitationURI string
		Page               int
	}
	if err := call(ctx, cs, grant.ToolRead, map[string]any{"target": top.CitationURI}, &read); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ncontext_read %s: %q, page %d, cite %s\n", top.CitationURI, read.Title, read.Page, read.CitationURI)
	entry := top.Path
	var rels struct {
		References, CitedBy, Related []struct{ Title, CitationURI string }
	}
	if err := call(ctx, cs, grant.ToolRelations, map[string]any{"paper": entry}, &rels); err != nil {
		return err
	}
	fmt.Fprintf(w, "\npaper_relations %s: %d references, %d citing, %d related\n", entry, len(rels.References), len(rels.CitedBy), len(rels.Related))
	u, err := usage.Read(grant.UsagePath(gr), plan.TurnID, &plan.Scope)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nsources of the turn:")
	for _, s := range u.Sources {
		fmt.Fprintf(w, "  %-8s %-7s %s\n", s.Use, s.Place, s.URI)
	}
	return nil
}

// call calls a tool and decodes its structured result into out.
func call(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any, out any) error {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				msg = append(msg, t.Text)
			}
		}
		return fmt.Errorf("%s: %s", tool, strings.Join(msg, " "))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
