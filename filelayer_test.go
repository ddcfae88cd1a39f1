//go:build unix

package researchctx

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/safefs"
)

// planGrant resolves a small plan for dir and writes its grant.
func planGrant(t *testing.T, dir, runtimeID string) (string, *grant.Grant) {
	t.Helper()
	p, err := Resolve(context.Background(), Request{Vault: dir, RuntimeID: runtimeID, TurnID: "t", Mentions: []string{"notes"}})
	if err != nil {
		t.Fatal(err)
	}
	path, err := p.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	g, err := grant.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, g
}

func writeJSON(t *testing.T, path string, v any, tail string) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, tail...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReadGrantPlace: a grant is trusted only as the regular file in its
// place in the vault it names, reached without links, with nothing after
// its JSON object.
func TestReadGrantPlace(t *testing.T) {
	vaultA, vaultB := testVault(t), testVault(t)
	grantA, g := planGrant(t, vaultA, "run-a")
	_, gB := planGrant(t, vaultB, "run-b")
	tmp := t.TempDir()

	root := *g
	root.Vault = "/"
	loose := filepath.Join(tmp, "grant.json")
	writeJSON(t, loose, root, "")
	layout := filepath.Join(tmp, ".agentero", "context-sessions", "run-a", "grant.json")
	writeJSON(t, layout, root, "")
	copyB := filepath.Join(vaultA, ".agentero", "context-sessions", "run-b", "grant.json")
	writeJSON(t, copyB, gB, "")
	link := filepath.Join(vaultA, ".agentero", "context-sessions", "run-l", "grant.json")
	os.MkdirAll(filepath.Dir(link), 0o700)
	if err := os.Symlink(grantA, link); err != nil {
		t.Fatal(err)
	}
	linkedDir := filepath.Join(vaultA, ".agentero", "context-sessions", "run-d")
	if err := os.Symlink(filepath.Dir(grantA), linkedDir); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(vaultA, ".agentero", "context-sessions", "run-f", "grant.json")
	os.MkdirAll(filepath.Dir(fifo), 0o700)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	trailingJSON := filepath.Join(vaultA, ".agentero", "context-sessions", "run-t", "grant.json")
	gt := *g
	gt.RuntimeID = "run-t"
	writeJSON(t, trailingJSON, gt, "\n{\"vault\":\"/\"}\n")
	trailingJunk := filepath.Join(vaultA, ".agentero", "context-sessions", "run-j", "grant.json")
	gj := *g
	gj.RuntimeID = "run-j"
	writeJSON(t, trailingJunk, gj, " junk")
	spaces := filepath.Join(vaultA, ".agentero", "context-sessions", "run-s", "grant.json")
	gs := *g
	gs.RuntimeID = "run-s"
	writeJSON(t, spaces, gs, "\n\n  \n")

	tests := []struct {
		name, path, want string
	}{
		{"loose grant naming /", loose, "read only at {vault}/.agentero/context-sessions/{runtime-id}/grant.json"},
		{"vault layout elsewhere naming /", layout, "not in the vault it names"},
		{"grant of vault B copied into vault A", copyB, "not in the vault it names"},
		{"grant symlink", link, "symbolic link"},
		{"runtime folder symlink", filepath.Join(linkedDir, "grant.json"), "symbolic link"},
		{"FIFO", fifo, "not a regular file"},
		{"trailing JSON", trailingJSON, "something follows"},
		{"trailing junk", trailingJunk, "something follows"},
		{"relative path outside its place", "grant.json", "read only at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := grant.Read(tt.path)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadGrant hangs")
			}
			if !errors.Is(err, grant.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want grant.ErrInvalid saying %q", err, tt.want)
			}
			for _, p := range []string{vaultA, vaultB, tmp} {
				if strings.Contains(err.Error(), p) {
					t.Errorf("error names a machine path: %v", err)
				}
			}
		})
	}
	t.Run("trailing white space is fine", func(t *testing.T) {
		if _, err := grant.Read(spaces); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the vault through a link is the same vault", func(t *testing.T) {
		alias := filepath.Join(t.TempDir(), "alias")
		if err := os.Symlink(vaultA, alias); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(vaultA, grantA)
		if _, err := grant.Read(filepath.Join(alias, rel)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWriteGrantPrivateLink: WriteGrant refuses a .agentero (or a folder
// under it) that is a link, and neither writes nor changes modes at its
// target.
func TestWriteGrantPrivateLink(t *testing.T) {
	for _, at := range []string{".agentero", ".agentero/context-sessions", ".agentero/context-sessions/run-1"} {
		t.Run(at, func(t *testing.T) {
			dir := testVault(t)
			out := t.TempDir()
			os.Chmod(out, 0o755)
			link := filepath.Join(dir, filepath.FromSlash(at))
			os.RemoveAll(link)
			os.MkdirAll(filepath.Dir(link), 0o700)
			if err := os.Symlink(out, link); err != nil {
				t.Fatal(err)
			}
			p, err := Resolve(context.Background(), Request{Vault: dir, RuntimeID: "run-1", TurnID: "t", Mentions: []string{"notes"}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.WriteGrant()
			if !errors.Is(err, safefs.ErrLink) || strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), out) {
				t.Fatalf("err = %v, want ErrLink naming no machine path", err)
			}
			if st, _ := os.Stat(out); st.Mode().Perm() != 0o755 {
				t.Errorf("the link's target was chmodded to %v", st.Mode().Perm())
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("written at the link's target: %v", entries)
			}
		})
	}
}

// TestWriteGrantOverFIFO: a FIFO at gp.json or at the catalogue cache
// hangs neither Resolve nor WriteGrant; the gp replaces the FIFO.
func TestWriteGrantOverFIFO(t *testing.T) {
	dir := testVault(t)
	gp, _ := planGrant(t, dir, "run-f")
	os.Remove(gp)
	if err := syscall.Mkfifo(gp, 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, ".agentero", "cache", "catalogue.bin")
	os.Remove(cache)
	if err := os.MkdirAll(filepath.Dir(cache), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(cache, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := func() (string, *grant.Grant, error) {
			p, err := Resolve(context.Background(), Request{Vault: dir, RuntimeID: "run-f", TurnID: "t2", Mentions: []string{"notes"}})
			if err != nil {
				return "", nil, err
			}
			path, err := p.WriteGrant()
			if err != nil {
				return "", nil, err
			}
			g, err := grant.Read(path)
			return path, g, err
		}()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Resolve or WriteGrant hangs on a FIFO")
	}
	if st, err := os.Lstat(gp); err != nil || !st.Mode().IsRegular() {
		t.Errorf("gp.json after WriteGrant: %v, %v", st, err)
	}
}
