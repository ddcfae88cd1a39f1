package vault_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// Stat's errors are the documented sentinels, with the precise reason
// still wrapped, and a cancelled context is the context's error.
func TestStatErrors(t *testing.T) {
	root := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "notes"), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		path string
		want []error
	}{
		{"missing", context.Background(), "notes/nowhere.md", []error{sources.ErrNotFound, fs.ErrNotExist}},
		{"missing paper", context.Background(), "papers/nowhere", []error{sources.ErrNotFound}},
		{"private", context.Background(), ".agentero/citing-scan.json", []error{sources.ErrNotFound}},
		{"hidden", context.Background(), "notes/.secret", []error{sources.ErrNotFound}},
		{"above the root", context.Background(), "../outside", []error{sources.ErrOutside}},
		{"symbolic link", context.Background(), "linked/ideas.txt", []error{sources.ErrOutside}},
		{"cancelled", cancelled, "notes/ideas.txt", []error{context.Canceled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it, err := lib.Stat(tt.ctx, tt.path)
			if err == nil {
				t.Fatalf("Stat(%q) = %+v, want an error", tt.path, it)
			}
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("Stat(%q) = %v, want an error wrapping %v", tt.path, err, w)
				}
			}
			if strings.Contains(err.Error(), root) {
				t.Errorf("Stat(%q) names the vault's absolute path: %v", tt.path, err)
			}
		})
	}
}

// Library.Document reads any vault file a connector names, and nothing
// outside the Vault.
func TestLibraryDocument(t *testing.T) {
	root := t.TempDir()
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "reading-list"), filepath.Join(root, "notes", "link")); err != nil {
		t.Fatal(err)
	}
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ctx := context.Background()
	for p, pages := range map[string]int{"papers/2401.01234/2401.01234.pdf": 3, "papers/2401.01234/NOTES.md": 0, "notes/ideas.txt": 0, "reading-list": 0} {
		doc, err := lib.Document(ctx, p)
		if err != nil || doc.Path != p || doc.Pages != pages || len(doc.Parts) == 0 || doc.Parts[0].Text == "" {
			t.Errorf("Document(%q) = %+v, %v", p, doc, err)
		}
	}
	for p, want := range map[string]error{
		"../outside.txt":             sources.ErrOutside,
		"notes/link":                 sources.ErrOutside,
		".agentero/citing-scan.json": sources.ErrNotFound,
		"notes/.secret":              sources.ErrNotFound,
		"notes/nosuch.md":            sources.ErrNotFound,
		"notes":                      sources.ErrIsDirectory,
	} {
		if _, err := lib.Document(ctx, p); !errors.Is(err, want) || strings.Contains(err.Error(), root) {
			t.Errorf("Document(%q) = %v, want %v", p, err, want)
		}
	}
}

// A connector lists a Vault folder through sources.Documents, as a
// granted directory lists it, without knowing the Library: no hidden
// entry, no private folder, no link; a file, a path out of the Vault and
// an ended context are errors.
func TestLibraryList(t *testing.T) {
	root := t.TempDir()
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "reading-list"), filepath.Join(root, "notes", "link")); err != nil {
		t.Fatal(err)
	}
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	var docs sources.Documents = lib // what sources.Env.Vault gives a connector
	ctx := context.Background()
	names := func(es []sources.Entry) (out []string) {
		for _, e := range es {
			out = append(out, string(e.Kind)+" "+e.Path)
		}
		return out
	}
	for _, tt := range []struct {
		p         string
		max       int
		want      []string
		truncated bool
	}{
		{"notes", 0, []string{"directory notes/archive", "file notes/ideas.txt", "file notes/meeting 2024-03-12.md", "file notes/reading-plan.md"}, false},
		{"", 0, []string{"directory notes", "directory papers", "file reading-list"}, false},
		{"papers/vision", 1, []string{"paper papers/vision/patch-tokens"}, true},
	} {
		got, truncated, err := docs.List(ctx, tt.p, tt.max)
		if err != nil {
			t.Fatalf("List(%q): %v", tt.p, err)
		}
		if diff := cmp.Diff(tt.want, names(got)); diff != "" || truncated != tt.truncated {
			t.Errorf("List(%q, %d) (-want +got):\n%s\ntruncated %v", tt.p, tt.max, diff, truncated)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for p, want := range map[string]error{
		"reading-list":    sources.ErrUnsupported,
		"../outside":      sources.ErrOutside,
		".agentero":       sources.ErrNotFound,
		"notes/nosuch":    sources.ErrNotFound,
		"cancelled:notes": context.Canceled,
	} {
		c := ctx
		if rest, ok := strings.CutPrefix(p, "cancelled:"); ok {
			c, p = cancelled, rest
		}
		if _, _, err := docs.List(c, p, 0); !errors.Is(err, want) || strings.Contains(err.Error(), root) {
			t.Errorf("List(%q) = %v, want %v", p, err, want)
		}
	}
}
