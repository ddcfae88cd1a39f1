package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/sources/vault"
)

// Labels is the labelled set: the corpus papers as library papers (their
// identity as their first page prints it), the titles of the reference
// entries of a sample of them, and which corpus papers each cites.
type Labels struct {
	Papers []LabelledPaper `json:"papers"`
}

// LabelledPaper is one corpus PDF with its labels.
type LabelledPaper struct {
	File    string   `json:"file"` // corpus PDF name
	Title   string   `json:"title"`
	Authors []string `json:"authors,omitempty"`
	Year    int      `json:"year,omitempty"`
	ArXiv   string   `json:"arxivId,omitempty"`
	DOI     string   `json:"doi,omitempty"`
	// Entries are the titles of its reference entries in order, for the
	// papers whose bibliography is labelled; nil when not labelled.
	Entries []string `json:"entries,omitempty"`
	// EntryCount is how many entries its bibliography prints, when that
	// is more than the entries labelled.
	EntryCount int `json:"entryCount,omitempty"`
	// Cites names the corpus PDFs its bibliography cites.
	Cites []string `json:"cites,omitempty"`
	// Split is the group it is scored in: "tune", "heldout", "fresh", "columns" or "blind".
	Split string `json:"split"`
}

// Ref is the paper's folder in the benchmark library.
func (p *LabelledPaper) Ref() string {
	return "papers/" + strings.TrimSuffix(p.File, ".pdf")
}

// ReadLabels reads the labelled set.
func ReadLabels(name string) (*Labels, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var l Labels
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	return &l, nil
}

// BuildVault lays the corpus PDFs out as one library under dir: one paper
// folder per PDF with its metadata.json, no reference sidecars.
func BuildVault(pdfs, dir string, l *Labels) error {
	for _, p := range l.Papers {
		data, err := os.ReadFile(filepath.Join(pdfs, p.File))
		if err != nil {
			return err
		}
		unit := filepath.Join(dir, filepath.FromSlash(p.Ref()))
		if err := os.MkdirAll(unit, 0o755); err != nil {
			return err
		}
		meta := map[string]any{"title": p.Title}
		if len(p.Authors) > 0 {
			meta["authors"] = p.Authors
		}
		if p.Year > 0 {
			meta["year"] = p.Year
		}
		if p.ArXiv != "" {
			meta["arxiv_id"] = p.ArXiv
		}
		if p.DOI != "" {
			meta["doi"] = p.DOI
		}
		m, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(unit, "metadata.json"), m, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(unit, p.File), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Open opens the library at dir with the citation graph reading PDF text as
// the tools do.
func Open(dir string) (*catalog.Vault, *vault.Library, *relations.Graph, error) {
	return openWith(dir, nil)
}

// openWith is Open with the library's options.
func openWith(dir string, opts *vault.LibraryOptions) (*catalog.Vault, *vault.Library, *relations.Graph, error) {
	v, err := catalog.Open(dir, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	lib, err := vault.OpenLibrary(dir, opts)
	if err != nil {
		v.Close()
		return nil, nil, nil, err
	}
	return v, lib, relations.New(v, &relations.Options{Text: func(ctx context.Context, p *catalog.Paper) (string, error) {
		return libText(ctx, lib, p.Ref)
	}}), nil
}

// libText is a library paper's text as the paper source gives it to the
// citation graph: its parts (PDF pages) separated by form feeds.
func libText(ctx context.Context, lib *vault.Library, ref string) (string, error) {
	src, err := lib.Open(ctx, grant.KindPaper, ref)
	if err != nil {
		return "", err
	}
	doc, err := src.Read(ctx, "")
	if err != nil {
		return "", err
	}
	texts := make([]string, len(doc.Parts))
	for i, part := range doc.Parts {
		texts[i] = part.Text
	}
	return strings.Join(texts, "\f"), nil
}

// paperText is the PDF text of one labelled paper as the graph reads it.
func paperText(ctx context.Context, v *catalog.Vault, lib *vault.Library, ref string) (string, error) {
	cat, err := v.Catalogue(ctx)
	if err != nil {
		return "", err
	}
	p := cat.Paper(ref)
	if p == nil {
		return "", fmt.Errorf("%s: not a library paper", ref)
	}
	return libText(ctx, lib, p.Ref)
}
