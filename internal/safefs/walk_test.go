//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

func walkFixture(t *testing.T) *fixture {
	t.Helper()
	x := newFixture(t)
	vaultfix.Write(t, x.vault, map[string]string{
		"w/a.md":         "a",
		"w/b/c.md":       "c",
		"w/b/d/e.md":     "e",
		"w/b/d/f/g.md":   "g",
		"w/.hidden/h.md": "h",
		"w/.h.md":        "h",
		"w/empty/.keep":  "",
	})
	for name, dest := range map[string]string{
		"w/link-file.md": "a.md",
		"w/link-dir":     "b",
		"w/link-out":     "../../outside",
		"w/link-out.md":  "../../outside/secret.txt",
		"w/loop":         ".",
	} {
		if err := os.Symlink(dest, filepath.Join(x.vault, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(x.vault, "w/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	return x
}

func TestWalk(t *testing.T) {
	x := walkFixture(t)
	all := []string{"a.md f", "b d", "b/c.md f", "b/d d", "b/d/e.md f", "b/d/f d", "b/d/f/g.md f", "empty d", "link-file.md f"}
	tests := []struct {
		name      string
		rel       string
		depth     int
		files     int
		stopAt    string // fn returns stop when it sees this path
		stop      error
		want      []string // paths relative to rel's parent "w", type letter
		truncated bool
	}{
		{name: "everything", rel: "w", want: all},
		{name: "depth 1", rel: "w", depth: 1, want: []string{"a.md f", "b d", "empty d", "link-file.md f"}, truncated: true},
		{name: "depth 2", rel: "w", depth: 2, want: []string{"a.md f", "b d", "b/c.md f", "b/d d", "empty d", "link-file.md f"}, truncated: true},
		{name: "depth exactly enough", rel: "w", depth: 4, want: all},
		{name: "files cap", rel: "w", files: 2, want: []string{"a.md f", "b d", "b/c.md f", "b/d d"}, truncated: true},
		{name: "files exactly enough", rel: "w", files: 5, want: all},
		{name: "SkipDir on a folder", rel: "w", stopAt: "w/b", stop: fs.SkipDir, want: []string{"a.md f", "b d", "empty d", "link-file.md f"}},
		{name: "SkipDir on a file", rel: "w", stopAt: "w/b/c.md", stop: fs.SkipDir, want: []string{"a.md f", "b d", "b/c.md f", "empty d", "link-file.md f"}},
		{name: "SkipAll", rel: "w", stopAt: "w/b/c.md", stop: fs.SkipAll, want: []string{"a.md f", "b d", "b/c.md f"}},
		{name: "through a link", rel: "w/link-dir", want: []string{"link-dir/c.md f", "link-dir/d d", "link-dir/d/e.md f", "link-dir/d/f d", "link-dir/d/f/g.md f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			truncated, err := x.fs.Walk(tt.rel, tt.depth, tt.files, func(p string, d fs.DirEntry) error {
				rel, _ := filepath.Rel("w", p)
				got = append(got, rel+" "+typeLetter(d.Type()))
				if fi, err := d.Info(); err != nil || fi.Name() != d.Name() || fi.Mode().Type() != d.Type() {
					t.Errorf("%s: Info() = %v, %v", p, fi, err)
				}
				if p == tt.stopAt {
					return tt.stop
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if truncated != tt.truncated {
				t.Errorf("truncated = %v, want %v", truncated, tt.truncated)
			}
		})
	}
}

func TestWalkErrors(t *testing.T) {
	x := walkFixture(t)
	boom := errors.New("boom")
	if _, err := x.fs.Walk("w", 0, 0, func(string, fs.DirEntry) error { return boom }); err != boom {
		t.Errorf("fn error: got %v, want it returned as is", err)
	}
	for rel, want := range map[string]error{
		"w/a.md":     fs.ErrInvalid,
		"w/link-out": ErrOutside,
		".agentero":  ErrPrivate,
		"w/.hidden":  ErrHidden,
		"../w":       ErrOutside,
	} {
		_, err := x.fs.Walk(rel, 0, 0, func(string, fs.DirEntry) error { return nil })
		if !errors.Is(err, want) {
			t.Errorf("Walk(%q) error = %v, want %v", rel, err, want)
		}
		checkRedacted(t, err, x.dir)
	}
	// From the Vault root the private folder and hidden entries stay out.
	var got []string
	if _, err := x.fs.Walk(".", 1, 0, func(p string, d fs.DirEntry) error {
		got = append(got, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"notes", "papers", "w"}, got); diff != "" {
		t.Errorf("Walk(.) (-want +got):\n%s", diff)
	}
}
