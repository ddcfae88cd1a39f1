package acp

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCodexArgs(t *testing.T) {
	args, missing := codexArgs([]string{"-c", `model="o3"`})
	if !missing || len(args) != 2+2*len(CodexOverrides()) || args[1] != `model="o3"` {
		t.Fatalf("codexArgs: %v, missing %v", args, missing)
	}
	if !hasOverrides(args) {
		t.Error("the overrides appended are not recognised")
	}
	again, missing := codexArgs(args)
	if missing || !slices.Equal(again, args) {
		t.Errorf("applied twice: %v, missing %v", again, missing)
	}
	// The host's own override after ours would win: the overrides are
	// not in force.
	if hasOverrides(append(slices.Clone(args), "-c", `web_search="live"`)) {
		t.Error("overrides followed by another override count as applied")
	}
}

func TestTurnGuard(t *testing.T) {
	pinned := SessionModeReport{Want: DefaultSessionMode, Current: DefaultSessionMode, Available: []string{DefaultSessionMode, "auto"}}
	tests := []struct {
		name  string
		agent string
		cfg   AgentOptions
		mode  SessionModeReport
		kept  bool
		about string // in the problem, when not kept
	}{
		{"gemini with the policy, in default", agentGemini, AgentOptions{SessionMode: DefaultSessionMode, Args: geminiPolicyArgs(t)}, pinned, true, ""},
		{"gemini without the policy", agentGemini, AgentOptions{SessionMode: DefaultSessionMode, Args: []string{"--acp"}}, pinned, false, "without the policy"},
		{"gemini, KeepTools", agentGemini, AgentOptions{SessionMode: DefaultSessionMode, KeepTools: true, Args: geminiPolicyArgs(t)}, pinned, false, "read_file"},
		{"gemini with the policy, mode not in force", agentGemini, AgentOptions{SessionMode: DefaultSessionMode, Args: geminiPolicyArgs(t)}, SessionModeReport{Want: DefaultSessionMode, Problem: "refused"}, false, "not in force"},
		{"claude in default", agentClaude, AgentOptions{SessionMode: DefaultSessionMode}, pinned, true, ""},
		{"claude's former adapter in default", agentClaudeOld, AgentOptions{SessionMode: DefaultSessionMode}, pinned, true, ""},
		{"claude, KeepTools", agentClaude, AgentOptions{SessionMode: DefaultSessionMode, KeepTools: true}, pinned, false, "Read"},
		{"claude, mode not offered", agentClaude, AgentOptions{SessionMode: DefaultSessionMode}, SessionModeReport{Want: DefaultSessionMode, Problem: "the agent offers no session modes"}, false, "not in force"},
		{"claude, another mode", agentClaude, AgentOptions{SessionMode: "plan"}, SessionModeReport{Want: "plan", Current: "plan", Available: []string{"plan"}}, false, "is not default"},
		{"claude, KeepMode", agentClaude, AgentOptions{KeepSessionMode: true}, SessionModeReport{Current: "auto"}, false, "KeepMode"},
		{"codex with the overrides", agentCodex, AgentOptions{Args: mustCodexArgs()}, SessionModeReport{Want: DefaultSessionMode, Problem: "the agent offers no session modes"}, true, ""},
		{"codex in a preset mode", agentCodex, AgentOptions{Args: mustCodexArgs()}, SessionModeReport{Want: DefaultSessionMode, Current: "read-only", Available: []string{"read-only", "auto", "full-access"}}, false, "preset mode read-only"},
		{"codex without the overrides", agentCodex, AgentOptions{}, SessionModeReport{}, false, "without the overrides"},
		{"codex, KeepTools", agentCodex, AgentOptions{KeepTools: true, Args: mustCodexArgs()}, SessionModeReport{}, false, "KeepTools"},
		{"unknown agent", "test-agent", AgentOptions{SessionMode: DefaultSessionMode}, pinned, false, `unknown agent "test-agent"`},
		{"nameless agent", "", AgentOptions{SessionMode: DefaultSessionMode}, pinned, false, "did not name itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Agent{cfg: tt.cfg, caps: Capabilities{AgentName: tt.agent}}
			a.guard = a.startGuard()
			g := a.turnGuard(tt.mode)
			if g.Kept != tt.kept || g.Agent != tt.agent || (g.Kept && (g.How == "" || g.Problem != "")) {
				t.Fatalf("guard %+v, want kept=%v", g, tt.kept)
			}
			if !tt.kept && !strings.Contains(g.Problem, tt.about) {
				t.Errorf("problem %q, want it to say %q", g.Problem, tt.about)
			}
		})
	}
}

