package cli_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/cli"
	"github.com/researchctx/researchctx/samplevault"
)

// What `researchctx plan -request -` does with a Request on its standard
// input: resolve it, write the grant, and return the Plan it prints.
func ExamplePlan() {
	tmp, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(tmp)
	vault := filepath.Join(tmp, "vault")
	if err := samplevault.Extract(vault); err != nil {
		log.Fatal(err)
	}
	request := `{
	  "vault": "` + vault + `",
	  "runtimeId": "chat-1",
	  "turnId": "turn-1",
	  "currentPaper": "papers/2401.01234",
	  "selections": [{"text": "A block size of 256 tokens was the best trade-off in our experiments"}],
	  "mentions": ["notes", "../elsewhere"]
	}`
	var res researchctx.Resolver
	defer res.Close()
	out, err := cli.Plan(context.Background(), &res, strings.NewReader(request))
	if err != nil {
		log.Fatal(err)
	}
	rel, _ := filepath.Rel(vault, out.GrantPath)
	fmt.Println("grant:", filepath.ToSlash(rel))
	fmt.Println("mode:", out.Mode, "tools:", out.Tools)
	for _, s := range out.Sources {
		fmt.Println("source:", s.Kind, s.Path)
	}
	for _, e := range out.Evidence {
		fmt.Println("evidence:", e.CitationURI)
	}
	for _, d := range out.Dropped {
		fmt.Printf("dropped: %s (%s)\n", d.Path, d.Reason)
	}
	// Output:
	// grant: .agentero/context-sessions/chat-1/grant.json
	// mode: mcp tools: [context_read context_search paper_relations]
	// source: paper papers/2401.01234
	// source: directory notes
	// evidence: papers/2401.01234/2401.01234.pdf#page=1
	// dropped: ../elsewhere (outside the vault)
}
