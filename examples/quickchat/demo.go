package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/samplevault"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/tools"
)

// The sample vault's demo turn: the paper, page and sentence a reader would
// have selected (see internal/samplevault/README.md).
const (
	samplePaper = "papers/2401.01234"
	samplePage  = 1
	sampleQuote = "Strided global tokens let every block see a coarse summary of the whole document at a cost that grows linearly with its length."
	sampleAsk   = "Where does strided attention fail, and does slot routing fix it?"
)

var sampleMentions = []string{"notes", "reading-list"}

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
}

func parseDemoFlags(args []string, stderr io.Writer) (*demoConfig, error) {
	fs := flag.NewFlagSet("quickchat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &demoConfig{}
	var mentions multiFlag
	fs.StringVar(&c.vault, "vault", "", "vault folder (default: the embedded sample vault, extracted to a temporary folder)")
	fs.StringVar(&c.paper, "paper", "", "current paper ref, e.g. papers/2401.01234")
	fs.IntVar(&c.page, "page", 0, "page (1-based) the selection is on")
	fs.StringVar(&c.quote, "quote", "", "selected text")
	fs.Var(&mentions, "mention", "vault path @-mentioned in the message (repeatable)")
	fs.BoolVar(&c.remote, "remote", false, "the agent runs on another machine (prompt-only turn)")
	fs.StringVar(&c.ask, "ask", "", "the question: the search query of the scripted turn")
	fs.BoolVar(&c.json, "json", false, "print the whole run as one JSON object")
	fs.BoolVar(&c.interactive, "i", false, "interactive: type queries and commands")
	fs.StringVar(&c.agent, "agent", "", "drive a real ACP agent: \"command args\"")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: quickchat [flags]\n       quickchat plan -request FILE\n       quickchat --agentero-context-mcp GRANT")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%v (see quickchat -h)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (see quickchat -h)", fs.Arg(0))
	}
	c.mentions = mentions
	return c, nil
}

