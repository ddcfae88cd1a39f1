// Command quickchat is a host-shaped demo of researchctx: it does what a
// reader app does for one chat turn, on the embedded sample vault or a vault
// of your own.
//
// It is a real host executable: started as
//
//	quickchat --agentero-context-mcp <grant-path>
//
// it is the agentero-context MCP server for that grant, as every host
// executable that calls mcp.ServeIfRequested first is.
//
// Usage:
//
//	quickchat [flags]                 run a demo turn (see quickchat -h)
//	quickchat plan -request FILE      resolve a Request (JSON) and write its grant
//
// With -agent "command args" the turn goes to a real ACP agent through
// package acp, with the server attached.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/researchctx/researchctx/mcp"
)

func main() {
	// A host's first line: serve MCP and exit when started as the
	// agentero-context server; otherwise continue as the app.
	mcp.ServeIfRequested(nil)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	args := os.Args[1:]
	var err error
	if len(args) > 0 && args[0] == "plan" {
		err = planCmd(ctx, args[1:], os.Stdin, os.Stdout)
	} else {
		err = demoCmd(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	}
	stop()
	if errors.Is(err, errInterrupted) {
		// The cancelled turn already said so in one line.
		os.Exit(130)
	}
	if err != nil {
		// One line, whatever the error says.
		fmt.Fprintln(os.Stderr, "quickchat: "+strings.Join(strings.Fields(err.Error()), " "))
		os.Exit(1)
	}
}
