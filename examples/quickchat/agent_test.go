package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/samplevault"
)

// agentEvent is a line of the test agent's report file.
type agentEvent struct {
	Event   string            `json:"event"`
	Servers []json.RawMessage `json:"servers"`
	Tools   []string          `json:"tools"`
	Prompt  string            `json:"prompt"`
	URIs    []string          `json:"uris"`
	Errors  []string          `json:"errors"`
}

func readReport(t *testing.T, path string) []agentEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []agentEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e agentEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("report line %q: %v", sc.Text(), err)
		}
		evs = append(evs, e)
	}
	return evs
}

func TestAgent(t *testing.T) {
	agent := testAgent(t)
	tmp := t.TempDir()
	report := filepath.Join(tmp, "report.jsonl")
	// The agent path has a space: the -agent value quotes it.
	spaced := filepath.Join(tmp, "my agents", "agent")
	if err := os.MkdirAll(filepath.Dir(spaced), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(agent, spaced); err != nil {
		if err := os.Symlink(agent, spaced); err != nil {
			t.Fatal(err)
		}
	}
	cmdline := `"` + spaced + `" -resume -report '` + report + `'`

	r := mustRun(t, tmp, "", "-agent", cmdline, "-agent-auth", "openai-api-key")
	out := r.stdout
	for _, want := range []string{
		"5. The turn, sent to a real agent over ACP",
		"session        new (no previous session) · agentero-context attached",
		"→ context_search",
		"→ context_read",
		"← context_search completed",
		"agent sources: " + limitationsURI,
		"ended          new session ",
		"stop: end_turn",
		"6. Sources of this turn",
		"read  what the agent read",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "5. A scripted agent turn") {
		t.Error("-agent also played the scripted turn")
	}
	vaultDir := keptVault(t, out)

	// What the agent saw: the server entry and the prompt.
	evs := readReport(t, report)
	var opened, prompt *agentEvent
	authenticated := false
	for i := range evs {
		switch evs[i].Event {
		case "authenticate":
			authenticated = evs[i].Prompt == "openai-api-key"
		case "session/new":
			opened = &evs[i]
		case "prompt":
			prompt = &evs[i]
		}
	}
	if opened == nil || prompt == nil {
		t.Fatalf("report lacks session/new or prompt: %+v", evs)
	}
	if !authenticated {
		t.Error("-agent-auth did not reach the agent's authenticate")
	}
	if len(opened.Servers) != 1 || len(opened.Errors) > 0 {
		t.Fatalf("servers %s, errors %v", opened.Servers, opened.Errors)
	}
	var entry struct {
		Name    string   `json:"name"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Env     []any    `json:"env"`
	}
	if err := json.Unmarshal(opened.Servers[0], &entry); err != nil {
		t.Fatal(err)
	}
	gr := filepath.Join(vaultDir, ".agentero", "context-sessions", runtimeID, "grant.json")
	if entry.Name != grant.ServerName || !filepath.IsAbs(entry.Command) || entry.Env == nil ||
		!cmp.Equal(entry.Args, []string{mcp.Flag, gr}) {
		t.Errorf("server entry %+v", entry)
	}
	if diff := cmp.Diff([]string{"context_read", "context_search", "paper_relations"}, opened.Tools); diff != "" {
		t.Errorf("tools the agent listed (-want +got):\n%s", diff)
	}
	if !strings.Contains(prompt.Prompt, "## Research context") || !strings.HasSuffix(strings.TrimSpace(prompt.Prompt), sampleAsk) {
		t.Errorf("prompt is not the evidence block then the question:\n%s", prompt.Prompt)
	}
	if len(prompt.Errors) > 0 || len(prompt.URIs) == 0 {
		t.Errorf("agent tool errors %v, uris %v", prompt.Errors, prompt.URIs)
	}

	// -json on the same vault: the agent's part and the sources; the same
	// scope resumes the session kept from the run before.
	r = mustRun(t, tmp, "", "-json", "-vault", vaultDir, "-paper", samplePaper, "-page", "1", "-quote", sampleQuote,
		"-mention", "notes", "-mention", "reading-list", "-ask", sampleAsk, "-agent", cmdline)
	v := parseRun(t, r.stdout)
	if v.Agent == nil {
		t.Fatal("-json has no agent part")
	}
	a := v.Agent
	if a.Decision.Action != "resume" || a.How != "resumed" || a.StopReason != "end_turn" || len(a.ToolCalls) != 2 {
		t.Errorf("agent part: decision %+v, how %q, stop %q, tool calls %+v", a.Decision, a.How, a.StopReason, a.ToolCalls)
	}
	// The test agent is none the package knows: the guard says so.
	if a.Guard.Kept || !strings.Contains(a.Guard.Problem, `unknown agent "test-agent"`) {
		t.Errorf("guard %+v, want not kept for an unknown agent", a.Guard)
	}
	if !strings.HasPrefix(a.Message, "sources: ") || !cmp.Equal(a.Command, []string{spaced, "-resume", "-report", report}) {
		t.Errorf("message %q, command %q", a.Message, a.Command)
	}
	var uris []string
	for _, s := range v.Sources {
		uris = append(uris, s.URI)
	}
	if diff := cmp.Diff(a.Sources, uris); diff != "" || len(uris) == 0 {
		t.Errorf("sources are not the turn's (-turn +printed):\n%s", diff)
	}
	if len(v.Calls) != 0 {
		t.Errorf("-agent run made %d calls of its own", len(v.Calls))
	}

	// A changed scope opens a new session.
	r = mustRun(t, tmp, "", "-vault", vaultDir, "-paper", samplePaper, "-ask", "slot routing", "-agent", cmdline)
	if !strings.Contains(r.stdout, "new (scope fingerprint changed)") {
		t.Errorf("changed scope did not start a new session:\n%s", r.stdout)
	}

	// A prompt-only turn: no server is attached.
	r = mustRun(t, tmp, "", "-vault", vaultDir, "-paper", samplePaper, "-remote", "-agent", cmdline)
	if !strings.Contains(r.stdout, "no MCP server (prompt-only)") || !strings.Contains(r.stdout, "(none: the agent received nothing") {
		t.Errorf("prompt-only agent turn:\n%s", r.stdout)
	}
}

// TestAgentExits checks that an agent that is not an ACP agent ends the
// run with one line and a non-zero exit, not a hang.
func TestAgentExits(t *testing.T) {
	tmp := t.TempDir()
	vaultDir := filepath.Join(tmp, "vault")
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	r := run(t, tmp, "", "-vault", vaultDir, "-mention", "notes", "-agent", "true")
	if r.code != 1 || !strings.Contains(r.stderr, "quickchat: ") || !strings.Contains(r.stderr, "true") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
