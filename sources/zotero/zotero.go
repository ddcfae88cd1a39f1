// Package zotero is the driver of a researcher's Zotero library: it opens
// the library, its collections, tags and items as sources (package
// sources) of kind "zotero", with their metadata, PDF attachments read by
// the SDK's own text layer (a scan's pages by OCR, as the Vault's), notes,
// the annotations made in Zotero's reader as marks, and the references and
// cited-by read from the library's PDFs. Importing the package registers
// the kind, as importing package sources/vault registers the Vault's.
//
// Where Zotero's files are is host configuration, never something a grant
// or an agent can widen: the data directory (holding zotero.sqlite and
// storage/) and the base directory of linked files, given or read from
// the prefs.js of the Zotero profile the host names. A Go host sets them
// with Configure (or registers a driver of its own made by New); the SDK's
// executables read RESEARCHCTX_ZOTERO_DIR, RESEARCHCTX_ZOTERO_BASE_DIR and
// RESEARCHCTX_ZOTERO_PROFILE.
// A grant records which data directory it was made for, and a server
// configured with another refuses it.
//
// Names, after "zotero:" in a mention (percent-encoded like Vault paths):
//
//	zotero:                            the user's library (every item not in the trash)
//	zotero:collections/Thesis/Chapter%202   a collection with its subcollections
//	zotero:collections/<KEY>           a collection by its key
//	zotero:items/<KEY>                 a regular item with its attachments, notes and annotations
//	zotero:tags/<tag>                  the items with a tag
//	zotero:groups/<groupID>/…          the same in a group library
//
// Documents are named by their keys, "zotero:items/<KEY>" (an item's
// record, an attachment, a note), and cited by Zotero's own URIs (see
// package cite): zotero://open-pdf/library/items/<attachmentKey>?page=N for
// a PDF page, with &annotation=<key> for an annotation,
// zotero://open-pdf/library/items/<attachmentKey>?cfi=<CFI> for an
// annotation on an EPUB, and zotero://select/library/items/<key> for the
// rest.
//
// Zotero is never disturbed: its database is never opened. zotero.sqlite
// and its write-ahead log, when there is one, are copied (read-only, with
// no lock) into the SDK's own cache and the copy is opened there, so the
// newest changes, still in the log of a running Zotero, are seen; a
// change of either file's size or modification time makes the next call
// copy them again. Nothing is ever written into Zotero's folders.
//
// Searches go through one library index (package internal/libindex) per
// data directory, kept in the cache folder with the model read from the
// last snapshot: each regular item, standalone note or attachment is
// indexed under its key with a stamp of its record, notes, annotations
// and attachments' files, and only the items whose stamp changed are
// indexed again after a change; a scope (a collection, a tag, an item, a
// group) searches the index narrowed to its items. A new process whose
// database did not change since the last snapshot reads that model from
// the cache instead of copying the database. While the index takes items
// in, a search answers within Options.IndexWait from what is indexed,
// saying so in sources.Results.Indexing.
package zotero

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources"
)

// Kind is the grant kind of a Zotero source.
const Kind grant.Kind = "zotero"

// Environment variables the driver registered on import reads when no
// Go host configured it (see Configure).
const (
	EnvDir     = "RESEARCHCTX_ZOTERO_DIR"
	EnvBaseDir = "RESEARCHCTX_ZOTERO_BASE_DIR"
	// EnvProfile names Zotero's profile folder, whose prefs.js gives the
	// base directory when EnvBaseDir is not set.
	EnvProfile = "RESEARCHCTX_ZOTERO_PROFILE"
)

// Errors a caller may branch on.
var (
	// ErrNotConfigured: no Zotero data directory is configured.
	ErrNotConfigured = errors.New("no Zotero library is configured (set " + EnvDir + ")")
	// ErrOtherLibrary: the grant was made for another Zotero data
	// directory than the one this process is configured with.
	ErrOtherLibrary = errors.New("the grant was made for another Zotero library than this server is configured with")
	// ErrSchema: the database's userdata schema is one this version does
	// not know.
	ErrSchema = errors.New("unknown Zotero database schema")
	// ErrDatabase: the database cannot be read (damaged, truncated, not a
	// Zotero database, or changing faster than it can be copied).
	ErrDatabase = errors.New("the Zotero database cannot be read")
)