func demoCmd(args []string, stdout, stderr io.Writer) error {
	c, err := parseDemoFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	sample := c.vault == ""
	if sample {
		dir, err := os.MkdirTemp("", "researchctx-sample-")
		if err != nil {
			return err
		}
		c.vault = filepath.Join(dir, "vault")
		if err := samplevault.Extract(c.vault); err != nil {
			return fmt.Errorf("extracting the sample vault: %v", err)
		}
		if c.paper == "" && c.quote == "" && len(c.mentions) == 0 {
			c.paper, c.page, c.quote, c.mentions = samplePaper, samplePage, sampleQuote, sampleMentions
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
	if c.ask == "" {
		c.ask = sampleAsk
		if !sample {
			c.ask = c.quote
		}
	}
	req := researchctx.Request{
		Vault: c.vault, RuntimeID: "quickchat-demo", TurnID: fmt.Sprintf("turn-%d", time.Now().UnixNano()),
		Remote: c.remote, CurrentPaper: c.paper, Mentions: c.mentions,
	}
	if c.quote != "" {
		req.Selections = []researchctx.Selection{{Text: c.quote, Page: c.page}}
	}
	plan, err := researchctx.Resolve(ctx, req)
	if err != nil {
		return err
	}
	if c.paper != "" && !hasSource(plan, c.paper) {
		return fmt.Errorf("%q is not a paper of this vault (%s)", c.paper, droppedReason(plan, c.paper))
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
	if plan.Mode == researchctx.ModeMCP {
		if err := run.connect(ctx, stderr); err != nil {
			return err
		}
		defer run.session.Close()
		switch {
		case c.agent != "":
			return fmt.Errorf("-agent: driving an ACP agent is not available in this build")
		case c.interactive:
			if err := run.interactive(ctx, os.Stdin); err != nil {
				return err
			}
		default:
			run.scripted(ctx)
		}
	}
	if err := run.showSources(); err != nil {
		return err
	}
	if c.json {
		return run.writeJSON(stdout)
	}
	return nil
}

func hasSource(p *researchctx.Plan, path string) bool {
	for _, s := range p.Sources {
		if s.Path == path && s.Kind == researchctx.KindPaper {
			return true
		}
	}
	return false
}

func droppedReason(p *researchctx.Plan, path string) string {
	for _, d := range p.Dropped {
		if d.Path == path {
			return d.Reason
		}
	}
	return "not a paper"
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
	sources   []sourceLink
}

type callRecord struct {
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args"`
	IsError bool           `json:"isError"`
	Error   string         `json:"error,omitempty"`
	Result  any            `json:"result,omitempty"`
}

type sourceLink struct {
	URI string `json:"uri"`
	URL string `json:"url"`
}

func (r *demoRun) showPlan() {
	o := r.out
	where := "your vault"
	if r.sample {
		where = "the embedded sample vault (extracted to a temporary folder)"
	}
	o.title("researchctx quickchat — one chat turn on " + where)
	o.step("1", "The host turns what the user sees into a Request")
	if r.cfg.paper != "" {
		o.kv("current paper", r.cfg.paper)
	}
	if r.cfg.quote != "" {
		q := r.cfg.quote
		if len([]rune(q)) > 90 {
			q = string([]rune(q)[:90]) + "…"
		}
		o.kv("selection", fmt.Sprintf("page %d: %q", r.cfg.page, q))
	}
	if len(r.cfg.mentions) > 0 {
		o.kv("@-mentions", strings.Join(r.cfg.mentions, ", "))
	}
	if r.cfg.remote {
		o.kv("remote", "yes: the agent runs on another machine")
	}
	p := r.plan
	o.step("2", "Resolve → Plan")
	o.kv("mode", fmt.Sprintf("%s · tools %s", p.Mode, orNone(strings.Join(p.Tools, ", "))))
	o.kv("fingerprint", p.Fingerprint[:19]+"…  (same scope → same fingerprint → the agent session can be resumed)")
	for _, s := range p.Sources {
		o.kv("source", fmt.Sprintf("%-9s %s  %s", s.Kind, s.Path, o.dim(s.Title)))
	}
	for _, d := range p.Dropped {
		o.kv("dropped", fmt.Sprintf("%s: %s", d.Path, d.Reason))
	}
	o.kv("budget", fmt.Sprintf("%d cards × %d chars per search, %d chars per read, %d chars per turn",
		p.Budget.SearchCards, p.Budget.CardChars, p.Budget.ReadChars, p.Budget.TurnChars))
	o.step("3", "The prompt block the agent receives (evidence only: no abstracts, quotes ≤ 1200 chars)")
	o.block(p.Prompt())
	o.step("4", "The grant the MCP server enforces")
	rel, _ := filepath.Rel(p.Vault, r.grantPath)
	o.kv("grant", "{vault}/"+filepath.ToSlash(rel))
	if p.Mode == researchctx.ModeMCP {
		o.kv("server", fmt.Sprintf("%s: <this executable> %s {vault}/%s", researchctx.ServerName, mcp.Flag, filepath.ToSlash(rel)))
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
	exe, args, err := mcp.Command(r.grantPath)
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

// call makes one tool call and prints it.
func (r *demoRun) call(ctx context.Context, tool string, args map[string]any, note string) *callRecord {
	rec := callRecord{Tool: tool, Args: args}
	res, err := r.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	text := ""
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
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				text += t.Text
			}
		}
	}
	r.calls = append(r.calls, rec)
	argJSON, _ := json.Marshal(args)
	o := r.out
	o.call(tool, string(argJSON), note)
	if rec.IsError {
		o.result(o.red("refused: ") + rec.Error)
	} else {
		o.result(compact(text, 9))
	}
	return &r.calls[len(r.calls)-1]
}

// compact keeps the first lines of a tool's text rendering.
func compact(text string, lines int) string {
	ls := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(ls) > lines {
		ls = append(ls[:lines], fmt.Sprintf("… (%d more lines)", len(ls)-lines))
	}
	for i, l := range ls {
		if r := []rune(l); len(r) > 150 {
			ls[i] = string(r[:150]) + "…"
		}
	}
	return strings.Join(ls, "\n")
}

// structured decodes a call's structured result into v.
func structured(rec *callRecord, v any) bool {
	if rec == nil || rec.IsError || rec.Result == nil {
		return false
	}
	b, err := json.Marshal(rec.Result)
	return err == nil && json.Unmarshal(b, v) == nil
}

// scripted plays the calls an agent would make for this turn.
func (r *demoRun) scripted(ctx context.Context) {
	r.out.step("5", "A scripted agent turn over MCP (the server is this executable, on stdio)")
	var paper, dir string
	for _, s := range r.plan.Sources {
		switch {
		case s.Kind == researchctx.KindPaper && paper == "":
			paper = s.Path
		case s.Kind == researchctx.KindDirectory && dir == "":
			dir = s.Path
		}
	}
	r.call(ctx, researchctx.ToolSearch, map[string]any{"query": r.cfg.ask, "limit": 3}, "evidence cards for the question")
	if paper != "" && r.cfg.quote != "" {
		r.call(ctx, researchctx.ToolRead, map[string]any{"target": paper, "mode": tools.ModeExcerpt, "quote": r.cfg.quote}, "the passage around the selection")
	}
	if paper != "" {
		r.call(ctx, researchctx.ToolRead, map[string]any{"target": paper}, "metadata: title, authors, sections")
		r.call(ctx, researchctx.ToolRead, map[string]any{"target": paper, "mode": tools.ModePage, "page": 2}, "one page")
	}
	if dir != "" {
		r.call(ctx, researchctx.ToolRead, map[string]any{"target": dir}, "a directory lists one level, nothing more")
	}
	outside := ""
	if paper != "" {
		rec := r.call(ctx, researchctx.ToolRelations, map[string]any{"paper": paper, "limit": 3}, "references, cited-by, related")
		var rel tools.RelationsOutput
		if structured(rec, &rel) {
			for _, c := range append(append(rel.References, rel.CitedBy...), rel.Related...) {
				if c.PaperPath != "" && !c.InGrant {
					outside = c.PaperPath
					break
				}
			}
		}
	}
	if outside != "" {
		r.call(ctx, researchctx.ToolRead, map[string]any{"target": outside}, "a relation card named it, but it is outside the grant")
	}
	r.call(ctx, researchctx.ToolRead, map[string]any{"target": ".agentero/citing-scan.json"}, "the SDK's private folder")
}

// interactive reads commands from in until quit or end of input.
func (r *demoRun) interactive(ctx context.Context, in io.Reader) error {
	o := r.out
	o.step("5", "Interactive: a query searches; read <target-or-uri> [mode]; rel <paper>; sources; quit")
	sc := bufio.NewScanner(in)
	for {
		o.prompt()
		if !sc.Scan() {
			return sc.Err()
		}
		line := strings.TrimSpace(sc.Text())
		cmd, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch cmd {
		case "":
		case "quit", "exit":
			return nil
		case "sources":
			if err := r.showSources(); err != nil {
				return err
			}
		case "read":
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				o.line("usage: read <target-or-uri> [mode]")
				continue
			}
			args := map[string]any{"target": fields[0]}
			if len(fields) > 1 {
				args["mode"] = fields[1]
			}
			r.call(ctx, researchctx.ToolRead, args, "")
		case "rel":
			if rest == "" {
				o.line("usage: rel <paper>")
				continue
			}
			r.call(ctx, researchctx.ToolRelations, map[string]any{"paper": rest}, "")
		default:
			r.call(ctx, researchctx.ToolSearch, map[string]any{"query": line}, "")
		}
	}
}

// showSources reads the turn's sources back from usage.jsonl, as a host does
// for its agent:completed event, and prints them as links.
func (r *demoRun) showSources() error {
	u, err := researchctx.ReadUsage(researchctx.UsagePath(r.grantPath), r.plan.TurnID)
	if err != nil {
		return err
	}
	r.sources = r.sources[:0]
	for _, uri := range u.Sources {
		r.sources = append(r.sources, sourceLink{URI: uri, URL: openURL(r.plan.Vault, uri)})
	}
	o := r.out
	o.step("6", fmt.Sprintf("Sources of this turn, from usage.jsonl (%d calls, %d characters of the %d budget)", u.Calls, u.Chars, r.plan.Budget.TurnChars))
	if len(r.sources) == 0 {
		o.line("  (none: the agent read nothing from the vault)")
	}
	for i, s := range r.sources {
		o.line(fmt.Sprintf("  %d. %s", i+1, o.link(s.URL, s.URI)))
	}
	return nil
}

// openURL turns a citation URI into a URL a terminal or browser opens: a
// file:// URL into the vault, or the https link itself.
func openURL(vaultRoot, uri string) string {
	u, err := cite.Parse(uri)
	if err != nil || u.DOI != "" || u.ArXiv != "" {
		return uri
	}
	path, frag, _ := strings.Cut(uri, "#")
	f := url.URL{Scheme: "file", Path: filepath.ToSlash(vaultRoot) + "/"}
	s := f.String() + path
	if frag != "" {
		s += "#" + frag
	}
	return s
}

func (r *demoRun) writeJSON(w io.Writer) error {
	out := struct {
		Plan      *researchctx.Plan `json:"plan"`
		Prompt    string            `json:"prompt"`
		GrantPath string            `json:"grantPath"`
		Calls     []callRecord      `json:"calls"`
		Sources   []sourceLink      `json:"sources"`
	}{r.plan, r.plan.Prompt(), r.grantPath, r.calls, r.sources}
	if out.Calls == nil {
		out.Calls = []callRecord{}
	}
	if out.Sources == nil {
		out.Sources = []sourceLink{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
