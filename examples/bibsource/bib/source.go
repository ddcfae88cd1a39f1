package bib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
)

// Source is a granted BibTeX file. Besides sources.Source it is a
// sources.Lister (its entries), a sources.Container (each entry is a source
// of its own, a sources.Describer and a sources.Relater), and safe for
// concurrent use.
type Source struct {
	lib   sources.Documents
	file  string // vault-relative; the source's Ref
	items []*item
	byKey map[string]*item
	// skipped says, one line each, which entries were left out and why.
	skipped []string

	recOnce sync.Once
	records map[*item]*sourcetest.Memory // each entry's record, for search
}

var (
	_ sources.Lister    = (*Source)(nil)
	_ sources.Container = (*Source)(nil)
	_ sources.Describer = (*entrySource)(nil)
	_ sources.Relater   = (*entrySource)(nil)
)

// item is one entry, with its fields made plain.
type item struct {
	e        *Entry
	key      string
	path     string // file + "/" + key
	title    string
	authors  []string
	year     int
	venue    string
	doi      string
	arxiv    string
	abstract string
	keywords []string
	links    []string // keys this entry names: crossref, xref, related, cites
	files    []string // vault-relative PDFs
	extras   []string // document paths of the PDFs after the first
	unread   []string // why a named file is not read, one line each

	mu  sync.Mutex
	doc *sources.Document // the entry's document, once read
	ext map[string]*sources.Document
}

func newSource(lib sources.Documents, file string, entries []*Entry) *Source {
	s := &Source{lib: lib, file: file, byKey: map[string]*item{}}
	for _, e := range entries {
		if why := badKey(e.Key); why != "" {
			s.skipped = append(s.skipped, fmt.Sprintf("line %d: key %s %s", e.Line, strconv.Quote(e.Key), why))
			continue
		}
		if s.byKey[e.Key] != nil {
			s.skipped = append(s.skipped, fmt.Sprintf("line %d: key %s is used twice; the first entry is kept", e.Line, strconv.Quote(e.Key)))
			continue
		}
		it := s.newItem(e)
		s.items = append(s.items, it)
		s.byKey[e.Key] = it
	}
	return s
}

// badKey says why a key cannot name a document, or "".
func badKey(k string) string {
	switch {
	case strings.ContainsAny(k, "/\\#?%\"{}") || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' }):
		return "holds a character a citation cannot carry"
	case strings.HasPrefix(k, "."):
		return "starts with '.'"
	case sources.OneLine(k) != k:
		return "holds a control or direction character"
	}
	return ""
}

