package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// A Driver opens the sources of one kind. The Vault's driver (package
// sources/vault) opens papers, directories and files; a connector adds
// another kind — a BibTeX file, a Zotero library, a wiki. A driver is
// registered under its kind, as a database/sql driver is registered under
// its name, and used twice:
//
//   - by the host's resolver, which turns a mention or a selection's path
//     of the form "kind:name" into a granted source (Ref);
//   - by the server process, which re-opens that source from the grant
//     alone (Open): the host executable links the driver, so the process it
//     starts with --agentero-context-mcp knows the kind.
//
// What else the source can do it says through the optional interfaces of
// this package (Describer, Lister, Relater, Container, RegionReader), found
// by type assertion as in io/fs. A Driver must be safe for concurrent use.
type Driver interface {
	// Ref returns what name designates: name is what follows "kind:" in a
	// mention or a selection's path ("refs.bib" in "bib:refs.bib"). The
	// Ref's Path is the name the model and the host use for the source
	// and every document in it is below it ("refs.bib/vaswani2017"); its
	// Config is the JSON Open needs, stored in the grant. A name that
	// cannot be granted is an error wrapping ErrNotFound or ErrOutside
	// when it is one of those, with a message that names no absolute path.
	// A driver whose sources are not named so (the Vault's, which are
	// named by their paths) returns an error wrapping ErrUnsupported for
	// every name: Resolve then leaves the name to the caller.
	Ref(ctx context.Context, name string, env *Env) (*Named, error)
	// Open opens the source a grant names, from its Ref alone (Path and
	// Config, as Ref made them). It runs in the server process; the
	// source's errors are typed with this package's sentinels where a
	// caller may branch on them, and are shown to the model only as those
	// (see package tools). Its Info must have the Ref's Path and Kind. A
	// source that holds resources implements io.Closer: whoever opened it
	// closes it.
	Open(ctx context.Context, ref grant.Ref, env *Env) (Source, error)
}

// Named is what a connector name designates: a source to grant and, for a
// name that points inside it, the document it points at.
type Named struct {
	Ref grant.Ref
	// Doc is the path of the document of the source the name points at,
	// "" for the source itself. A selection's evidence is placed (page,
	// section) and cited in it.
	Doc string
}

// Env is what a driver may use of the process that calls it.
type Env struct {
	// Vault is the grant's Vault, nil when there is none. A connector
	// whose files live in the Vault reads and searches them through it
	// (its Documents), which keeps every read inside the Vault and shares
	// its caches; the Vault's own kinds are opened through it (see
	// RegisterLibrary).
	Vault Library
}

// Documents is what a driver may do with the documents of the grant's
// Vault (package sources/vault's Library implements it): read one, list a
// folder, or search a set of them as one search. A path is vault-relative; every read
// stays inside the Vault, so a path outside it, through a symbolic link or
// into its private folder is an error wrapping ErrNotFound or ErrOutside,
// never a read.
type Documents interface {
	// Document reads the Vault file at p as a Document (a PDF by page).
	// A folder is an error wrapping ErrIsDirectory. A ctx cancelled or
	// past its deadline gives ctx.Err(), never a part of the document.
	Document(ctx context.Context, p string) (*Document, error)
	// SearchDocuments searches the Vault documents at ps — PDFs and text
	// files — as one search: one wait for the Vault's index to take them
	// all in and one snapshot of it for every hit, so that scores are
	// comparable across the documents, a search that answers before every
	// document is in says so (Results.Indexing, with Truncated), and two
	// identical searches after that give the same hits. A path that names
	// no document is left out; a PDF that cannot be read is listed in
	// Results.Skipped.
	SearchDocuments(ctx context.Context, ps []string, q Query) (*Results, error)
	// List returns the entries of the Vault folder at p ("" for the
	// Vault's root) as a granted directory lists them: one level deep,
	// folders (a paper's marked grant.KindPaper) first, then files, each
	// in name order, at most max of them (0: all); truncated reports that
	// more exist. Hidden entries, the private folder and symbolic links
	// never appear. A file is an error wrapping ErrUnsupported; a ctx
	// cancelled or past its deadline gives ctx.Err().
	List(ctx context.Context, p string, max int) (entries []Entry, truncated bool, err error)
	// Rel returns the vault-relative path of abs, an absolute,
	// slash-separated path of the machine, and whether abs is inside the
	// Vault at all: how a connector takes an absolute path it was given
	// (a BibTeX file field) without learning where the Vault is.
	Rel(abs string) (rel string, ok bool)
}

