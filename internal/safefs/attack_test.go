package safefs

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// op runs one FS method on rel and returns what it read (for Open-like
// methods) so that a case can check nothing leaked.
type op func(f *FS, rel string) (string, error)

var ops = map[string]op{
	"ReadFile": func(f *FS, rel string) (string, error) {
		b, err := f.ReadFile(rel, 0)
		return string(b), err
	},
	"ReadText": func(f *FS, rel string) (string, error) { return f.ReadText(rel, 0) },
	"Stat": func(f *FS, rel string) (string, error) {
		_, err := f.Stat(rel)
		return "", err
	},
	"ReadDir": func(f *FS, rel string) (string, error) {
		list, err := f.ReadDir(rel)
		var names []string
		for _, e := range list {
			names = append(names, e.Name())
		}
		return strings.Join(names, ","), err
	},
	"Sub": func(f *FS, rel string) (string, error) {
		s, err := f.Sub(rel)
		if err == nil {
			s.Close()
		}
		return "", err
	},
	"Walk": func(f *FS, rel string) (string, error) {
		var seen []string
		_, err := f.Walk(rel, 0, 0, func(p string, d fs.DirEntry) error {
			seen = append(seen, p)
			return nil
		})
		return strings.Join(seen, ","), err
	},
	"FS.Open": func(f *FS, rel string) (string, error) {
		h, err := f.FS().Open(rel)
		if err == nil {
			h.Close()
		}
		return "", err
	},
}

