package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESample checks that the trimmed run in the README is the real
// output: every line of the sample, except elisions ("…" alone), is a line
// of a default run, numbers and the fingerprint aside (they follow the
// tools' rendering and the budget defaults), and the sample vault's
// temporary path aside.
func TestREADMESample(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	i := strings.Index(readme, "A trimmed run:\n\n```\n")
	if i < 0 {
		t.Fatal("README has no trimmed run")
	}
	sample := readme[i+len("A trimmed run:\n\n```\n"):]
	sample = sample[:strings.Index(sample, "```")]

	hash := regexp.MustCompile(`sha256:[0-9a-f]+`)
	digits := regexp.MustCompile(`[0-9]+`)
	norm := func(s string) string {
		s = hash.ReplaceAllString(strings.TrimRight(s, " "), "sha256:H")
		return digits.ReplaceAllString(s, "N")
	}
	r := mustRun(t, t.TempDir(), "")
	have := map[string]bool{}
	for _, l := range strings.Split(r.stdout, "\n") {
		have[norm(l)] = true
	}
	const kept = "The sample vault is kept at "
	for _, l := range strings.Split(strings.TrimRight(sample, "\n"), "\n") {
		trim := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "│"))
		switch {
		case trim == "…":
		case strings.HasPrefix(l, kept):
			if !strings.Contains(r.stdout, "\n"+kept) {
				t.Errorf("output lacks %q", kept)
			}
		case !have[norm(l)]:
			t.Errorf("README line is not in the output:\n%s", l)
		}
	}
}