// A Library is the grant's Vault as the tools and a resolver use it: its
// Documents, its own sources (papers, directories, files), the Collection
// that a grant's searches score with, the folder of its caches, and the
// resources it holds. Package
// sources/vault's Library implements it; a Registry opens one
// (OpenLibrary) with the opener that package registers. It must be safe
// for concurrent use.
type Library interface {
	Documents
	// Open opens the library's own source of kind at the vault-relative
	// path: what the driver of a kind registered with RegisterLibrary
	// does. A path that is not of that kind now is an error wrapping
	// ErrNotFound.
	Open(ctx context.Context, kind grant.Kind, path string) (Source, error)
	// Collection returns the documents of srcs that are this library's
	// (other sources are left out) as the Collection a search of any of
	// them scores with (Query.Collection), so that the hits of a grant's
	// sources are comparable.
	Collection(srcs []Source) Collection
	// CacheDir returns the folder of the library's on-disk caches, ""
	// when it keeps none: a connector keeps its own caches in a folder of
	// its own below it, never in the folders it reads.
	CacheDir() string
	// Close stops the library's background work, waits for it and
	// releases what the library holds; sources opened from it still
	// answer from what is at hand.
	Close() error
}

// LibraryOptions configure the opening of a Library. The zero value is
// ready to use.
type LibraryOptions struct {
	// CacheDir is where the library keeps its indexes and extracted text
	// between processes. Empty means the Vault's own cache folder; "-"
	// keeps no cache on disk.
	CacheDir string
	// Serving says the library serves a session of calls: its first
	// search does not wait for every paper to be checked, and a hit is
	// checked against its paper's files instead (the Vault's
	// CheckPapersLater).
	Serving bool
}

// An OpenLibraryFunc opens the library of the Vault at root, an absolute
// folder. A folder that is not a Vault, or cannot be read, is an error
// whose message names no absolute path.
type OpenLibraryFunc func(ctx context.Context, root string, opts *LibraryOptions) (Library, error)

// ErrNoLibrary is wrapped by the error of OpenLibrary on a registry that
// no library opener was registered in (see RegisterLibrary).
var ErrNoLibrary = errors.New("no library is registered")

// RegisterLibrary makes open the registry's library opener, as a
// database/sql driver is registered, and registers a driver for each of
// kinds that opens the source a grant names through the library of the
// caller's Env (Library.Open). Those kinds are the library's own: their
// sources' errors are the SDK's, shown to the model as they are, and a
// granted one that can no longer be opened has vanished (see package
// tools), as against a connector's. Package sources/vault calls it for the
// Vault (its Register). As Register, it panics when open is nil, when a
// library is registered already, or when a kind is.
func (r *Registry) RegisterLibrary(open OpenLibraryFunc, kinds ...grant.Kind) {
	if open == nil {
		panic("sources: RegisterLibrary opener is nil")
	}
	r.mu.Lock()
	if r.library != nil {
		r.mu.Unlock()
		panic("sources: RegisterLibrary called twice")
	}
	r.library = open
	r.mu.Unlock()
	for _, k := range kinds {
		r.Register(k, libraryDriver{k})
	}
}

// OpenLibrary opens the library of the Vault at root with the registry's
// library opener (RegisterLibrary). A registry without one gives an error
// wrapping ErrNoLibrary; a ctx already ended gives ctx.Err().
func (r *Registry) OpenLibrary(ctx context.Context, root string, opts *LibraryOptions) (Library, error) {
	r.mu.RLock()
	open := r.library
	r.mu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("%w: link package sources/vault, or call its Register on this registry", ErrNoLibrary)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &LibraryOptions{}
	}
	return open(ctx, root, opts)
}

// LibraryKind reports whether kind is one of the library's own kinds in
// r: registered with RegisterLibrary, its sources opened through the
// library. Any other kind is a connector's.
func (r *Registry) LibraryKind(kind grant.Kind) bool {
	_, ok := r.Driver(kind).(libraryDriver)
	return ok
}

// libraryDriver opens the library's sources of one kind through the
// library of the caller's Env.
type libraryDriver struct{ kind grant.Kind }

// Ref implements Driver: a library source is named by its vault-relative
// path, never as "kind:name", so Ref names nothing (an error wrapping
// ErrUnsupported) and the resolver takes "paper:x" for the vault path it
// is.
func (d libraryDriver) Ref(context.Context, string, *Env) (*Named, error) {
	return nil, fmt.Errorf("%w: a %s of the Vault is named by its path", ErrUnsupported, d.kind)
}

// Open implements Driver: it opens the source ref names through env's
// library.
func (d libraryDriver) Open(ctx context.Context, ref grant.Ref, env *Env) (Source, error) {
	if env == nil || env.Vault == nil {
		return nil, fmt.Errorf("%s: a %s source needs the Vault's library", ref.Path, ref.Kind)
	}
	return env.Vault.Open(ctx, ref.Kind, ref.Path)
}

// ErrUnknownKind is wrapped by the error of opening a source whose kind no
// driver is registered for: a server refuses such a grant (fail closed).
var ErrUnknownKind = errors.New("unknown source kind")

// Registry maps kinds to drivers. The zero value is an empty registry,
// ready to use (as NewRegistry's). Hosts and servers that link connectors
// use DefaultRegistry (see Register); tests pass their own. It is safe for
// concurrent use.
type Registry struct {
	mu      sync.RWMutex
	drivers map[grant.Kind]Driver
	library OpenLibraryFunc // see RegisterLibrary
}

