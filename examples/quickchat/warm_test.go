package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx"
)

// bigVault writes a vault with n small text files under notes/.
func bigVault(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		dir := filepath.Join(root, "notes", fmt.Sprintf("d%02d", i%50))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("# Note %d\n\nBlock %d of the reading notes on sparse attention, window %d.\n", i, i, i%7)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%04d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestPrewarmProgress indexes a directory of a few thousand files with the
// progress threshold lowered to zero: progress lines with count, pages,
// pages per second and ETA appear, then a summary; a second, cached run prints nothing with the
// real threshold.
func TestPrewarmProgress(t *testing.T) {
	const n = 3000
	root := bigVault(t, n)
	ctx := context.Background()
	plan, err := researchctx.Resolve(ctx, researchctx.Request{Vault: root, RuntimeID: "progress", TurnID: "t1", Mentions: []string{"notes"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	start := time.Now()
	if err := prewarm(ctx, plan, newProgress(&buf, 0, time.Millisecond, time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	out := buf.String()
	line := regexp.MustCompile(`(?m)^indexing notes: (\d+)/(\d+) files, [1-9]\d* pages, [1-9]\d* pages/s, ETA \d+(\.\d+)?(ms|s|m\d+s)$`)
	m := line.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no progress line with count, rate and ETA after %v:\n%s", took, out)
	}
	if m[2] != fmt.Sprint(n) {
		t.Errorf("total %s, want %d", m[2], n)
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^indexed notes: %d files in \S+\n\z`, n)).MatchString(out) {
		t.Errorf("no summary line at the end:\n%s", out)
	}
	if strings.Contains(out, "\r") || strings.Contains(out, "\x1b") {
		t.Errorf("progress to a pipe redraws:\n%q", out)
	}

	// The index is cached in the vault: a second run is quick and silent.
	buf.Reset()
	if err := prewarm(ctx, plan, newProgress(&buf, time.Second, progressEvery, progressEveryPipe)); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 0 {
		t.Errorf("cached run printed progress:\n%s", buf.String())
	}
	if _, err := os.Stat(filepath.Join(root, ".agentero", "cache")); err != nil {
		t.Errorf("no index cache in the vault: %v", err)
	}
}

// TestPrewarmCancelled checks that cancellation ends the indexing with the
// context's error.
func TestPrewarmCancelled(t *testing.T) {
	root := bigVault(t, 200)
	plan, err := researchctx.Resolve(context.Background(), researchctx.Request{Vault: root, RuntimeID: "progress", TurnID: "t1", Mentions: []string{"notes"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := prewarm(ctx, plan, newProgress(&bytes.Buffer{}, time.Second, progressEvery, progressEveryPipe)); err != context.Canceled {
		t.Errorf("prewarm after cancel: %v, want context.Canceled", err)
	}
}
