package sources_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
)

// named is a driver that returns a fixed Named (or error) from Ref and a
// memory source from Open.
type named struct {
	n   *sources.Named
	err error
}

func (d named) Ref(context.Context, string, *sources.Env) (*sources.Named, error) { return d.n, d.err }

func (d named) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	return sourcetest.NewMemory(sources.Info{Path: ref.Path, Kind: ref.Kind}, sourcetest.TextDocument(ref.Path, "text")), nil
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
			f(vault.RegisterLibrary(sources.NewRegistry()))
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
	lib, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	r := sources.NewRegistry()
	r.Register("x", named{})
	ctx := context.Background()
	env := &sources.Env{Vault: lib}
	if src, err := vault.RegisterLibrary(sources.NewRegistry()).Open(ctx, grant.Ref{Kind: grant.KindPaper, Path: "papers/2401.01234"}, env); err != nil || src.Info().Kind != grant.KindPaper {
		t.Errorf("vault paper: %v, %v", src, err)
	}
	if src, err := r.Open(ctx, grant.Ref{Kind: "x", Path: "x/a"}, env); err != nil || src.Info().Path != "x/a" {
		t.Errorf("connector: %v, %v", src, err)
	}
	if _, err := r.Open(ctx, grant.Ref{Kind: "zotero", Path: "z"}, env); !errors.Is(err, sources.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	if d := cmp.Diff([]grant.Kind{"x"}, r.Kinds()); d != "" {
		t.Errorf("Kinds (-want +got):\n%s", d)
	}
	// A context that ended opens and names nothing, whatever the driver.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if src, err := r.Open(cancelled, grant.Ref{Kind: "x", Path: "x/a"}, env); !errors.Is(err, context.Canceled) || src != nil {
		t.Errorf("Open with a cancelled context: %v, %v; want context.Canceled", src, err)
	}
	r.Register("y", named{n: &sources.Named{Ref: grant.Ref{Path: "y/a", Config: json.RawMessage(`{}`)}}})
	if n, ok, err := r.Resolve(cancelled, "y:a", env); !errors.Is(err, context.Canceled) || !ok || n != nil {
		t.Errorf("Resolve with a cancelled context: %v, %v, %v; want context.Canceled", n, ok, err)
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
	if err != nil || src.Info().Path != "x/a" {
		t.Fatalf("Open = %v, %v", src, err)
	}
}

// TestRegistryLibrary checks the library seam: a registry opens the Vault
// through the opener package sources/vault registers, its kinds are the
// library's own and opened through the Env's library, and a registry
// without a library says so.
func TestRegistryLibrary(t *testing.T) {
	root := t.TempDir()
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := vault.RegisterLibrary(sources.NewRegistry())
	r.Register("x", named{})
	lib, err := r.OpenLibrary(ctx, root, &sources.LibraryOptions{CacheDir: "-", Serving: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()

	for _, k := range []grant.Kind{grant.KindPaper, grant.KindDirectory, grant.KindFile} {
		if !r.LibraryKind(k) {
			t.Errorf("LibraryKind(%q) = false, want true", k)
		}
	}
	for _, k := range []grant.Kind{"x", "zotero"} {
		if r.LibraryKind(k) {
			t.Errorf("LibraryKind(%q) = true, want false", k)
		}
	}

	env := &sources.Env{Vault: lib}
	src, err := r.Open(ctx, grant.Ref{Kind: grant.KindPaper, Path: "papers/2401.01234"}, env)
	if err != nil {
		t.Fatal(err)
	}
	// The registry opened the library's own source, so the Collection the
	// library makes of it holds it: a search with it finds its documents.
	coll := lib.Collection([]sources.Source{src})
	res, err := src.Search(ctx, sources.Query{Text: "attention", Limit: 3, Collection: coll})
	if err != nil || len(res.Hits) == 0 {
		t.Errorf("search with the library's Collection: %v hits, %v", res, err)
	}
	if coll.As(new(int)) {
		t.Error("Collection.As set a target of another type")
	}
	if _, err := r.Open(ctx, grant.Ref{Kind: grant.KindPaper, Path: "papers/2401.01234"}, &sources.Env{}); err == nil || strings.Contains(err.Error(), root) {
		t.Errorf("Open of a Vault kind without a library: %v; want an error naming no absolute path", err)
	}
	if _, err := r.Driver(grant.KindPaper).Ref(ctx, "papers/2401.01234", env); !errors.Is(err, sources.ErrUnsupported) {
		t.Errorf("Ref of a Vault kind: %v; want ErrUnsupported", err)
	}

	bare := sources.NewRegistry()
	if _, err := bare.OpenLibrary(ctx, root, nil); !errors.Is(err, sources.ErrNoLibrary) {
		t.Errorf("OpenLibrary without a library: %v; want ErrNoLibrary", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if l, err := r.OpenLibrary(cancelled, root, nil); !errors.Is(err, context.Canceled) || l != nil {
		t.Errorf("OpenLibrary with a cancelled context: %v, %v; want context.Canceled", l, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second RegisterLibrary did not panic")
		}
	}()
	vault.RegisterLibrary(r)
}
