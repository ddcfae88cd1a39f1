package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// interopEnv turns on the interop test with real agents from npm. It
// installs nothing; see docs/architecture.md ("Turn lifecycle") for the
// set-up. RESEARCHCTX_GEMINI and RESEARCHCTX_CODEX_ACP name the agents'
// executables when they are not on PATH as gemini and codex-acp.
const interopEnv = "RESEARCHCTX_ACP_INTEROP"

type realAgent struct {
	name    string
	env     string // names the executable
	exe     string // default executable on PATH
	args    []string
	auth    string
	prepare func(t *testing.T, home, vault string) []string // writes config, returns extra env
}

var realAgents = []realAgent{
	{
		name: "gemini", env: "RESEARCHCTX_GEMINI", exe: "gemini", args: []string{"--acp"},
		prepare: func(t *testing.T, home, vault string) []string {
			// Gemini CLI asks before working in a folder it does not trust.
			dir := filepath.Join(home, ".gemini")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			trusted, _ := json.Marshal(map[string]string{vault: "TRUST_FOLDER"})
			if err := os.WriteFile(filepath.Join(dir, "trustedFolders.json"), trusted, 0o600); err != nil {
				t.Fatal(err)
			}
			return []string{"GEMINI_API_KEY=dummy"}
		},
	},
	{
		name: "codex-acp", env: "RESEARCHCTX_CODEX_ACP", exe: "codex-acp", auth: "openai-api-key",
		prepare: func(t *testing.T, home, vault string) []string {
			codexHome := filepath.Join(home, ".codex")
			if err := os.MkdirAll(codexHome, 0o700); err != nil {
				t.Fatal(err)
			}
			return []string{"CODEX_HOME=" + codexHome, "OPENAI_API_KEY=dummy"}
		},
	},
}

// TestInteropRealAgents shows that real ACP agents spawn our server from
// the entry we send on session/new and get an answer to tools/list. They
// cannot answer a prompt offline (no model), so no prompt is sent.
func TestInteropRealAgents(t *testing.T) {
	if os.Getenv(interopEnv) == "" {
		t.Skipf("set %s=1 to run the interop test with real agents (see docs/architecture.md)", interopEnv)
	}
	f := newFixture(t)
	spy := filepath.Join(binDir, "agentero-spy")
	if err := goBuild(moduleRoot(t), spy, "./acp/testdata/mcpspy"); err != nil {
		t.Fatal(err)
	}
	for _, ra := range realAgents {
		t.Run(ra.name, func(t *testing.T) {
			exe := os.Getenv(ra.env)
			if exe == "" {
				p, err := exec.LookPath(ra.exe)
				if err != nil {
					t.Fatalf("%s not found: install it or set %s", ra.exe, ra.env)
				}
				exe = p
			}
			home := t.TempDir()
			env := append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, ra.prepare(t, home, f.vault)...)

			spyLog := filepath.Join(t.TempDir(), "spy.log")
			cfg, _ := json.Marshal(map[string]string{"server": f.server, "log": spyLog})
			if err := os.WriteFile(spy+".json", cfg, 0o600); err != nil {
				t.Fatal(err)
			}
			plan, srv := f.plan(false, "notes")
			srv.Command = spy
			d := Decide(nil, plan)
			servers, err := d.McpServers(srv)
			if err != nil {
				t.Fatal(err)
			}

			var stderr bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			a, err := Start(ctx, AgentOptions{
				Name: ra.name, Command: exe, Args: ra.args, Env: env, Dir: f.vault,
				Stderr: &lockedWriter{w: &stderr}, AuthMethod: ra.auth,
				InitTimeout: time.Minute, OpenTimeout: time.Minute, ResumeTimeout: 15 * time.Second,
			})
			if err != nil {
				t.Fatalf("Start: %v\nstderr:\n%s", err, stderr.String())
			}
			defer func() {
				pgid := a.pgid
				if err := a.Stop(); err != nil {
					t.Error(err)
				}
				if groupAlive(pgid) {
					t.Errorf("process group %d alive after Stop", pgid)
				}
				if t.Failed() {
					t.Logf("agent stderr:\n%s", stderr.String())
				}
			}()
			t.Logf("%s %s: capabilities %+v", ra.name, exe, a.Capabilities())

			s, err := a.newSession(ctx, f.vault, servers)
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			t.Logf("session/new: %s", s.ID())

			// The agent spawned the server and listed its tools.
			deadline := time.Now().Add(time.Minute)
			for {
				data, _ := os.ReadFile(spyLog)
				asked, answered := false, false
				for _, line := range strings.Split(string(data), "\n") {
					asked = asked || strings.HasPrefix(line, "> ") && strings.Contains(line, `"tools/list"`)
					answered = answered || strings.HasPrefix(line, "< ") && strings.Contains(line, `"context_search"`) && strings.Contains(line, `"context_read"`)
				}
				if asked && answered {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no tools/list answered within a minute; spy log:\n%s", data)
				}
				// A file the server the agent started writes: nothing
				// in this process to wait on.
				time.Sleep(50 * time.Millisecond)
			}

			// Reopening a session the agent does not know falls back to a
			// new session, whatever the agent advertises.
			s2, how, refusal, err := a.reopen(ctx, "unknown-session-0000", f.vault, servers)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			t.Logf("reopen of an unknown session: how %s, refusal %v, new session %s", how, refusal, s2.ID())
			if refusal == nil || how != HowNew {
				t.Errorf("reopen of an unknown session: how %s, refusal %v", how, refusal)
			}
		})
	}
}
