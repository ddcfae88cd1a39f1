package decide_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/researchctx/researchctx/cli"
	"github.com/researchctx/researchctx/cli/decide"
)

// The decide subcommand as a host in another language runs it: the
// session record it kept and this turn's plan on standard input, the
// decision on standard output.
func Example() {
	input := `{
	  "previous": {"sessionId": "agent-7", "fingerprint": "sha256:aaaa"},
	  "plan": {"fingerprint": "sha256:bbbb", "mode": "mcp", "tools": ["context_read", "context_search", "paper_relations"],
	           "sources": [{"kind": "directory", "path": "notes"}]}
	}`
	c := &cli.Command{Name: "researchctx", Stdin: strings.NewReader(input), Stdout: os.Stdout, Stderr: os.Stdout,
		Subcommands: map[string]cli.Subcommand{"decide": decide.Subcommand}}
	code := c.Main(context.Background(), []string{"decide", "-input", "-"})
	fmt.Println("exit code", code)
	// Output:
	// {
	//   "action": "new",
	//   "dropResumeId": true,
	//   "markRefused": true,
	//   "handoff": true,
	//   "attachServer": true,
	//   "reason": "scope fingerprint changed"
	// }
	// exit code 0
}
