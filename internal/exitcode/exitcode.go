// Package exitcode holds the exit codes of the SDK's processes: the
// researchctx command and a host executable started as the
// agentero-context server. Package cli publishes them (cli.ExitOK,
// cli.ExitError, cli.ExitUsage); package mcp, which cli imports, exits
// with them too.
package exitcode

// The exit codes.
const (
	OK    = 0 // done: the result is on stdout, or the server's client closed stdin
	Error = 1 // failed: the vault cannot be written, the connection failed, an I/O error
	Usage = 2 // a bad command line, input that is not valid JSON of its shape, an invalid request or grant
)
