//go:build unix

package safefs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ownedFixture is a vault with a private folder, and a folder outside it
// holding a file a link may point to.
type ownedFixture struct {
	vault, outside, secret string
}

func newOwnedFixture(t *testing.T) ownedFixture {
	t.Helper()
	dir := t.TempDir()
	f := ownedFixture{
		vault:   filepath.Join(dir, "vault"),
		outside: filepath.Join(dir, "outside"),
	}
	f.secret = filepath.Join(f.outside, "secret")
	for _, d := range []string{filepath.Join(f.vault, ".agentero", "cache"), f.outside, filepath.Join(f.vault, "papers")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.secret, []byte(outsideSecret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.vault, "papers", "doc.txt"), []byte(publicText), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// withTimeout fails the test when fn does not return within 10 s: a FIFO
// must never block.
func withTimeout(t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("blocked")
		return nil
	}
}

// TestDirRefuses: every link, FIFO and non-folder on the way to an SDK file
// is refused, for reading, appending and writing, without blocking, and the
// error names no machine path.
func TestDirRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, f ownedFixture)
		dir   string // under the vault
		file  string
		want  error
	}{
		{"file is a link out of the vault", func(t *testing.T, f ownedFixture) {
			must(t, os.Symlink(f.secret, filepath.Join(f.vault, ".agentero", "cache", "c.bin")))
		}, ".agentero/cache", "c.bin", ErrLink},
		{"file is a link inside the vault", func(t *testing.T, f ownedFixture) {
			must(t, os.Symlink("../../papers/doc.txt", filepath.Join(f.vault, ".agentero", "cache", "c.bin")))
		}, ".agentero/cache", "c.bin", ErrLink},
		{".agentero is a link", func(t *testing.T, f ownedFixture) {
			must(t, os.RemoveAll(filepath.Join(f.vault, ".agentero")))
			must(t, os.Symlink(f.outside, filepath.Join(f.vault, ".agentero")))
		}, ".agentero", "secret", ErrLink},
		{".agentero is a link inside the vault", func(t *testing.T, f ownedFixture) {
			must(t, os.RemoveAll(filepath.Join(f.vault, ".agentero")))
			must(t, os.Symlink("papers", filepath.Join(f.vault, ".agentero")))
		}, ".agentero", "doc.txt", ErrLink},
		{"sub-folder is a link", func(t *testing.T, f ownedFixture) {
			must(t, os.RemoveAll(filepath.Join(f.vault, ".agentero", "cache")))
			must(t, os.Symlink(f.outside, filepath.Join(f.vault, ".agentero", "cache")))
		}, ".agentero/cache", "secret", ErrLink},
		{"folder inside the file name is a link", func(t *testing.T, f ownedFixture) {
			must(t, os.Symlink(f.outside, filepath.Join(f.vault, ".agentero", "cache", "v1")))
		}, ".agentero/cache", "v1/secret", ErrLink},
		{"file is a FIFO", func(t *testing.T, f ownedFixture) {
			must(t, syscall.Mkfifo(filepath.Join(f.vault, ".agentero", "cache", "c.bin"), 0o600))
		}, ".agentero/cache", "c.bin", ErrNotRegular},
		{"folder is a FIFO", func(t *testing.T, f ownedFixture) {
			must(t, os.RemoveAll(filepath.Join(f.vault, ".agentero", "cache")))
			must(t, syscall.Mkfifo(filepath.Join(f.vault, ".agentero", "cache"), 0o600))
		}, ".agentero/cache", "c.bin", fs.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newOwnedFixture(t)
			tt.setup(t, f)
			// In this order: writing replaces what is at the name.
			ops := []struct {
				name string
				fn   func() error
			}{
				{"ReadFile", func() error {
					d, err := OpenDir(filepath.Join(f.vault, tt.dir), 0)
					if err != nil {
						return err
					}
					defer d.Close()
					b, err := d.ReadFile(tt.file, 0)
					if bytes.Contains(b, []byte(outsideSecret)) || bytes.Contains(b, []byte(publicText)) {
						t.Errorf("read the link's target")
					}
					return err
				}},
				{"OpenAppend", func() error {
					h, err := OpenFile(filepath.Join(f.vault, tt.dir, tt.file), os.O_WRONLY|os.O_APPEND|os.O_CREATE)
					if err == nil {
						h.Close()
					}
					return err
				}},
				{"WriteSealed", func() error {
					d, err := OpenDir(filepath.Join(f.vault, tt.dir), Create)
					if err != nil {
						return err
					}
					defer d.Close()
					if err := d.WriteSealed(tt.file, []byte("new")); err != nil {
						return err
					}
					// Writing replaces a link or FIFO at the name itself: it
					// is never followed, and what is there now is ours.
					b, err := d.ReadSealed(tt.file, 0)
					if err != nil || string(b) != "new" {
						t.Errorf("read back %q, %v", b, err)
					}
					return tt.want
				}},
			}
			for _, o := range ops {
				op := o.name
				err := withTimeout(t, o.fn)
				if !errors.Is(err, tt.want) {
					t.Errorf("%s: err = %v, want %v", op, err, tt.want)
				}
				if err != nil && (strings.Contains(err.Error(), f.vault) || strings.Contains(err.Error(), f.outside)) {
					t.Errorf("%s: error names a machine path: %v", op, err)
				}
			}
			if b, _ := os.ReadFile(f.secret); string(b) != outsideSecret {
				t.Errorf("the file outside changed: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(f.vault, "papers", "doc.txt")); string(b) != publicText {
				t.Errorf("the document changed: %q", b)
			}
			if entries, _ := os.ReadDir(f.outside); len(entries) != 1 {
				t.Errorf("files created outside: %v", entries)
			}
		})
	}
}

