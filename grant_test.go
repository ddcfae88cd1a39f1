package researchctx

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx/grant"
)

func TestGrantRoundTrip(t *testing.T) {
	dir := testVault(t)
	r := req(dir)
	r.CurrentPaper = "papers/1706.03762"
	r.Mentions = []string{"notes"}
	p, err := Resolve(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	path, err := p.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".agentero", "context-sessions", "run-1", "grant.json"); path != want {
		t.Fatalf("grant path = %s, want %s", path, want)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("grant mode %v, want 0600", st.Mode().Perm())
	}
	for _, d := range []string{filepath.Dir(path), filepath.Dir(filepath.Dir(path))} {
		if st, _ := os.Stat(d); st.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", filepath.Base(d), st.Mode().Perm())
		}
	}
	g, err := grant.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p.Grant(), g, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "CreatedAt" }, cmp.Ignore())); diff != "" {
		t.Errorf("grant round trip (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("grant folder holds %d entries, want only grant.json (no temporary files left)", len(entries))
	}
}

func TestReadGrantErrors(t *testing.T) {
	dir := testVault(t)
	p, err := Resolve(context.Background(), Request{Vault: dir, RuntimeID: "run-2", TurnID: "t", Mentions: []string{"notes"}})
	if err != nil {
		t.Fatal(err)
	}
	path, err := p.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"wrong version", edit(func(m map[string]any) { m["version"] = 2 }), "version 2"},
		{"missing fingerprint", edit(func(m map[string]any) { delete(m, "fingerprint") }), "fingerprint is missing"},
		{"missing turn id", edit(func(m map[string]any) { delete(m, "turnId") }), "turnId is missing"},
		{"missing vault", edit(func(m map[string]any) { delete(m, "vault") }), "vault must be an absolute path"},
		{"runtime id with a slash", edit(func(m map[string]any) { m["runtimeId"] = "a/b" }), "not a safe folder name"},
		{"runtime id dot-dot", edit(func(m map[string]any) { m["runtimeId"] = ".." }), "not a safe folder name"},
		{"runtime id of another folder", edit(func(m map[string]any) { m["runtimeId"] = "run-3" }), "does not match its folder"},
		{"widened sources", edit(func(m map[string]any) {
			m["sources"] = append(m["sources"].([]any), map[string]any{"kind": "directory", "path": "papers"})
		}), "fingerprint does not match"},
		{"unknown field", edit(func(m map[string]any) { m["extra"] = true }), "not valid JSON"},
		{"not JSON", []byte("{nope"), "not valid JSON"},
		{"bad budget", edit(func(m map[string]any) { m["budget"].(map[string]any)["readChars"] = 0 }), "readChars"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(path, tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := grant.Read(path)
			if !errors.Is(err, grant.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want grant.ErrInvalid containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), dir) {
				t.Errorf("error leaks an absolute path: %v", err)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := grant.Read(filepath.Join(dir, "nope", "grant.json"))
		if !errors.Is(err, grant.ErrInvalid) || strings.Contains(err.Error(), dir) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unsafe runtime id is refused on write", func(t *testing.T) {
		g := p.Grant()
		g.RuntimeID = "../escape"
		if _, err := grant.Write(g); !errors.Is(err, grant.ErrInvalid) {
			t.Fatalf("err = %v, want grant.ErrInvalid", err)
		}
	})
}