// Claude Code's sessions are asked for without built-in tools, unless
// KeepTools; no other agent gets a _meta.
func TestSessionMeta(t *testing.T) {
	none := map[string]any{"claudeCode": map[string]any{"options": map[string]any{"tools": []any{}, "strictMcpConfig": true}}}
	for _, tt := range []struct {
		agent string
		keep  bool
		want  map[string]any
	}{
		{agentClaude, false, none},
		{agentClaudeOld, false, none},
		{agentClaude, true, nil},
		{agentGemini, false, nil},
		{agentCodex, false, nil},
	} {
		a := &Agent{cfg: AgentOptions{KeepTools: tt.keep}, caps: Capabilities{AgentName: tt.agent}}
		if diff := cmp.Diff(tt.want, a.sessionMeta()); diff != "" {
			t.Errorf("%s keep=%v (-want +got):\n%s", tt.agent, tt.keep, diff)
		}
	}
}

// geminiPolicyArgs are gemini-cli's arguments with GeminiPolicy loaded.
func geminiPolicyArgs(t *testing.T) []string {
	args, missing, cleanup, err := geminiArgs([]string{"--acp"})
	if err != nil || !missing {
		t.Fatalf("geminiArgs: %v, missing %v", err, missing)
	}
	t.Cleanup(cleanup)
	return args
}

