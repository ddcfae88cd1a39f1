package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/researchctx/researchctx/samplevault"
)

// TestAgentPolicyShown: an agent asking permission as Claude Code does,
// and first replaying recorded hostile requests: quickchat prints each call
// as it happens, the hostile ones denied, ours with the URIs they returned,
// and -json has them all.
func TestAgentPolicyShown(t *testing.T) {
	agent := testAgent(t)
	tmp := t.TempDir()
	report := filepath.Join(tmp, "report.jsonl")
	fixture, err := filepath.Abs("../../acp/testdata/permissions/claude-code.json")
	if err != nil {
		t.Fatal(err)
	}
	cmdline := agent + " -shape claude -modes -status -permissions " + fixture + " -report " + report
	r := mustRun(t, tmp, "", "-agent", cmdline)
	for _, want := range []string{
		"→ touch x # context_search {\"command\":\"touch x # context_search\"",
		"← touch x # context_search denied by the policy",
		"← mcp__papers__context_search denied by the policy",
		"→ context_search {\"query\":",
		"→ context_read {\"target\":",
		"← context_read completed · " + limitationsURI,
		"mode           set to default",
		"agent status: Attempt 1 failed with status 429. Retrying with backoff...",
		"agent status: _test/status",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	// The agent ran only what the host allowed: the recorded calls of our
	// tools.
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, line := range strings.Split(string(data), "\n") {
		var e struct{ Event, CallID string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Event == "ran" {
			ran++
			if !strings.HasPrefix(e.CallID, "our ") {
				t.Errorf("the agent ran %q", e.CallID)
			}
		}
	}
	if ran != 2 {
		t.Errorf("%d recorded calls ran, want our 2", ran)
	}
	vaultDir := keptVault(t, r.stdout)

	r = mustRun(t, tmp, "", "-json", "-vault", vaultDir, "-mention", "notes", "-agent", cmdline)
	v := parseRun(t, r.stdout)
	if v.Agent == nil {
		t.Fatal("-json has no agent part")
	}
	denied, ours := 0, 0
	for _, c := range v.Agent.ToolCalls {
		switch {
		case c.Status == "denied":
			denied++
			if c.Ours {
				t.Errorf("denied call of ours: %+v", c)
			}
		case c.Ours && c.Status == "completed" && len(c.URIs) > 0 && len(c.Args) > 0:
			ours++
		}
	}
	if denied < 6 || ours < 2 {
		t.Errorf("-json toolCalls: %d denied, %d of ours with URIs: %+v", denied, ours, v.Agent.ToolCalls)
	}
	if !v.Agent.Mode.Set || v.Agent.Mode.Current != "default" {
		t.Errorf("-json mode %+v", v.Agent.Mode)
	}
	if len(v.Agent.Status) != 2 {
		t.Errorf("-json status %q, want the retry line and the notification", v.Agent.Status)
	}
}

// TestAgentInterrupt: Ctrl-C during a turn cancels it with session/cancel
// and ends quickchat with one clean line.
func TestAgentInterrupt(t *testing.T) {
	agent := testAgent(t)
	tmp := t.TempDir()
	vaultDir := filepath.Join(tmp, "vault")
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(tmp, "report.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-vault", vaultDir, "-mention", "notes", "-agent", agent+" -hang-prompt -report "+report)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "NO_COLOR=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for !hasEvent(report, "prompt hang") {
		if ctx.Err() != nil {
			t.Fatalf("the agent never got the prompt\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("no exit after Ctrl-C\nstdout:\n%s", out.String())
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130", err)
	}
	if n := strings.Count(out.String(), "interrupted: the turn was cancelled"); n != 1 {
		t.Errorf("%d interruption lines:\n%s", n, out.String())
	}
	if strings.Contains(errb.String(), "quickchat:") || strings.Contains(out.String(), "agent error") {
		t.Errorf("an error besides the interruption:\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	if !hasEvent(report, "session/cancel") || !hasEvent(report, "prompt cancelled") {
		t.Errorf("the agent was not cancelled over ACP: %+v", readReport(t, report))
	}
}

func hasEvent(report, kind string) bool {
	data, err := os.ReadFile(report)
	return err == nil && bytes.Contains(data, []byte(`"event":"`+kind+`"`))
}

// TestAgentTimeout: -agent-timeout cancels the turn with session/cancel.
func TestAgentTimeout(t *testing.T) {
	agent := testAgent(t)
	tmp := t.TempDir()
	vaultDir := filepath.Join(tmp, "vault")
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(tmp, "report.jsonl")
	r := run(t, tmp, "", "-vault", vaultDir, "-mention", "notes", "-agent-timeout", "300ms", "-agent", agent+" -hang-prompt -report "+report)
	if r.code != 130 || strings.Count(r.stdout, "timed out: the turn was cancelled after 300ms") != 1 || r.stderr != "" && strings.Contains(r.stderr, "quickchat:") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !hasEvent(report, "session/cancel") || !hasEvent(report, "prompt cancelled") {
		t.Errorf("the agent was not cancelled over ACP")
	}
}
