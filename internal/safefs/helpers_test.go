package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// fixture is a temporary folder holding a Vault and a folder outside it.
type fixture struct {
	dir   string // the temporary folder
	vault string // dir/vault
	fs    *FS
}

// Markers that must never come back from a read that was refused.
const (
	outsideSecret = "OUTSIDE-SECRET"
	siblingSecret = "SIBLING-SECRET"
	privateSecret = "PRIVATE-GRANT"
	hiddenSecret  = "HIDDEN-SECRET"
	publicText    = "public text"
)

// newFixture builds:
//
//	outside/secret.txt
//	vault/.agentero/grant.json
//	vault/papers/x/a.md, .hidden.md, deep/ (and the links listed below)
//	vault/papers/x-private/secret.md
func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	x := &fixture{dir: dir, vault: filepath.Join(dir, "vault")}
	vaultfix.Write(t, dir, map[string]string{
		"outside/secret.txt":               outsideSecret,
		"vault/.agentero/grant.json":       privateSecret,
		"vault/papers/x/a.md":              publicText,
		"vault/papers/x/.hidden.md":        hiddenSecret,
		"vault/papers/x/deep/b.md":         publicText,
		"vault/papers/x-private/secret.md": siblingSecret,
		"vault/notes/.git/config":          hiddenSecret,
	})
	links := map[string]string{
		"vault/papers/x/link-out.md":    "../../../outside/secret.txt",
		"vault/papers/x/link-abs.md":    filepath.Join(dir, "outside/secret.txt"),
		"vault/papers/x/link-vault.md":  filepath.Join(dir, "vault/papers/x/a.md"),
		"vault/papers/x/dir-out":        "../../../outside",
		"vault/papers/x/hop1":           "hop2",
		"vault/papers/x/hop2":           "deep/hop3",
		"vault/papers/x/deep/hop3":      "../../../../outside/secret.txt",
		"vault/papers/x/sibling.md":     "../x-private/secret.md",
		"vault/papers/x/dir-sibling":    "../x-private",
		"vault/papers/x/to-private":     "../../.agentero/grant.json",
		"vault/papers/x/to-private-dir": "../../.agentero",
		"vault/papers/x/to-hidden":      ".hidden.md",
		"vault/papers/x/via-hidden":     ".nothing/../a.md",
		"vault/papers/x/ok-link.md":     "a.md",
		"vault/papers/x/ok-dir":         "deep",
		"vault/papers/x/loop":           "loop",
		"vault/papers/x/dangling":       "missing.md",
	}
	for name, dest := range links {
		if err := os.Symlink(dest, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Open(x.vault)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	x.fs = f
	return x
}

// sub opens a Sub view and closes it with the test.
func (x *fixture) sub(t testing.TB, rel string) *FS {
	t.Helper()
	s, err := x.fs.Sub(rel)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// checkRedacted fails if err mentions the machine's folders: the temporary
// folder, under either spelling when it is reached through a link.
func checkRedacted(t testing.TB, err error, dir string) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	dirs := []string{dir}
	if real, e := filepath.EvalSymlinks(dir); e == nil {
		dirs = append(dirs, real)
	}
	for _, d := range dirs {
		if strings.Contains(msg, d) {
			t.Errorf("error %q contains the absolute path %q", msg, d)
		}
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Errorf("error %q (%T) is not an *fs.PathError", msg, err)
	}
	for _, secret := range []string{outsideSecret, siblingSecret, privateSecret, hiddenSecret} {
		if strings.Contains(msg, secret) {
			t.Errorf("error %q contains file content", msg)
		}
	}
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
