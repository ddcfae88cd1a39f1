package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/cli"
	"github.com/researchctx/researchctx/cli/decide"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/usage"
)

// exe is the researchctx executable the tests run: this test binary, which
// runs as researchctx when asResearchctx is set in its environment (the
// tests set it for every process they start, the servers a plan's command
// line starts included), so that no researchctx is built for the tests.
var exe string

// asResearchctx, set to 1 in its environment, makes this test binary run
// as researchctx.
const asResearchctx = "RESEARCHCTX_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asResearchctx) == "1" {
		main()
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	var err error
	if exe, err = os.Executable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv(asResearchctx, "1")
	return m.Run()
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary with stdin and args.
func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustRun runs the binary and fails the test unless it succeeds quietly.
func mustRun(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := run(t, stdin, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("researchctx %v: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return r.stdout
}

// checkError checks a failure's shape: the exit code, nothing on stdout,
// one line on stderr that says want and no absolute path of dir.
func checkError(t *testing.T, r result, code int, want, dir string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout not empty:\n%s", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "researchctx: ") || strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr is not one line starting with \"researchctx: \": %q", r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q does not say %q", r.stderr, want)
	}
	if dir != "" && strings.Contains(r.stderr, dir) {
		t.Errorf("stderr names an absolute path: %q", r.stderr)
	}
}

// decodeStrict decodes JSON as another language's strict reader would:
// every field known.
func decodeStrict[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("output: %v\n%s", err, s)
	}
	return v
}

