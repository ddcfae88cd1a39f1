// Command sidebar is a local web host for researchctx: one page on
// 127.0.0.1 that shows a chat turn as a reader app's sidebar does — the
// scope (current paper, selections, @-mentions) and its plan, the agent's
// tool calls as they start and end, the answer, and the turn's sources as
// links that open the PDF at its page or the note at its section.
//
// Usage:
//
//	sidebar [-addr 127.0.0.1:8765] [-vault DIR] [-agent "command args"] [-zotero DIR [-zotero-base DIR]]
//
// Without -vault it serves the embedded sample vault (extracted to a
// temporary folder, removed at exit); without -agent the turn is played by
// a scripted agent that calls the agentero-context tools over MCP. -zotero
// (default $RESEARCHCTX_ZOTERO_DIR) names a Zotero data directory whose
// library, collections, tags and items a turn may mention (zotero:…), and
// -zotero-base the base directory of its linked files. Started
// as
//
//	sidebar --agentero-context-mcp <grant-path>
//
// it is the agentero-context MCP server for that grant, as every host
// executable that calls mcp.ServeIfRequested first is.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources/zotero" // registers the zotero kind: zotero: mentions
)

// defaultAddr is where the page is served unless -addr says otherwise;
// when that port is taken, a free one is used.
const defaultAddr = "127.0.0.1:8765"

func main() {
	// A host's first line: serve MCP and exit when started as the
	// agentero-context server; otherwise continue as the app.
	mcp.ServeIfRequested(nil)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebar: "+strings.Join(strings.Fields(err.Error()), " "))
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	addr      string
	vault     string
	agent     []string
	agentAuth string
	timeout   time.Duration
	pace      time.Duration
	zotero    string
	zotBase   string
}

// flags is the command line's flag set, filling c and agent (the -agent
// value before it is split).
func flags(c *config, agent *string) *flag.FlagSet {
	fs := flag.NewFlagSet("sidebar", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.addr, "addr", defaultAddr, "address to serve the page on: a loopback address and a port (0: any free port)")
	fs.StringVar(&c.vault, "vault", "", "vault folder (default: the embedded sample vault, extracted to a temporary folder)")
	fs.StringVar(agent, "agent", "", "drive a real ACP agent: \"command args\" (quotes group words); default: the scripted agent")
	fs.StringVar(&c.agentAuth, "agent-auth", "", "with -agent: the ACP authentication method to use after initialize")
	fs.DurationVar(&c.timeout, "agent-timeout", 0, "with -agent: cancel a turn (ACP session/cancel) after this long (default: no limit)")
	fs.DurationVar(&c.pace, "pace", 300*time.Millisecond, "scripted agent: how long each tool call shows as running, so the stream can be watched")
	fs.StringVar(&c.zotero, "zotero", os.Getenv(zotero.EnvDir), "Zotero data directory (holding zotero.sqlite) whose library a turn may mention as zotero:… (default $"+zotero.EnvDir+")")
	fs.StringVar(&c.zotBase, "zotero-base", os.Getenv(zotero.EnvBaseDir), "with -zotero: the base directory of linked files (default $"+zotero.EnvBaseDir+")")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: sidebar [flags]\n       sidebar --agentero-context-mcp GRANT")
		fs.PrintDefaults()
	}
	return fs
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	var agent string
	fs := flags(c, &agent)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.Usage()
			return nil, err
		}
		return nil, fmt.Errorf("%v (see sidebar -h)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (see sidebar -h)", fs.Arg(0))
	}
	if agent != "" {
		argv, err := demo.AgentCommand(agent)
		if err != nil {
			return nil, err
		}
		c.agent = argv
	}
	if c.pace < 0 {
		return nil, errors.New("-pace must not be negative")
	}
	if c.zotero != "" {
		// Checked before anything is extracted or served.
		dir, err := demo.UseZotero(c.zotero, c.zotBase)
		if err != nil {
			return nil, err
		}
		c.zotero = dir
	}
	return c, nil
}

// listen binds addr, which must be a loopback address: the page and its
// files are for this machine's browser only.
func listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-addr %q: %v", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("-addr %q: only a loopback address (127.0.0.1) may be served", addr)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip.String(), port))
	if err != nil && addr == defaultAddr {
		// The default port is taken: any free one will do.
		l, err = net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	}
	return l, err
}

// run serves the page until ctx ends. ready, when set, gets the page's
// URL once it is served (for tests).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(url string)) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	sample := c.vault == ""
	if sample {
		dir, err := os.MkdirTemp("", "researchctx-sidebar-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.vault = filepath.Join(dir, "vault")
		if err := samplevault.Extract(c.vault); err != nil {
			return fmt.Errorf("extracting the sample vault: %v", err)
		}
	} else {
		abs, err := filepath.Abs(c.vault)
		if err != nil {
			return err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return fmt.Errorf("vault %q not found or not a folder", c.vault)
		}
		c.vault = abs
	}
	l, err := listen(c.addr)
	if err != nil {
		return err
	}
	var runner agentRunner
	if c.agent != nil {
		runner = &acpRunner{argv: c.agent, auth: c.agentAuth, timeout: c.timeout, stderr: stderr}
	} else {
		runner = &scriptRunner{pace: c.pace, stderr: stderr}
	}
	s, err := newServer(serverConfig{Vault: c.vault, Sample: sample, Addr: l.Addr().String(), Runner: runner})
	if err != nil {
		l.Close()
		return err
	}
	defer s.Close()
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	url := "http://" + l.Addr().String() + "/"
	where := "the embedded sample vault"
	if !sample {
		where = c.vault
	}
	zot := ""
	if c.zotero != "" {
		zot = "  zotero " + c.zotero + " (mention zotero:, zotero:collections/…, zotero:items/<KEY>)\n"
	}
	fmt.Fprintf(stdout, "researchctx sidebar: %s\n  vault  %s\n%s  agent  %s\nCtrl-C stops it.\n", url, where, zot, runner.Name())
	if ready != nil {
		ready(url)
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s.CancelTurns()
	_ = hs.Shutdown(sctx)
	return nil
}
