// Command samplevault writes the embedded sample Vault into a new folder, for
// the scripts that run real MCP clients against the server
// (.ci/mcp-interop.sh) and for the benchmark.
//
// Usage: go run ./internal/cmd/samplevault DIR
package main

import (
	"fmt"
	"os"

	"github.com/researchctx/researchctx/samplevault"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: samplevault DIR")
		os.Exit(2)
	}
	if err := samplevault.Extract(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
