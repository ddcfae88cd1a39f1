package mcp_test

import (
	"fmt"
	"log"

	"github.com/researchctx/researchctx/mcp"
)

// A host's main starts with ServeIfRequested: started as
// <exe> --agentero-context-mcp <grant-path> the process serves MCP and
// exits; otherwise the call returns and the app runs.
func ExampleServeIfRequested() {
	mcp.ServeIfRequested(nil)

	// ... the host app ...
}

// ServerCommandLine builds the server entry a host puts into the agent
// session for a turn's grant (with ACP: name "agentero-context", this
// command and these args, env []).
func ExampleServerCommandLine() {
	exe, args, err := mcp.ServerCommandLine("/vault/.agentero/context-sessions/run-1/grant.json")
	if err != nil {
		log.Fatal(err)
	}
	_ = exe // the absolute path of the running executable
	fmt.Println(args)
	// Output: [--agentero-context-mcp /vault/.agentero/context-sessions/run-1/grant.json]
}
