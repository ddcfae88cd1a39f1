package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources/zotero"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// The sample vault's demo turn (package demo, shared with the sidebar).
const (
	samplePaper      = demo.SamplePaper
	samplePage       = demo.SamplePage
	sampleQuote      = demo.SampleQuote
	sampleAsk        = demo.SampleAsk
	sampleParaphrase = demo.SampleParaphrase
)

var sampleMentions = demo.SampleMentions()

// runtimeID names the demo's grant folder: every run of the demo is one
// runtime of the same host.
const runtimeID = "quickchat-demo"

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

type demoConfig struct {
	vault       string
	paper       string
	page        int
	quote       string
	mentions    []string
	remote      bool
	ask         string
	json        bool
	interactive bool
	agent       string
	agentAuth   string
	turnLimit   time.Duration
	zotero      string
	zoteroBase  string
}

func parseDemoFlags(args []string, stderr io.Writer) (*demoConfig, error) {
	fs := flag.NewFlagSet("quickchat", flag.ContinueOnError)
	// Errors are reported in one line by the caller; only -h prints usage.
	fs.SetOutput(io.Discard)
	c := &demoConfig{}
	var mentions multiFlag
	fs.StringVar(&c.vault, "vault", "", "vault folder (default: the embedded sample vault, extracted to a temporary folder)")
	fs.StringVar(&c.paper, "paper", "", "current paper ref, e.g. papers/2401.01234")
	fs.IntVar(&c.page, "page", 0, "page (1-based) the selection is on")
	fs.StringVar(&c.quote, "quote", "", "selected text")
	fs.Var(&mentions, "mention", "vault path @-mentioned in the message (repeatable)")
	fs.BoolVar(&c.remote, "remote", false, "the agent runs on another machine (prompt-only turn)")
	fs.StringVar(&c.ask, "ask", "", "the user's question: the search query of the scripted turn, the message to -agent")
	fs.BoolVar(&c.json, "json", false, "print the whole run as one JSON object")
	fs.BoolVar(&c.interactive, "i", false, "interactive: type a query, or read <target-or-uri> [mode], rel <paper>, sources, quit")
	fs.StringVar(&c.agent, "agent", "", "drive a real ACP agent with the turn: \"command args\" (quotes group words)")
	fs.StringVar(&c.agentAuth, "agent-auth", "", "with -agent: the ACP authentication method to use after initialize (e.g. openai-api-key for codex-acp)")
	fs.StringVar(&c.zotero, "zotero", os.Getenv(zotero.EnvDir), "Zotero data directory (holding zotero.sqlite) to grant as zotero: (default $"+zotero.EnvDir+")")
	fs.StringVar(&c.zoteroBase, "zotero-base", os.Getenv(zotero.EnvBaseDir), "with -zotero: the base directory of linked files (default $"+zotero.EnvBaseDir+")")
	fs.DurationVar(&c.turnLimit, "agent-timeout", 0, "with -agent: cancel the turn (ACP session/cancel) after this long, e.g. 2m (default: no limit; Ctrl-C cancels)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: quickchat [flags]\n       quickchat plan -request FILE|-\n       quickchat --agentero-context-mcp GRANT")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.Usage()
			return nil, err
		}
		return nil, fmt.Errorf("%v (see quickchat -h)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (see quickchat -h)", fs.Arg(0))
	}
	if c.interactive && c.agent != "" {
		return nil, errors.New("-i and -agent cannot be combined")
	}
	if c.page < 0 {
		return nil, fmt.Errorf("-page %d: pages start at 1", c.page)
	}
	c.mentions = mentions
	return c, nil
}

// useZotero configures the Zotero library of -zotero, for this process and
// the server it starts (which reads the environment), and mentions the
// whole library when no Zotero name is mentioned.
func (c *demoConfig) useZotero() error {
	if c.zotero == "" {
		return nil
	}
	if _, err := demo.UseZotero(c.zotero, c.zoteroBase); err != nil {
		return err
	}
	for _, m := range c.mentions {
		if strings.HasPrefix(m, "zotero:") {
			return nil
		}
	}
	c.mentions = append(c.mentions, "zotero:")
	return nil
}

