package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/exitcode"
	"github.com/researchctx/researchctx/internal/memlimit"
	"github.com/researchctx/researchctx/tools"
)

// Flag is the command-line flag that turns a host executable into the
// agentero-context server: <exe> --agentero-context-mcp <grant-path>.
const Flag = "--agentero-context-mcp"

// LogEnv names the environment variable that turns on the server's logging
// to stderr: debug, info, warn or error (any other non-empty value means
// info). Unset or empty, the server logs nothing.
const LogEnv = "RESEARCHCTX_MCP_LOG"

// ServeOptions configure Serve and ServeIfRequested. The zero value serves a
// Vault grant with the Vault's own sources and the connectors registered in
// sources.DefaultRegistry.
type ServeOptions struct {
	// Toolset configures the Toolset opened for the grant: its Registry has
	// the connectors whose kinds the server re-opens from the grant (nil
	// means sources.DefaultRegistry, where a linked connector package
	// registers itself; a grant naming a kind it does not know is refused
	// with cli.ExitUsage), its Sources those of a host with sources of its own,
	// its CallTimeout the deadline of each tool call (zero means
	// tools.DefaultCallTimeout, 60 s): a call past it answers a one-line
	// tool error wrapping tools.ErrCallTimeout, and the server goes on (see
	// ServerOptions.CallTimeout for a call stuck in a source that ignores
	// its context).
	// Its Logger, when nil, is set to Logger.
	Toolset *tools.Options
	// Logger receives diagnostics; nil means what LogEnv asks for.
	Logger *slog.Logger

	// answered, when set, is called after each tool call is answered
	// (ServeIfRequested's end of its startup hold, see startupHold).
	answered func()
}

// Serve serves the agentero-context MCP server for the grant at grantPath
// on in and out (newline-delimited JSON-RPC) until in ends or ctx is done.
// Once in ends, every call read is answered before Serve returns: a call
// still running 5 s after the end is cancelled, given a second to end, and
// answered with an error; once ctx is done, Serve returns within a second,
// even when out blocks (a client that reads nothing). It returns
// nil when in ends, and an error wrapping ctx's when ctx is done. A line
// that is not a JSON-RPC message is answered with a JSON-RPC error (-32700
// Parse error, or -32600 Invalid Request) and serving goes on. A grant that is missing, invalid or allows no
// tools is an error wrapping grant.ErrInvalid, returned before anything
// is written to out.
func Serve(ctx context.Context, grantPath string, in io.Reader, out io.Writer, opts *ServeOptions) error {
	if opts == nil {
		opts = &ServeOptions{}
	}
	log := opts.Logger
	if log == nil {
		log = LoggerFromEnv(os.Stderr)
	}
	topts := tools.Options{}
	if opts.Toolset != nil {
		topts = *opts.Toolset
	}
	if topts.Logger == nil {
		topts.Logger = log
	}
	if topts.MaxResultChars == 0 {
		// The text appears twice in a result (structured and rendered):
		// keep it well under half of the cap, so the Toolset cuts and
		// pages exactly and fit below is only a backstop.
		topts.MaxResultChars = maxResultChars * 2 / 5
	}
	ts, err := tools.Open(ctx, grantPath, &topts)
	if err != nil {
		return err
	}
	var stopBy time.Time // when the stop must be over, once serving ends
	defer func() { closeWithin(ts, stopBy, log) }()
	// The grant is read once, by the Toolset: the tool list served and the
	// scope enforced come from the same read (each call then checks the
	// file's fingerprint against it).
	g := ts.Grant()
	s := NewServer(ts, &ServerOptions{Tools: g.Tools, Vault: g.Vault, Logger: log, CallTimeout: topts.CallTimeout, answered: opts.answered})
	log.Info("serving", "runtimeId", g.RuntimeID, "fingerprint", g.Fingerprint, "tools", g.Tools)
	stopBy, err = serveLines(ctx, s, in, out, log)
	return err
}

