//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// withDeadline fails the test if fn blocks: a FIFO without a writer would
// block a plain open forever.
func withDeadline(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked")
	}
}

func TestFIFOAndSocketRefusedWithoutBlocking(t *testing.T) {
	// A short folder: unix socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "sfs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	vaultfix.Write(t, dir, map[string]string{"g/a.md": publicText})
	if err := syscall.Mkfifo(filepath.Join(dir, "g/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "g/sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for name, dest := range map[string]string{"g/pipe-link": "pipe", "g/sock-link": "sock"} {
		if err := os.Symlink(dest, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	withDeadline(t, func() {
		if f, err := Open(filepath.Join(dir, "g/pipe")); err == nil {
			f.Close()
			t.Error("Open(FIFO as vault) succeeded")
		} else {
			checkRedacted(t, err, dir)
		}
	})
	vault, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer vault.Close()
	g, err := vault.Sub("g")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()

	for _, rel := range []string{"pipe", "sock", "pipe-link", "sock-link"} {
		for _, name := range []string{"ReadFile", "ReadText", "FS.Open"} {
			t.Run(rel+"/"+name, func(t *testing.T) {
				withDeadline(t, func() {
					_, err := ops[name](g, rel)
					if !errors.Is(err, ErrNotRegular) {
						t.Errorf("%s(%q) error = %v, want ErrNotRegular", name, rel, err)
					}
					checkRedacted(t, err, dir)
				})
			})
		}
		t.Run(rel+"/as folder", func(t *testing.T) {
			withDeadline(t, func() {
				if _, err := g.ReadFile(rel+"/x", 0); err == nil {
					t.Errorf("ReadFile(%q) succeeded", rel+"/x")
				} else {
					checkRedacted(t, err, dir)
				}
				if _, err := g.ReadDir(rel); err == nil {
					t.Errorf("ReadDir(%q) succeeded", rel)
				} else {
					checkRedacted(t, err, dir)
				}
			})
		})
	}
	// Stat classifies without opening.
	withDeadline(t, func() {
		fi, err := g.Stat("pipe-link")
		if err != nil || fi.Mode().Type() != fs.ModeNamedPipe || fi.Name() != "pipe-link" {
			t.Errorf("Stat(pipe-link) = %v, %v; want a named pipe called pipe-link", fi, err)
		}
	})
	// Listings leave out what cannot be read.
	withDeadline(t, func() {
		list, err := g.ReadDir(".")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Name() != "a.md" {
			t.Errorf("ReadDir(.) = %v, want only a.md", list)
		}
	})
}

func TestDeviceRefused(t *testing.T) {
	x := newFixture(t)
	p := filepath.Join(x.vault, "papers/x/null")
	// /dev/null is character device 1:3 on Linux; creating one needs privilege.
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("cannot create a device here: %v", err)
	}
	withDeadline(t, func() {
		_, err := x.fs.ReadFile("papers/x/null", 0)
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(device) error = %v, want ErrNotRegular", err)
		}
		checkRedacted(t, err, x.dir)
	})
}
