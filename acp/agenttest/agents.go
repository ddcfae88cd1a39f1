package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// DirEnv names the folder the pinned agents are installed in (by
// .ci/real-agents.sh; default .cache/agents in the module); "off" turns the
// real-agent tests off.
const DirEnv = "RESEARCHCTX_REAL_AGENTS"

// Agent is an unmodified coding agent from npm that runs against a Model.
type Agent struct {
	Name string   // "gemini", "claude" or "codex"
	API  API      // the model API it speaks
	Bin  string   // its executable under node_modules/.bin
	Args []string // the arguments that make it speak ACP on stdio
	// AuthMethod is the ACP authentication method to select after
	// initialize, or "".
	AuthMethod string
}

// The agents .ci/real-agents.sh installs (versions pinned by
// .ci/agents/package-lock.json). Each call returns a fresh value, so that a
// test that changes one (its Args, say) cannot change it for the others.

// GeminiCLI returns @google/gemini-cli 0.61.0.
func GeminiCLI() Agent {
	return Agent{Name: "gemini", API: Gemini, Bin: "gemini", Args: []string{"--acp"}}
}

// ClaudeCode returns Claude Code through
// @agentclientprotocol/claude-agent-acp 0.101.0.
func ClaudeCode() Agent {
	return Agent{Name: "claude", API: Anthropic, Bin: "claude-agent-acp", Args: []string{}}
}

// Codex returns Codex through @zed-industries/codex-acp 0.16.0 (its native
// binary comes in a platform package).
func Codex() Agent {
	return Agent{Name: "codex", API: OpenAI, Bin: "codex-acp", Args: []string{}, AuthMethod: "openai-api-key"}
}

// Agents returns the three.
func Agents() []Agent { return []Agent{GeminiCLI(), ClaudeCode(), Codex()} }

// Exe returns the agent's executable in the install folder dir.
func (a Agent) Exe(dir string) string { return filepath.Join(dir, "node_modules", ".bin", a.Bin) }

// Require returns the install folder of the agents — $RESEARCHCTX_REAL_AGENTS,
// else .cache/agents under root — and skips the test when they are not
// installed there, when the variable is "off", or with -short. With CI=true and npm at
// hand a missing install fails the test instead: it is a broken CI step.
func Require(tb testing.TB, root string) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: real-agent tests disabled")
	}
	dir := os.Getenv(DirEnv)
	if dir == "off" {
		tb.Skipf("%s=off: real-agent tests disabled", DirEnv)
	}
	if dir == "" {
		dir = filepath.Join(root, ".cache", "agents")
	}
	for _, a := range Agents() {
		if _, err := os.Stat(a.Exe(dir)); err != nil {
			msg := fmt.Sprintf("real agents not installed in %s (%s missing): run .ci/real-agents.sh to install the pinned versions", dir, a.Bin)
			if _, npmErr := exec.LookPath("npm"); npmErr == nil && os.Getenv("CI") == "true" {
				tb.Fatal(msg)
			}
			tb.Skip(msg)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return abs
}

// Env writes the agent's settings into the scratch folder home and returns
// the agent's whole environment for a session in vault against the model
// at modelURL. Nothing comes from the host's environment but PATH;
// telemetry, update checks, error reports and usage statistics are off by
// the agents' documented settings; HTTP(S)_PROXY points at a closed local
// port (NO_PROXY=127.0.0.1), so a client that honours it and tries the
// internet fails at once instead of waiting.
func (a Agent) Env(home, vault, modelURL string) ([]string, error) {
	env := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + filepath.Join(home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9",
		"http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"NO_COLOR=1", "CI=1", "TERM=dumb",
	}
	if err := os.MkdirAll(filepath.Join(home, "tmp"), 0o700); err != nil {
		return nil, err
	}
	switch a.API {
	case Gemini:
		// The API-key route to GOOGLE_GEMINI_BASE_URL, the Vault trusted.
		if err := writeJSON0600(filepath.Join(home, ".gemini", "trustedFolders.json"), map[string]string{vault: "TRUST_FOLDER"}); err != nil {
			return nil, err
		}
		err := writeJSON0600(filepath.Join(home, ".gemini", "settings.json"), map[string]any{
			"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
			"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
			"privacy":   map[string]any{"usageStatisticsEnabled": false},
			"telemetry": map[string]any{"enabled": false},
		})
		if err != nil {
			return nil, err
		}
		return append(env,
			"GEMINI_API_KEY=dummy-key-for-the-scripted-model",
			"GOOGLE_GEMINI_BASE_URL="+modelURL,
			"GEMINI_CLI_NO_RELAUNCH=true",
			"GEMINI_TELEMETRY_ENABLED=false",
		), nil
	case Anthropic:
		// The Messages API at ANTHROPIC_BASE_URL. The settings file is
		// empty: the session mode is the host's to pin. IS_SANDBOX=1
		// because Claude Code refuses to skip its own permission prompts as
		// root without it.
		if err := writeJSON0600(filepath.Join(home, ".claude", "settings.json"), map[string]any{}); err != nil {
			return nil, err
		}
		return append(env,
			"ANTHROPIC_API_KEY=dummy-key-for-the-scripted-model",
			"ANTHROPIC_BASE_URL="+modelURL,
			"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
			"DISABLE_NON_ESSENTIAL_MODEL_CALLS=1",
			"IS_SANDBOX=1",
		), nil
	case OpenAI:
		// A model provider at the endpoint speaking the Responses API,
		// its key from OPENAI_API_KEY (the openai-api-key method), and the
		// Vault trusted, as a user who runs Codex there would have it (a
		// trusted project's .codex/config.toml is read). Codex refuses to
		// create its helpers under the system temp folder: home must lie
		// outside it (see Home).
		codexHome := filepath.Join(home, ".codex")
		if err := os.MkdirAll(codexHome, 0o700); err != nil {
			return nil, err
		}
		config := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = %q
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[history]
persistence = "none"

[projects.%q]
trust_level = "trusted"
`, modelURL+"/v1", vault)
		if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
			return nil, err
		}
		return append(env,
			"OPENAI_API_KEY=dummy-key-for-the-scripted-model",
			"CODEX_HOME="+codexHome,
		), nil
	}
	return nil, fmt.Errorf("agenttest: unknown API %q", a.API)
}

// Home returns a scratch home folder for the agent, removed when the test
// ends: a temp folder, except for Codex, which refuses to create its
// helpers under the system temp folder and gets one under root's .cache
// (git-ignored).
func (a Agent) Home(tb testing.TB, root string) string {
	tb.Helper()
	if a.API != OpenAI {
		return tb.TempDir()
	}
	parent, err := filepath.Abs(filepath.Join(root, ".cache", "agent-homes"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(parent, 0o700); err != nil {
		tb.Fatal(err)
	}
	home, err := os.MkdirTemp(parent, a.Name+"-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(home) })
	return home
}

func writeJSON0600(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
