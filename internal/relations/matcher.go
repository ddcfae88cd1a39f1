package relations

import (
	"path/filepath"
	"time"

	"github.com/researchctx/researchctx/internal/catalog"
)

// Reference is a work a paper's text cites (see TextReferences).
type Reference struct {
	Work
	// ByTitle says the title was parsed from the entry, so that a title
	// match may tie the work to a library paper; a title cut from the
	// entry's raw text never does.
	ByTitle bool
}

// TextReferences returns the references of a paper's text, its pages
// separated by form feeds, as the Graph reads them from a PDF: one per
// entry of its reference section (see Entries), with its label and the
// sentences of the body that cite it, then one per DOI or arXiv id of the
// section that no entry holds. No work is tied to a library paper: see
// Matcher.
func TextReferences(text string) []Reference {
	rs := textRefs(text, true)
	out := make([]Reference, len(rs))
	for i, r := range rs {
		out[i] = Reference{Work: Work{Title: r.title, Authors: r.authors, Year: r.year, DOI: r.doi, ArXivID: r.arxiv, Label: r.label, Contexts: r.contexts}, ByTitle: r.parsed}
	}
	return out
}

// Matcher ties references to the papers of a library that is not a Vault
// (a reference manager's), by the rules the Graph applies: a DOI or arXiv
// id match, else, for a reference whose title was parsed, a title that
// names exactly one paper and agrees with its year or first author. A
// paper's title, authors and year are its Meta's; its DOI and ArXiv are
// normalised (see cite.Identifiers).
type Matcher struct {
	ids map[string]*catalog.Paper
	tix *titleIndex
}

// NewMatcher indexes papers; the first of two papers with one identifier
// is the one it names.
func NewMatcher(papers []*catalog.Paper) *Matcher {
	m := &Matcher{ids: map[string]*catalog.Paper{}}
	for _, p := range papers {
		for _, k := range []string{idKey(p.DOI, ""), idKey("", p.ArXiv)} {
			if _, ok := m.ids[k]; k != "" && !ok {
				m.ids[k] = p
			}
		}
	}
	m.tix = newTitleIndexOf(papers, func(p *catalog.Paper) string { return p.Meta.Title })
	return m
}

// Match returns the paper r names, or nil.
func (m *Matcher) Match(r Reference) *catalog.Paper {
	for _, k := range []string{idKey(r.DOI, ""), idKey("", r.ArXivID)} {
		if p := m.ids[k]; k != "" && p != nil {
			return p
		}
	}
	if !r.ByTitle {
		return nil
	}
	return m.tix.match(ref{title: r.Title, authors: r.Authors, year: r.Year, parsed: true})
}

// RefCache keeps the references parsed from a library's PDFs on disk
// between processes, as the Graph keeps its own (see Options.CacheDir),
// for a library that is not a Vault: one sealed entry per PDF, used only
// when it names the same PDF, modification time and size and was written
// by this parser and text extractor. It is used by one build at a time.
type RefCache struct{ c *refCache }

// NewRefCache returns the cache in the refs folder of dir ("" for none);
// library names the library in every entry's name.
func NewRefCache(dir, library string) *RefCache {
	rc := &refCache{root: library, version: parserVersion}
	if dir != "" {
		rc.dir = filepath.Join(dir, refCacheDir)
	}
	return &RefCache{c: rc}
}

// Load returns the references cached for the PDF at path, as it is
// (modification time and size).
func (c *RefCache) Load(path string, mtime time.Time, size int64) ([]Reference, bool) {
	rs, _, _, ok := c.c.load(stamp{path: path, exists: true, mtime: mtime, size: size})
	if !ok {
		return nil, false
	}
	out := make([]Reference, len(rs))
	for i, r := range rs {
		out[i] = Reference{Work: Work{Title: r.title, Authors: r.authors, Year: r.year, DOI: r.doi, ArXivID: r.arxiv, Label: r.label, Contexts: r.contexts}, ByTitle: r.parsed}
	}
	return out, true
}

// Store queues the references parsed from the PDF at path for Flush.
func (c *RefCache) Store(path string, mtime time.Time, size int64, refs []Reference) {
	rs := make([]ref, len(refs))
	for i, r := range refs {
		rs[i] = ref{title: r.Title, authors: r.Authors, year: r.Year, doi: r.DOI, arxiv: r.ArXivID, parsed: r.ByTitle, label: r.Label, contexts: r.Contexts}
	}
	c.c.store(stamp{path: path, exists: true, mtime: mtime, size: size}, rs, [2]string{}, PaperMeta{})
}

// Flush writes the queued entries and releases the folder.
func (c *RefCache) Flush() { c.c.flush() }