// Options say where a Zotero library is. They are the host's to set, never
// a grant's.
type Options struct {
	// DataDir is Zotero's data directory, the folder holding zotero.sqlite
	// and storage/ (an absolute path).
	DataDir string
	// BaseDir is the base directory of linked files, Zotero's
	// extensions.zotero.baseAttachmentPath: the folder that
	// "attachments:<path>" paths are relative to. Empty when the library
	// has none (and ProfileDir gives none); linked files are then read
	// only inside DataDir.
	BaseDir string
	// ProfileDir is Zotero's profile folder (an absolute path), the one
	// holding prefs.js. When BaseDir is empty, the base directory is the
	// extensions.zotero.baseAttachmentPath that prefs.js records. The
	// profile is never looked for: Zotero keeps it apart from the data
	// directory, in a folder of its own per machine and user, so only the
	// host can say where it is.
	ProfileDir string
	// CacheDir is where the database's snapshots and the PDFs' extracted
	// text are kept. Empty: the grant's Vault's cache folder
	// (.agentero/cache/zotero), else the user's cache folder. The
	// library's search index, and the model read from its last snapshot,
	// are kept there too.
	CacheDir string
	// OCR is the engine that reads scanned PDF attachments, as
	// vault.LibraryOptions.OCR is the Vault's: nil for the default
	// (tesseract when installed, unless RESEARCHCTX_OCR says otherwise),
	// ocr.Off() for none. What it recognises is cached under CacheDir, never
	// in the data directory.
	OCR ocr.Engine
	// IndexWait is how long a search waits for the library index to take
	// in the items it lacks (a first search, items changed in Zotero)
	// before it answers from what is indexed so far, saying so in
	// sources.Results.Indexing; 0 means 3 s.
	IndexWait time.Duration
}

// Driver opens Zotero sources. The zero value reads its options from the
// environment (EnvDir, EnvBaseDir) when it is first used.
type Driver struct {
	mu     sync.Mutex
	opts   *Options
	libs   map[string]*Library // by library id
	fromEv bool
}

// New returns a driver for the library opts names, for a host that
// registers its own (reg.Register(zotero.Kind, zotero.New(opts))).
func New(opts Options) *Driver {
	o := opts
	return &Driver{opts: &o}
}

var defaultDriver = &Driver{fromEv: true}

func init() { sources.Register(Kind, defaultDriver) }

// Configure sets the options of the driver registered on import in
// sources.DefaultRegistry, in place of the environment's. A Go host calls
// it once, before resolving or serving a turn.
func Configure(opts Options) {
	defaultDriver.mu.Lock()
	defer defaultDriver.mu.Unlock()
	o := opts
	defaultDriver.opts, defaultDriver.libs = &o, nil
}

// options returns the driver's options, from the environment when it has
// none of its own.
func (d *Driver) options() Options {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.opts != nil {
		return *d.opts
	}
	return Options{DataDir: os.Getenv(EnvDir), BaseDir: os.Getenv(EnvBaseDir), ProfileDir: os.Getenv(EnvProfile)}
}

// config is a Zotero source's grant config: which data directory the
// grant was made for (a hash of its absolute path, so that the grant does
// not spell it out) and what the name selects.
type config struct {
	Library string `json:"library"`
	Name    string `json:"name"`
}

// libraryID identifies a data directory: a hash of its cleaned absolute
// path, with symbolic links resolved.
func libraryID(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	sum := sha256.Sum256([]byte(filepath.Clean(dir)))
	return hex.EncodeToString(sum[:12])
}

