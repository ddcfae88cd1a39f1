// Command mcpbench measures the agentero-context server as a process, the
// way an agent meets it, and prints Markdown for docs/benchmarks.md.
// It measures:
//
//   - cold start: process start → initialize → first context_read result,
//     median of -runs runs, side by side (interleaved, same client, same
//     machine, same moment) with @modelcontextprotocol/server-filesystem
//     reading one file of the same size;
//   - peak RSS (VmHWM) of the server during a SciFact search session: the
//     5,183 abstracts as text files in one granted directory, one
//     context_search per training claim.
//
// Usage (from the module root; .ci/mcp-interop.sh installs the npm server):
//
//	go build -o /tmp/quickchat ./examples/quickchat
//	go run ./internal/cmd/mcpbench -quickchat /tmp/quickchat \
//	    -fs-server ~/.cache/researchctx-npm/node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/samplevault"
)

func main() {
	quickchat := flag.String("quickchat", "", "built examples/quickchat executable (required)")
	fsServer := flag.String("fs-server", "", "dist/index.js of @modelcontextprotocol/server-filesystem (skip the comparison when empty)")
	runs := flag.Int("runs", 20, "cold-start runs per server")
	fileChars := flag.Int("file-chars", 6000, "size of the file both servers read, in characters (under the default read cap of 8,000)")
	scifact := flag.String("scifact", "", "SciFact folder (default: the shared corpus beside the module)")
	claims := flag.Int("claims", 809, "claims to search in the RSS session (0 skips it)")
	flag.Parse()
	if *quickchat == "" {
		fmt.Fprintln(os.Stderr, "mcpbench: -quickchat is required")
		os.Exit(2)
	}
	if err := run(*quickchat, *fsServer, *runs, *fileChars, *scifact, *claims); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

func run(quickchat, fsServer string, runs, fileChars int, scifact string, claims int) error {
	work, err := os.MkdirTemp("", "mcpbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	load := "?"
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(data))[:3], " ")
	}
	fmt.Printf("machine: %s/%s, %d CPUs, load average %s, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), load, time.Now().UTC().Format("2006-01-02"))

	if err := coldStart(work, quickchat, fsServer, runs, fileChars); err != nil {
		return err
	}
	if claims > 0 {
		if scifact == "" {
			root, err := corpus.Root()
			if err != nil {
				return err
			}
			scifact = filepath.Join(root, "scifact")
		}
		if err := scifactSession(work, quickchat, scifact, claims); err != nil {
			return err
		}
	}
	return nil
}

// coldStart times process start → initialize → first read, for ours and
// for the reference filesystem server, interleaved run by run.
func coldStart(work, quickchat, fsServer string, runs, fileChars int) error {
	vault := filepath.Join(work, "vault")
	if err := samplevault.Extract(vault); err != nil {
		return err
	}
	doc := filepath.Join(vault, "bench", "doc.md")
	if err := os.MkdirAll(filepath.Dir(doc), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(doc, []byte(benchText(fileChars)), 0o644); err != nil {
		return err
	}
	turnChars := grant.MaxBudget().TurnChars // 20 reads in one turn
	gr, err := writeGrant(researchctx.Request{
		Vault: vault, RuntimeID: "bench", TurnID: "turn-1",
		CurrentPaper: "papers/2401.01234",
		Mentions:     []string{"bench/doc.md", "notes"},
		Budget:       &grant.BudgetOverrides{TurnChars: &turnChars},
	})
	if err != nil {
		return err
	}
	ours := func() (time.Duration, int, error) {
		return firstCall(exec.Command(quickchat, mcp.Flag, gr), grant.ToolRead,
			map[string]any{"target": "bench/doc.md", "mode": "full"})
	}
	theirs := func() (time.Duration, int, error) {
		return firstCall(exec.Command("node", fsServer, filepath.Dir(doc)), "read_text_file",
			map[string]any{"path": doc})
	}
	var a, b []time.Duration
	var aChars, bChars int
	for i := range runs {
		d, n, err := ours()
		if err != nil {
			return fmt.Errorf("ours, run %d: %w", i, err)
		}
		a, aChars = append(a, d), n
		if fsServer != "" {
			d, n, err := theirs()
			if err != nil {
				return fmt.Errorf("server-filesystem, run %d: %w", i, err)
			}
			b, bChars = append(b, d), n
		}
	}
	fmt.Printf("Cold start: process start → initialize → first read result, %d runs each, interleaved; a %d-character Markdown file.\n\n", runs, fileChars)
	fmt.Println("| Server | Median | Min | Max | Result text |")
	fmt.Println("|---|---|---|---|---|")
	row := func(name string, ds []time.Duration, chars int) {
		fmt.Printf("| %s | %s | %s | %s | %d chars |\n", name, ms(median(ds)), ms(slices.Min(ds)), ms(slices.Max(ds)), chars)
	}
	row("agentero-context (quickchat, context_read full)", a, aChars)
	if len(b) > 0 {
		row("@modelcontextprotocol/server-filesystem (node, read_text_file)", b, bChars)
		fmt.Printf("\nRatio of medians: %.3f (target ≤ 0.25)\n", float64(median(a))/float64(median(b)))
	}
	fmt.Println()
	return nil
}

// firstCall starts cmd, connects, calls one tool and returns the time from
// start to result and the characters of its text.
func firstCall(cmd *exec.Cmd, tool string, args map[string]any) (time.Duration, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// No roots: the reference server would otherwise ask for them.
	c := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	start := time.Now()
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return 0, 0, err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	d := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			n += len([]rune(t.Text))
		}
	}
	if res.IsError {
		return 0, 0, fmt.Errorf("isError result: %.200s", textOf(res))
	}
	return d, n, nil
}

