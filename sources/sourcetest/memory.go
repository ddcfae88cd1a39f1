package sourcetest

import (
	"context"
	"fmt"
	"sync"

	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// Memory is a Source over documents held in memory. It is what a test or a
// connector prototype uses, and it shows what a Source must do: tools and
// the MCP server serve it exactly as they serve the Vault's own sources.
type Memory struct {
	info sources.Info
	docs []*sources.Document

	once sync.Once
	ui   *units.Index
}

// NewMemory returns a source with the given identity over docs; the first
// document is the main one (what Read("") returns).
func NewMemory(info sources.Info, docs ...*sources.Document) *Memory {
	return &Memory{info: info, docs: docs}
}

// Info implements sources.Source.
func (m *Memory) Info() sources.Info { return m.info }

// Read implements sources.Source.
func (m *Memory) Read(ctx context.Context, p string) (*sources.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p == "" || p == m.info.Path {
		if len(m.docs) == 0 {
			return nil, fmt.Errorf("%w: %s has no documents", sources.ErrNotFound, m.info.Path)
		}
		return m.docs[0], nil
	}
	for _, d := range m.docs {
		if d.Path == p {
			return d, nil
		}
	}
	return nil, outsideErr(p, m.info.Path)
}

// Search implements sources.Source.
func (m *Memory) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.once.Do(func() {
		var us []units.Unit
		for _, d := range m.docs {
			us = append(us, units.Of(d)...)
		}
		m.ui = units.Build(us)
	})
	return m.ui.Search(q), nil
}

// TextDocument returns the Document of a text file's content: one part, with
// Markdown headings as sections when path ends in .md. It helps build Memory
// sources.
func TextDocument(path, text string) *sources.Document { return units.TextDocument(path, text) }

// outsideErr is the ErrOutside error of a path asked of the source ref, as
// the Vault's sources give it: a path that is not a clean relative one (an
// absolute path of the machine, say) is not echoed.
func outsideErr(p, ref string) error {
	rel, err := safefs.Clean(p)
	if err != nil {
		return fmt.Errorf("%s: path is %w", ref, sources.ErrOutside)
	}
	return fmt.Errorf("%s: %w %s", rel, sources.ErrOutside, ref)
}
