package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMESample checks that the trimmed run in the README is the real
// output, so that it cannot go stale: every line of the sample, except
// elisions ("…" alone), is a line of a default run, word for word and
// number for number (the counts, the characters used, the fingerprint),
// and in the same order; only the sample vault's temporary path differs.
func TestREADMESample(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	const head = "A trimmed run:\n\n```\n"
	i := strings.Index(readme, head)
	if i < 0 {
		t.Fatal("README has no trimmed run")
	}
	sample := readme[i+len(head):]
	sample = sample[:strings.Index(sample, "```")]

	r := mustRun(t, t.TempDir(), "")
	out := strings.Split(r.stdout, "\n")
	next := 0 // the output line the next sample line is looked for from
	const kept = "The sample vault is kept at "
	for _, l := range strings.Split(strings.TrimRight(sample, "\n"), "\n") {
		trim := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "│"))
		if trim == "…" {
			continue
		}
		found := false
		for k := next; k < len(out); k++ {
			o := strings.TrimRight(out[k], " ")
			if o == strings.TrimRight(l, " ") || strings.HasPrefix(l, kept) && strings.HasPrefix(o, kept) {
				found, next = true, k+1
				break
			}
		}
		if !found {
			t.Errorf("README line is not in the output (after the line before it):\n%s", l)
		}
	}
}