// demoCmd runs the demo turn.
func demoCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (retErr error) {
	c, err := parseDemoFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	var agentCmd []string
	if c.agent != "" {
		// Checked before anything is extracted or written.
		if agentCmd, err = agentCommand(c.agent); err != nil {
			return err
		}
	}

	sample := c.vault == ""
	if sample {
		dir, err := os.MkdirTemp("", "researchctx-sample-")
		if err != nil {
			return err
		}
		defer func() {
			// Kept after a run, so its links open; removed after an error.
			if retErr != nil {
				os.RemoveAll(dir)
			}
		}()
		c.vault = filepath.Join(dir, "vault")
		if err := samplevault.Extract(c.vault); err != nil {
			return fmt.Errorf("extracting the sample vault: %v", err)
		}
		if c.paper == "" && c.quote == "" && len(c.mentions) == 0 {
			c.paper, c.page, c.quote, c.mentions = samplePaper, samplePage, sampleQuote, sampleMentions
		}
		if c.ask == "" {
			c.ask = sampleAsk
		}
	} else {
		abs, err := filepath.Abs(c.vault)
		if err != nil {
			return err
		}
		st, err := os.Stat(abs)
		if err != nil || !st.IsDir() {
			return fmt.Errorf("vault %q not found or not a folder", c.vault)
		}
		c.vault = abs
	}
	if err := c.useZotero(); err != nil {
		return err
	}
	if c.quote != "" && c.page == 0 && c.paper != "" {
		c.page = 1
	}
	req := researchctx.Request{
		Vault: c.vault, RuntimeID: runtimeID, TurnID: fmt.Sprintf("turn-%d", time.Now().UnixNano()),
		Remote: c.remote, CurrentPaper: c.paper, Mentions: c.mentions,
	}
	if c.quote != "" {
		req.Selections = []researchctx.Selection{{Text: c.quote, Page: c.page}}
	}
	plan, err := researchctx.Resolve(ctx, req)
	if err != nil {
		return err
	}
	if c.paper != "" && !hasPaper(plan, c.paper) {
		return fmt.Errorf("%q is not a paper of this vault (%s)", c.paper, droppedReason(plan, c.paper))
	}
	if c.ask == "" {
		c.ask = defaultAsk(c, plan)
	}
	grantPath, err := plan.WriteGrant()
	if err != nil {
		return err
	}
	run := &demoRun{cfg: c, plan: plan, grantPath: grantPath, out: newPrinter(stdout), sample: sample}
	if c.json {
		run.out = newPrinter(io.Discard)
	}
	run.showPlan()
	if plan.Mode == grant.ModeMCP {
		// Index the granted sources here, with progress, so the agent's
		// first search finds them indexed.
		if err := prewarm(ctx, plan, newProgress(stderr, time.Second, progressEvery, progressEveryPipe)); err != nil {
			return err
		}
	}
	switch {
	case agentCmd != nil:
		if err := run.agentTurn(ctx, agentCmd, stderr); err != nil {
			return err
		}
	case plan.Mode != grant.ModeMCP:
		run.out.step("5", "No tool calls: a prompt-only turn")
		run.out.line("   The agent gets the prompt block above and nothing else; no MCP server is attached.")
	default:
		if err := run.connect(ctx, stderr); err != nil {
			return err
		}
		defer run.session.Close()
		if !c.interactive {
			run.scripted(ctx)
		} else if err := run.interactive(ctx, stdin); err != nil {
			return err
		}
	}
	if err := run.showSources(); err != nil {
		return err
	}
	run.footer()
	if c.json {
		return run.writeJSON(stdout)
	}
	return nil
}

// defaultAsk is the question of a run on the user's own vault when -ask is
// not given: the selection, else the current paper's title.
func defaultAsk(c *demoConfig, p *researchctx.Plan) string {
	if c.quote != "" {
		return c.quote
	}
	for _, s := range p.Sources {
		if s.Kind == grant.KindPaper && s.Title != "" {
			return s.Title
		}
	}
	return "summary"
}

func hasPaper(p *researchctx.Plan, path string) bool {
	for _, s := range p.Sources {
		if s.Path == path && s.Kind == grant.KindPaper {
			return true
		}
	}
	return false
}

func droppedReason(p *researchctx.Plan, path string) string {
	for _, d := range p.Dropped {
		if d.Path == path {
			return string(d.Reason)
		}
	}
	return string(researchctx.DropNotPaper)
}

// demoRun is one demo turn.
type demoRun struct {
	cfg       *demoConfig
	plan      *researchctx.Plan
	grantPath string
	out       *printer
	sample    bool
	session   *sdk.ClientSession
	calls     []callRecord
	agent     *agentReport
	usage     usage.Turn
	sources   []sourceLink
}

// callRecord is one tool call of the turn, for -json.
type callRecord struct {
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args"`
	IsError bool           `json:"isError"`
	Error   string         `json:"error,omitempty"`
	Result  any            `json:"result,omitempty"`
}

