// Command quickchat is the demo host of researchctx. Started as
//
//	quickchat --agentero-context-mcp <grant-path>
//
// it is the agentero-context MCP server for that grant, as every host
// executable that calls mcp.ServeIfRequested first is.
package main

import (
	"fmt"

	"github.com/researchctx/researchctx/mcp"
)

func main() {
	mcp.ServeIfRequested(nil)

	fmt.Println("usage: quickchat " + mcp.Flag + " <grant-path>")
}