// scifactSession serves the SciFact abstracts as one granted directory and
// runs one context_search per claim, sampling the server's peak RSS.
func scifactSession(work, quickchat, scifact string, claims int) error {
	vault := filepath.Join(work, "scifact-vault")
	docs, err := writeSciFact(filepath.Join(scifact, "corpus.jsonl"), filepath.Join(vault, "scifact"))
	if err != nil {
		return err
	}
	queries, err := readClaims(filepath.Join(scifact, "claims_train.jsonl"), claims)
	if err != nil {
		return err
	}
	req := researchctx.Request{Vault: vault, RuntimeID: "bench-scifact", TurnID: "turn-0", Mentions: []string{"scifact"}}
	gr, err := writeGrant(req)
	if err != nil {
		return err
	}
	cmd := exec.Command(quickchat, mcp.Flag, gr)
	c := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, nil)
	ctx := context.Background()
	start := time.Now()
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	pid := cmd.Process.Pid
	var lat []time.Duration
	var first time.Duration
	cards := 0
	for i, q := range queries {
		// A new turn every 10 searches, as a host rewrites the grant each
		// turn: same scope, fresh budget (10 full searches fit in the
		// default turn budget, so no search is cut by it).
		if i > 0 && i%10 == 0 {
			req.TurnID = fmt.Sprintf("turn-%d", i/10)
			if _, err := writeGrant(req); err != nil {
				return err
			}
		}
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: grant.ToolSearch, Arguments: map[string]any{"query": q}})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("search %d: %s", i, textOf(res))
		}
		d := time.Since(t0)
		if i == 0 {
			first = time.Since(start)
		} else {
			lat = append(lat, d)
		}
		var out struct{ Cards []json.RawMessage }
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &out)
		cards += len(out.Cards)
	}
	hwm, rss, err := memory(pid)
	if err != nil {
		return err
	}
	cs.Close()

	// A second server process on the same grant: the index cached by the
	// first is reused.
	cmd2 := exec.Command(quickchat, mcp.Flag, gr)
	start2 := time.Now()
	cs2, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd2}, nil)
	if err != nil {
		return err
	}
	defer cs2.Close()
	res, err := cs2.CallTool(ctx, &sdk.CallToolParams{Name: grant.ToolSearch, Arguments: map[string]any{"query": queries[0]}})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("second session: %s", textOf(res))
	}
	warm := time.Since(start2)
	hwm2, _, err := memory(cmd2.Process.Pid)
	if err != nil {
		return err
	}
	slices.Sort(lat)
	fmt.Printf("SciFact session: %d abstracts as text files in one granted directory, %d context_search calls (one per training claim), one server process.\n\n", docs, len(queries))
	fmt.Println("| Measure | Value |")
	fmt.Println("|---|---|")
	fmt.Printf("| Process start → first search result (builds the index) | %s |\n", ms(first))
	if len(lat) > 0 {
		fmt.Printf("| Later searches: median / p95 | %s / %s |\n", ms(median(lat)), ms(lat[len(lat)*95/100]))
	}
	fmt.Printf("| Cards returned | %d |\n", cards)
	fmt.Printf("| Peak RSS (VmHWM) | %.1f MB (target ≤ 150 MB) |\n", float64(hwm)/1e6)
	fmt.Printf("| RSS at the end | %.1f MB |\n", float64(rss)/1e6)
	fmt.Printf("| Second process on the same grant: start → first search result (cached index) | %s |\n", ms(warm))
	fmt.Printf("| Second process: peak RSS after one search | %.1f MB |\n", float64(hwm2)/1e6)
	return nil
}

// writeSciFact writes each abstract as <doc_id>.txt: the title line, then
// one sentence per line.
func writeSciFact(corpusPath, dir string) (int, error) {
	f, err := os.Open(corpusPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	n := 0
	for sc.Scan() {
		var d struct {
			DocID     string   `json:"doc_id"`
			Title     string   `json:"title"`
			Sentences []string `json:"sentences"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return n, err
		}
		text := d.Title + "\n" + strings.Join(d.Sentences, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, d.DocID+".txt"), []byte(text), 0o644); err != nil {
			return n, err
		}
		n++
	}
	return n, sc.Err()
}

func readClaims(path string, max int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < max {
		var c struct{ Claim string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, err
		}
		out = append(out, c.Claim)
	}
	return out, sc.Err()
}

// memory reads VmHWM (peak resident set) and VmRSS of a process, in bytes.
func memory(pid int) (hwm, rss int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("reading the server's memory (Linux only): %w", err)
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			hwm = kb * 1024
		case "VmRSS:":
			rss = kb * 1024
		}
	}
	if hwm == 0 {
		return 0, 0, errors.New("no VmHWM in /proc status")
	}
	return hwm, rss, nil
}

func writeGrant(req researchctx.Request) (string, error) {
	plan, err := researchctx.Resolve(context.Background(), req)
	if err != nil {
		return "", err
	}
	if plan.Mode != grant.ModeMCP {
		return "", fmt.Errorf("plan is %s: %v", plan.Mode, plan.Dropped)
	}
	return plan.WriteGrant()
}

// benchText is n characters of Markdown prose.
func benchText(n int) string {
	const para = "Sparse attention keeps a local window around each token and a few global tokens that see the whole document. "
	var b strings.Builder
	b.WriteString("# Benchmark document\n\n")
	for b.Len() < n {
		b.WriteString(para)
		if b.Len()%700 < len(para) {
			b.WriteString("\n\n")
		}
	}
	return b.String()[:n]
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}
