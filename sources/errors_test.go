package sources_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
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
	lib, err := sources.OpenLibrary(root, &sources.LibraryOptions{CacheDir: "-"})
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

// A zero Registry is an empty one: it registers, resolves and opens.
func TestZeroRegistry(t *testing.T) {
	var reg sources.Registry
	if d := reg.Driver("x"); d != nil {
		t.Fatalf("Driver of an empty registry = %v", d)
	}
	n := &sources.Named{Ref: grant.Ref{Path: "x/a"}}
	reg.Register("x", named{n: n})
	if got := reg.Kinds(); len(got) != 1 || got[0] != "x" {
		t.Fatalf("Kinds = %v, want [x]", got)
	}
	ctx := context.Background()
	got, ok, err := reg.Resolve(ctx, "x:a", nil)
	if !ok || err != nil || got.Ref.Path != "x/a" {
		t.Fatalf("Resolve = %+v, %v, %v", got, ok, err)
	}
	src, err := reg.Open(ctx, got.Ref, nil)
	if err != nil || src.Info().Ref != "x/a" {
		t.Fatalf("Open = %v, %v", src, err)
	}
}
