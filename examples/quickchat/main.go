// Command quickchat is the demo host of researchctx. Started as
//
//	quickchat --agentero-context-mcp <grant-path>
//
// it is the agentero-context MCP server for that grant, as every host
// executable that calls mcp.ServeIfRequested first is.
package main

import (
	"fmt"
	"os"

	"github.com/researchctx/researchctx/mcp"
)

func main() {
	mcp.ServeIfRequested(nil)

	if len(os.Args) > 1 && os.Args[1] == "plan" {
		if err := planCmd(os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	fmt.Println("usage: quickchat plan -request FILE | quickchat " + mcp.Flag + " <grant-path>")
}