// NewRegistry returns an empty registry. Package sources/vault's
// RegisterLibrary adds the Vault's kinds to it.
func NewRegistry() *Registry {
	return &Registry{drivers: map[grant.Kind]Driver{}}
}

// DefaultRegistry is the registry Register adds to, and the one resolvers
// and servers use when their options name none.
var DefaultRegistry = NewRegistry()

// Register makes a driver available under kind in DefaultRegistry. A
// driver package calls it from its init function, so that linking the
// package (import _ "example.com/bibsource") is all a host does; package
// sources/vault registers the Vault's kinds so.
func Register(kind grant.Kind, d Driver) { DefaultRegistry.Register(kind, d) }

// Register makes a driver available under kind. As database/sql's Register,
// it panics when d is nil, when kind is registered already or is not a
// plain kind name (1–64 characters from
// [a-z0-9._-], starting with a letter): these are mistakes of the program,
// not of its input.
func (r *Registry) Register(kind grant.Kind, d Driver) {
	if d == nil {
		panic("sources: Register driver is nil")
	}
	if !kind.Valid() {
		panic(fmt.Sprintf("sources: Register kind %q is not a plain kind name", kind))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.drivers[kind]; dup {
		panic(fmt.Sprintf("sources: Register called twice for kind %q", kind))
	}
	if r.drivers == nil {
		r.drivers = map[grant.Kind]Driver{}
	}
	r.drivers[kind] = d
}

// Driver returns the driver registered for kind, or nil.
func (r *Registry) Driver(kind grant.Kind) Driver {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.drivers[kind]
}

// Kinds returns the registered kinds, sorted.
func (r *Registry) Kinds() []grant.Kind {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]grant.Kind, 0, len(r.drivers))
	for k := range r.drivers {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Resolve resolves a mention or a selection's path of the form
// "kind:name" through the driver registered for kind. ok is false, with
// no error, when s does not start with a registered kind and a colon, or
// when that kind's driver names no sources so (its Ref wraps
// ErrUnsupported): s is then a vault path. The Named's Ref is checked: its
// kind is the driver's, its path a relative path a citation URI can carry,
// its title one line, its config one JSON value.
func (r *Registry) Resolve(ctx context.Context, s string, env *Env) (n *Named, ok bool, err error) {
	kind, name, found := strings.Cut(s, ":")
	if !found {
		return nil, false, nil
	}
	d := r.Driver(grant.Kind(kind))
	if d == nil {
		return nil, false, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	// An empty name goes to the driver too ("zotero:" is a whole
	// library); one that names nothing by it says so.
	n, err = d.Ref(ctx, name, env)
	if name == "" && (n == nil && err == nil || errors.Is(err, ErrUnsupported)) {
		return nil, true, fmt.Errorf("%w: %s: names nothing", ErrNotFound, kind)
	}
	if errors.Is(err, ErrUnsupported) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if n == nil {
		return nil, true, fmt.Errorf("%s connector named no source", kind)
	}
	if n.Ref.Kind == "" {
		n.Ref.Kind = grant.Kind(kind)
	}
	if err := checkNamed(grant.Kind(kind), n); err != nil {
		return nil, true, err
	}
	return n, true, nil
}

// checkNamed reports a driver's Named that a grant could not carry.
func checkNamed(kind grant.Kind, n *Named) error {
	ref := n.Ref
	bad := func(what string) error { return fmt.Errorf("%s connector returned %s", kind, what) }
	switch {
	case ref.Kind != kind:
		return bad(fmt.Sprintf("a source of kind %q", ref.Kind))
	case !citable(ref.Path):
		return bad("a source path that is not a clean relative path")
	case n.Doc != "" && n.Doc != ref.Path && !strings.HasPrefix(n.Doc, ref.Path+"/"):
		return bad("a document outside its source")
	case n.Doc != "" && !citable(n.Doc):
		return bad("a document path that is not a clean relative path")
	case ref.Title != textnorm.Line(ref.Title):
		return bad("a title that is not one line")
	case len(ref.Config) > 0 && !json.Valid(ref.Config):
		return bad("a config that is not JSON")
	}
	return nil
}

// citable reports whether p is a relative path a citation URI carries
// unchanged: cite.Parse of its URI gives p back, with no fragment.
func citable(p string) bool {
	if p == "" || textnorm.HasUnsafe(p) {
		return false
	}
	u, err := cite.Parse(cite.File(p))
	return err == nil && u.Path == p
}

// Open opens a granted source through the driver registered for its kind.
// A kind with no driver is an error wrapping ErrUnknownKind.
func (r *Registry) Open(ctx context.Context, ref grant.Ref, env *Env) (Source, error) {
	d := r.Driver(ref.Kind)
	if d == nil {
		return nil, fmt.Errorf("%w %q (source %q): no connector for it is linked into this program", ErrUnknownKind, ref.Kind, textnorm.Line(ref.Path))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src, err := d.Open(ctx, ref, env)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("%s connector opened no source for %q", ref.Kind, textnorm.Line(ref.Path))
	}
	return src, nil
}
