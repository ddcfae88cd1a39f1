package safefs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as a writer that is killed mid-write.
func TestMain(m *testing.M) {
	if dir := os.Getenv("RESEARCHCTX_SAFEFS_WRITER"); dir != "" {
		d, err := OpenDir(dir, Create)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		data := bytes.Repeat([]byte("segment "), 2<<20) // 16 MiB a write
		for i := 0; ; i++ {
			d.WriteFile(fmt.Sprintf("sub/seg-%d", i%4), data)
		}
	}
	os.Exit(m.Run())
}

// TestStaleTempsOfKilledWriter kills a real writer process during its
// atomic writes, four times, and checks that its temporary files are
// left, then removed by the next open's sweep, and that the files it
// renamed into place are untouched.
func TestStaleTempsOfKilledWriter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	for i := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "RESEARCHCTX_SAFEFS_WRITER="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for len(temps(t, dir)) <= i && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	left := temps(t, dir)
	if len(left) == 0 {
		t.Fatal("no temporary file left by 4 killed writers")
	}
	d, err := OpenDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n := d.RemoveStaleTemps(); n != len(left) {
		t.Errorf("removed %d of %d temporary files", n, len(left))
	}
	if got := temps(t, dir); len(got) != 0 {
		t.Errorf("left after the sweep: %v", got)
	}
	t.Logf("%d temporary files of 4 killed writers removed", len(left))
}

// TestRemoveStaleTemps checks what a sweep removes: a temporary file whose
// writer is gone, or older than StaleTemp, or (without a pid in its name)
// older than StaleTemp; and what it leaves: a live process's recent
// temporary file, this process's own, folders, links and other files.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead, live, self := gone.Process.Pid, os.Getppid(), os.Getpid()
	old := time.Now().Add(-StaleTemp - time.Minute)
	files := []struct {
		name   string
		mtime  time.Time
		remove bool
	}{
		{fmt.Sprintf(".tmp-%d-aaaa", dead), time.Now(), true},
		{fmt.Sprintf(".tmp-%d-bbbb", live), time.Now(), false},
		{fmt.Sprintf(".tmp-%d-cccc", live), old, true},
		{fmt.Sprintf(".tmp-%d-dddd", self), time.Now(), false},
		{".tmp-0123456789abcdef", time.Now(), false},
		{".tmp-fedcba9876543210", old, true},
		{"manifest", old, false},
		{"tmp-" + strconv.Itoa(dead) + "-x", old, false},
	}
	var want []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, f.mtime, f.mtime); err != nil {
			t.Fatal(err)
		}
		if !f.remove {
			want = append(want, f.name)
		}
	}
	for _, name := range []string{fmt.Sprintf(".tmp-%d-folder", dead)} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	link := fmt.Sprintf(".tmp-%d-link", dead)
	if err := os.Symlink("manifest", filepath.Join(dir, link)); err != nil {
		t.Fatal(err)
	}
	want = append(want, link)
	d, err := OpenDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n := d.RemoveStaleTemps(); n != 3 {
		t.Errorf("removed %d, want 3", n)
	}
	var got []string
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		got = append(got, de.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("left %v, want %v", got, want)
	}
}

// temps lists the temporary files anywhere below dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(de.Name(), tempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}
