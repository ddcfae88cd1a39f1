package researchctx

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"syscall"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// MaxQuote is the longest quote, in characters, that evidence carries into
// the prompt; the rest is for context_read.
const MaxQuote = 1200

// Evidence is one piece of minimal evidence for the prompt: where a quote
// is from and how to cite it. It never carries an abstract.
type Evidence struct {
	PaperRef    string `json:"paperRef,omitempty"`
	Path        string `json:"path,omitempty"` // the file the quote is from
	Title       string `json:"title,omitempty"`
	Page        int    `json:"page,omitempty"`
	Section     string `json:"section,omitempty"`
	Quote       string `json:"quote"`
	Truncated   bool   `json:"truncated"`
	CitationURI string `json:"citationUri"`
	// CitationURIs, when the quote's text runs over a page break, cites
	// every page it is on, in order; CitationURI is then the page the
	// selection names (or where the quote was found).
	CitationURIs []string `json:"citationUris,omitempty"`
	// Unreadable marks evidence from a document Resolve could not read (a
	// damaged or encrypted PDF, an HTML page saved as .pdf): its page and
	// citation are the host's, not checked against the text.
	Unreadable bool `json:"unreadable,omitempty"`
	// Comment, when the selection is one of the user's own marks on the
	// page (a highlight they commented, say), is that mark's comment, and
	// MarkKind its kind: quote and comment are at most MaxQuote
	// characters together. Like the quote it is the user's data.
	Comment  string           `json:"comment,omitempty"`
	MarkKind sources.MarkKind `json:"markKind,omitempty"`
}

// Plan is the resolved scope of one turn.
type Plan struct {
	Vault     string     `json:"vault"`
	RuntimeID string     `json:"runtimeId"`
	TurnID    string     `json:"turnId"`
	Evidence  []Evidence `json:"evidence"`
	// Scope is what the agent may expand: sources, tools, budget, mode.
	grant.Scope
	Fingerprint string    `json:"fingerprint"`
	Dropped     []Dropped `json:"dropped"`
	// Notes say, one line each, what Resolve changed in the Request other
	// than dropping a path: a budget override above its hard limit,
	// capped (grant.BudgetOverrides.Capped).
	Notes []string `json:"notes,omitempty"`
}

// Grant returns the grant of the plan, stamped now.
func (p *Plan) Grant() *grant.Grant {
	sc := p.Scope
	sc.Sources = append([]grant.Ref{}, p.Sources...)
	sc.Tools = append([]string{}, p.Tools...)
	return &grant.Grant{
		Version:     grant.FormatVersion,
		Vault:       p.Vault,
		RuntimeID:   p.RuntimeID,
		TurnID:      p.TurnID,
		Scope:       sc,
		Fingerprint: p.Fingerprint,
		CreatedAt:   time.Now().UTC().Truncate(time.Second),
	}
}

// WriteGrant writes the plan's grant to its place under the Vault
// (grant.Write) and returns its path. A host calls it every turn: the turn
// id changes, and the fingerprint stays the same while the scope does.
//
// The grant folder is where docs/contract.md §5 puts it, {vault}/.agentero/context-sessions/,
// whatever cache folder the host chose: a Vault the process cannot write
// gets an error wrapping ErrReadOnly.
func (p *Plan) WriteGrant() (string, error) {
	path, err := grant.Write(p.Grant())
	if err != nil && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		return "", fmt.Errorf("%w: the grant folder %s/%s cannot be written: %w", ErrReadOnly, agentero.Sessions, p.RuntimeID, err)
	}
	return path, err
}

// ErrReadOnly is wrapped by WriteGrant's error when the Vault cannot be
// written: a read-only Vault still resolves (with its caches in
// Resolver.CacheRoot), but its turns cannot have a grant, so a host runs
// them prompt-only or makes .agentero/context-sessions writable.
var ErrReadOnly = errors.New("the vault is read-only")

// ErrRequest is wrapped by errors about a malformed Request (as opposed to
// paths in it that cannot be authorised, which become Plan.Dropped).
var ErrRequest = errors.New("invalid request")

// Resolver resolves Requests, keeping each Vault it has seen open as a
// vault.Library so its catalogue and caches are reused across turns. The
// zero Resolver is ready to use and safe for concurrent use.
type Resolver struct {
	// CacheRoot is a folder for the caches of every Vault the Resolver
	// opens, in place of each Vault's own .agentero/cache: each Vault gets a
	// subfolder of it, named after the Vault's folder and a hash of its
	// path, so two Vaults never share one and a read-only Vault still
	// resolves with its caches kept. The server started for the turn must
	// be given the same folder (tools.Options.CacheRoot, or
	// `researchctx serve -cache-dir`). "-" keeps no cache on disk. Set it
	// before the first Resolve.
	CacheRoot string

	mu   sync.Mutex
	libs map[string]*vault.Library // by Vault root

	// Registry has the connector kinds a mention or a selection's path may
	// name as "kind:name" ("bib:refs.bib"); nil means
	// sources.DefaultRegistry. A registry of the host's own has the
	// Vault's kinds once vault.RegisterLibrary adds them.
	Registry *sources.Registry
}

var defaultResolver Resolver

// Library returns the Library of the Vault at the absolute root, opening it
// once.
func (r *Resolver) Library(root string) (*vault.Library, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.libs[root]; l != nil {
		return l, nil
	}
	l, err := vault.OpenLibrary(root, &vault.LibraryOptions{CacheDir: agentero.VaultCache(r.CacheRoot, root)})
	if err != nil {
		return nil, err
	}
	if r.libs == nil {
		r.libs = map[string]*vault.Library{}
	}
	r.libs[root] = l
	return l, nil
}

// Close closes every Library the Resolver opened.
func (r *Resolver) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for k, l := range r.libs {
		errs = append(errs, l.Close())
		delete(r.libs, k)
	}
	return errors.Join(errs...)
}

// registry returns the connectors the Resolver's requests may name.
func (r *Resolver) registry() *sources.Registry {
	if r.Registry != nil {
		return r.Registry
	}
	return sources.DefaultRegistry
}
