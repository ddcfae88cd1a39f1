package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/acp/agenttest"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
)

// TestRealAgentsQuickchat runs `quickchat -agent` itself with the unmodified
// real agents (installed by .ci/real-agents.sh) against the scripted model:
// the printed run shows each of our tool calls as it happens and the turn's
// sources, and -json carries the same calls with the citation URIs they
// returned.
func TestRealAgentsQuickchat(t *testing.T) {
	dir := agenttest.Require(t, filepath.Join("..", ".."))
	for _, a := range agenttest.Agents() {
		t.Run(a.Name, func(t *testing.T) {
			model := agenttest.New(a.API, agenttest.Research(filepath.Join(t.TempDir(), "marker")))
			defer model.Close()
			vault := filepath.Join(t.TempDir(), "vault")
			if err := samplevault.Extract(vault); err != nil {
				t.Fatal(err)
			}
			env, err := a.Env(a.Home(t, filepath.Join("..", "..")), vault, model.URL())
			if err != nil {
				t.Fatal(err)
			}
			agent := `"` + a.Exe(dir) + `" ` + strings.Join(a.Args, " ")
			args := []string{"-vault", vault, "-paper", "papers/2401.01234", "-mention", "notes",
				"-ask", "What do strided global tokens do?", "-agent", agent}

			// -json: the calls with their URIs, and the sources.
			out := runAgent(t, env, append(args, "-json")...)
			var rep struct {
				Agent struct {
					How        string                `json:"how"`
					Mode       acp.SessionModeReport `json:"mode"`
					Guard      acp.Guard             `json:"guard"`
					StopReason string                `json:"stopReason"`
					ToolCalls  []acp.ToolCall        `json:"toolCalls"`
					Sources    []string              `json:"sources"`
				} `json:"agent"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("-json output: %v\n%s", err, out)
			}
			ag := rep.Agent
			// The mode is pinned where the agent offers it; Codex offers none
			// under the overrides that keep it to our tools.
			pinned := ag.Mode.Current == acp.DefaultSessionMode || len(ag.Mode.Available) == 0
			if ag.StopReason != "end_turn" || !pinned || !ag.Guard.Kept || len(ag.Sources) == 0 {
				t.Fatalf("agent: stop %q, mode %+v, guard %+v, sources %v", ag.StopReason, ag.Mode, ag.Guard, ag.Sources)
			}
			var tools, uris []string
			for _, c := range ag.ToolCalls {
				if !c.Ours {
					continue
				}
				tools = append(tools, c.Tool+" "+string(c.Status))
				if len(c.URIs) == 0 {
					t.Errorf("%s call without citation URIs: %+v", c.Tool, c)
				}
				for _, u := range c.URIs {
					if !slices.Contains(uris, u) {
						uris = append(uris, u)
					}
				}
			}
			if diff := cmp.Diff([]string{grant.ToolSearch + " completed", grant.ToolRead + " completed"}, tools); diff != "" {
				t.Errorf("our tool calls in -json (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(uris, ag.Sources); diff != "" {
				t.Errorf("the calls' URIs differ from the turn's sources (-calls +sources):\n%s", diff)
			}

			// The printed run: each call as it happens (under our name, or
			// the agent's name for it), then the sources.
			out = runAgent(t, env, args...)
			for _, tool := range []string{grant.ToolSearch, grant.ToolRead} {
				// An agent that streams a call's arguments announces it
				// with none: its start line is the name alone, and the
				// approval line that follows carries the arguments.
				start := regexp.MustCompile(`(?m)^\s*→ (mcp__` + grant.ServerName + `__)?` + tool + `( |$)`)
				if !start.MatchString(out) {
					t.Errorf("output shows no start of %s:\n%s", tool, out)
				}
				if !strings.Contains(out, "← "+tool+" completed") {
					t.Errorf("output shows no end of %s:\n%s", tool, out)
				}
			}
			for _, want := range []string{"stop: end_turn", "6. Sources of this turn", "1. " + ag.Sources[0]} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// runAgent runs quickchat with the agent's environment (quickchat passes
// its own to the agent) and returns stdout, failing on a non-zero exit.
func runAgent(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, builtQuickchat(t), args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("quickchat %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	t.Logf("quickchat -agent in %v", time.Since(start).Round(time.Millisecond))
	if testing.Verbose() {
		t.Logf("stdout:\n%s", out.String())
	}
	return out.String()
}