func TestAttacks(t *testing.T) {
	x := newFixture(t)
	abs := func(p string) string { return filepath.Join(x.dir, p) }
	tests := []struct {
		name string
		view string // "" for the Vault, else a Sub view
		ops  []string
		rel  string
		want error // nil: must succeed (positive controls)
	}{
		// Prefix confusion (CVE-2025-53110): papers/x must not grant papers/x-private.
		{"sibling with common prefix by ..", "papers/x", []string{"ReadFile", "Stat"}, "../x-private/secret.md", ErrOutside},
		{"sibling with common prefix by file link", "papers/x", []string{"ReadFile", "Stat"}, "sibling.md", ErrOutside},
		{"sibling with common prefix by folder link", "papers/x", []string{"ReadFile", "Stat"}, "dir-sibling/secret.md", ErrOutside},
		{"sibling folder link listed", "papers/x", []string{"ReadDir", "Sub", "Walk"}, "dir-sibling", ErrOutside},
		{"sibling folder link is fine from the Vault", "", []string{"ReadFile"}, "papers/x/dir-sibling/secret.md", nil},
		{"view root reachable", "papers/x", []string{"ReadFile"}, "a.md", nil},

		// .. before and after a valid prefix.
		{".. first", "", []string{"ReadFile", "Stat", "ReadDir", "Sub", "Walk", "FS.Open"}, "../outside/secret.txt", ErrOutside},
		{".. after prefix", "", []string{"ReadFile", "Stat"}, "papers/x/../../../outside/secret.txt", ErrOutside},
		{".. staying inside is still refused", "", []string{"ReadFile"}, "papers/x/../x-private/secret.md", ErrOutside},
		{".. alone after prefix", "papers/x", []string{"ReadDir", "Sub", "Walk"}, "deep/../..", ErrOutside},
		{".. from a Sub view", "papers/x", []string{"ReadFile"}, "../../outside/secret.txt", ErrOutside},

		// Absolute paths, including the Vault's own.
		{"absolute outside", "", []string{"ReadFile", "Stat", "ReadDir", "FS.Open"}, abs("outside/secret.txt"), ErrOutside},
		{"absolute inside the vault", "", []string{"ReadFile", "Stat"}, abs("vault/papers/x/a.md"), ErrOutside},
		{"absolute in a Sub view", "papers/x", []string{"ReadFile"}, abs("vault/papers/x/a.md"), ErrOutside},

		// Symbolic links (CVE-2025-53109).
		{"file link out", "", []string{"ReadFile", "ReadText", "Stat", "FS.Open"}, "papers/x/link-out.md", ErrOutside},
		{"absolute file link", "", []string{"ReadFile", "Stat"}, "papers/x/link-abs.md", ErrOutside},
		{"absolute link into the vault", "", []string{"ReadFile"}, "papers/x/link-vault.md", ErrOutside},
		{"folder link out", "", []string{"ReadFile", "Stat"}, "papers/x/dir-out/secret.txt", ErrOutside},
		{"folder link out listed", "", []string{"ReadDir", "Sub", "Walk", "FS.Open"}, "papers/x/dir-out", ErrOutside},
		{"three-hop chain out", "", []string{"ReadFile", "Stat", "FS.Open"}, "papers/x/hop1", ErrOutside},
		{"three-hop chain out in Sub", "papers/x", []string{"ReadFile"}, "hop1", ErrOutside},
		{"link inside the view", "papers/x", []string{"ReadFile"}, "ok-link.md", nil},
		{"folder link inside the view", "papers/x", []string{"ReadFile"}, "ok-dir/b.md", nil},

		// Malformed names.
		{"NUL", "", []string{"ReadFile", "Stat", "ReadDir", "FS.Open"}, "papers/x/a.md\x00.txt", fs.ErrInvalid},
		{"backslash separator", "", []string{"ReadFile", "Stat"}, `papers\x\a.md`, fs.ErrInvalid},
		{"backslash traversal", "", []string{"ReadFile"}, `..\outside\secret.txt`, fs.ErrInvalid},
		{"empty", "", []string{"ReadFile", "Stat"}, "", fs.ErrInvalid},

		// The private folder and hidden entries.
		{"private file", "", []string{"ReadFile", "Stat", "FS.Open"}, ".agentero/grant.json", ErrPrivate},
		{"private folder", "", []string{"ReadDir", "Sub", "Walk", "FS.Open"}, ".agentero", ErrPrivate},
		{"private folder other case", "", []string{"ReadFile"}, ".AGENTERO/grant.json", ErrPrivate},
		{"private folder after ./", "", []string{"ReadFile"}, "./.agentero/grant.json", ErrPrivate},
		{"link to private file", "", []string{"ReadFile", "Stat"}, "papers/x/to-private", ErrPrivate},
		{"link to private folder", "", []string{"ReadFile", "ReadDir"}, "papers/x/to-private-dir/grant.json", ErrPrivate},
		{"hidden file", "", []string{"ReadFile", "Stat"}, "papers/x/.hidden.md", ErrHidden},
		{"hidden folder", "", []string{"ReadFile", "ReadDir"}, "notes/.git/config", ErrHidden},
		{"link to hidden file", "", []string{"ReadFile", "Stat"}, "papers/x/to-hidden", ErrHidden},
		{"link through a hidden folder", "", []string{"ReadFile"}, "papers/x/via-hidden", ErrHidden},

		// Other refusals.
		{"folder is not a regular file", "", []string{"ReadFile"}, "papers/x", ErrNotRegular},
		{"link loop", "", []string{"ReadFile", "Stat"}, "papers/x/loop", syscall.ELOOP},
		{"dangling link", "", []string{"ReadFile"}, "papers/x/dangling", fs.ErrNotExist},
		{"file used as folder", "", []string{"ReadFile"}, "papers/x/a.md/b", syscall.ENOTDIR},
	}
	for _, tt := range tests {
		view := x.fs
		if tt.view != "" {
			view = x.sub(t, tt.view)
		}
		for _, name := range tt.ops {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				got, err := ops[name](view, tt.rel)
				if tt.want == nil {
					if err != nil {
						t.Fatalf("%s(%q): %v", name, tt.rel, err)
					}
					return
				}
				if !errors.Is(err, tt.want) {
					t.Fatalf("%s(%q) = %q, %v; want %v", name, tt.rel, got, err, tt.want)
				}
				checkRedacted(t, err, x.dir)
				if got != "" {
					t.Errorf("%s(%q) returned %q with an error", name, tt.rel, got)
				}
			})
		}
	}
}

// Errors name the vault-relative path, including for Sub views.
func TestErrorNamesVaultPath(t *testing.T) {
	x := newFixture(t)
	s := x.sub(t, "papers/x")
	tests := []struct {
		f    *FS
		rel  string
		want string
	}{
		{x.fs, "papers/x/link-out.md", "open papers/x/link-out.md: outside the vault"},
		{s, "sibling.md", "open papers/x/sibling.md: outside papers/x"},
		{s, "../x-private/secret.md", "open papers/x/../x-private/secret.md: '..' in path"},
		{x.fs, filepath.Join(x.dir, "outside/secret.txt"), "open (absolute path): absolute path"},
		{x.fs, ".agentero/grant.json", "open .agentero/grant.json: private entry"},
		{x.fs, "a\x00b", `open "a\x00b": NUL in path`},
	}
	for _, tt := range tests {
		_, err := tt.f.Open(tt.rel)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Open(%q) error = %v, want %q", tt.rel, err, tt.want)
		}
	}
}
