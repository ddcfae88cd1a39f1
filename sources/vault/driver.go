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

// Kinds are the kinds of source the Vault's driver opens.
var Kinds = []grant.Kind{grant.KindPaper, grant.KindDirectory, grant.KindFile}

func init() { Register(sources.DefaultRegistry) }

// Register adds the Vault's kinds (Kinds) to r, as its init function does
// to sources.DefaultRegistry: a host or a test with its own registry calls
// it. It panics, as sources.Registry.Register does, when one of them is
// registered in r already.
func Register(r *sources.Registry) {
	for _, k := range Kinds {
		r.Register(k, Driver{kind: k})
	}
}

// NewRegistry returns a registry that opens the Vault's kinds and no
// connector.
func NewRegistry() *sources.Registry {
	r := sources.NewRegistry()
	Register(r)
	return r
}

// Driver opens the Vault's sources of one kind (one of Kinds) through the
// Library of the caller's Env. It is a sources.Trusted driver.
type Driver struct{ kind grant.Kind }

var _ sources.Trusted = Driver{}

// Trusted implements sources.Trusted: the Vault's sources are the SDK's
// own.
func (Driver) Trusted() bool { return true }

// Ref implements sources.Driver: "paper:papers/x" names the Vault's source
// of that kind at that vault-relative path, when the path is of that kind.
func (d Driver) Ref(ctx context.Context, name string, env *sources.Env) (*sources.Named, error) {
	lib, err := library(env, "", "")
	if err != nil {
		return nil, err
	}
	it, err := lib.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	if it.Kind != d.kind {
		return nil, fmt.Errorf("%w: %s is a %s, not a %s", sources.ErrNotFound, it.Path, it.Kind, d.kind)
	}
	return &sources.Named{Ref: grant.Ref{Kind: it.Kind, Path: it.Path}}, nil
}

// Open implements sources.Driver: it opens the source ref names through
// env's Library (Library.Open).
func (Driver) Open(ctx context.Context, ref grant.Ref, env *sources.Env) (sources.Source, error) {
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
		if kind == "" {
			return nil, fmt.Errorf("a Vault source needs the Vault's library")
		}
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
