// Package mcp serves the three context tools of package tools —
// context_search, context_read and paper_relations — as the stdio MCP server
// named agentero-context, over github.com/modelcontextprotocol/go-sdk.
//
// A host does not link a separate server binary: its own executable is the
// server. The first line of the host's main calls ServeIfRequested; when the
// process was started as
//
//	<exe> --agentero-context-mcp <grant-path>
//
// it serves MCP on stdin and stdout for that grant and exits, and otherwise
// it returns and the host runs as usual. ServerCommandLine builds that
// command line for the agent session (ACP) that should see the grant.
// Because the server is the host's executable, it knows the source kinds
// of the connectors the host links (see sources.Register); a grant naming
// a kind it does not know is refused with exit code 2 (cli.ExitUsage) and
// one line on stderr.
//
// The package adds transport only. Package tools decides what a call may
// read, re-reads the grant on every call (and fails closed when it changed),
// enforces the budget and appends the usage line. This package turns its
// results into structured content plus a concise text rendering for models
// that read only text, turns its errors into isError results, and keeps every
// result under 100,000 characters whatever the budget says.
//
// Logging is off unless the environment variable named by LogEnv asks for
// it; it goes to stderr, since stdout is the protocol.
package mcp