// TestDirWrite: atomic writes create missing folders 0700 and files 0600,
// leave no temporary file, and sealed files detect damage.
func TestDirWrite(t *testing.T) {
	f := newOwnedFixture(t)
	d, err := OpenDir(filepath.Join(f.vault, ".agentero", "context-sessions", "rt"), Private)
	must(t, err)
	defer d.Close()
	for _, p := range []string{".agentero", ".agentero/context-sessions", ".agentero/context-sessions/rt"} {
		st, err := os.Stat(filepath.Join(f.vault, p))
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 folder", p, st.Mode(), err)
		}
	}
	must(t, d.WriteFile("a/b/grant.json", []byte("{}\n")))
	must(t, d.WriteFile("a/b/grant.json", []byte("{\"v\":2}\n")))
	got, err := d.ReadFile("a/b/grant.json", 0)
	if err != nil || string(got) != "{\"v\":2}\n" {
		t.Errorf("read back %q, %v", got, err)
	}
	var names []string
	filepath.WalkDir(filepath.Join(f.vault, ".agentero", "context-sessions", "rt"), func(p string, e fs.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(f.vault, p)
			info, _ := e.Info()
			names = append(names, rel+" "+info.Mode().String())
		}
		return nil
	})
	want := []string{
		".agentero/context-sessions/rt drwx------",
		".agentero/context-sessions/rt/a drwx------",
		".agentero/context-sessions/rt/a/b drwx------",
		".agentero/context-sessions/rt/a/b/grant.json -rw-------",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}

	must(t, d.WriteSealed("c.bin", []byte("payload")))
	p := filepath.Join(f.vault, ".agentero", "context-sessions", "rt", "c.bin")
	b, _ := os.ReadFile(p)
	b[0] ^= 1
	must(t, os.WriteFile(p, b, 0o600))
	if _, err := d.ReadSealed("c.bin", 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged sealed file: %v", err)
	}
	must(t, os.WriteFile(p, []byte("xy"), 0o600))
	if _, err := d.ReadSealed("c.bin", 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("short sealed file: %v", err)
	}
	if _, err := d.ReadFile("c.bin", 1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("read above the cap: %v", err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", "a/../../x", "", "a\x00b"} {
		if err := d.WriteFile(bad, nil); err == nil {
			t.Errorf("WriteFile(%q) accepted", bad)
		}
	}
}

// TestDirReadFileSizes: a Dir reads a file of any size up to its cap
// whole, into one buffer of about the file's size, and refuses one byte
// more.
func TestDirReadFileSizes(t *testing.T) {
	const max = 1 << 20
	dir := t.TempDir()
	d, err := OpenDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, size := range []int{0, 1, 511, 512, 4096, max - 1, max, max + 1} {
		want := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		if err := os.WriteFile(filepath.Join(dir, "f"), want, 0o600); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := d.ReadFile("f", max)
		runtime.ReadMemStats(&after)
		if size > max {
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("%d bytes: error %v, want ErrTooLarge", size, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read %d bytes, not the file's", size, len(got))
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; size >= 4096 && alloc > uint64(size)*3/2 {
			t.Errorf("%d bytes: %d bytes allocated, want about the file's size", size, alloc)
		}
	}
}
