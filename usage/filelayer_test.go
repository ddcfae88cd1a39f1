//go:build unix

package usage

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/safefs"
)

// grantDir makes the runtime folder name of the Vault at vault with a
// grant file and no usage log yet, and returns the grant's path.
func grantDir(t *testing.T, vault, name string) string {
	t.Helper()
	dir := runtimeDir(t, vault, name, 0)
	if err := os.Remove(filepath.Join(dir, grant.UsageFile)); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, grant.File)
}

// TestUsageFileLayer: the usage log is appended to and read only as a
// regular file reached without links; a link, a FIFO or a linked runtime
// folder is refused at once and its target left alone.
func TestUsageFileLayer(t *testing.T) {
	gp := grantDir(t, t.TempDir(), "run-u")
	usage := grant.UsagePath(gp)
	outside := filepath.Join(t.TempDir(), "target.jsonl")
	line := Line{TurnID: "t", Tool: "context_read", Chars: 3}

	t.Run("symlink", func(t *testing.T) {
		os.WriteFile(outside, []byte("KEEP\n"), 0o644)
		os.Remove(usage)
		if err := os.Symlink(outside, usage); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(usage)
		if err := appendLine(usage, line); !errors.Is(err, safefs.ErrLink) {
			t.Errorf("appendLine through a link: %v", err)
		}
		if _, err := Read(usage, "t", nil); !errors.Is(err, safefs.ErrLink) {
			t.Errorf("Read through a link: %v", err)
		}
		if _, err := sumTurns(usage, 0, map[string]int{}); !errors.Is(err, safefs.ErrLink) {
			t.Errorf("sumTurns through a link: %v", err)
		}
		if b, _ := os.ReadFile(outside); string(b) != "KEEP\n" {
			t.Errorf("the link's target changed: %q", b)
		}
	})
	t.Run("FIFO", func(t *testing.T) {
		os.Remove(usage)
		if err := syscall.Mkfifo(usage, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(usage)
		done := make(chan [3]error, 1)
		go func() {
			_, r := Read(usage, "t", nil)
			_, s := sumTurns(usage, 0, map[string]int{})
			done <- [3]error{appendLine(usage, line), r, s}
		}()
		select {
		case errs := <-done:
			for i, err := range errs {
				if !errors.Is(err, safefs.ErrNotRegular) {
					t.Errorf("call %d on a FIFO: %v", i, err)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the usage log calls hang on a FIFO")
		}
	})
	t.Run("linked .agentero", func(t *testing.T) {
		v := t.TempDir()
		g := grantDir(t, v, "run-x")
		moved := filepath.Join(t.TempDir(), "moved")
		if err := os.Rename(filepath.Join(v, ".agentero"), moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(moved, filepath.Join(v, ".agentero")); err != nil {
			t.Fatal(err)
		}
		if err := appendLine(grant.UsagePath(g), line); !errors.Is(err, safefs.ErrLink) {
			t.Errorf("appendLine under a linked .agentero: %v", err)
		}
		if _, err := os.Stat(filepath.Join(moved, "context-sessions", "run-x", grant.UsageFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a usage log was written at the link's target")
		}
	})
}

// TestUsageReadCaps: a usage log with a huge line (no newline) is read in
// bounded memory: the line is skipped and counted, the good lines around it
// still count, and a log above the read cap is refused with ErrTooLarge.
func TestUsageReadCaps(t *testing.T) {
	gp := grantDir(t, t.TempDir(), "run-c")
	usage := grant.UsagePath(gp)
	good := func() []byte {
		b, _ := json.Marshal(Line{At: time.Unix(0, 0).UTC(), TurnID: "t", Tool: "context_read", URIs: []string{"notes/ideas.md"}, Chars: 5})
		return append(b, '\n')
	}()
	f, err := os.Create(usage)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(good)
	junk := make([]byte, 1<<20)
	for i := range junk {
		junk[i] = 'x'
	}
	for range 8 { // an 8 MiB line
		f.Write(junk)
	}
	f.Write([]byte("\n"))
	f.Write(good)
	f.Close()

	u, err := Read(usage, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Calls != 2 || u.Chars != 10 || u.Skipped != 1 {
		t.Errorf("usage = %+v, want 2 calls, 10 chars, 1 skipped", u)
	}
	sums := map[string]int{}
	next, err := sumTurns(usage, 0, sums)
	if st, _ := os.Stat(usage); err != nil || sums["t"] != 10 || next != st.Size() {
		t.Errorf("sumTurns = %v, %v, %v", next, sums, err)
	}

	// Past the read cap (a sparse file: no disk is used).
	if err := os.Truncate(usage, 64<<20+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(usage, "t", nil); !errors.Is(err, safefs.ErrTooLarge) {
		t.Errorf("Read of a log above the cap: %v", err)
	}
	if _, err := sumTurns(usage, 0, map[string]int{}); !errors.Is(err, safefs.ErrTooLarge) {
		t.Errorf("sumTurns of a log above the cap: %v", err)
	}
}
