// Package vault is the driver of the Vault, the researcher's folder of
// papers and notes: it opens its papers (paper units with a PDF, PAPER.md,
// NOTES.md, metadata and layout), directories, plain files and loose PDFs
// as sources (package sources), through a Library that keeps their
// catalogue, indexes and extracted text between processes.
//
// It is a driver like any other: when it is linked it registers its
// library opener and the kinds paper, directory and file in
// sources.DefaultRegistry (sources.Registry.RegisterLibrary), and
// RegisterLibrary adds them to a host's own Registry. Its Library is the
// sources.Library that package tools serves a grant's Vault through, and
// the sources.Documents a connector whose files live in the Vault reads
// them through.
package vault

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
)

// kinds are the kinds of source the Vault's library opens.
var kinds = []grant.Kind{grant.KindPaper, grant.KindDirectory, grant.KindFile}

func init() { RegisterLibrary(sources.DefaultRegistry) }

// RegisterLibrary adds the Vault's library opener and its kinds —
// grant.KindPaper, grant.KindDirectory and grant.KindFile — to r
// (sources.Registry.RegisterLibrary), as its init function does to
// sources.DefaultRegistry, and returns r: a host or a test with its own
// registry starts from vault.RegisterLibrary(sources.NewRegistry()), then
// registers its connectors. It panics, as sources.Registry.Register does,
// when a library or one of the kinds is registered in r already.
func RegisterLibrary(r *sources.Registry) *sources.Registry {
	r.RegisterLibrary(openLibrary, kinds...)
	return r
}

// openLibrary is the Vault's sources.OpenLibraryFunc: OpenLibrary with the
// options a registry's caller gives.
func openLibrary(_ context.Context, root string, opts *sources.LibraryOptions) (sources.Library, error) {
	lib, err := OpenLibrary(root, &LibraryOptions{CacheDir: opts.CacheDir, CheckPapersLater: opts.Serving})
	if err != nil {
		return nil, err
	}
	return lib, nil
}

// Rel implements sources.Documents: the vault-relative path of abs, a
// slash-separated absolute path inside the Vault.
func (l *Library) Rel(abs string) (string, bool) {
	return strings.CutPrefix(abs, filepath.ToSlash(l.Root())+"/")
}

var _ sources.Library = (*Library)(nil)
