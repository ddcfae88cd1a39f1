// Command researchctx is the researchctx SDK for hosts written in other
// languages: it resolves a turn's Request into its Plan and grant, serves
// the agentero-context MCP server for a grant, reads back the sources a
// turn used, decides whether a turn continues its agent session, and
// cleans stale grant folders. Results are JSON on stdout; errors one line
// on stderr.
//
// Usage:
//
//	researchctx plan -request FILE [-cache-dir DIR]
//	researchctx serve [-cache-dir DIR] GRANT
//	researchctx --agentero-context-mcp GRANT
//	researchctx sources -grant GRANT -turn ID
//	researchctx decide -input FILE
//	researchctx clean -vault DIR -older-than AGE
//
// FILE is a path or - for standard input. RESEARCHCTX_CACHE_DIR, when set,
// is the cache folder of plan, serve and the --agentero-context-mcp form.
// RESEARCHCTX_ZOTERO_DIR (and RESEARCHCTX_ZOTERO_BASE_DIR for linked files,
// or RESEARCHCTX_ZOTERO_PROFILE, Zotero's profile folder whose prefs.js
// records it) name the Zotero library that "zotero:" mentions grant
// (package sources/zotero). The exit codes are
// package cli's (cli.ExitOK 0 done, cli.ExitError 1 failed, cli.ExitUsage 2 a bad command line or
// input). See package cli for the JSON shapes, and
// the README's "Other languages" section for a whole turn from Node.js.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/researchctx/researchctx/cli"
	"github.com/researchctx/researchctx/cli/decide"
	"github.com/researchctx/researchctx/mcp"
	_ "github.com/researchctx/researchctx/sources/zotero" // registers the zotero kind
	"github.com/researchctx/researchctx/tools"
)

func main() {
	// Started by an agent as the MCP server for a grant: serve and exit.
	mcp.ServeIfRequested(&mcp.ServeOptions{Toolset: &tools.Options{CacheRoot: os.Getenv(cli.CacheDirEnv)}})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	c := cli.NewCommand("researchctx")
	c.Subcommands = map[string]cli.Subcommand{"decide": decide.Subcommand}
	code := c.Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
