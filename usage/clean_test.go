package usage

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/safefs"

	"github.com/researchctx/researchctx/grant"
)

// reservationHolder is a child process of TestCleanInUse: a server in the
// middle of a call. It reserves budget on the usage log at path, says so,
// and holds the reservation until its standard input closes; then it exits
// without settling, as a killed server does.
func reservationHolder(path string) int {
	if _, _, err := Open(path).Reserve(context.Background(), "t", 1000, 100); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// runtimeDir makes a runtime folder with a grant and a usage log, last
// modified age ago, and returns its path.
func runtimeDir(t *testing.T, vault, name string, age time.Duration) string {
	t.Helper()
	dir := filepath.Join(vault, ".agentero", "context-sessions", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{grant.File, grant.UsageFile} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setAge(t, dir, age)
	return dir
}

// age_ sets the modification time of dir and its entries to age ago.
func setAge(t *testing.T, dir string, age time.Duration) {
	t.Helper()
	at := time.Now().Add(-age)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if err := os.Chtimes(filepath.Join(dir, e.Name()), at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(dir, at, at); err != nil {
		t.Fatal(err)
	}
}

func remaining(t *testing.T, vault string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(vault, ".agentero", "context-sessions"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestClean(t *testing.T) {
	const day = 24 * time.Hour
	vault := t.TempDir()
	runtimeDir(t, vault, "old-1", 10*day)
	runtimeDir(t, vault, "old-2", 8*day)
	runtimeDir(t, vault, "fresh", time.Hour)
	// A folder whose grant was rewritten recently is in use, however old
	// the folder itself.
	mixed := runtimeDir(t, vault, "rewritten", 10*day)
	now := time.Now()
	if err := os.Chtimes(filepath.Join(mixed, grant.File), now, now); err != nil {
		t.Fatal(err)
	}
	// Not runtime folders: left alone.
	sessions := filepath.Join(vault, ".agentero", "context-sessions")
	if err := os.Mkdir(filepath.Join(sessions, "not a runtime"), 0o700); err != nil {
		t.Fatal(err)
	}
	setAge(t, filepath.Join(sessions, "not a runtime"), 10*day)
	if err := os.WriteFile(filepath.Join(sessions, "note.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A link to a folder outside: never followed, never removed.
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep.txt")
	if err := os.WriteFile(keep, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	setAge(t, outside, 10*day)
	if err := os.Symlink(outside, filepath.Join(sessions, "linked")); err != nil {
		t.Fatal(err)
	}
	// An old runtime folder holding a link out: the link goes, not its target.
	withLink := runtimeDir(t, vault, "with-link", 10*day)
	if err := os.Symlink(outside, filepath.Join(withLink, "out")); err != nil {
		t.Fatal(err)
	}
	setAge(t, withLink, 10*day)
	// Left by an interrupted Clean.
	if err := os.MkdirAll(filepath.Join(sessions, removing+"gone", "x"), 0o700); err != nil {
		t.Fatal(err)
	}

	got, err := Clean(vault, 7*day)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"old-1", "old-2", "with-link"}, got); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"fresh", "linked", "not a runtime", "note.txt", "rewritten"}, remaining(t, vault)); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "x" {
		t.Errorf("a linked file outside was touched: %q, %v", b, err)
	}
	// Nothing more to do.
	if got, err := Clean(vault, 7*day); err != nil || len(got) != 0 {
		t.Errorf("second Clean = %v, %v", got, err)
	}
}

func TestCleanErrors(t *testing.T) {
	vault := t.TempDir()
	if got, err := Clean(vault, time.Hour); err != nil || got != nil {
		t.Errorf("a vault without grants: %v, %v", got, err)
	}
	// A sessions folder that is a link is refused, and its target kept.
	target := t.TempDir()
	runtimeDir(t, target, "old", 100*time.Hour)
	if err := os.Mkdir(filepath.Join(vault, ".agentero"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(target, ".agentero", "context-sessions"), filepath.Join(vault, ".agentero", "context-sessions")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		vault string
		age   time.Duration
		want  string
	}{
		{"link", vault, time.Hour, ".agentero/context-sessions is not a folder"},
		{"relative vault", "vault", time.Hour, "absolute"},
		{"zero age", vault, 0, "must be positive"},
		{"missing vault", filepath.Join(vault, "none"), time.Hour, fmt.Sprintf("the vault %q cannot be opened", filepath.Join(vault, "none"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Clean(tt.vault, tt.age)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Clean = %v, want %q", err, tt.want)
			}
			// Only the Vault as the caller gave it is named, never a
			// path the caller did not give (the link's target).
			if strings.Contains(err.Error(), target) || tt.name != "missing vault" && strings.Contains(err.Error(), vault) {
				t.Errorf("error names a path it was not given: %v", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(target, ".agentero", "context-sessions", "old", grant.File)); err != nil {
		t.Errorf("the link's target was cleaned: %v", err)
	}
}

func TestCleanInUse(t *testing.T) {
	const day = 24 * time.Hour
	vault := t.TempDir()
	dir := runtimeDir(t, vault, "busy", 10*day)
	usage := filepath.Join(dir, grant.UsageFile)

	// A server process in the middle of a call holds a reservation.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RESEARCHCTX_CLEAN_HOLDER="+usage)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("holder said %q", line)
	}
	setAge(t, dir, 10*day)
	if got, err := Clean(vault, 7*day); err != nil || len(got) != 0 {
		t.Fatalf("Clean with a live reservation = %v, %v; want nothing removed", got, err)
	}

	// The usage log locked by a call being recorded.
	done := make(chan struct{})
	locked := make(chan struct{})
	released := make(chan error)
	go func() {
		released <- withUsageLock(usage, func(*safefs.File, os.FileInfo) error {
			close(locked)
			<-done
			return nil
		})
	}()
	<-locked
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	setAge(t, dir, 10*day)
	if got, err := Clean(vault, 7*day); err != nil || len(got) != 0 {
		t.Fatalf("Clean with the log locked = %v, %v; want nothing removed", got, err)
	}
	close(done)
	if err := <-released; err != nil {
		t.Fatal(err)
	}

	// The holder is gone without settling: its reservation no longer
	// counts, and the folder goes.
	setAge(t, dir, 10*day)
	got, err := Clean(vault, 7*day)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"busy"}, got); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if left := remaining(t, vault); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}
