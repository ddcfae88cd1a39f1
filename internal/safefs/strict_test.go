package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// TestStrict checks the document view: no symbolic link at any element of
// a path, even one that stays inside the view, and no name with a control or
// direction character; listings and walks leave both out.
func TestStrict(t *testing.T) {
	x := newFixture(t)
	vaultfix.Write(t, x.vault, map[string]string{
		"papers/x/evil\nname.md":          hiddenSecret,
		"papers/x/report\u202efdp.md":     hiddenSecret,
		"papers/x/bad\u2067dir/inside.md": hiddenSecret,
		"papers/y/real.md":                publicText,
	})
	for name, dest := range map[string]string{
		"papers/y/notes.md":   "../x-private/secret.md", // a file link to a sibling paper
		"papers/y/linked":     "../x-private",           // a folder link to a sibling paper
		"papers/z":            "x-private",              // a whole paper folder that is a link
		"papers/y/same.md":    "real.md",                // even a link to a file of the same folder
		"papers/y/chain.md":   "same.md",
		"papers/y/up-and-in":  "../y",
		"papers/y/deep-link":  "../x/deep",
		"papers/y/dangling":   "missing.md",
		"papers/y/self-loop":  "self-loop",
		"papers/y/to-outside": "../../../outside/secret.txt",
	} {
		if err := os.Symlink(dest, filepath.Join(x.vault, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	s := x.fs.Strict()

	for _, rel := range []string{"papers/x/a.md", "papers/x/deep/b.md", "papers/y/real.md"} {
		if b, err := s.ReadFile(rel, 0); err != nil || string(b) != publicText {
			t.Errorf("ReadFile(%q) = %q, %v; want the public text", rel, b, err)
		}
	}

	refused := []struct {
		rel  string
		want error
	}{
		{"papers/y/notes.md", ErrLink},
		{"papers/y/linked/secret.md", ErrLink},
		{"papers/y/linked", ErrLink},
		{"papers/z/secret.md", ErrLink},
		{"papers/z", ErrLink},
		{"papers/y/same.md", ErrLink},
		{"papers/y/chain.md", ErrLink},
		{"papers/y/up-and-in/real.md", ErrLink},
		{"papers/y/deep-link/b.md", ErrLink},
		{"papers/y/dangling", ErrLink},
		{"papers/y/self-loop", ErrLink},
		{"papers/y/to-outside", ErrLink},
		{"papers/x/ok-link.md", ErrLink},
		{"papers/x/ok-dir/b.md", ErrLink},
		{"papers/x/evil\nname.md", ErrName},
		{"papers/x/report\u202efdp.md", ErrName},
		{"papers/x/bad\u2067dir/inside.md", ErrName},
		{"papers/x/bad\u2067dir", ErrName},
		// The view's other rules still hold.
		{"papers/x/.hidden.md", ErrHidden},
		{".agentero/grant.json", ErrPrivate},
	}
	for _, tt := range refused {
		for name, op := range ops {
			got, err := op(s, tt.rel)
			if !errors.Is(err, tt.want) {
				t.Errorf("%s(%q) = %q, %v; want %v", name, tt.rel, got, err, tt.want)
			}
			checkRedacted(t, err, x.dir)
			for _, secret := range []string{siblingSecret, hiddenSecret, outsideSecret, privateSecret} {
				if strings.Contains(got, secret) {
					t.Errorf("%s(%q) returned a secret", name, tt.rel)
				}
			}
		}
	}

	names := func(rel string) []string {
		list, err := s.ReadDir(rel)
		if err != nil {
			t.Fatalf("ReadDir(%q): %v", rel, err)
		}
		var out []string
		for _, e := range list {
			out = append(out, e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				t.Errorf("ReadDir(%q) listed the link %q", rel, e.Name())
			}
		}
		return out
	}
	if got, want := names("papers/y"), []string{"real.md"}; !slices.Equal(got, want) {
		t.Errorf("ReadDir(papers/y) = %q, want %q", got, want)
	}
	if got, want := names("papers"), []string{"x", "x-private", "y"}; !slices.Equal(got, want) {
		t.Errorf("ReadDir(papers) = %q, want %q", got, want)
	}
	var walked []string
	if _, err := s.Walk("papers", 0, 0, func(rel string, d fs.DirEntry) error {
		walked = append(walked, rel)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"papers/x", "papers/x/a.md", "papers/x/deep", "papers/x/deep/b.md", "papers/x-private", "papers/x-private/secret.md", "papers/y", "papers/y/real.md"}
	if !slices.Equal(walked, want) {
		t.Errorf("Walk(papers) = %q, want %q", walked, want)
	}

	// A Sub view of a strict view is strict; the plain view still follows
	// links that stay inside it.
	sub, err := s.Sub("papers/y")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if _, err := sub.ReadFile("same.md", 0); !errors.Is(err, ErrLink) {
		t.Errorf("Sub of a strict view read a link: %v", err)
	}
	if b, err := x.fs.ReadFile("papers/y/same.md", 0); err != nil || string(b) != publicText {
		t.Errorf("the plain view no longer follows an inside link: %q, %v", b, err)
	}
}

// TestStrictSwapRace swaps a granted file, rename-atomically and as fast as
// it can, with a link to a sibling paper while readers read it through the
// Strict view. The link stays inside the view, so os.Root alone would
// follow it: the check after the open must refuse every such read.
func TestStrictSwapRace(t *testing.T) {
	x := newFixture(t)
	s := x.fs.Strict()
	dir := filepath.Join(x.vault, "papers/x")
	target := filepath.Join(dir, "race.md")
	src, tmpLink, tmpReal := filepath.Join(dir, ".swap-src"), filepath.Join(dir, ".swap-link"), filepath.Join(dir, ".swap-real")
	for _, p := range []string{target, src} {
		if err := os.WriteFile(p, []byte(publicText), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Remove(tmpLink)
			if err := os.Symlink("../x-private/secret.md", tmpLink); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmpLink, target); err != nil {
				t.Error(err)
				return
			}
			if err := os.Link(src, tmpReal); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmpReal, target); err != nil {
				t.Error(err)
				return
			}
			swaps.Add(1)
		}
	})
	const reads, readers = 10000, 2
	var ok, refused, changed, leaks atomic.Int64
	deadline := time.Now().Add(20 * time.Second)
	var rg sync.WaitGroup
	for range readers {
		rg.Go(func() {
			for i := 0; (i < reads/readers || ok.Load() == 0 || refused.Load() == 0) && time.Now().Before(deadline); i++ {
				runtime.Gosched()
				b, err := s.ReadFile("papers/x/race.md", 0)
				switch {
				case err != nil:
					refused.Add(1)
					if errors.Is(err, errChanged) {
						changed.Add(1)
					}
					checkRedacted(t, err, x.dir)
				case string(b) == publicText:
					ok.Add(1)
				default:
					leaks.Add(1)
				}
			}
		})
	}
	rg.Wait()
	close(stop)
	wg.Wait()
	t.Logf("%d reads: %d public, %d refused (%d by the check after open), %d leaked; %d swaps",
		ok.Load()+refused.Load()+leaks.Load(), ok.Load(), refused.Load(), changed.Load(), leaks.Load(), swaps.Load())
	if leaks.Load() != 0 {
		t.Errorf("%d reads returned the sibling paper through a link", leaks.Load())
	}
	if ok.Load() == 0 || refused.Load() == 0 || swaps.Load() == 0 {
		t.Error("the race was not run: the test proves nothing")
	}
}
