//go:build unix

package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestSwapRace replaces a granted file, rename-atomically and as fast as it
// can, between a real file and something else while readers read it. No
// read may return the other thing's content and none may block.
func TestSwapRace(t *testing.T) {
	tests := []struct {
		name   string
		view   string                             // Sub view the readers use; "" for the Vault
		rel    string                             // what the readers read, inside the view
		make   func(x *fixture, tmp string) error // creates the replacement at tmp
		secret string
		reads  int
	}{
		{"relative link out of the vault", "", "papers/x/race.md", func(x *fixture, tmp string) error {
			return os.Symlink("../../../outside/secret.txt", tmp)
		}, outsideSecret, 10000},
		{"absolute link out of the vault", "", "papers/x/race.md", func(x *fixture, tmp string) error {
			return os.Symlink(filepath.Join(x.dir, "outside/secret.txt"), tmp)
		}, outsideSecret, 2000},
		{"link out of the Sub view", "papers/x", "race.md", func(x *fixture, tmp string) error {
			return os.Symlink("../x-private/secret.md", tmp)
		}, siblingSecret, 2000},
		{"link to the private folder", "", "papers/x/race.md", func(x *fixture, tmp string) error {
			return os.Symlink("../../.agentero/grant.json", tmp)
		}, privateSecret, 10000},
		{"FIFO", "", "papers/x/race.md", func(x *fixture, tmp string) error {
			return syscall.Mkfifo(tmp, 0o644)
		}, "", 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newFixture(t)
			view := x.fs
			if tt.view != "" {
				view = x.sub(t, tt.view)
			}
			dir := filepath.Join(x.vault, "papers/x")
			target := filepath.Join(dir, "race.md")
			if err := os.WriteFile(target, []byte(publicText), 0o644); err != nil {
				t.Fatal(err)
			}
			// The swapper's temporary names are hidden, so readers never
			// see them under their own names.
			tmpOther, tmpReal := filepath.Join(dir, ".swap-other"), filepath.Join(dir, ".swap-real")
			src := filepath.Join(dir, ".swap-src")
			if err := os.WriteFile(src, []byte(publicText), 0o644); err != nil {
				t.Fatal(err)
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
					os.Remove(tmpOther)
					if err := tt.make(x, tmpOther); err != nil {
						t.Error(err)
						return
					}
					if err := os.Rename(tmpOther, target); err != nil {
						t.Error(err)
						return
					}
					// A hard link, not a fresh write: ext4 flushes a file
					// written and renamed over another, which slows swaps.
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

			const readers = 2
			var ok, refused, changed, leaks atomic.Int64
			done := make(chan struct{})
			var rg sync.WaitGroup
			start := time.Now()
			for range readers {
				rg.Go(func() {
					// Read at least reads/readers times, and on until both
					// states were seen, so that the race was really run.
					for i := 0; i < tt.reads/readers || ok.Load() == 0 || refused.Load() == 0; i++ {
						if time.Since(start) > 20*time.Second {
							return
						}
						runtime.Gosched() // let the swapper run between reads
						b, err := view.ReadFile(tt.rel, 0)
						switch {
						case err != nil:
							refused.Add(1)
							if errors.Is(err, errChanged) {
								changed.Add(1)
							}
							if strings.Contains(err.Error(), x.dir) {
								t.Errorf("error names the machine path: %v", err)
							}
						case string(b) == publicText:
							ok.Add(1)
						default:
							leaks.Add(1)
						}
						if tt.secret != "" && strings.Contains(string(b), tt.secret) {
							t.Errorf("read returned the secret")
						}
					}
				})
			}
			go func() { rg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(40 * time.Second):
				t.Fatal("readers blocked")
			}
			close(stop)
			wg.Wait()
			total := ok.Load() + refused.Load() + leaks.Load()
			t.Logf("%d reads: %d public, %d refused (%d by the check after open), %d leaked; %d swaps",
				total, ok.Load(), refused.Load(), changed.Load(), leaks.Load(), swaps.Load())
			if leaks.Load() != 0 {
				t.Errorf("%d of %d reads leaked", leaks.Load(), total)
			}
			if ok.Load() == 0 || refused.Load() == 0 || total < int64(tt.reads) {
				t.Errorf("the race was not run: the test proves nothing")
			}
			if swaps.Load() == 0 {
				t.Errorf("no swap happened: the test proves nothing")
			}
		})
	}
}