// drainGrace is how long Serve goes on once its input ends, so that the
// calls it has read are answered: a client may write its calls and close
// stdin at once. Every call read before the end is answered (its result,
// or its error) and, when it returned a result, logged in usage.jsonl
// before Serve returns. A call still running drainGrace after the end is
// cancelled, given shutdownGrace to end, and then answered with an error
// saying the server stopped before it finished. (A variable only so that
// the package's tests can shorten it in a server process they start.)
var drainGrace = 5 * time.Second

// shutdownGrace bounds how long Serve takes to stop once its calls in
// flight are cancelled: when its context is done, or drainGrace after its
// input ended. Calls still running get all of it but answerGrace (one
// stuck in a source that ignores its context is then abandoned), and are
// answered with an error within it; a client that reads nothing does not
// hold the stop either (its blocked write is abandoned at the end of the
// grace), nor does a background index build.
const shutdownGrace = time.Second

// answerGrace is the part of shutdownGrace kept to answer the calls the
// stop abandoned.
const answerGrace = shutdownGrace / 5

// serveLines runs s on newline-delimited JSON-RPC from in to out through the
// line filter. Once in ends it waits for the calls read to be answered, at
// most drainGrace, then shutdownGrace more; once ctx is done, shutdownGrace.
// A call unanswered by then is answered with an error before it returns.
func serveLines(ctx context.Context, s *sdk.Server, in io.Reader, out io.Writer, log *slog.Logger) (stopBy time.Time, err error) {
	return serveLinesWithin(ctx, s, in, out, log, drainGrace)
}

// serveLinesWithin is serveLines with the drain grace as a parameter. It
// returns when the stop it began must be over (see closeWithin).
func serveLinesWithin(ctx context.Context, s *sdk.Server, in io.Reader, out io.Writer, log *slog.Logger, drain time.Duration) (stopBy time.Time, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &lockedWriter{w: out}
	defer func() {
		if stopBy.IsZero() {
			stopBy = time.Now().Add(shutdownGrace)
		}
		if w.closeBy(stopBy) != nil {
			log.Warn("stopping with a write to the client blocked: the client reads nothing")
		}
	}()
	lines := newLineFilter(in, w, log, drain, ctx.Done())
	done := make(chan error, 1)
	go func() {
		done <- s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(lines), Writer: nopWriteCloser{w}, MaxLineLength: -1})
	}()
	select {
	case err = <-done:
	case <-lines.ended:
		stopBy = time.Now().Add(shutdownGrace)
		err = waitUntil(done, stopBy.Add(-answerGrace), log, "stopping with calls still running")
	case <-ctx.Done():
		stopBy = time.Now().Add(shutdownGrace)
		waitUntil(done, stopBy.Add(-answerGrace), log, "stopping with calls still running")
		err = ctx.Err()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return stopBy, fmt.Errorf("serving MCP: %w", err)
	}
	return stopBy, nil
}

// closeWithin closes ts, which stops a background index build and waits
// for it, but returns by stopBy, or shutdownGrace from now when stopBy is
// zero, whatever is still running: the server's exit stays prompt, and
// the build's files are written atomically, so one cut short leaves
// nothing half-written.
func closeWithin(ts *tools.Toolset, stopBy time.Time, log *slog.Logger) {
	if stopBy.IsZero() {
		stopBy = time.Now().Add(shutdownGrace)
	}
	done := make(chan error, 1)
	go func() { done <- ts.Close() }()
	waitUntil(done, stopBy, log, "stopping with a background index build still ending")
}