// library returns the Library of the driver's data directory, opened once
// per process.
func (d *Driver) library(env *sources.Env) (*Library, error) {
	opts := d.options()
	if opts.DataDir == "" {
		return nil, ErrNotConfigured
	}
	if !filepath.IsAbs(opts.DataDir) || opts.BaseDir != "" && !filepath.IsAbs(opts.BaseDir) || opts.ProfileDir != "" && !filepath.IsAbs(opts.ProfileDir) {
		return nil, fmt.Errorf("%w: the Zotero data, base and profile directories must be absolute paths", ErrNotConfigured)
	}
	id := libraryID(opts.DataDir)
	d.mu.Lock()
	defer d.mu.Unlock()
	if l := d.libs[id]; l != nil {
		return l, nil
	}
	cache := opts.CacheDir
	if cache == "" {
		cache = cacheRoot(env)
	}
	base := opts.BaseDir
	if base == "" && opts.ProfileDir != "" {
		// Read once per library: Zotero reads its preferences at start
		// too, and a changed base directory takes a new process.
		b, err := baseFromProfile(opts.ProfileDir)
		if err != nil {
			return nil, err
		}
		base = b
	}
	l := newLibrary(id, opts.DataDir, base, cache)
	l.pdfs.ocr.opt = opts.OCR
	if opts.IndexWait > 0 {
		l.wait = opts.IndexWait
	}
	if d.libs == nil {
		d.libs = map[string]*Library{}
	}
	d.libs[id] = l
	return l, nil
}

// cacheRoot is where a library's snapshots go when the host named no
// folder: the grant's Vault's cache, else the user's cache folder.
func cacheRoot(env *sources.Env) string {
	if env != nil && env.Vault != nil {
		if dir := env.Vault.CacheDir(); dir != "" && dir != "-" {
			return filepath.Join(dir, "zotero")
		}
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "researchctx", "zotero")
	}
	return ""
}

// Ref returns the source a name designates (see the package comment).
func (d *Driver) Ref(ctx context.Context, name string, env *sources.Env) (*sources.Named, error) {
	l, err := d.library(env)
	if err != nil {
		return nil, err
	}
	snap, err := l.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := snap.scope(name)
	if err != nil {
		return nil, err
	}
	cfg, _ := json.Marshal(config{Library: l.id, Name: sc.name})
	n := &sources.Named{Ref: grant.Ref{Kind: Kind, Path: sc.path, Title: sc.title, Config: cfg}}
	if sc.doc != "" {
		n.Doc = sc.doc
	}
	return n, nil
}

// Open re-opens the source a grant names. A grant made for another data
// directory than the driver's is refused (ErrOtherLibrary).
func (d *Driver) Open(ctx context.Context, ref grant.Ref, env *sources.Env) (sources.Source, error) {
	var cfg config
	if err := json.Unmarshal(ref.Config, &cfg); err != nil || cfg.Library == "" {
		return nil, fmt.Errorf("%w: the grant's Zotero config is malformed", grant.ErrInvalid)
	}
	l, err := d.library(env)
	if err != nil {
		return nil, err
	}
	if cfg.Library != l.id {
		return nil, ErrOtherLibrary
	}
	snap, err := l.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := snap.scope(cfg.Name)
	if err != nil {
		return nil, err
	}
	if sc.path != ref.Path {
		return nil, fmt.Errorf("%w: the grant's Zotero source %q names %q now", sources.ErrNotFound, ref.Path, sc.path)
	}
	return &Source{l: l, name: cfg.Name, path: ref.Path, title: ref.Title}, nil
}

// splitName decodes a name's percent-encoded segments.
func splitName(name string) ([]string, error) {
	name = strings.TrimSuffix(name, "/")
	if name == "" {
		return nil, nil
	}
	segs := strings.Split(name, "/")
	for i, s := range segs {
		d, err := url.PathUnescape(s)
		if err != nil || d == "" || strings.ContainsRune(d, 0) {
			return nil, fmt.Errorf("%w: zotero:%s is not a well-formed name", sources.ErrNotFound, name)
		}
		segs[i] = d
	}
	return segs, nil
}
