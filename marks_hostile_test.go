package researchctx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/hostilevault"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// TestResolveHostileMarksFile resolves, in a child process (this test
// binary), a turn whose selection is the sample paper's commented
// highlight while the paper's marks/annotations.json is each hostile marks
// file of package hostilevault: the selection still carries the PDF's
// comment, and the child ends within 30 s and a peak resident set of
// 300 MB (a 16 MiB file of tiny junk entries cost 1 GB in Resolve before marks
// files were bounded).
func TestResolveHostileMarksFile(t *testing.T) {
	if vault := os.Getenv("RESEARCHCTX_HOSTILE_MARKS_VAULT"); vault != "" {
		resolveMarksChild(vault)
		return
	}
	const comment = "Gate init matters: check the Aldana and Ferreira residual design before we reuse it."
	vault := vaultfix.Sample(t)
	file := filepath.Join(vault, "papers", "2401.01234", "marks", "annotations.json")
	for _, c := range hostilevault.MarksCases() {
		t.Run(c.Name, func(t *testing.T) {
			if err := os.WriteFile(file, c.Make(), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestResolveHostileMarksFile$")
			cmd.Env = append(os.Environ(), "RESEARCHCTX_HOSTILE_MARKS_VAULT="+vault)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("child process: %v\n%s", err, stderr.String())
			}
			wall := time.Since(start)
			got, hwm, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
			if got != comment {
				t.Errorf("the selection's comment = %q, want %q", got, comment)
			}
			rss, _ := strconv.ParseInt(hwm, 10, 64)
			t.Logf("%v, peak RSS %d MB", wall.Round(time.Millisecond), rss>>20)
			if rss > 300<<20 {
				t.Errorf("peak RSS %d MB, over 300 MB", rss>>20)
			}
			if wall > 30*time.Second {
				t.Errorf("the child took %v, over 30 s", wall)
			}
		})
	}
}

// resolveMarksChild resolves the turn of TestResolveHostileMarksFile on
// vault, prints the selection's comment and the peak RSS, and exits.
func resolveMarksChild(vault string) {
	var res Resolver
	plan, err := res.Resolve(context.Background(), Request{
		Vault: vault, RuntimeID: "rt", TurnID: "t", CurrentPaper: "papers/2401.01234",
		Selections: []Selection{{Text: "The pooled summary is added to each block", Path: "papers/2401.01234/2401.01234.pdf", Page: 2}},
	})
	res.Close()
	switch {
	case err != nil:
		fmt.Println(err)
	case len(plan.Evidence) != 1:
		fmt.Printf("%d evidence items\n", len(plan.Evidence))
	default:
		fmt.Println(plan.Evidence[0].Comment)
	}
	fmt.Println(procstat.PeakRSS())
	os.Exit(0)
}