func requestJSON(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const blockQuote = "A block size of 256 tokens was the best trade-off in our experiments"

func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no subcommand", nil, 2, "a subcommand is required"},
		{"unknown subcommand", []string{"grant"}, 2, `unknown subcommand "grant"`},
		{"plan without -request", []string{"plan"}, 2, "usage: researchctx plan -request FILE"},
		{"plan unknown flag", []string{"plan", "-req", "x"}, 2, "flag provided but not defined: -req"},
		{"plan extra argument", []string{"plan", "-request", "-", "more"}, 2, "usage: researchctx plan"},
		{"serve without grant", []string{"serve"}, 2, "usage: researchctx serve [-cache-dir DIR] GRANT"},
		{"serve two grants", []string{"serve", "a", "b"}, 2, "usage: researchctx serve"},
		{"sources without -turn", []string{"sources", "-grant", "g"}, 2, "usage: researchctx sources -grant GRANT -turn ID"},
		{"decide without -input", []string{"decide"}, 2, "usage: researchctx decide -input FILE"},
		{"clean without age", []string{"clean", "-vault", "/v"}, 2, "usage: researchctx clean"},
		{"clean bad age", []string{"clean", "-vault", "/v", "-older-than", "soon"}, 2, "want a positive duration"},
		{"clean zero days", []string{"clean", "-vault", "/v", "-older-than", "0d"}, 2, "positive number of days"},
		{"server flag without grant", []string{"--agentero-context-mcp"}, 2, "usage: --agentero-context-mcp <grant-path>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", tt.args...)
			if tt.args != nil && tt.args[0] == "--agentero-context-mcp" {
				// The MCP server's own refusal, named by the server.
				if r.code != tt.code || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
					t.Errorf("exit %d, stderr %q", r.code, r.stderr)
				}
				return
			}
			checkError(t, r, tt.code, tt.want, "")
		})
	}
	c := cli.NewCommand("researchctx")
	c.Subcommands = map[string]cli.Subcommand{"decide": decide.Subcommand}
	for _, h := range []string{"-h", "help", "--help"} {
		r := run(t, "", h)
		if r.code != 0 || r.stdout != c.Help() || r.stderr != "" || !strings.Contains(r.stdout, "researchctx decide -input FILE") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", h, r.code, r.stdout, r.stderr)
		}
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	tmp := filepath.Dir(vault)
	req := map[string]any{
		"vault": vault, "runtimeId": "editor-7", "turnId": "turn-1",
		"currentPaper": "papers/2401.01234",
		"selections":   []map[string]any{{"text": blockQuote, "path": "papers/2401.01234/2401.01234.pdf", "page": 9}},
		"mentions":     []string{"notes", "notes/../reading-list", "../outside"},
		"budget":       map[string]any{"searchCards": 4},
	}
	reqFile := filepath.Join(tmp, "request.json")
	if err := os.WriteFile(reqFile, []byte(requestJSON(t, req)), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile := decodeStrict[cli.PlanOutput](t, mustRun(t, "", "plan", "-request", reqFile))
	fromStdin := decodeStrict[cli.PlanOutput](t, mustRun(t, requestJSON(t, req), "plan", "-request", "-"))
	if diff := cmp.Diff(fromFile, fromStdin); diff != "" {
		t.Errorf("file and stdin differ (-file +stdin):\n%s", diff)
	}
	p := fromFile
	const pdf = "papers/2401.01234/2401.01234.pdf"
	want := cli.PlanOutput{
		GrantPath:   filepath.Join(vault, ".agentero", "context-sessions", "editor-7", "grant.json"),
		Prompt:      p.Prompt, // checked below
		Fingerprint: p.Fingerprint,
		Mode:        grant.ModeMCP,
		Tools:       []string{"context_read", "context_search", "paper_relations"},
		Sources: []grant.Ref{
			{Kind: grant.KindPaper, Path: "papers/2401.01234", Title: p.Sources[0].Title},
			{Kind: grant.KindDirectory, Path: "notes", Title: "notes"},
			{Kind: grant.KindFile, Path: "reading-list", Title: "reading-list"},
		},
		Evidence: []researchctx.Evidence{{
			PaperRef: "papers/2401.01234", Path: pdf, Title: p.Sources[0].Title, Page: 1,
			Quote: blockQuote, CitationURI: pdf + "#page=1",
		}},
		Dropped: []researchctx.Dropped{
			{Path: pdf, Reason: researchctx.DropPage},
			{Path: "../outside", Reason: researchctx.DropOutside},
		},
		Budget:    p.Budget,
		RuntimeID: "editor-7",
		TurnID:    "turn-1",
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if p.Budget.SearchCards != 4 || p.Budget.ReadChars != grant.DefaultBudget().ReadChars || !strings.HasPrefix(p.Fingerprint, "sha256:") {
		t.Errorf("budget %+v, fingerprint %q", p.Budget, p.Fingerprint)
	}
	if !strings.Contains(p.Prompt, "Cite: "+pdf+"#page=1") || !strings.Contains(p.Prompt, "Tools (MCP server agentero-context)") {
		t.Errorf("prompt:\n%s", p.Prompt)
	}
	g, err := grant.Read(p.GrantPath)
	if err != nil || g.Fingerprint != p.Fingerprint || g.TurnID != "turn-1" {
		t.Errorf("grant %+v, %v", g, err)
	}
}

func TestPlanErrors(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	tmp := filepath.Dir(vault)
	good := func(m map[string]any) string {
		r := map[string]any{"vault": vault, "runtimeId": "r", "turnId": "t"}
		for k, v := range m {
			r[k] = v
		}
		return requestJSON(t, r)
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  string
	}{
		{"not JSON", nil, "vault: here\n", 2, "not a valid Request"},
		{"empty input", nil, "", 2, "not a valid Request"},
		{"unknown field", nil, good(map[string]any{"paper": "x"}), 2, `unknown field "paper"`},
		{"two objects", nil, good(nil) + good(nil), 2, "data after its JSON object"},
		{"relative vault", nil, `{"vault":"vault","runtimeId":"r","turnId":"t"}`, 2, "vault must be an absolute path"},
		// The host's own path, as it gave it: the host must tell which.
		{"missing vault", nil, good(map[string]any{"vault": filepath.Join(tmp, "gone")}), 2, fmt.Sprintf(`vault %q cannot be opened`, filepath.Join(tmp, "gone"))},
		{"the file system's root", nil, good(map[string]any{"vault": "/"}), 2, `vault "/" is the root of the file system`},
		{"a file for a vault", nil, good(map[string]any{"vault": filepath.Join(vault, "reading-list")}), 2, fmt.Sprintf(`vault %q cannot be opened: vault is not a folder`, filepath.Join(vault, "reading-list"))},
		{"unsafe runtime id", nil, good(map[string]any{"runtimeId": "../x"}), 2, "runtimeId"},
		{"turn below one card", nil, good(map[string]any{"budget": map[string]any{"turnChars": 100}}), 2, "less than one search card"},
		{"zero budget", nil, good(map[string]any{"budget": map[string]any{"readChars": 0}}), 2, "readChars must be positive"},
		{"no such file", []string{"-request", filepath.Join(tmp, "none.json")}, "", 2, "cannot open the request file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = []string{"-request", "-"}
			}
			r := run(t, tt.stdin, append([]string{"plan"}, args...)...)
			leak := tmp
			if strings.Contains(tt.want, tmp) {
				leak = "" // the vault as the host gave it, and nothing else
			}
			checkError(t, r, tt.code, tt.want, leak)
		})
	}
	if ents, err := os.ReadDir(filepath.Join(vault, ".agentero", "context-sessions")); err == nil && len(ents) > 0 {
		t.Errorf("a refused request wrote %s", ents[0].Name())
	}
}

