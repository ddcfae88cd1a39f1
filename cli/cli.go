// Package cli is the researchctx command line as a library: the JSON in and
// out of each subcommand, for hosts written in other languages. The
// researchctx command (cmd/researchctx) is Command with the SDK's own
// sources; a Go host that links connectors builds the same command into its
// own executable, with its ServeOptions, so `serve` re-opens them.
//
// Subcommands (JSON on stdout, one line of error on stderr):
//
//	plan -request FILE [-cache-dir DIR]     a Request → its Plan; writes the turn's grant
//	serve [-cache-dir DIR] GRANT            the agentero-context MCP server on stdin/stdout
//	sources -grant GRANT -turn ID           the sources a turn used, from usage.jsonl
//	clean -vault DIR -older-than AGE        remove stale grant folders
//
// and the ones a host adds (Command.Subcommands): cmd/researchctx adds
// decide (package cli/decide), the session decision of package acp. It
// lives apart so that a host that links only plan and serve does not link
// ACP and its SDK.
//
// FILE is a path, or "-" for standard input. The JSON shapes are stable:
// fields may be added, none renamed or removed.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/exitcode"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/tools"
	"github.com/researchctx/researchctx/usage"
)

// Exit codes of Command.Main, and of a host executable started as the
// agentero-context server (mcp.ServeIfRequested): the SDK's one table.
const (
	ExitOK    = exitcode.OK    // done; the result is on stdout (the server: the client closed stdin, or SIGTERM or SIGINT)
	ExitError = exitcode.Error // the command failed: the vault cannot be written, an I/O error (the server: the connection failed)
	ExitUsage = exitcode.Usage // a bad command line, input that is not valid JSON of its shape, an invalid request or grant
)

// CacheDirEnv names the environment variable that gives plan and serve
// their -cache-dir when the flag is not set, and the server started as
// `researchctx --agentero-context-mcp GRANT` its cache root: a host sets
// it once, in its own environment and in the MCP server entry it gives the
// agent, and every process of a turn agrees on the folder.
const CacheDirEnv = "RESEARCHCTX_CACHE_DIR"

// ErrUsage is wrapped by errors about the command line itself.
var ErrUsage = errors.New("usage")

// maxInput bounds a JSON input: a Request or a decision input is a few
// kilobytes.
const maxInput = 8 << 20

// Command is the researchctx command line. The zero value is not ready:
// set Name and the streams (NewCommand does).
type Command struct {
	// Name is how usage and errors name the program: "researchctx".
	Name   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Serve configures serve, for a host whose grants name connector
	// sources; nil serves the Vault's own. serve's -cache-dir overrides its
	// Toolset's CacheRoot.
	Serve *mcp.ServeOptions
	// Subcommands are the host's own subcommands, by name, beside the
	// built-in ones: cmd/researchctx adds decide (package cli/decide).
	Subcommands map[string]Subcommand
}

// A Subcommand is a subcommand a host adds to Command: it reads one JSON
// input (-input FILE, or - for standard input) and prints one JSON result.
type Subcommand struct {
	// Usage is its usage line without the program name ("decide -input
	// FILE"), then its help, each line indented by eight spaces.
	Usage string
	// Run reads the input from in (DecodeJSON reads it as the built-in
	// subcommands do) and returns what to print as JSON. An error that
	// wraps ErrUsage exits with ExitUsage.
	Run func(ctx context.Context, in io.Reader) (any, error)
}

// DecodeJSON decodes one JSON value of in into v as the subcommands read
// their input: unknown fields and anything after the value are errors,
// wrapping ErrUsage, that say the input is not what (`a Request`).
func DecodeJSON(in io.Reader, v any, what string) error {
	if err := decodeStrict(in, v); err != nil {
		return &usageError{"the input is not " + what + ": " + err.Error()}
	}
	return nil
}