// badName reports a file name that cannot be one segment of a document
// path: spaces are fine (citations percent-encode them), a slash, a leading
// '.' or a control or direction character are not.
func badName(n string) bool {
	return strings.ContainsAny(n, `/\`) || strings.HasPrefix(n, ".") || sources.OneLine(n) != n
}

func (s *Source) newItem(e *Entry) *item {
	f := e.Fields
	it := &item{e: e, key: e.Key, path: s.file + "/" + e.Key}
	it.title = sources.OneLine(Text(f["title"]))
	if it.title == "" {
		it.title = e.Key
	}
	it.authors = Authors(f["author"])
	if len(it.authors) == 0 {
		it.authors = Authors(f["editor"])
	}
	for i, a := range it.authors {
		it.authors[i] = sources.OneLine(a)
	}
	y := f["year"]
	if y == "" {
		y = f["date"]
	}
	if len(y) >= 4 {
		it.year, _ = strconv.Atoi(y[:4])
	}
	for _, v := range []string{"journal", "journaltitle", "booktitle", "publisher", "school", "institution", "howpublished"} {
		if t := sources.OneLine(Text(f[v])); t != "" {
			it.venue = t
			break
		}
	}
	it.doi = strings.TrimSpace(Text(f["doi"]))
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "http://dx.doi.org/", "https://dx.doi.org/", "doi:"} {
		it.doi = strings.TrimPrefix(it.doi, p)
	}
	it.doi = sources.OneLine(it.doi)
	if ep := strings.ToLower(Text(f["archiveprefix"] + f["eprinttype"])); strings.Contains(ep, "arxiv") {
		it.arxiv = sources.OneLine(Text(f["eprint"]))
	} else if m := arxivInJournal.FindStringSubmatch(f["journal"] + " " + f["note"] + " " + f["url"]); m != nil {
		it.arxiv = m[1]
	}
	it.abstract = sources.OneLine(Text(f["abstract"]))
	for _, k := range strings.FieldsFunc(Text(f["keywords"]), func(r rune) bool { return r == ',' || r == ';' }) {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			it.keywords = append(it.keywords, k)
		}
	}
	for _, field := range []string{"crossref", "xref", "related", "cites"} {
		for _, k := range strings.Split(f[field], ",") {
			if k = strings.TrimSpace(k); k != "" && k != e.Key {
				it.links = append(it.links, k)
			}
		}
	}
	names := map[string]bool{}
	for _, raw := range Files(f["file"] + ";" + f["pdf"]) {
		p, why := s.vaultPath(raw)
		if why != "" {
			it.unread = append(it.unread, why)
			continue
		}
		if len(it.files) > 0 {
			name := path.Base(p)
			for n := 2; names[name] || name == ""; n++ {
				name = strconv.Itoa(n) + "-" + path.Base(p)
			}
			names[name] = true
			if badName(name) {
				it.unread = append(it.unread, fmt.Sprintf("%s: a file name a citation cannot carry", p))
				continue
			}
			it.extras = append(it.extras, it.path+"/"+name)
		}
		it.files = append(it.files, p)
	}
	return it
}

// vaultPath turns a file field's path into a vault-relative one: relative
// paths are taken from the BibTeX file's folder; an absolute path is
// accepted only inside the Vault. why says, without the path, why a file
// cannot be read.
func (s *Source) vaultPath(raw string) (p, why string) {
	raw = strings.ReplaceAll(strings.TrimSpace(raw), `\`, "/")
	if raw == "" {
		return "", ""
	}
	if strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "~") || len(raw) > 1 && raw[1] == ':' {
		rest, ok := s.lib.Rel(raw)
		if !ok {
			return "", "a file outside the vault is not read"
		}
		raw = rest
	} else {
		raw = path.Join(path.Dir(s.file), raw)
	}
	p = path.Clean(raw)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", "a file outside the vault is not read"
	}
	return p, ""
}

func (s *Source) ref() grant.Ref {
	cfg, _ := json.Marshal(Config{File: s.file})
	return grant.Ref{Kind: Kind, Path: s.file, Title: s.title(), Config: cfg}
}

func (s *Source) title() string {
	return sources.OneLine(fmt.Sprintf("%s (BibTeX, %d entries)", path.Base(s.file), len(s.items)))
}

// Info implements sources.Source.
func (s *Source) Info() sources.Info {
	return sources.Info{Path: s.file, Kind: Kind, Title: s.title()}
}

// Read implements sources.Source. "" or the file's path is the catalogue
// (one line per entry); "file/KEY" an entry; "file/KEY/name.pdf" a further
// PDF of an entry.
func (s *Source) Read(ctx context.Context, p string) (*sources.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p == "" || p == s.file {
		return s.catalogue(), nil
	}
	it, rest, err := s.lookup(p)
	if err != nil {
		return nil, err
	}
	return it.read(ctx, s.lib, rest)
}

// lookup finds the entry a document path lies in, and the path.
func (s *Source) lookup(p string) (*item, string, error) {
	rest, ok := strings.CutPrefix(p, s.file+"/")
	if !ok {
		return nil, "", fmt.Errorf("%w: not in %s", sources.ErrOutside, s.file)
	}
	key, _, _ := strings.Cut(rest, "/")
	it := s.byKey[key]
	if it == nil {
		return nil, "", fmt.Errorf("%w: %s has no entry %q", sources.ErrNotFound, s.file, key)
	}
	return it, p, nil
}

// catalogue is the file's main document: one line per entry.
func (s *Source) catalogue() *sources.Document {
	var b strings.Builder
	for _, it := range s.items {
		fmt.Fprintf(&b, "%s: %s", it.key, it.title)
		if len(it.authors) > 0 {
			fmt.Fprintf(&b, " — %s", strings.Join(authors3(it.authors), ", "))
		}
		if it.year > 0 {
			fmt.Fprintf(&b, " (%d)", it.year)
		}
		b.WriteString("\n")
	}
	if len(s.items) == 0 {
		b.WriteString("No entries.\n")
	}
	for _, l := range s.skipped {
		b.WriteString("Left out: " + l + "\n")
	}
	return &sources.Document{Path: s.file, Title: s.title(),
		Parts: []sources.Part{{Location: sources.Location{Path: s.file}, Text: b.String()}}}
}

// read returns the entry's document (p is its path) or one of its
// further PDFs.
func (it *item) read(ctx context.Context, lib sources.Documents, p string) (*sources.Document, error) {
	if p == "" || p == it.path {
		return it.document(ctx, lib)
	}
	for i, x := range it.extras {
		if x == p {
			return it.extra(ctx, lib, x, it.files[i+1])
		}
	}
	if strings.HasPrefix(p, it.path+"/") {
		return nil, fmt.Errorf("%w: %s has no file %q", sources.ErrNotFound, it.path, strings.TrimPrefix(p, it.path+"/"))
	}
	return nil, fmt.Errorf("%w: not in %s", sources.ErrOutside, it.path)
}

// document is the entry's record followed by the pages of its first PDF.
func (it *item) document(ctx context.Context, lib sources.Documents) (*sources.Document, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.doc != nil {
		return it.doc, nil
	}
	unread := append([]string(nil), it.unread...)
	var pdf *sources.Document
	if len(it.files) > 0 {
		d, err := lib.Document(ctx, it.files[0])
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			unread = append(unread, fmt.Sprintf("%s is not readable: %s", it.files[0], reason(err)))
		} else {
			pdf = d
		}
	}
	doc := &sources.Document{Path: it.path, Title: it.title,
		Parts: []sources.Part{{Location: sources.Location{Path: it.path}, Text: it.record(unread)}}}
	if pdf != nil {
		doc.Pages = pdf.Pages
		for _, part := range pdf.Parts {
			part.Location.Path = it.path
			doc.Parts = append(doc.Parts, part)
		}
		for _, sec := range pdf.Sections {
			sec.Part++
			doc.Sections = append(doc.Sections, sec)
		}
	}
	it.doc = doc
	return doc, nil
}

// extra reads a further PDF of the entry as the document at p.
func (it *item) extra(ctx context.Context, lib sources.Documents, p, file string) (*sources.Document, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if d := it.ext[p]; d != nil {
		return d, nil
	}
	d, err := lib.Document(ctx, file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	doc := &sources.Document{Path: p, Title: sources.OneLine(it.title + " — " + path.Base(p)), Pages: d.Pages, Sections: d.Sections}
	for _, part := range d.Parts {
		part.Location.Path = p
		doc.Parts = append(doc.Parts, part)
	}
	if it.ext == nil {
		it.ext = map[string]*sources.Document{}
	}
	it.ext[p] = doc
	return doc, nil
}

// reason is a short, path-free reason a file is not read.
func reason(err error) string {
	switch {
	case errors.Is(err, sources.ErrNotFound):
		return "not found"
	case errors.Is(err, sources.ErrOutside):
		return "outside the vault"
	case errors.Is(err, sources.ErrNotText):
		return "no readable text"
	case errors.Is(err, sources.ErrIsDirectory):
		return "a folder"
	}
	return "it cannot be read"
}

// record is the entry's bibliographic record as text.
func (it *item) record(unread []string) string {
	var b strings.Builder
	b.WriteString(it.title + "\n")
	if len(it.authors) > 0 {
		b.WriteString(strings.Join(it.authors, ", ") + "\n")
	}
	var line []string
	if it.year > 0 {
		line = append(line, strconv.Itoa(it.year))
	}
	if it.venue != "" {
		line = append(line, it.venue)
	}
	if it.doi != "" {
		line = append(line, "DOI "+it.doi)
	}
	if it.arxiv != "" {
		line = append(line, "arXiv "+it.arxiv)
	}
	if len(line) > 0 {
		b.WriteString(strings.Join(line, " · ") + "\n")
	}
	if len(it.keywords) > 0 {
		b.WriteString("Keywords: " + strings.Join(it.keywords, ", ") + "\n")
	}
	if it.abstract != "" {
		b.WriteString("Abstract: " + it.abstract + "\n")
	}
	if len(it.files) > 0 {
		b.WriteString("Files: " + strings.Join(it.files, ", ") + "\n")
	}
	for _, u := range unread {
		b.WriteString("Note: " + u + "\n")
	}
	return b.String()
}

// Search implements sources.Source: see search.
func (s *Source) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	return s.search(ctx, s.items, q)
}

// List implements sources.Lister: the entries of the file, or the further
// PDFs of an entry.
func (s *Source) List(ctx context.Context, p string, max int) ([]sources.Entry, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	var out []sources.Entry
	if p == "" || p == s.file {
		for _, it := range s.items {
			if len(out) == max {
				return out, true, nil
			}
			out = append(out, sources.Entry{Name: it.key, Path: it.path, Kind: grant.KindPaper})
		}
		return out, false, nil
	}
	return nil, false, fmt.Errorf("%w: %s is not a folder", sources.ErrNotFound, p)
}

// Inner implements sources.Container: the entry that holds p.
func (s *Source) Inner(ctx context.Context, p string) (sources.Source, string, error) {
	it, _, err := s.lookup(p)
	if err != nil {
		return nil, "", err
	}
	es := &entrySource{s: s, it: it}
	if p == it.path {
		p = ""
	}
	return es, p, nil
}

// entrySource is one entry as a source.
type entrySource struct {
	s  *Source
	it *item
}

func (e *entrySource) Info() sources.Info {
	return sources.Info{Path: e.it.path, Kind: Kind, Title: e.it.title}
}

func (e *entrySource) Read(ctx context.Context, p string) (*sources.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.it.read(ctx, e.s.lib, p)
}

func (e *entrySource) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	return e.s.search(ctx, []*item{e.it}, q)
}

// Describe implements sources.Describer.
func (e *entrySource) Describe(ctx context.Context) (*sources.Metadata, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	it := e.it
	m := &sources.Metadata{Title: it.title, Authors: it.authors, Year: it.year, Abstract: it.abstract,
		DOI: it.doi, ArXivID: it.arxiv, Documents: append([]string{it.path}, it.extras...)}
	if d, err := it.document(ctx, e.s.lib); err == nil {
		m.Pages = d.Pages
	} else {
		return nil, err
	}
	return m, nil
}

// Relations implements sources.Relater from the file itself: the entries
// this one names in crossref, xref, related or cites are its references;
// the entries naming it cite it; entries sharing keywords or an author are
// related. A named key with no entry is counted in Skipped.
func (e *entrySource) Relations(ctx context.Context) (*sources.Relations, error) {
	s, it := e.s, e.it
	out := &sources.Relations{Main: it.path, References: []sources.Work{}, CitedBy: []sources.Work{}, Related: []sources.Work{}}
	listed := map[string]bool{it.key: true}
	for _, k := range it.links {
		if o := s.byKey[k]; o != nil && !listed[k] {
			listed[k] = true
			out.References = append(out.References, o.work())
		} else if o == nil {
			out.Skipped++
		}
	}
	for _, o := range s.items {
		for _, k := range o.links {
			if k == it.key && !listed[o.key] {
				listed[o.key] = true
				out.CitedBy = append(out.CitedBy, o.work())
			}
		}
	}
	type scored struct {
		o *item
		n int
	}
	var rel []scored
	for _, o := range s.items {
		if listed[o.key] {
			continue
		}
		if n := overlap(it.keywords, o.keywords) + overlap(surnames(it.authors), surnames(o.authors)); n > 0 {
			rel = append(rel, scored{o, n})
		}
	}
	sort.SliceStable(rel, func(i, j int) bool { return rel[i].n > rel[j].n })
	for _, r := range rel {
		out.Related = append(out.Related, r.o.work())
	}
	if len(s.skipped) > 0 {
		out.Problems = append(out.Problems, fmt.Sprintf("%d entries of %s were left out (see its catalogue)", len(s.skipped), s.file))
	}
	return out, nil
}

// work is the entry as a related work.
func (it *item) work() sources.Work {
	return sources.Work{Title: it.title, Authors: authors3(it.authors), Year: it.year, DOI: it.doi, ArXivID: it.arxiv,
		Paper: it.path, CitationURI: cite.File(it.path)}
}

// authors3 keeps three names, then "et al.".
func authors3(a []string) []string {
	if len(a) <= 3 {
		return a
	}
	return append(append([]string(nil), a[:3]...), "et al.")
}

func surnames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		f := strings.Fields(n)
		if len(f) > 0 {
			out = append(out, "author:"+strings.ToLower(f[len(f)-1]))
		}
	}
	return out
}

func overlap(a, b []string) int {
	n := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				n++
				break
			}
		}
	}
	return n
}
