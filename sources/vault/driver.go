// Package vault is the driver of the Vault, the researcher's folder of
// papers and notes: it opens its papers (paper units with a PDF, PAPER.md,
// NOTES.md, metadata and layout), directories, plain files and loose PDFs
// as sources (package sources), through a Library that keeps their
// catalogue, indexes and extracted text between processes.
//
// It is a driver like any other: it registers the kinds paper, directory
// and file in sources.DefaultRegistry when it is linked, and Register adds
// them to a host's own Registry. Its driver is sources.Trusted (the
// Vault's error messages are the SDK's own), and its Library is the
// sources.Documents a connector whose files live in the Vault reads them
// through.
package vault

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
)

// kinds are the kinds of source the Vault's driver opens.
var kinds = []grant.Kind{grant.KindPaper, grant.KindDirectory, grant.KindFile}

func init() { Register(sources.DefaultRegistry) }

// Register adds the Vault's kinds — grant.KindPaper, grant.KindDirectory
// and grant.KindFile — to r, as its init function does
// to sources.DefaultRegistry: a host or a test with its own registry calls
// it. It panics, as sources.Registry.Register does, when one of them is
// registered in r already.
func Register(r *sources.Registry) {
	for _, k := range kinds {
		r.Register(k, driver{kind: k})
	}
}

// NewRegistry returns a registry that opens the Vault's kinds and no
// connector: what a host that registers its connectors in a registry of
// its own, or a test, starts from.
func NewRegistry() *sources.Registry {
	r := sources.NewRegistry()
	Register(r)
	return r
}

// driver opens the Vault's sources of one kind through the Library of the
// caller's Env. It is a sources.Trusted driver.
type driver struct{ kind grant.Kind }

var _ sources.Trusted = driver{}

// Trusted implements sources.Trusted: the Vault's sources are the SDK's
// own.
func (driver) Trusted() bool { return true }

// Ref implements sources.Driver: a Vault source is named by its
// vault-relative path, never as "kind:name", so Ref names nothing (an error
// wrapping sources.ErrUnsupported) and the resolver takes "paper:x" for
// the vault path it is.
func (d driver) Ref(context.Context, string, *sources.Env) (*sources.Named, error) {
	return nil, fmt.Errorf("%w: a %s of the Vault is named by its path", sources.ErrUnsupported, d.kind)
}

// Open implements sources.Driver: it opens the source ref names through
// env's Library (Library.Open).
func (driver) Open(ctx context.Context, ref grant.Ref, env *sources.Env) (sources.Source, error) {
	lib, err := library(env, ref.Path, ref.Kind)
	if err != nil {
		return nil, err
	}
	return lib.Open(ctx, ref.Kind, ref.Path)
}

// library returns env's Vault as a Library.
func library(env *sources.Env, p string, kind grant.Kind) (*Library, error) {
	var lib *Library
	if env != nil {
		lib, _ = env.Vault.(*Library)
	}
	if lib == nil {
		return nil, fmt.Errorf("%s: a %s source needs the Vault's library", p, kind)
	}
	return lib, nil
}

// Rel implements sources.Documents: the vault-relative path of abs, a
// slash-separated absolute path inside the Vault.
func (l *Library) Rel(abs string) (string, bool) {
	return strings.CutPrefix(abs, filepath.ToSlash(l.Root())+"/")
}

var _ sources.Documents = (*Library)(nil)