// waitUntil waits for done until the deadline, logging msg if it does not
// come.
func waitUntil(done <-chan error, deadline time.Time, log *slog.Logger, msg string) error {
	select {
	case err := <-done:
		return err
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		log.Warn(msg)
		return nil
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// memoryLimit is the soft memory limit (see runtime/debug.SetMemoryLimit)
// of a server process started through ServeIfRequested, unless GOMEMLIMIT
// is set. The server lives beside an agent; building the library index
// makes short-lived garbage, and without a limit the heap peaks at about
// twice its live size. The limit is soft, and set above what a build
// holds live (the index's buffers and merges and the PDFs being
// extracted, 114 MB at its peak in a build of 714 corpus papers, bounded
// by the buffers and the largest merge whatever the library): below it, the
// collector would run back to back and the build's cost per page would
// grow with the library. With the index's mapped pages, which a build
// releases as it goes (at most a merge's inputs, 48 MiB), it keeps the
// server's resident set under 300 MB while it builds, whatever the size
// of the library.
const memoryLimit = memlimit.Server

// ServeIfRequested is the host's entry point, called first in main. When the
// process was started as <exe> --agentero-context-mcp <grant-path>, it serves
// MCP on stdin and stdout for that grant and exits: 0 when stdin ends
// (once the calls read are answered, within 5 s and one more second)
// or within a second of SIGTERM or SIGINT (calls still running then
// are abandoned and answered with an error; a blocked write to stdout is
// abandoned too); 2,
// with one line on stderr and nothing on stdout, when the command line is
// wrong or the grant is missing or invalid; 1 when the connection fails.
// Otherwise it returns at once and the host goes on. The serving process
// gets a soft memory limit of 200 MiB unless GOMEMLIMIT says otherwise,
// and no garbage collection until its first tool call is answered (at most
// 10 s) unless GOGC says otherwise.
//
// opts may be nil.
func ServeIfRequested(opts *ServeOptions) {
	if len(os.Args) < 2 || os.Args[1] != Flag {
		return
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	var o ServeOptions
	if opts != nil {
		o = *opts
	}
	if os.Getenv("GOGC") == "" {
		// No collections until the first answer (see startupHold).
		o.answered = holdCollector(startupHold, startupHeap)
	}
	opts = &o
	// SIGTERM and SIGINT stop the server as the end of stdin does: at most
	// shutdownGrace later, whatever calls are running.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, opts)
	stop()
	os.Exit(code)
}

// run is ServeIfRequested after the flag check, with the process's streams
// and exit code made explicit.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, opts *ServeOptions) int {
	fail := func(code int, err error) int {
		msg := strings.Join(strings.Fields(err.Error()), " ")
		fmt.Fprintf(stderr, "%s: %s\n", grant.ServerName, msg)
		return code
	}
	if len(args) != 2 || args[1] == "" {
		return fail(exitcode.Usage, fmt.Errorf("usage: %s <grant-path>", Flag))
	}
	if err := Serve(ctx, args[1], stdin, stdout, opts); err != nil {
		if errors.Is(err, grant.ErrInvalid) {
			return fail(exitcode.Usage, err)
		}
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return exitcode.OK // asked to stop
		}
		return fail(exitcode.Error, err)
	}
	return exitcode.OK
}

// ServerCommandLine returns the command line that starts this executable
// as the agentero-context server for a grant: the absolute path of the
// running executable and the arguments [Flag, absolute grant path]. A host
// puts them in the agent session's MCP server entry (its command and args).
func ServerCommandLine(grantPath string) (exe string, args []string, err error) {
	if grantPath == "" {
		return "", nil, fmt.Errorf("%w: empty grant path", grant.ErrInvalid)
	}
	exe, err = os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("locating the executable: %w", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", nil, fmt.Errorf("locating the executable: %w", err)
	}
	gr, err := filepath.Abs(grantPath)
	if err != nil {
		return "", nil, fmt.Errorf("locating the grant: %w", err)
	}
	return exe, []string{Flag, gr}, nil
}

// LoggerFromEnv returns a text logger on w at the level LogEnv names, or a
// logger that discards everything when LogEnv is unset or empty.
func LoggerFromEnv(w io.Writer) *slog.Logger {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(LogEnv)))
	if v == "" || v == "0" || v == "off" {
		return slog.New(slog.DiscardHandler)
	}
	level := slog.LevelInfo
	switch v {
	case "debug":
		level = slog.LevelDebug
	case "warn":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