// serverSession starts the server for grant with args and connects a
// go-sdk client over stdio.
func serverSession(t *testing.T, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(exe, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "cli-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: %+v", name, res.Content)
	}
	return res
}

// A whole turn through the binary: plan, the server in both of its forms,
// then the turn's sources.
func TestServeAndSources(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	tmp := filepath.Dir(vault)
	req := requestJSON(t, map[string]any{
		"vault": vault, "runtimeId": "chat-1", "turnId": "turn-1",
		"mentions": []string{"papers/2401.01234", "notes"},
	})
	p := decodeStrict[cli.PlanOutput](t, mustRun(t, req, "plan", "-request", "-"))

	for _, form := range [][]string{{"serve", p.GrantPath}, {"--agentero-context-mcp", p.GrantPath}} {
		cs := serverSession(t, form...)
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(tools.Tools) != 3 {
			t.Fatalf("%s: tools %v, %v", form[0], tools, err)
		}
		cs.Close()
	}
	cs := serverSession(t, "serve", p.GrantPath)
	callTool(t, cs, "context_read", map[string]any{"target": "papers/2401.01234", "mode": "page", "page": 2})
	callTool(t, cs, "context_search", map[string]any{"query": "block size trade-off", "source": "papers/2401.01234"})
	callTool(t, cs, "paper_relations", map[string]any{"paper": "papers/2401.01234"})
	cs.Close()

	out := decodeStrict[cli.SourcesOutput](t, mustRun(t, "", "sources", "-grant", p.GrantPath, "-turn", "turn-1"))
	if out.TurnID != "turn-1" || out.Calls != 3 || out.Chars <= 0 || out.Skipped != 0 {
		t.Errorf("sources: %+v", out)
	}
	const page2 = "papers/2401.01234/2401.01234.pdf#page=2"
	if len(out.Read) != 1 || out.Read[0].URI != page2 || out.Read[0].Place != usage.InGrant {
		t.Errorf("read %+v, want %s in the grant", out.Read, page2)
	}
	if len(out.Searched) == 0 || len(out.Related) == 0 {
		t.Errorf("searched %+v, related %+v: want both", out.Searched, out.Related)
	}
	for _, u := range out.Searched {
		if u.Place != usage.InGrant || !strings.HasPrefix(u.URI, "papers/2401.01234/") || u.URI == page2 {
			t.Errorf("searched %+v: want a card of the granted paper, not the page read", u)
		}
	}
	for _, u := range out.Related {
		if u.Place == usage.InGrant {
			t.Errorf("related %+v is placed in the grant", u)
		}
	}

	// A turn id with no line (mistyped, or not this grant's) says so:
	// exit 1, one line, not empty lists that look like a turn that used
	// nothing.
	checkError(t, run(t, "", "sources", "-grant", p.GrantPath, "-turn", "turn-2"), 1, `turn "turn-2" has no line in usage.jsonl (the grant is for turn "turn-1")`, tmp)

	// The grant's own turn, before the agent called anything, used nothing.
	mustRun(t, strings.Replace(req, `"turn-1"`, `"turn-2"`, 1), "plan", "-request", "-")
	empty := decodeStrict[cli.SourcesOutput](t, mustRun(t, "", "sources", "-grant", p.GrantPath, "-turn", "turn-2"))
	if diff := cmp.Diff(cli.SourcesOutput{TurnID: "turn-2", Groups: usage.Groups{Read: []usage.Used{}, Searched: []usage.Used{}, Related: []usage.Used{}}}, empty); diff != "" {
		t.Errorf("an unused turn (-want +got):\n%s", diff)
	}
	// Lists are [] in JSON, never null, for the host's loops.
	if s := mustRun(t, "", "sources", "-grant", p.GrantPath, "-turn", "turn-2"); !strings.Contains(s, `"read": []`) {
		t.Errorf("empty groups are not []:\n%s", s)
	}

	errs := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"grant elsewhere", []string{"sources", "-grant", filepath.Join(tmp, "grant.json"), "-turn", "t"}, 2, "a grant is read only at"},
		{"missing grant", []string{"sources", "-grant", filepath.Join(vault, ".agentero", "context-sessions", "nobody", "grant.json"), "-turn", "t"}, 2, "grant file not found"},
		{"serve a missing grant", []string{"serve", filepath.Join(vault, ".agentero", "context-sessions", "nobody", "grant.json")}, 2, "grant file not found"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			checkError(t, run(t, "", tt.args...), tt.code, tt.want, tmp)
		})
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	vault := vaultfix.Sample(t)
	plan := func(turn string, mentions ...string) json.RawMessage {
		return json.RawMessage(mustRun(t, requestJSON(t, map[string]any{
			"vault": vault, "runtimeId": "d", "turnId": turn, "mentions": mentions,
		}), "plan", "-request", "-"))
	}
	mcpPlan := plan("t1", "notes")
	fp := decodeStrict[cli.PlanOutput](t, string(mcpPlan)).Fingerprint
	widened := plan("t2", "notes", "papers/2401.01234")
	promptOnly := plan("t3")
	input := func(prev any, p json.RawMessage) string {
		return requestJSON(t, map[string]any{"previous": prev, "plan": p})
	}
	tests := []struct {
		name  string
		stdin string
		want  acp.Decision
	}{
		{"first turn", input(nil, mcpPlan), acp.Decision{Action: acp.ActionNew, AttachServer: true, Reason: acp.ReasonFirst}},
		{"same scope", input(acp.Record{SessionID: "s1", Fingerprint: fp}, mcpPlan),
			acp.Decision{Action: acp.ActionResume, ResumeID: "s1", AttachServer: true, Reason: acp.ReasonSameScope}},
		{"scope changed", input(acp.Record{SessionID: "s1", Fingerprint: fp}, widened),
			acp.Decision{Action: acp.ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, AttachServer: true, Reason: acp.ReasonScopeChanged}},
		{"refused before", input(acp.Record{SessionID: "s1", Fingerprint: fp, Refused: true}, mcpPlan),
			acp.Decision{Action: acp.ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, AttachServer: true, Reason: acp.ReasonRefused}},
		{"prompt-only first turn", input(nil, promptOnly), acp.Decision{Action: acp.ActionNew, UseWarmPool: true, Reason: acp.ReasonFirst}},
		{"no plan", input(acp.Record{SessionID: "s1", Fingerprint: fp}, nil),
			acp.Decision{Action: acp.ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, Reason: acp.ReasonScopeChanged}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeStrict[acp.Decision](t, mustRun(t, tt.stdin, "decide", "-input", "-"))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
	bad := []struct {
		name, stdin, want string
	}{
		{"not JSON", "previous", "is not {\"previous\": Record, \"plan\": Plan} JSON"},
		{"unknown field", `{"previous": null, "plan": null, "next": 1}`, `unknown field "next"`},
		{"unknown plan field", `{"plan": {"fingerprint": "x", "scope": 1}}`, `unknown field "scope"`},
		{"wrong type", `{"previous": "s1"}`, "cannot unmarshal"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			checkError(t, run(t, tt.stdin, "decide", "-input", "-"), 2, tt.want, "")
		})
	}
}