// NewCommand returns the command named name on the process's streams.
func NewCommand(name string) *Command {
	return &Command{Name: name, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
}

// Help returns the usage text of c: its built-in subcommands, then the
// host's (Subcommands). -h prints it.
func (c *Command) Help() string {
	u := builtinHelp(c.Name)
	if len(c.Subcommands) == 0 {
		return u
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(c.Subcommands)) {
		b.WriteString("  " + c.Name + " " + strings.TrimSpace(c.Subcommands[name].Usage) + "\n")
	}
	head, tail, _ := strings.Cut(u, "\n\n")
	return head + "\n" + b.String() + "\n" + tail
}

// subcommandNames lists the subcommands c knows, for its error messages.
func (c *Command) subcommandNames() string {
	names := []string{"plan", "serve", "sources", "clean"}
	names = append(names, slices.Sorted(maps.Keys(c.Subcommands))...)
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// builtinHelp is the help text of the command named name, with its
// built-in subcommands only; a host reads it as Command.Help, which adds
// its own.
func builtinHelp(name string) string {
	return strings.ReplaceAll(`Usage:
  NAME plan -request FILE [-cache-dir DIR]
        resolve a Request (JSON, FILE or - for stdin), write the turn's grant,
        print the Plan as JSON: grantPath, prompt, fingerprint, mode, tools,
        sources, evidence, dropped, notes (when any), budget, runtimeId, turnId
  NAME serve [-cache-dir DIR] GRANT
        serve the agentero-context MCP server for GRANT on stdin and stdout
        (also: NAME --agentero-context-mcp GRANT)
  NAME sources -grant GRANT -turn ID
        print the sources turn ID used, grouped as read, searched and related,
        each with its uri, use, tools and place (grant, library or outside)
  NAME clean -vault DIR -older-than AGE
        remove the grant folders of DIR unused for AGE (72h, 30m, 7d)

-cache-dir is the root of the Vaults' caches: each Vault's are kept in a
folder of its own under DIR instead of its .agentero/cache (for a read-only
Vault); give plan and serve the same DIR. RESEARCHCTX_CACHE_DIR is the
default of -cache-dir, and the cache root of the --agentero-context-mcp
form.

Exit codes: 0 done, 1 failed, 2 bad command line or input. Errors are one
line on stderr; results are JSON on stdout.
`, "NAME", name)
}

// Main runs args (without the program name) and returns the exit code,
// after writing the error, if any, as one line on Stderr.
func (c *Command) Main(ctx context.Context, args []string) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		io.WriteString(c.Stdout, c.Help())
		return ExitOK
	}
	err := c.Run(ctx, args)
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(c.Stdout, c.Help())
		return ExitOK
	}
	fmt.Fprintln(c.Stderr, c.Name+": "+strings.Join(strings.Fields(err.Error()), " "))
	switch {
	case errors.Is(err, ErrUsage), errors.Is(err, researchctx.ErrRequest), errors.Is(err, grant.ErrInvalid):
		return ExitUsage
	}
	return ExitError
}

// Run runs one subcommand: args[0] names it, the rest are its flags and
// arguments.
func (c *Command) Run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return c.usage("", "a subcommand is required: %s (%s -h)", c.subcommandNames(), c.Name)
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "plan":
		return c.plan(ctx, args)
	case "serve", mcp.Flag:
		return c.serve(ctx, args)
	case "sources":
		return c.sources(args)
	case "clean":
		return c.clean(args)
	}
	if s, ok := c.Subcommands[sub]; ok {
		return c.extra(ctx, sub, s, args)
	}
	return c.usage("", "unknown subcommand %q: %s (%s -h)", sub, c.subcommandNames(), c.Name)
}

// usage returns an ErrUsage error for subcommand sub.
func (c *Command) usage(sub, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if sub != "" {
		msg = sub + ": " + msg
	}
	return &usageError{msg}
}

// usageError is an error about the command line or the shape of the
// input; it is ErrUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

// flags parses a subcommand's flags; want is its usage line.
func (c *Command) flags(sub, want string, args []string, define func(*flag.FlagSet)) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet(sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	define(fs)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil, err // -h: Main prints the usage
	} else if err != nil {
		return nil, c.usage(sub, "%v (usage: %s %s)", err, c.Name, want)
	}
	return fs, nil
}

// open returns the input named by a flag: a file, or standard input for
// "-". what names it in errors.
func (c *Command) open(sub, what, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(c.Stdin), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, c.usage(sub, "cannot open the %s file: %v", what, errors.Unwrap(err))
	}
	return f, nil
}

// decodeStrict decodes one JSON value of in into v: unknown fields and
// anything after the value are errors.
func decodeStrict(in io.Reader, v any) error {
	dec := json.NewDecoder(io.LimitReader(in, maxInput))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after its JSON object")
	}
	return nil
}

