// Package bib is a connector for BibTeX files, as Zotero, JabRef and other
// reference managers export them: each entry, with the PDFs its file field
// names, becomes searchable and readable by the research context tools.
//
// A BibTeX file in the Vault is granted by mentioning it with the bib
// scheme ("bib:refs.bib"), and one of its entries by a selection whose path
// names it ("bib:refs.bib/vaswani2017"). Importing the package registers
// the driver in sources.DefaultRegistry, as a database/sql driver
// registers itself, so that the host executable that links it re-opens the
// source when it runs as the MCP server:
//
//	import _ "github.com/researchctx/researchctx/examples/bibsource/bib"
//
// Tests and hosts that keep registries of their own register Driver{} in
// them instead.
//
// Inside the source, the entry with key K is the document "refs.bib/K": a
// record (title, authors, year, venue, identifiers, abstract) followed by
// the pages of its first PDF, cited "refs.bib/K#page=N"; further PDFs are
// "refs.bib/K/<file name>". Every file is read through the Vault's library
// (sources.Documents.Document), so a file field naming a path outside the
// Vault, through a symbolic link or into .agentero/ is never read: the entry
// says the file is not readable.
package bib

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
)

// Kind is the source kind of a BibTeX file, and the scheme of its names.
const Kind grant.Kind = "bib"

func init() { sources.Register(Kind, Driver{}) }

// Driver is the BibTeX connector. Its zero value is ready to use.
type Driver struct{}

// Config is the JSON configuration stored in a grant's source.
type Config struct {
	// File is the BibTeX file, vault-relative.
	File string `json:"file"`
}

// Ref implements sources.Driver: name is a vault-relative .bib file,
// optionally followed by /KEY for one of its entries.
func (Driver) Ref(ctx context.Context, name string, env *sources.Env) (*sources.Named, error) {
	file, key := splitName(name)
	if file == "" {
		return nil, fmt.Errorf("%w: a bib name is a .bib file of the vault, optionally followed by /KEY", sources.ErrNotFound)
	}
	s, err := open(ctx, file, env)
	if err != nil {
		return nil, err
	}
	n := &sources.Named{Ref: s.ref()}
	if key != "" {
		e := s.byKey[key]
		if e == nil {
			return nil, fmt.Errorf("%w: %s has no entry %q", sources.ErrNotFound, file, key)
		}
		n.Doc = e.path
	}
	return n, nil
}

// splitName cuts "dir/refs.bib/KEY" into the file and the key.
func splitName(name string) (file, key string) {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		if strings.EqualFold(path.Ext(s), ".bib") {
			return strings.Join(segs[:i+1], "/"), strings.Join(segs[i+1:], "/")
		}
	}
	return "", ""
}

// Open implements sources.Driver: it reads and parses the file the
// config names, which must be the source's path.
func (Driver) Open(ctx context.Context, ref grant.Ref, env *sources.Env) (sources.Source, error) {
	var c Config
	dec := json.NewDecoder(bytes.NewReader(ref.Config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("bib config: %w", err)
	}
	if c.File != ref.Path {
		return nil, fmt.Errorf("bib config names %q, not the source's path %q", c.File, ref.Path)
	}
	return open(ctx, c.File, env)
}

// ErrNoLibrary is returned when the connector is used without the Vault's
// library, where its files are.
var ErrNoLibrary = errors.New("the bib connector needs the Vault's library")

// open reads and parses the BibTeX file at the vault-relative path file.
func open(ctx context.Context, file string, env *sources.Env) (*Source, error) {
	if env == nil || env.Vault == nil {
		return nil, ErrNoLibrary
	}
	doc, err := env.Vault.Document(ctx, file)
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	for _, p := range doc.Parts {
		text.WriteString(p.Text)
	}
	entries, err := Parse(text.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doc.Path, err)
	}
	return newSource(env.Vault, doc.Path, entries), nil
}