func (r *demoRun) showPlan() {
	o := r.out
	where := "your vault"
	if r.sample {
		where = "the embedded sample vault"
	}
	o.title("researchctx quickchat — what a host app does for one chat turn, on " + where)
	o.step("1", "The user asks; the host turns what they are looking at into a Request")
	o.kv("question", r.cfg.ask)
	if r.cfg.paper != "" {
		o.kv("current paper", r.cfg.paper)
	}
	if r.cfg.quote != "" {
		o.kv("selection", fmt.Sprintf("page %d: %q", r.cfg.page, demo.Clip(r.cfg.quote, 90)))
	}
	if len(r.cfg.mentions) > 0 {
		o.kv("@-mentions", strings.Join(r.cfg.mentions, ", "))
	}
	if r.cfg.remote {
		o.kv("remote", "yes: the agent runs on another machine")
	}
	p := r.plan
	o.step("2", "Resolve → Plan: what this turn may read")
	o.kv("mode", fmt.Sprintf("%s · tools %s", p.Mode, orNone(strings.Join(p.Tools, ", "))))
	for _, s := range p.Sources {
		o.kv("source", fmt.Sprintf("%-9s %s  %s", s.Kind, s.Path, o.dim(s.Title)))
	}
	for _, d := range p.Dropped {
		o.kv("dropped", fmt.Sprintf("%s: %s", d.Path, d.Reason))
	}
	o.kv("budget", fmt.Sprintf("%d cards × %d chars per search, %d chars per read, %d chars per turn",
		p.Budget.SearchCards, p.Budget.CardChars, p.Budget.ReadChars, p.Budget.TurnChars))
	o.kv("fingerprint", demo.Clip(p.Fingerprint, 19)+"  (same scope → same fingerprint → the agent session is resumed)")
	o.step("3", "The prompt block the agent receives (evidence only: no abstracts, quotes ≤ 1200 chars)")
	o.block(p.Prompt())
	o.step("4", "The grant the MCP server enforces")
	rel, _ := filepath.Rel(p.Vault, r.grantPath)
	o.kv("grant", "{vault}/"+filepath.ToSlash(rel))
	if p.Mode == grant.ModeMCP {
		o.kv("server", fmt.Sprintf("%s = <this executable> %s <grant>, attached to the agent's session", grant.ServerName, mcp.Flag))
	} else {
		o.kv("server", "none: a prompt-only turn attaches no MCP server")
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// connect starts this executable as the agentero-context server, as an
// agent would, and connects to it over stdio.
func (r *demoRun) connect(ctx context.Context, stderr io.Writer) error {
	exe, args, err := mcp.ServerCommandLine(r.grantPath)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "quickchat", Version: mcp.Version}, nil)
	r.session, err = client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("starting the MCP server: %v", err)
	}
	return nil
}

// call makes one tool call and prints it with a compact view of its result.
func (r *demoRun) call(ctx context.Context, tool string, args map[string]any, note string) *callRecord {
	rec := callRecord{Tool: tool, Args: args}
	res, err := r.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err != nil:
		rec.IsError, rec.Error = true, err.Error()
	case res.IsError:
		rec.IsError = true
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				rec.Error += t.Text
			}
		}
	default:
		rec.Result = res.StructuredContent
	}
	r.calls = append(r.calls, rec)
	o := r.out
	o.call(tool, shortArgs(args), note)
	if rec.IsError {
		o.result(o.red("refused: ") + rec.Error)
	} else {
		o.result(r.view(&rec))
	}
	return &r.calls[len(r.calls)-1]
}

// shortArgs renders a call's arguments as JSON with long strings clipped,
// for display.
func shortArgs(args map[string]any) string {
	short := make(map[string]any, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			v = demo.Clip(s, 60)
		}
		short[k] = v
	}
	b, _ := json.Marshal(short)
	return string(b)
}

// structured decodes a call's structured result into v.
func structured(rec *callRecord, v any) bool {
	if rec == nil || rec.IsError || rec.Result == nil {
		return false
	}
	b, err := json.Marshal(rec.Result)
	return err == nil && json.Unmarshal(b, v) == nil
}

// scripted plays the calls an agent would make for this turn: search for
// the question, read around the selection, read the page the best paper
// card is on, list a mentioned directory, look at the paper's relations,
// and try to read a related paper that is not granted.
func (r *demoRun) scripted(ctx context.Context) {
	r.out.step("5", "A scripted agent turn over MCP (the server is this executable, on stdio)")
	r.out.line(r.out.dim("   → is a call an agent makes, ← what it gets back (shortened here; -json has every field)"))
	t := demo.Turn{Plan: r.plan, Ask: r.cfg.ask, Quote: r.cfg.quote, Page: r.cfg.page}
	if r.cfg.quote == sampleQuote {
		t.Paraphrase = sampleParaphrase
	}
	demo.Script(ctx, t, func(ctx context.Context, tool string, args map[string]any, note string) any {
		if rec := r.call(ctx, tool, args, note); !rec.IsError {
			return rec.Result
		}
		return nil
	})
}

