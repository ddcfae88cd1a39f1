package sources_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
)

// named is a driver that returns a fixed Named (or error) from Ref and a
// memory source from Open.
type named struct {
	n   *sources.Named
	err error
}

func (d named) Ref(context.Context, string, *sources.Env) (*sources.Named, error) { return d.n, d.err }

func (d named) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	return sources.NewMemory(sources.Info{Ref: ref.Path, Kind: ref.Kind}, sources.TextDocument(ref.Path, "text")), nil
}

func TestRegisterPanics(t *testing.T) {
	for name, f := range map[string]func(r *sources.Registry){
		"nil driver":       func(r *sources.Registry) { r.Register("x", nil) },
		"vault kind":       func(r *sources.Registry) { r.Register(grant.KindPaper, named{}) },
		"invalid kind":     func(r *sources.Registry) { r.Register("Bad Kind", named{}) },
		"registered twice": func(r *sources.Registry) { r.Register("x", named{}); r.Register("x", named{}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			f(sources.NewRegistry())
		})
	}
}

func TestRegistryResolve(t *testing.T) {
	ok := &sources.Named{Ref: grant.Ref{Path: "x/a", Config: json.RawMessage(`{"a":1}`)}, Doc: "x/a/b"}
	tests := []struct {
		name    string
		in      string
		d       named
		want    *sources.Named
		handled bool
		err     string
	}{
		{name: "vault path", in: "notes/a.md", handled: false},
		{name: "unregistered scheme", in: "zotero:ITEM", handled: false},
		{name: "named", in: "x:a/b", d: named{n: ok}, handled: true,
			want: &sources.Named{Ref: grant.Ref{Kind: "x", Path: "x/a", Config: json.RawMessage(`{"a":1}`)}, Doc: "x/a/b"}},
		{name: "empty name", in: "x:", handled: true, err: "not found"},
		{name: "driver error", in: "x:a", d: named{err: sources.ErrNotFound}, handled: true, err: "not found"},
		{name: "absolute path", in: "x:a", d: named{n: &sources.Named{Ref: grant.Ref{Path: "/etc/passwd"}}}, handled: true, err: "not a clean relative path"},
		{name: "dot segment", in: "x:a", d: named{n: &sources.Named{Ref: grant.Ref{Path: "a/../b"}}}, handled: true, err: "not a clean relative path"},
		{name: "other kind", in: "x:a", d: named{n: &sources.Named{Ref: grant.Ref{Kind: "y", Path: "a"}}}, handled: true, err: `a source of kind "y"`},
		{name: "doc outside", in: "x:a", d: named{n: &sources.Named{Ref: grant.Ref{Path: "a"}, Doc: "b"}}, handled: true, err: "a document outside its source"},
		{name: "title with a line break", in: "x:a", d: named{n: &sources.Named{Ref: grant.Ref{Path: "a", Title: "a\nb"}}}, handled: true, err: "not one line"},
		{name: "bad config", in: "x:a", d: named{n: &sources.Named{Ref: grant.Ref{Path: "a", Config: json.RawMessage(`{`)}}}, handled: true, err: "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sources.NewRegistry()
			r.Register("x", tt.d)
			got, handled, err := r.Resolve(context.Background(), tt.in, &sources.Env{})
			if handled != tt.handled {
				t.Fatalf("handled = %v, want %v", handled, tt.handled)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Resolve (-want +got):\n%s", d)
			}
		})
	}
}

func TestRegistryOpen(t *testing.T) {
	root := t.TempDir()
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	lib, err := sources.OpenLibrary(root, &sources.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	r := sources.NewRegistry()
	r.Register("x", named{})
	ctx := context.Background()
	env := &sources.Env{Library: lib}
	if src, err := r.Open(ctx, grant.Ref{Kind: grant.KindPaper, Path: "papers/2401.01234"}, env); err != nil || src.Info().Kind != grant.KindPaper {
		t.Errorf("vault paper: %v, %v", src, err)
	}
	if src, err := r.Open(ctx, grant.Ref{Kind: "x", Path: "x/a"}, env); err != nil || src.Info().Ref != "x/a" {
		t.Errorf("connector: %v, %v", src, err)
	}
	if _, err := r.Open(ctx, grant.Ref{Kind: "zotero", Path: "z"}, env); !errors.Is(err, sources.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	if d := cmp.Diff([]grant.Kind{"x"}, r.Kinds()); d != "" {
		t.Errorf("Kinds (-want +got):\n%s", d)
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
	lib, err := sources.OpenLibrary(root, &sources.LibraryOptions{CacheDir: "-"})
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
