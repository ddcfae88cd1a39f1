package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docText reads a document of the module by its path from the root.
func docText(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Every flag the README and the contract give a subcommand is one the
// command takes: a documented command line that fails as written (a flag
// that does not exist) fails here.
func TestDocumentedFlagsExist(t *testing.T) {
	t.Parallel()
	subs := "plan|serve|sources|decide|clean"
	spans := []*regexp.Regexp{
		regexp.MustCompile("researchctx (" + subs + ")((?: [^`|\n]*)?)"), // a command line
		regexp.MustCompile("\\| `(" + subs + ")((?: [^`]*)?)` \\|"),      // a row of the subcommand table
	}
	flagRE := regexp.MustCompile(`(?:^|[\s\[])(-[a-z][a-z-]*)`)
	seen := map[string]bool{}
	for _, doc := range []string{"README.md", "docs/contract.md"} {
		text := docText(t, doc)
		for _, re := range spans {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				for _, f := range flagRE.FindAllStringSubmatch(m[2], -1) {
					k := m[1] + " " + f[1]
					if seen[k] {
						continue
					}
					seen[k] = true
					r := run(t, "", m[1], f[1], "x")
					if strings.Contains(r.stderr, "flag provided but not defined") {
						t.Errorf("%s documents `researchctx %s %s`, which the command does not take: %s", doc, m[1], f[1], strings.TrimSpace(r.stderr))
					}
				}
			}
		}
	}
	for _, want := range []string{"plan -request", "plan -cache-dir", "sources -grant", "sources -turn", "clean -vault", "clean -older-than", "decide -input"} {
		if !seen[want] {
			t.Errorf("no documented command line gives %q: the scan missed it", want)
		}
	}
}

// The README's plan example runs as written — the sample vault extracted
// where it says, the command built, the request written, plan run — and
// prints what the README shows: the same fingerprint, sources, evidence,
// dropped paths and budget, the grant where it says, the prompt as it
// starts. Only /tmp/vault and the files the example writes are moved into
// the test's own folder.
func TestREADMEPlanExample(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the command and the sample vault")
	}
	readme := docText(t, "README.md")
	blockRE := regexp.MustCompile("(?s)```sh\n(go build -o researchctx [^`]*?researchctx plan -request request.json\n)```\n\nprints \\(trimmed\\):\n\n```json\n(.*?)```")
	m := blockRE.FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("the README's plan example (a sh block, then what it prints as JSON) is not found")
	}
	script, shown := m[1], m[2]
	tmp := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	r := strings.NewReplacer("/tmp/vault", filepath.Join(tmp, "vault"),
		"-o researchctx", "-o "+filepath.Join(tmp, "researchctx"),
		"./researchctx", filepath.Join(tmp, "researchctx"),
		"request.json", filepath.Join(tmp, "request.json"))
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", r.Replace(script))
	cmd.Dir = root // the README's commands run from the module's root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the README's plan example fails as written: %v\n%s", err, stderr.String())
	}
	var got, want map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("plan printed no JSON: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(r.Replace(shown)), &want); err != nil {
		t.Fatalf("the README's output is not JSON: %v", err)
	}
	prefix, _, _ := strings.Cut(want["prompt"].(string), "…")
	if p, _ := got["prompt"].(string); !strings.HasPrefix(p, prefix) {
		t.Errorf("prompt %q does not start as the README shows, %q", p, prefix)
	}
	delete(got, "prompt")
	delete(want, "prompt")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan prints other than the README shows (-README +printed):\n%s", diff)
	}
}