// encode prints v as indented JSON on Stdout.
func (c *Command) encode(v any) error {
	enc := json.NewEncoder(c.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (c *Command) plan(ctx context.Context, args []string) error {
	const want = "plan -request FILE [-cache-dir DIR]"
	var reqPath, cacheRoot string
	fs, err := c.flags("plan", want, args, func(fs *flag.FlagSet) {
		fs.StringVar(&reqPath, "request", "", "Request JSON file, or - for standard input")
		fs.StringVar(&cacheRoot, "cache-dir", os.Getenv(CacheDirEnv), "root folder of the Vaults' caches, one folder per Vault under it (- for none)")
	})
	if err != nil {
		return err
	}
	if reqPath == "" || fs.NArg() > 0 {
		return c.usage("plan", "usage: %s %s", c.Name, want)
	}
	if err := c.checkCacheRoot("plan", cacheRoot); err != nil {
		return err
	}
	in, err := c.open("plan", "request", reqPath)
	if err != nil {
		return err
	}
	defer in.Close()
	res := &researchctx.Resolver{CacheRoot: cacheRoot}
	defer res.Close()
	out, err := Plan(ctx, res, in)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	return c.encode(out)
}

func (c *Command) serve(ctx context.Context, args []string) error {
	const want = "serve [-cache-dir DIR] GRANT"
	var cacheRoot string
	fs, err := c.flags("serve", want, args, func(fs *flag.FlagSet) {
		fs.StringVar(&cacheRoot, "cache-dir", os.Getenv(CacheDirEnv), "root folder of the Vaults' caches, as given to plan")
	})
	if err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		return c.usage("serve", "usage: %s %s", c.Name, want)
	}
	if err := c.checkCacheRoot("serve", cacheRoot); err != nil {
		return err
	}
	opts := mcp.ServeOptions{}
	if c.Serve != nil {
		opts = *c.Serve
	}
	topts := tools.Options{}
	if opts.Toolset != nil {
		topts = *opts.Toolset
	}
	if cacheRoot != "" {
		topts.CacheRoot = cacheRoot
	}
	opts.Toolset = &topts
	err = mcp.Serve(ctx, fs.Arg(0), c.Stdin, c.Stdout, &opts)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil // asked to stop
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// checkCacheRoot refuses a relative cache root: plan runs in the host's
// working directory and serve in the agent's, and both must name the same
// folder.
func (c *Command) checkCacheRoot(sub, root string) error {
	if root != "" && root != "-" && !filepath.IsAbs(root) {
		return c.usage(sub, "-cache-dir must be an absolute folder (or - for none), got %q", root)
	}
	return nil
}

func (c *Command) sources(args []string) error {
	const want = "sources -grant GRANT -turn ID"
	var grantPath, turn string
	fs, err := c.flags("sources", want, args, func(fs *flag.FlagSet) {
		fs.StringVar(&grantPath, "grant", "", "the grant file of the conversation")
		fs.StringVar(&turn, "turn", "", "the turn id")
	})
	if err != nil {
		return err
	}
	if grantPath == "" || turn == "" || fs.NArg() > 0 {
		return c.usage("sources", "usage: %s %s", c.Name, want)
	}
	out, err := Sources(grantPath, turn)
	if err != nil {
		return fmt.Errorf("sources: %w", err)
	}
	return c.encode(out)
}

// extra runs a host's subcommand: -input FILE, then its Run.
func (c *Command) extra(ctx context.Context, sub string, s Subcommand, args []string) error {
	want, _, _ := strings.Cut(strings.TrimSpace(s.Usage), "\n")
	var inPath string
	fs, err := c.flags(sub, want, args, func(fs *flag.FlagSet) {
		fs.StringVar(&inPath, "input", "", "the input JSON file, or - for standard input")
	})
	if err != nil {
		return err
	}
	if inPath == "" || fs.NArg() > 0 {
		return c.usage(sub, "usage: %s %s", c.Name, want)
	}
	in, err := c.open(sub, "input", inPath)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := s.Run(ctx, in)
	if err != nil {
		return fmt.Errorf("%s: %w", sub, err)
	}
	return c.encode(out)
}

func (c *Command) clean(args []string) error {
	const want = "clean -vault DIR -older-than AGE"
	var vault, age string
	fs, err := c.flags("clean", want, args, func(fs *flag.FlagSet) {
		fs.StringVar(&vault, "vault", "", "the Vault's absolute folder")
		fs.StringVar(&age, "older-than", "", "how long a grant folder must be unused: 72h, 30m, 7d")
	})
	if err != nil {
		return err
	}
	if vault == "" || age == "" || fs.NArg() > 0 {
		return c.usage("clean", "usage: %s %s", c.Name, want)
	}
	d, err := parseAge(age)
	if err != nil {
		return c.usage("clean", "-older-than %q: %v", age, err)
	}
	removed, err := usage.Clean(vault, d)
	if removed == nil {
		removed = []string{}
	}
	if err != nil && len(removed) > 0 {
		return fmt.Errorf("clean: removed %s, then: %w", strings.Join(removed, ", "), err)
	}
	if err != nil {
		return fmt.Errorf("clean: %w", err)
	}
	return c.encode(CleanOutput{Removed: removed})
}

// CleanOutput is what clean prints: the runtime ids whose folders it
// removed.
type CleanOutput struct {
	Removed []string `json:"removed"`
}

// parseAge parses a Go duration, or a whole number of days ("7d").
func parseAge(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days <= 0 || days > 100000 {
			return 0, errors.New("want a positive number of days, like 7d")
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("want a positive duration, like 72h or 7d")
	}
	return d, nil
}

// PlanOutput is what plan prints: the Plan of a Request, its prompt block
// and the grant written for it. Hosts in other languages read it; it is
// stable.
type PlanOutput struct {
	GrantPath   string                 `json:"grantPath"`
	Prompt      string                 `json:"prompt"`
	Fingerprint string                 `json:"fingerprint"`
	Mode        grant.Mode             `json:"mode"`
	Tools       []string               `json:"tools"`
	Sources     []grant.Ref            `json:"sources"`
	Evidence    []researchctx.Evidence `json:"evidence"`
	Dropped     []researchctx.Dropped  `json:"dropped"`
	Notes       []string               `json:"notes,omitempty"` // what Resolve changed, such as a capped budget
	Budget      grant.Budget           `json:"budget"`
	RuntimeID   string                 `json:"runtimeId"`
	TurnID      string                 `json:"turnId"`
}

// Plan reads one Request as JSON from in (camelCase fields; an unknown
// field is an error), resolves it with res, writes its grant and returns
// what plan prints. A prompt-only plan has a grant too: the server it would
// start refuses it, and hosts read the scope from one place.
func Plan(ctx context.Context, res *researchctx.Resolver, in io.Reader) (*PlanOutput, error) {
	var req researchctx.Request
	if err := decodeStrict(in, &req); err != nil {
		return nil, &usageError{"the request is not a valid Request (JSON, camelCase fields): " + err.Error()}
	}
	p, err := res.Resolve(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &PlanOutput{
		Prompt: p.Prompt(), Fingerprint: p.Fingerprint, Mode: p.Mode, Tools: p.Tools,
		Sources: p.Sources, Evidence: p.Evidence, Dropped: p.Dropped, Notes: p.Notes, Budget: p.Budget,
		RuntimeID: p.RuntimeID, TurnID: p.TurnID,
	}
	if out.GrantPath, err = p.WriteGrant(); err != nil {
		return nil, err
	}
	return out, nil
}

// SourcesOutput is what sources prints: the turn's calls and characters,
// lines of the log that could not be read, and its sources grouped the way
// a host draws them (usage.Groups: read, searched, related).
type SourcesOutput struct {
	TurnID  string `json:"turnId"`
	Calls   int    `json:"calls"`
	Chars   int    `json:"chars"`
	Skipped int    `json:"skipped"`
	usage.Groups
}

// ErrNoTurn is wrapped by the error of Sources for a turn id the usage log
// has no line of, other than the grant's own turn: a mistyped id would
// otherwise read as a turn that used nothing.
var ErrNoTurn = errors.New("no such turn in the usage log")

// Sources reads the sources turn turnID used from the usage log beside the
// grant at grantPath, placed against the grant's scope (in the grant, in the
// library, outside). Read it after the turn, before the next turn's grant
// replaces this one's scope. The grant's own turn may have no calls (the
// agent used no tool); any other turn without a line is ErrNoTurn.
func Sources(grantPath, turnID string) (*SourcesOutput, error) {
	g, err := grant.Read(grantPath)
	if err != nil {
		return nil, err
	}
	u, err := usage.Read(grant.UsagePath(grantPath), turnID, &g.Scope)
	if err != nil {
		return nil, err
	}
	if u.Calls == 0 && turnID != g.TurnID {
		return nil, fmt.Errorf("%w: turn %q has no line in usage.jsonl (the grant is for turn %q)", ErrNoTurn, textnorm.Line(turnID), g.TurnID)
	}
	return &SourcesOutput{TurnID: turnID, Calls: u.Calls, Chars: u.Chars, Skipped: u.Skipped, Groups: u.Groups()}, nil
}
