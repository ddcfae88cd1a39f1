// Command rssprobe measures the peak resident set of a real server process
// whose first search starts the build of a library's index: it grants the
// papers folder of a vault, starts the given executable as the
// agentero-context server over that grant (as a host does, on stdio), calls
// context_search every two seconds until the text is indexed (the count of
// items done stops moving; what is left then waits for OCR), and prints
// how long that took and the server's VmHWM (Linux).
//
//	go build -o /tmp/researchctx ./cmd/researchctx
//	go run ./internal/cmd/rssprobe /tmp/researchctx VAULT
//
// GOGC=100 in the environment turns off the server's startup hold of the
// collector (until its first answer, at most 10 s), for a side-by-side run.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/tools"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: rssprobe <server executable> <vault>")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "rssprobe:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, exe, root string) error {
	var res researchctx.Resolver
	defer res.Close()
	turnChars := grant.MaxBudget().TurnChars
	plan, err := res.Resolve(ctx, researchctx.Request{
		Vault: root, RuntimeID: fmt.Sprint("rssprobe-", time.Now().UnixNano()), TurnID: "t1",
		Mentions: []string{"papers"}, Budget: &grant.BudgetOverrides{TurnChars: &turnChars},
	})
	if err != nil {
		return err
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "--agentero-context-mcp", gr)
	c := sdk.NewClient(&sdk.Implementation{Name: "rssprobe", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	start := time.Now()
	last, same := -1, 0
	for same < 3 {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: grant.ToolSearch, Arguments: map[string]any{"query": "attention transformer", "limit": 3}})
		if err != nil {
			return err
		}
		if r.IsError {
			return errors.New("context_search failed")
		}
		var out tools.SearchOutput
		b, err := json.Marshal(r.StructuredContent)
		if err == nil {
			err = json.Unmarshal(b, &out)
		}
		if err != nil {
			return err
		}
		if out.Indexing.Total == 0 {
			break
		}
		if out.Indexing.Done == last {
			same++
		} else {
			last, same = out.Indexing.Done, 0
		}
		time.Sleep(2 * time.Second)
	}
	hwm, err := peakRSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("text indexed after %v; server peak RSS %s\n", time.Since(start).Round(time.Second), hwm)
	return nil
}

// peakRSS returns the VmHWM line's value of process pid.
func peakRSS(pid int) (string, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", errors.New("no VmHWM in /proc status")
}
