//go:build unix

package safefs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenReplaced: a name replaced between an open's check and the open
// itself, as an atomic save or a concurrent cache writer does, is opened
// again and gives the new file; a name that keeps being replaced is
// refused, and a replacement by a link is refused as any link is.
func TestOpenReplaced(t *testing.T) {
	x := newFixture(t)
	owned, err := OpenDir(filepath.Join(x.vault, ".agentero", "cache"), Create)
	must(t, err)
	defer owned.Close()
	must(t, owned.WriteFile("entry", []byte("old")))

	opens := map[string]struct {
		path string // the file on disk
		open func() (*File, error)
	}{
		"vault file": {filepath.Join(x.vault, "papers/x/a.md"), func() (*File, error) { return x.fs.Open("papers/x/a.md") }},
		"owned file": {filepath.Join(x.vault, ".agentero/cache/entry"), func() (*File, error) { return owned.Open("entry") }},
	}
	replace := func(t *testing.T, path string, link bool) {
		t.Helper()
		tmp := path + ".new"
		if link {
			must(t, os.Symlink(filepath.Join(x.dir, "outside/secret.txt"), tmp))
		} else {
			must(t, os.WriteFile(tmp, []byte("new"), 0o644))
		}
		must(t, os.Rename(tmp, path))
	}
	for name, o := range opens {
		t.Run(name, func(t *testing.T) {
			t.Cleanup(func() { testHookChecked = nil })

			// Replaced once: the second try opens the new file.
			calls := 0
			testHookChecked = func(string) {
				if calls++; calls == 1 {
					replace(t, o.path, false)
				}
			}
			f, err := o.open()
			if err != nil {
				t.Fatalf("replaced once: %v", err)
			}
			b, _ := io.ReadAll(f.f)
			f.Close()
			if string(b) != "new" || calls != 2 {
				t.Errorf("replaced once: read %q after %d checks, want \"new\" after 2", b, calls)
			}

			// Replaced before every open: refused after maxOpens tries.
			calls = 0
			testHookChecked = func(string) { calls++; replace(t, o.path, false) }
			if f, err := o.open(); !errors.Is(err, errChanged) || calls != maxOpens {
				if f != nil {
					f.Close()
				}
				t.Errorf("always replaced: %v after %d checks, want errChanged after %d", err, calls, maxOpens)
			}

			// Replaced by a link: the next check refuses it, nothing is read.
			calls = 0
			testHookChecked = func(string) {
				if calls++; calls == 1 {
					replace(t, o.path, true)
				}
			}
			f, err = o.open()
			if err == nil {
				b, _ := io.ReadAll(f.f)
				f.Close()
				t.Fatalf("replaced by a link: opened, read %q", b)
			}
			checkRedacted(t, err, x.dir)
		})
	}
}
