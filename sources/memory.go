package sources

import (
	"context"
	"fmt"
	"sync"
)

// Memory is a Source over documents held in memory. It is what a test or a
// connector prototype uses, and it shows what a Source must do: tools and
// the MCP server serve it exactly as they serve the Vault's own sources.
type Memory struct {
	info Info
	docs []*Document

	once sync.Once
	ui   *unitIndex
}

// NewMemory returns a source with the given identity over docs; the first
// document is the main one (what Read("") returns).
func NewMemory(info Info, docs ...*Document) *Memory {
	return &Memory{info: info, docs: docs}
}

// Info implements Source.
func (m *Memory) Info() Info { return m.info }

// Read implements Source.
func (m *Memory) Read(ctx context.Context, p string) (*Document, error) {
	if p == "" || p == m.info.Ref {
		if len(m.docs) == 0 {
			return nil, fmt.Errorf("%w: %s has no documents", ErrNotFound, m.info.Ref)
		}
		return m.docs[0], nil
	}
	for _, d := range m.docs {
		if d.Path == p {
			return d, nil
		}
	}
	return nil, outsideErr(p, m.info.Ref)
}

// Search implements Source.
func (m *Memory) Search(ctx context.Context, q Query) (*Results, error) {
	m.once.Do(func() {
		var units []unit
		for _, d := range m.docs {
			units = append(units, documentUnits(d)...)
		}
		m.ui = buildUnitIndex(units)
	})
	return m.ui.search(q), nil
}

// TextDocument returns the Document of a text file's content: one part, with
// Markdown headings as sections when path ends in .md. It helps build Memory
// sources.
func TextDocument(path, text string) *Document { return textDocument(path, text) }
