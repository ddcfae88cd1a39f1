package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
)

// planJSON is `quickchat plan` output as another language reads it: every
// documented field, strictly.
type planJSON struct {
	GrantPath   string                 `json:"grantPath"`
	Prompt      string                 `json:"prompt"`
	Fingerprint string                 `json:"fingerprint"`
	Mode        string                 `json:"mode"`
	Tools       []string               `json:"tools"`
	Sources     []grant.Ref            `json:"sources"`
	Evidence    []researchctx.Evidence `json:"evidence"`
	Dropped     []researchctx.Dropped  `json:"dropped"`
	Budget      grant.Budget           `json:"budget"`
	RuntimeID   string                 `json:"runtimeId"`
	TurnID      string                 `json:"turnId"`
}

func writeFile(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlanRequest(t *testing.T) {
	tmp := t.TempDir()
	vaultDir := filepath.Join(tmp, "vault")
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	req := map[string]any{
		"vault": vaultDir, "runtimeId": "editor-7", "turnId": "turn-1",
		"currentPaper": "papers/2401.01234",
		"selections": []map[string]any{{
			"text": "A block size of 256 tokens was the best trade-off in our experiments",
			"path": "papers/2401.01234/2401.01234.pdf", "page": 1,
		}},
		"mentions": []string{"notes", "reading-list", "../outside"},
		"budget":   map[string]any{"searchCards": 4},
	}
	data, _ := json.Marshal(req)
	reqPath := writeFile(t, filepath.Join(tmp, "request.json"), string(data))

	r := mustRun(t, tmp, "", "plan", "-request", reqPath)
	if r.stderr != "" {
		t.Errorf("stderr: %s", r.stderr)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	var p planJSON
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("plan output: %v\n%s", err, r.stdout)
	}
	wantGrant := filepath.Join(vaultDir, ".agentero", "context-sessions", "editor-7", "grant.json")
	if p.GrantPath != wantGrant {
		t.Errorf("grantPath %q, want %q", p.GrantPath, wantGrant)
	}
	g, err := grant.Read(p.GrantPath)
	if err != nil {
		t.Fatalf("the grant was not written: %v", err)
	}
	if g.Fingerprint != p.Fingerprint || g.TurnID != "turn-1" || p.TurnID != "turn-1" || p.RuntimeID != "editor-7" {
		t.Errorf("grant %+v vs plan fingerprint %s, runtime %s, turn %s", g, p.Fingerprint, p.RuntimeID, p.TurnID)
	}
	if p.Mode != "mcp" || !strings.HasPrefix(p.Fingerprint, "sha256:") || p.Budget.SearchCards != 4 {
		t.Errorf("mode %q, fingerprint %q, searchCards %d", p.Mode, p.Fingerprint, p.Budget.SearchCards)
	}
	if diff := cmp.Diff([]string{"context_read", "context_search", "paper_relations"}, p.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	var srcs []string
	for _, s := range p.Sources {
		srcs = append(srcs, string(s.Kind)+" "+s.Path)
	}
	if diff := cmp.Diff([]string{"paper papers/2401.01234", "directory notes", "file reading-list"}, srcs); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if len(p.Dropped) != 1 || p.Dropped[0].Path != "../outside" {
		t.Errorf("dropped %+v, want ../outside", p.Dropped)
	}
	const cite = "papers/2401.01234/2401.01234.pdf#page=1"
	if len(p.Evidence) != 1 || p.Evidence[0].CitationURI != cite || p.Evidence[0].Page != 1 {
		t.Fatalf("evidence %+v, want one item citing %s", p.Evidence, cite)
	}
	if !strings.Contains(p.Prompt, "Cite: "+cite) || !strings.Contains(p.Prompt, "A block size of 256 tokens") {
		t.Errorf("prompt does not carry the evidence:\n%s", p.Prompt)
	}

	// The same request on standard input: the same scope, the same
	// fingerprint.
	r = mustRun(t, tmp, string(data), "plan", "-request", "-")
	var p2 planJSON
	if err := json.Unmarshal([]byte(r.stdout), &p2); err != nil {
		t.Fatal(err)
	}
	if p2.Fingerprint != p.Fingerprint || p2.GrantPath != p.GrantPath {
		t.Errorf("stdin run: fingerprint %s grant %s, want %s %s", p2.Fingerprint, p2.GrantPath, p.Fingerprint, p.GrantPath)
	}
}

func TestPlanRequestErrors(t *testing.T) {
	tmp := t.TempDir()
	vaultDir := filepath.Join(tmp, "vault")
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	good := func(runtimeID string) string {
		b, _ := json.Marshal(map[string]any{"vault": vaultDir, "runtimeId": runtimeID, "turnId": "t1"})
		return string(b)
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"not JSON", []string{"-request", "-"}, "vault: here\n", "not a valid Request"},
		{"unknown field", []string{"-request", "-"}, `{"vault":"` + vaultDir + `","runtimeId":"r","turnId":"t","paper":"x"}`, `unknown field "paper"`},
		{"wrong type", []string{"-request", "-"}, `{"vault":"` + vaultDir + `","runtimeId":"r","turnId":"t","mentions":"notes"}`, "not a valid Request"},
		{"two objects", []string{"-request", "-"}, good("r") + good("r"), "data after its JSON object"},
		{"empty input", []string{"-request", "-"}, "", "not a valid Request"},
		{"relative vault", []string{"-request", "-"}, `{"vault":"vault","runtimeId":"r","turnId":"t"}`, "vault must be an absolute path"},
		{"vault missing", []string{"-request", "-"}, `{"vault":"` + filepath.Join(tmp, "none") + `","runtimeId":"r","turnId":"t"}`, "vault"},
		{"bad runtime id", []string{"-request", "-"}, good("../escape"), "runtimeId"},
		{"runtime id with a slash", []string{"-request", "-"}, good("a/b"), "runtimeId"},
		{"no such file", []string{"-request", filepath.Join(tmp, "none.json")}, "", "cannot open the request file"},
		{"no -request", nil, "", "usage: quickchat plan -request FILE"},
		{"extra argument", []string{"-request", "-", "more"}, good("r"), "usage"},
		{"unknown flag", []string{"-req", "x"}, "", "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tmp, tt.stdin, append([]string{"plan"}, tt.args...)...)
			checkOneLineError(t, r, tt.want)
		})
	}
	// No grant was written by any of them.
	if ents, err := os.ReadDir(filepath.Join(vaultDir, ".agentero", "context-sessions")); err == nil && len(ents) > 0 {
		t.Errorf("a refused request wrote %s", ents[0].Name())
	}
}
