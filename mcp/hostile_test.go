//go:build unix

package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// The hostile-model suite: a model that tries every known way out of its
// grant, through tool arguments at the MCP boundary. Every attempt must be
// refused, and no result — refusal or not — may carry content from outside
// the grant or an absolute path of the machine.

// Markers written into files the grant does not cover.
const (
	secretSibling    = "SECRET-SIBLING-PAPER"
	secretSiblingDir = "SECRET-SIBLING-DIR"
	secretOutside    = "SECRET-OUTSIDE-VAULT"
	secretPrivate    = "SECRET-AGENTERO-PRIVATE"
	secretHidden     = "not-a-real-secret" // notes/.secret of the sample Vault
)

var secrets = []string{secretSibling, secretSiblingDir, secretOutside, secretPrivate, secretHidden}

// hostileVault is the sample Vault plus bait: an ungranted sibling paper
// and folder whose names extend granted ones, a folder outside the Vault,
// symlinks out of the granted sources, a FIFO, and a private file under
// .agentero/. It returns the Vault root and the outside folder.
func hostileVault(t *testing.T) (vault, outside string) {
	t.Helper()
	vault = vaultfix.Sample(t)
	outside = filepath.Join(filepath.Dir(vault), "outside")
	files := map[string]string{
		filepath.Join(outside, "secret.txt"):                            secretOutside + " outside the vault\n",
		filepath.Join(vault, "papers/2401.01234-private/NOTES.md"):      "# Private\n" + secretSibling + " sibling paper\n",
		filepath.Join(vault, "papers/2401.01234-private/metadata.json"): `{"title": "` + secretSibling + `"}`,
		filepath.Join(vault, "notes-private/secret.md"):                 "# Private\n" + secretSiblingDir + " sibling folder\n",
		filepath.Join(vault, ".agentero/secret.txt"):                    secretPrivate + "\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"notes/out-link.md":              filepath.Join(outside, "secret.txt"),
		"notes/rel-link.md":              "../notes-private/secret.md",
		"notes/dir-link":                 outside,
		"notes/agentero-link":            "../.agentero",
		"notes/up-link.md":               "../../outside/secret.txt",
		"papers/2401.01234/escape.md":    filepath.Join(outside, "secret.txt"),
		"papers/2401.01234/sibling-link": "../2401.01234-private",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(vault, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(vault, "notes/fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	return vault, outside
}

// attackPaths are the paths a hostile model sends as target, source or
// paper. vault and outside are the absolute roots, for absolute attacks.
func attackPaths(vault, outside string) []string {
	return []string{
		// Siblings with a common prefix.
		"papers/2401.01234-private",
		"papers/2401.01234-private/NOTES.md",
		"papers/2401.01234-private/metadata.json",
		"notes-private",
		"notes-private/secret.md",
		// .. before and after a valid prefix.
		"../outside/secret.txt",
		"../vault/notes-private/secret.md",
		"./notes/../notes-private/secret.md",
		"notes/../notes-private/secret.md",
		"notes/../../outside/secret.txt",
		"papers/2401.01234/../2401.01234-private/NOTES.md",
		"papers/2401.01234/..",
		"notes/archive/../../notes-private/secret.md",
		// Absolute paths.
		"/etc/passwd",
		filepath.Join(outside, "secret.txt"),
		filepath.Join(vault, "notes-private/secret.md"),
		filepath.Join(vault, "notes/ideas.txt"),
		"//etc/passwd",
		"file:///etc/passwd",
		"~/secret.txt",
		// Symlinks out of the granted sources.
		"notes/out-link.md",
		"notes/rel-link.md",
		"notes/up-link.md",
		"notes/dir-link",
		"notes/dir-link/secret.txt",
		"notes/agentero-link/secret.txt",
		"papers/2401.01234/escape.md",
		"papers/2401.01234/sibling-link/NOTES.md",
		// A FIFO: must be refused at once, not hang.
		"notes/fifo.md",
		// NUL.
		"notes/ideas.txt\x00",
		"notes\x00/../notes-private/secret.md",
		"notes-private/secret.md\x00notes/ideas.txt",
		// Percent-encoded dots and slashes in citation URIs.
		"notes/%2e%2e/notes-private/secret.md",
		"notes/%2E%2E/%2E%2E/outside/secret.txt",
		"%2e%2e/outside/secret.txt",
		"notes%2f..%2fnotes-private%2fsecret.md",
		"notes/%2e%2e%2fnotes-private%2fsecret.md",
		"papers/2401.01234%2f..%2f2401.01234-private",
		"notes/%252e%252e/notes-private/secret.md",
		// Backslashes.
		`notes\..\notes-private\secret.md`,
		`notes\ideas.txt`,
		`..\outside\secret.txt`,
		`papers\2401.01234-private`,
		// The private folder.
		".agentero",
		".agentero/secret.txt",
		".agentero/citing-scan.json",
		".agentero/context-sessions/rt-test/grant.json",
		".agentero/context-sessions/rt-test/usage.jsonl",
		"notes/../.agentero/secret.txt",
		"notes/agentero-link",
		"notes/.secret",
		// Citation URIs whose fragment carries ../
		"notes/ideas.txt#section=../../notes-private/secret.md",
		"notes/ideas.txt#section=..%2f..%2fnotes-private%2fsecret.md",
		"notes/ideas.txt#../notes-private/secret.md",
		"notes/ideas.txt#page=1/../../notes-private/secret.md",
		"papers/2401.01234/2401.01234.pdf#region=../../2401.01234-private/NOTES.md",
		"papers/2401.01234/2401.01234.pdf#page=../../../2401.01234-private",
		"notes-private/secret.md#section=notes",
		// External links are not sources.
		"https://doi.org/../../etc/passwd",
		"https://arxiv.org/abs/../../../etc/passwd",
	}
}

// hostileCalls turns every attack path into the calls that carry it.
func hostileCalls(paths []string) []struct {
	tool string
	args map[string]any
} {
	var calls []struct {
		tool string
		args map[string]any
	}
	add := func(tool string, args map[string]any) {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{tool, args})
	}
	for _, p := range paths {
		add(grant.ToolRead, map[string]any{"target": p})
		add(grant.ToolRead, map[string]any{"target": p, "mode": "full"})
		add(grant.ToolRead, map[string]any{"target": p, "mode": "excerpt", "quote": "SECRET"})
		add(grant.ToolRead, map[string]any{"target": p, "mode": "page", "page": 1})
		add(grant.ToolSearch, map[string]any{"query": "SECRET secret token", "source": p})
		add(grant.ToolRelations, map[string]any{"paper": p})
	}
	return calls
}

func TestHostileModel(t *testing.T) {
	vault, outside := hostileVault(t)
	gr := writeGrant(t, demoRequest(vault))
	cs := serveGrant(t, gr)

	for _, c := range hostileCalls(attackPaths(vault, outside)) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		cancel()
		if err != nil {
			t.Errorf("%s %q: protocol error %v", c.tool, c.args, err)
			continue
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s %q: took %v", c.tool, c.args, d)
		}
		if !res.IsError {
			t.Errorf("%s %q: not refused:\n%s", c.tool, c.args, text(res))
		}
		checkNoLeak(t, c.tool, c.args, res, vault, outside)
	}

	// Searches over the whole grant must not reach the bait either.
	for _, q := range []string{"SECRET", "secret sibling folder", "outside the vault", "token not-a-real-secret", "Private"} {
		res := call(t, cs, grant.ToolSearch, map[string]any{"query": q, "limit": 50})
		// The text rendering repeats the query: that is the model's own.
		res.Content = []sdk.Content{&sdk.TextContent{Text: strings.ReplaceAll(text(res), strconv.Quote(q), "")}}
		checkNoLeak(t, grant.ToolSearch, map[string]any{"query": q}, res, vault, outside)
	}
	// A listing of the granted folder may name the bait, never show it.
	res := call(t, cs, grant.ToolRead, map[string]any{"target": "notes"})
	checkNoLeak(t, grant.ToolRead, map[string]any{"target": "notes"}, res, vault, outside)
}

// checkNoLeak fails when a result carries bait content or an absolute path
// of the machine.
func checkNoLeak(t *testing.T, tool string, args map[string]any, res *sdk.CallToolResult, vault, outside string) {
	t.Helper()
	all := text(res)
	if res.StructuredContent != nil {
		var m map[string]any
		decode(t, res, &m)
		all += "\n" + strings.ReplaceAll(strings.Join(flatten(m), "\n"), `\/`, "/")
	}
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("%s %q leaks %q:\n%s", tool, args, s, all)
		}
	}
	for _, p := range []string{vault, outside, filepath.Dir(vault)} {
		if strings.Contains(all, p) {
			t.Errorf("%s %q leaks the absolute path %q:\n%s", tool, args, p, all)
		}
	}
}