// interactive reads commands from in until quit or end of input.
func (r *demoRun) interactive(ctx context.Context, in io.Reader) error {
	o := r.out
	o.step("5", "Interactive: type a query to search; read <target-or-uri> [mode]; marks <paper>; rel <paper>; sources; quit")
	lines := make(chan string)
	errc := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		// A goroutine, so a cancelled context ends the loop even while the
		// terminal waits for a line.
		errc <- scanLines(in, lines, done)
	}()
	for {
		o.prompt()
		var line string
		select {
		case <-ctx.Done():
			o.line("")
			return nil
		case err := <-errc:
			o.line("")
			return err
		case line = <-lines:
		}
		line = strings.TrimSpace(line)
		cmd, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch cmd {
		case "":
		case "quit", "exit", "q":
			return nil
		case "help", "?":
			o.line("   a query searches the granted sources; read <target-or-uri> [mode]; marks <paper>; rel <paper>; sources; quit")
		case "sources":
			if err := r.listSources(false); err != nil {
				return err
			}
		case "read":
			target, mode := readArgs(rest)
			if target == "" {
				o.line("   usage: read <target-or-uri> [mode]   (modes: " + strings.Join(readModes, ", ") + ")")
				continue
			}
			args := map[string]any{"target": target}
			if mode != "" {
				args["mode"] = mode
			}
			r.call(ctx, grant.ToolRead, args, "")
		case "marks":
			if rest == "" {
				o.line("   usage: marks <paper>   (the user's highlights and notes on a paper or PDF)")
				continue
			}
			r.call(ctx, grant.ToolRead, map[string]any{"target": rest, "mode": tools.ReadMarks}, "")
		case "rel":
			if rest == "" {
				o.line("   usage: rel <paper>")
				continue
			}
			r.call(ctx, grant.ToolRelations, map[string]any{"paper": rest}, "")
		default:
			r.call(ctx, grant.ToolSearch, map[string]any{"query": line}, "")
		}
	}
}

// readModes are the modes of context_read.
var readModes = func() []string {
	var names []string
	for _, m := range tools.ReadModes() {
		names = append(names, string(m))
	}
	return names
}()

// readArgs splits the interactive read command's argument into a target,
// which may hold spaces (a file name), and a mode when the last word is one.
func readArgs(rest string) (target, mode string) {
	rest = strings.TrimSpace(rest)
	if i := strings.LastIndexAny(rest, " \t"); i > 0 && slices.Contains(readModes, rest[i+1:]) {
		return strings.TrimSpace(rest[:i]), rest[i+1:]
	}
	return rest, ""
}

// footer says where the sample vault is and what to try next.
func (r *demoRun) footer() {
	o := r.out
	o.line("")
	if r.sample {
		o.line(o.dim(fmt.Sprintf("The sample vault is kept at %s so these links open; delete it when done.", r.plan.Vault)))
	}
	o.line(o.dim("Next: -i to search and read yourself, -agent \"cmd args\" to run a real ACP agent, -json for machine output, -h for all flags."))
}

func (r *demoRun) writeJSON(w io.Writer) error {
	out := struct {
		Vault     string            `json:"vault"`
		Sample    bool              `json:"sample"`
		Question  string            `json:"question"`
		Plan      *researchctx.Plan `json:"plan"`
		Prompt    string            `json:"prompt"`
		GrantPath string            `json:"grantPath"`
		UsagePath string            `json:"usagePath"`
		Calls     []callRecord      `json:"calls"`
		Agent     *agentReport      `json:"agent,omitempty"`
		Usage     usageJSON         `json:"usage"`
		Sources   []sourceLink      `json:"sources"`
	}{
		Vault: r.plan.Vault, Sample: r.sample, Question: r.cfg.ask, Plan: r.plan, Prompt: r.plan.Prompt(),
		GrantPath: r.grantPath, UsagePath: grant.UsagePath(r.grantPath), Calls: r.calls, Agent: r.agent,
		Usage:   usageJSON{Calls: r.usage.Calls, Chars: r.usage.Chars, TurnChars: r.plan.Budget.TurnChars},
		Sources: r.sources,
	}
	if out.Calls == nil {
		out.Calls = []callRecord{}
	}
	if out.Sources == nil {
		out.Sources = []sourceLink{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// usageJSON is the turn's budget use in -json output.
type usageJSON struct {
	Calls     int `json:"calls"`
	Chars     int `json:"chars"`
	TurnChars int `json:"turnChars"`
}