func TestClean(t *testing.T) {
	vault := vaultfix.Sample(t)
	tmp := filepath.Dir(vault)
	for _, rt := range []string{"old-chat", "new-chat"} {
		mustRun(t, requestJSON(t, map[string]any{"vault": vault, "runtimeId": rt, "turnId": "t", "mentions": []string{"notes"}}), "plan", "-request", "-")
	}
	old := filepath.Join(vault, ".agentero", "context-sessions", "old-chat")
	at := time.Now().Add(-10 * 24 * time.Hour)
	for _, p := range []string{filepath.Join(old, "grant.json"), old} {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	got := decodeStrict[cli.CleanOutput](t, mustRun(t, "", "clean", "-vault", vault, "-older-than", "7d"))
	if diff := cmp.Diff(cli.CleanOutput{Removed: []string{"old-chat"}}, got); diff != "" {
		t.Errorf("clean (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(vault, ".agentero", "context-sessions", "new-chat", "grant.json")); err != nil {
		t.Errorf("the fresh grant went: %v", err)
	}
	if s := mustRun(t, "", "clean", "-vault", vault, "-older-than", "168h"); s != "{\n  \"removed\": []\n}\n" {
		t.Errorf("nothing to clean printed %q", s)
	}
	// A missing Vault is named as it was given, so that the caller can
	// tell which one it was; nothing else of the machine is named.
	gone := filepath.Join(tmp, "gone")
	checkError(t, run(t, "", "clean", "-vault", gone, "-older-than", "1h"), 1, fmt.Sprintf(`the vault %q cannot be opened`, gone), "")
}

// A read-only Vault: plan resolves with -cache-dir but cannot write the
// grant, and says so; with its grant folder writable, serve answers from
// the same cache folder.
func TestReadOnlyVault(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root ignores permissions")
	}
	vault := vaultfix.Sample(t)
	tmp := filepath.Dir(vault)
	cache := filepath.Join(tmp, "cache")
	if err := os.RemoveAll(filepath.Join(vault, ".agentero")); err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(vault, ".agentero", "context-sessions")
	readOnly := func(keep string) {
		var dirs []string
		filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
			if err != nil || p == keep {
				return filepath.SkipDir
			}
			if d.IsDir() {
				dirs = append(dirs, p)
			} else {
				os.Chmod(p, 0o444)
			}
			return nil
		})
		for _, d := range dirs {
			os.Chmod(d, 0o555)
		}
	}
	t.Cleanup(func() {
		filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	req := requestJSON(t, map[string]any{
		"vault": vault, "runtimeId": "ro", "turnId": "t",
		"selections": []map[string]any{{"text": blockQuote, "path": "papers/2401.01234/2401.01234.pdf"}},
		"mentions":   []string{"papers/2401.01234"},
	})
	readOnly("")
	r := run(t, req, "plan", "-request", "-", "-cache-dir", cache)
	checkError(t, r, 1, "the vault is read-only: the grant folder .agentero/context-sessions/ro cannot be written", tmp)

	// The host made the grant folder writable; the rest stays read-only.
	os.Chmod(vault, 0o755)
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	readOnly(sessions)
	p := decodeStrict[cli.PlanOutput](t, mustRun(t, req, "plan", "-request", "-", "-cache-dir", cache))
	if len(p.Evidence) != 1 || p.Evidence[0].Page != 1 {
		t.Errorf("evidence %+v", p.Evidence)
	}
	cs := serverSession(t, "serve", "-cache-dir", cache, p.GrantPath)
	res := callTool(t, cs, "context_search", map[string]any{"query": "block size trade-off"})
	if !strings.Contains(fmt.Sprint(res.StructuredContent), "2401.01234.pdf#page=") {
		t.Errorf("search: %v", res.StructuredContent)
	}
	cs.Close()
	if _, err := os.Stat(filepath.Join(vault, ".agentero", "cache")); err == nil {
		t.Errorf("a cache was written in the read-only vault")
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 1 {
		t.Errorf("cache folder holds %d vault folders, want 1", len(ents))
	}
}

// The README's host in another language: examples/nodehost/host.mjs drives
// a turn through the binary with nothing but Node.js.
func TestNodeHost(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed, and CI installs it for the MCP interop check")
		}
		t.Skip("node is not installed")
	}
	vault := vaultfix.Sample(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "..", "examples", "nodehost", "host.mjs"), exe, vault)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("host.mjs: %v\n%s", err, stderr.String())
	}
	type summary struct {
		Mode         string   `json:"mode"`
		Fingerprint  string   `json:"fingerprint"`
		Evidence     []string `json:"evidence"`
		Sources      []string `json:"sources"`
		First        string   `json:"first"`
		AttachServer bool     `json:"attachServer"`
		Server       string   `json:"server"`
		Cards        []string `json:"cards"`
		Searched     []string `json:"searched"`
		Calls        int      `json:"calls"`
		Second       string   `json:"second"`
		ResumeID     string   `json:"resumeId"`
	}
	got := decodeStrict[summary](t, string(out))
	if len(got.Cards) == 0 {
		t.Fatalf("the search returned no cards: %+v", got)
	}
	var searched []string
	for _, c := range got.Cards {
		searched = append(searched, c+" grant")
	}
	want := summary{
		Mode: "mcp", Fingerprint: got.Fingerprint,
		Evidence:     []string{"papers/2401.01234/2401.01234.pdf#page=1"},
		Sources:      []string{"paper papers/2401.01234", "directory notes"},
		First:        "new",
		AttachServer: true,
		Server:       grant.ServerName,
		Cards:        got.Cards,
		Searched:     searched,
		Calls:        1,
		Second:       "resume",
		ResumeID:     "agent-session-1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("host.mjs summary (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(got.Fingerprint, "sha256:") {
		t.Errorf("fingerprint %q", got.Fingerprint)
	}
}

// -cache-dir and RESEARCHCTX_CACHE_DIR: plan and both forms of the server
// keep the Vault's caches in the host's folder, none in .agentero/cache.
func TestCacheDir(t *testing.T) {
	vault := vaultfix.Sample(t)
	tmp := filepath.Dir(vault)
	cache := filepath.Join(tmp, "cache")
	req := requestJSON(t, map[string]any{
		"vault": vault, "runtimeId": "c", "turnId": "t",
		"selections": []map[string]any{{"text": blockQuote, "path": "papers/2401.01234/2401.01234.pdf"}},
		"mentions":   []string{"notes", "papers/2401.01234"},
	})
	p := decodeStrict[cli.PlanOutput](t, mustRun(t, req, "plan", "-request", "-", "-cache-dir", cache))
	if len(p.Evidence) != 1 || p.Evidence[0].Page != 1 {
		t.Fatalf("evidence %+v", p.Evidence)
	}
	own := agentero.VaultCache(cache, vault)
	count := func() int {
		n := 0
		filepath.WalkDir(own, func(_ string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				n++
			}
			return nil
		})
		return n
	}
	afterPlan := count()
	if afterPlan == 0 {
		t.Fatalf("plan cached nothing in %s", own)
	}

	t.Setenv(cli.CacheDirEnv, cache)
	for _, form := range [][]string{{"serve", p.GrantPath}, {"--agentero-context-mcp", p.GrantPath}} {
		cs := serverSession(t, form...)
		callTool(t, cs, "context_search", map[string]any{"query": "block size trade-off"})
		cs.Close()
	}
	if count() <= afterPlan {
		t.Errorf("the server added nothing to the cache folder (%d files after plan, %d now)", afterPlan, count())
	}
	if _, err := os.Stat(filepath.Join(vault, ".agentero", "cache")); err == nil {
		t.Errorf("a cache was written under the vault's .agentero")
	}
}