// A policy file is recognised by its content, wherever it is.
func TestGeminiArgs(t *testing.T) {
	args := geminiPolicyArgs(t)
	if !hasGeminiPolicy(args) || args[1] != "--policy" {
		t.Fatalf("args %v", args)
	}
	if again, missing, _, err := geminiArgs(args); err != nil || missing || !slices.Equal(again, args) {
		t.Errorf("applied twice: %v, missing %v, %v", again, missing, err)
	}
	if !hasGeminiPolicy([]string{"--acp", "--policy=" + args[2]}) {
		t.Error("--policy=FILE not recognised")
	}
	other := filepath.Join(t.TempDir(), "allow.toml")
	if err := os.WriteFile(other, []byte(strings.Replace(GeminiPolicy, "ask_user", "allow", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if hasGeminiPolicy([]string{"--acp", "--policy", other}) {
		t.Error("another policy taken for ours")
	}
}

// An agent that names itself gemini-cli is started again with the policy
// file; Stop removes it.
func TestStartGeminiRestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.start(AgentOptions{}, "-name", agentGemini)
	var inits []agentEvent
	for _, e := range f.events() {
		if e.Event == "initialize" {
			inits = append(inits, e)
		}
	}
	if len(inits) != 2 || inits[0].Prompt != "" || inits[1].Prompt != GeminiPolicy || !hasGeminiPolicy(a.Args()) {
		t.Fatalf("initialize events %+v, args %v", inits, a.Args())
	}
	i := slices.Index(a.Args(), "--policy")
	path := a.Args()[i+1]
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("policy file left after Stop: %v", err)
	}
}

func mustCodexArgs() []string {
	args, _ := codexArgs(nil)
	return args
}

// An agent that names itself codex-acp at initialize is started again
// with the overrides, whatever its command; the turn reports the guard.
func TestStartCodexRestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.start(AgentOptions{}, "-name", agentCodex)
	var inits []agentEvent
	for _, e := range f.events() {
		if e.Event == "initialize" {
			inits = append(inits, e)
		}
	}
	if len(inits) != 2 || inits[0].PID == inits[1].PID {
		t.Fatalf("initialize events %+v, want two processes", inits)
	}
	if inits[0].Config != nil {
		t.Errorf("first start had overrides %v", inits[0].Config)
	}
	if diff := cmp.Diff(CodexOverrides(), inits[1].Config); diff != "" {
		t.Errorf("overrides the restarted agent got (-want +got):\n%s", diff)
	}
	if !hasOverrides(a.Args()) || !a.Guard().Kept {
		t.Errorf("args %v, guard %+v", a.Args(), a.Guard())
	}
	plan, srv := f.plan(false, "notes")
	res, err := a.Turn(context.Background(), TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Guard.Kept || len(res.Sources) == 0 {
		t.Errorf("guard %+v, sources %v", res.Guard, res.Sources)
	}

	// KeepTools: started once, as configured, and reported not kept.
	f2 := newFixture(t)
	b := f2.start(AgentOptions{KeepTools: true}, "-name", agentCodex)
	if n := f2.count("initialize"); n != 1 || hasOverrides(b.Args()) || b.Guard().Kept {
		t.Errorf("KeepTools: %d starts, args %v, guard %+v", n, b.Args(), b.Guard())
	}
}

// A turn whose agent is not kept to our tools runs with the problem in
// its result and a warning in the log; with RequireGuard it is refused
// before anything is sent, and Start refuses an agent known to be
// unguarded from initialize.
func TestRequireGuard(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var log lockedWriter
	log.w = &bytes.Buffer{}
	a := f.start(AgentOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))}, "-shape", "claude")
	plan, srv := f.plan(false, "notes")
	res, err := a.Turn(context.Background(), TurnRequest{Plan: plan, Server: srv, Prompt: "attention"})
	if err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	logged := log.w.String()
	log.mu.Unlock()
	if res.Guard.Kept || res.Guard.Problem == "" || len(res.Sources) == 0 || !strings.Contains(logged, "level=WARN") ||
		!strings.Contains(logged, "not with this agent") {
		t.Errorf("guard %+v, sources %v, log:\n%s", res.Guard, res.Sources, logged)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Start(ctx, AgentOptions{Command: testAgent(t), Args: []string{"-report", f.report}, RequireGuard: true}); !errors.Is(err, ErrUnguarded) {
		t.Errorf("Start with RequireGuard of an unknown agent: %v, want ErrUnguarded", err)
	}

	// A known agent whose mode cannot be pinned: refused at the turn.
	f2 := newFixture(t)
	b := f2.start(AgentOptions{RequireGuard: true}, "-name", agentGemini)
	plan2, srv2 := f2.plan(false, "notes")
	res2, err := b.Turn(context.Background(), TurnRequest{Plan: plan2, Server: srv2, Prompt: "attention"})
	if !errors.Is(err, ErrUnguarded) || res2 == nil || res2.Guard.Kept {
		t.Fatalf("turn: %v, %+v; want ErrUnguarded with the result", err, res2)
	}
	if n := f2.count("prompt"); n != 0 {
		t.Errorf("the refused turn sent %d prompts", n)
	}
}

// TestCodexOverridesIsACopy: a host that changes what CodexOverrides
// returned changes neither what Start appends nor what it recognises as
// applied.
func TestCodexOverridesIsACopy(t *testing.T) {
	want := CodexOverrides()
	got := CodexOverrides()
	for i := range got {
		got[i] = `features.shell_tool=true`
	}
	if diff := cmp.Diff(want, CodexOverrides()); diff != "" {
		t.Fatalf("CodexOverrides after a caller changed an earlier result (-want +got):\n%s", diff)
	}
	args, _ := codexArgs(nil)
	for i, o := range want {
		if args[2*i] != "-c" || args[2*i+1] != o {
			t.Fatalf("codexArgs appended %v, want the overrides %v", args, want)
		}
	}
}