// The README's plan example is the real output for its request on the
// sample vault, its vault path and the prompt's elision aside.
func TestREADMEPlan(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	block := func(after, open string) string {
		i := strings.Index(readme, after)
		if i < 0 {
			t.Fatalf("README has no %q", after)
		}
		rest := readme[i+len(after):]
		j := strings.Index(rest, open)
		if j < 0 {
			t.Fatalf("README has no %q after %q", open, after)
		}
		rest = rest[j+len(open):]
		return rest[:strings.Index(rest, "```")]
	}
	reqText := block("cat > request.json <<'EOF'\n", "")
	reqText = reqText[:strings.Index(reqText, "EOF\n")]
	sample := block("./researchctx plan -request request.json\n", "```json\n")

	vault := vaultfix.Sample(t)
	const readmeVault = "/tmp/vault"
	if !strings.Contains(reqText, `"vault": "`+readmeVault+`"`) {
		t.Fatalf("README request:\n%s", reqText)
	}
	got := decodeStrict[cli.PlanOutput](t, mustRun(t, strings.Replace(reqText, readmeVault, vault, 1), "plan", "-request", "-"))
	want := decodeStrict[cli.PlanOutput](t, sample)
	want.GrantPath = strings.Replace(want.GrantPath, readmeVault, vault, 1)
	head, _, ok := strings.Cut(want.Prompt, "…")
	if !ok || !strings.HasPrefix(got.Prompt, head) {
		t.Errorf("prompt %q does not start as the README's %q", got.Prompt, head)
	}
	want.Prompt = got.Prompt
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README sample (-README +real):\n%s", diff)
	}
}

// serve stops on SIGTERM as on the end of its input: exit 0, nothing on
// stderr.
func TestServeSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	vault := vaultfix.Sample(t)
	p := decodeStrict[cli.PlanOutput](t, mustRun(t, requestJSON(t, map[string]any{
		"vault": vault, "runtimeId": "sig", "turnId": "t", "mentions": []string{"notes"},
	}), "plan", "-request", "-"))
	cmd := exec.Command(exe, "serve", p.GrantPath)
	stdin, err := cmd.StdinPipe() // kept open: only the signal ends it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The server answers once it is up; then it is signalled.
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo"`) {
		cmd.Process.Kill()
		t.Fatalf("initialize: %q, %v (stderr %q)", line, err, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || stderr.Len() != 0 {
			t.Errorf("serve after SIGTERM: %v, stderr %q", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("serve did not stop on SIGTERM")
	}
}
