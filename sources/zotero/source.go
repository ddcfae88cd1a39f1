package zotero

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/internal/units"
)

// Source is a granted Zotero source: the user's library, a group library,
// a collection, a tag or an item. It reads the library's latest snapshot
// at every call, so a change made in Zotero is seen at the next one.
type Source struct {
	l     *Library
	name  string // the scope's name (grant config)
	path  string
	title string

	mu sync.Mutex
	sx *scopeIndex // of the snapshot searched last
}

var (
	_ sources.Source     = (*Source)(nil)
	_ sources.Describer  = (*Source)(nil)
	_ sources.Lister     = (*Source)(nil)
	_ sources.Container  = (*Source)(nil)
	_ sources.Holder     = (*Source)(nil)
	_ sources.MarkReader = (*Source)(nil)
	_ sources.Relater    = (*Source)(nil)
	_ sources.PageReader = (*Source)(nil)
	_ sources.PageReader = (*itemSource)(nil)
	_ io.Closer          = (*Source)(nil)
	_ sources.Describer  = (*itemSource)(nil)
	_ sources.MarkReader = (*itemSource)(nil)
	_ sources.Relater    = (*itemSource)(nil)
	_ sources.Holder     = (*itemSource)(nil)
	_ sources.Source     = (*itemSource)(nil)
)

// Close waits for the library's model of its last snapshot, saved in the
// cache in the background for the next process, to be written. The
// library and its index stay open for the process's other sources.
func (s *Source) Close() error {
	s.l.flush()
	return nil
}

// Info returns the source's identity.
func (s *Source) Info() sources.Info {
	return sources.Info{Path: s.path, Kind: Kind, Title: s.title}
}

// state returns the latest snapshot and the source's scope in it.
func (s *Source) state(ctx context.Context) (*Snapshot, *scope, error) {
	// An ended context is refused at every entry point, even when the
	// snapshot at hand would answer without waiting.
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	snap, err := s.l.Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	sc, err := snap.scope(s.name)
	if err != nil {
		return nil, nil, err
	}
	return snap, sc, nil
}

// Holds reports whether the document at p is one of the source's: an item,
// attachment, note or annotation of an item the source holds, in the
// snapshot read last (it never takes a new one).
func (s *Source) Holds(p string) bool {
	snap := s.l.last()
	if snap == nil {
		return false
	}
	sc, err := snap.scope(s.name)
	return err == nil && snap.holds(sc, p)
}

// Read returns a document of the source: an item's record, an attachment
// (a PDF by page, an HTML snapshot as text), a note. "" is the source's
// main document: an item's first PDF, else its record; a library,
// collection or tag has none and lists its items (sources.ErrIsDirectory).
func (s *Source) Read(ctx context.Context, p string) (*sources.Document, error) {
	return s.readPages(ctx, p, nil, true)
}

// ReadPages implements sources.PageReader: a scanned PDF's pages are
// recognised only among pages; the others the OCR cache does not hold say
// they are not recognised yet, and are recognised in the background.
func (s *Source) ReadPages(ctx context.Context, p string, pages []int) (*sources.Document, error) {
	return s.readPages(ctx, p, pages, false)
}

// readPages is Read with the pages the OCR engine may be given (all: every
// page).
func (s *Source) readPages(ctx context.Context, p string, pages []int, all bool) (*sources.Document, error) {
	ctx, end := s.l.calls.Begin(ctx) // the background yields to it
	defer end()
	snap, sc, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	if p == "" || p == s.path {
		if sc.kind != "item" {
			return nil, fmt.Errorf("%s: %w: list it to see its items", s.path, sources.ErrIsDirectory)
		}
		if sc.main != nil {
			return snap.readPages(ctx, sc.main, pages, all)
		}
		return snap.mainDoc(ctx, sc.item, pages, all)
	}
	if err := s.inside(snap, sc, p); err != nil {
		return nil, err
	}
	return snap.readPages(ctx, snap.item(p), pages, all)
}

// inside checks that p is a document of the scope: ErrOutside for a path
// that is not a Zotero document path of its library, ErrNotFound for one
// that names nothing the scope holds.
func (s *Source) inside(snap *Snapshot, sc *scope, p string) error {
	if !strings.HasPrefix(p, "zotero:") {
		return fmt.Errorf("%w: not a Zotero document", sources.ErrOutside)
	}
	if snap.holds(sc, p) {
		return nil
	}
	if it := snap.item(p); it != nil {
		return fmt.Errorf("%s: %w", textnorm.Line(p), sources.ErrOutside)
	}
	return fmt.Errorf("%s: %w", textnorm.Line(p), sources.ErrNotFound)
}

// Describe returns the source's metadata: an item's bibliographic record,
// or a library's, collection's or tag's title and item count.
func (s *Source) Describe(ctx context.Context) (*sources.Metadata, error) {
	ctx, end := s.l.calls.Begin(ctx) // the background yields to it
	defer end()
	snap, sc, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	if sc.kind == "item" {
		return snap.describe(ctx, sc.item), nil
	}
	return &sources.Metadata{Title: s.title}, nil
}

// List returns the items of a library, collection or tag (regular items
// as papers, standalone notes as files), or an item's attachments and
// notes.
func (s *Source) List(ctx context.Context, p string, max int) ([]sources.Entry, bool, error) {
	snap, sc, err := s.state(ctx)
	if err != nil {
		return nil, false, err
	}
	var items []*Item
	if p == "" || p == s.path {
		if sc.kind == "item" {
			items = snap.children(sc.item)
		} else {
			items = snap.tops(sc)
		}
	} else {
		if err := s.inside(snap, sc, p); err != nil {
			return nil, false, err
		}
		items = snap.children(snap.item(p))
	}
	// Folders first: regular items are papers, the rest files.
	sort.SliceStable(items, func(i, j int) bool { return items[i].isRegular() && !items[j].isRegular() })
	var out []sources.Entry
	for _, it := range items {
		if max > 0 && len(out) == max {
			return out, true, nil
		}
		e := sources.Entry{Name: snap.entryName(it), Path: snap.path(it), Kind: grant.KindFile}
		if it.isRegular() {
			e.Kind = grant.KindPaper
		}
		out = append(out, e)
	}
	return out, false, nil
}

// entryName names an item in a listing: its title, with its key.
func (s *Snapshot) entryName(it *Item) string {
	t := textnorm.Line(it.Title())
	if it.isNote() && t == "" {
		text, _ := noteText(it.noteHTML)
		t = noteTitleOf(it, text)
	}
	if it.isAttachment() && t == "" {
		t = "attachment"
	}
	t, _ = textnorm.Truncate(t, 120)
	return t + " [" + it.Key + "]"
}

// children returns the attachments and notes of an item that are read
// (not annotations, not in the trash).
func (s *Snapshot) children(it *Item) []*Item {
	if it == nil {
		return nil
	}
	var out []*Item
	for _, c := range it.children {
		if !c.trashed && (c.isAttachment() || c.isNote()) {
			out = append(out, c)
		}
	}
	return out
}

// Inner returns the source of the item that holds p: a regular item (or
// standalone note) of the scope, with p inside it ("" for the item
// itself).
func (s *Source) Inner(ctx context.Context, p string) (sources.Source, string, error) {
	snap, sc, err := s.state(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := s.inside(snap, sc, p); err != nil {
		return nil, "", err
	}
	top := snap.top(snap.item(p))
	in := &itemSource{l: s.l, key: snap.libPrefix(top.libraryID) + top.Key, path: snap.path(top), title: textnorm.Line(top.Title())}
	if in.title == "" {
		in.title = "Zotero item " + top.Key
	}
	if p == in.path {
		p = ""
	}
	return in, p, nil
}

// Marks returns the annotations of the document at p (an item: all its
// attachments'; an attachment: its own, merged with those saved in its
// PDF). "" is an item source's own item; a library has no marks of its own.
func (s *Source) Marks(ctx context.Context, p string) (*sources.Marks, error) {
	snap, sc, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	if p == "" || p == s.path {
		if sc.kind != "item" {
			return &sources.Marks{}, nil
		}
		if sc.main != nil {
			return snap.marks(ctx, sc.main), nil
		}
		return snap.marks(ctx, sc.item), nil
	}
	if err := s.inside(snap, sc, p); err != nil {
		return nil, err
	}
	return snap.marks(ctx, snap.item(p)), nil
}

// Relations returns an item's references and cited-by, read from the
// library's PDFs, and its related items (Zotero's dc:relation), as library
// works.
func (s *Source) Relations(ctx context.Context) (*sources.Relations, error) {
	snap, sc, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	if sc.kind != "item" {
		return nil, fmt.Errorf("%w: relations are an item's", sources.ErrUnsupported)
	}
	return snap.relations(ctx, sc.item)
}

// itemSource is an item inside a granted source (see Source.Inner): it
// reads, describes and lists that item alone.
type itemSource struct {
	l     *Library
	key   string // library prefix + key
	path  string
	title string
}

func (s *itemSource) Info() sources.Info {
	return sources.Info{Path: s.path, Kind: Kind, Title: s.title}
}

func (s *itemSource) state(ctx context.Context) (*Snapshot, *Item, error) {
	snap, err := s.l.Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	it := snap.byKey[s.key]
	if it == nil {
		return nil, nil, fmt.Errorf("%s: %w: the item is gone or in the trash", s.path, sources.ErrNotFound)
	}
	return snap, it, nil
}

func (s *itemSource) Holds(p string) bool {
	snap := s.l.last()
	if snap == nil {
		return false
	}
	it := snap.item(p)
	return it != nil && snap.top(it) == snap.byKey[s.key]
}

func (s *itemSource) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	start := time.Now()
	snap, it, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	return s.l.search(ctx, start, newScopeIndex(snap, []*Item{it}), q)
}

func (s *itemSource) Read(ctx context.Context, p string) (*sources.Document, error) {
	return s.readPages(ctx, p, nil, true)
}

func (s *itemSource) ReadPages(ctx context.Context, p string, pages []int) (*sources.Document, error) {
	return s.readPages(ctx, p, pages, false)
}

func (s *itemSource) readPages(ctx context.Context, p string, pages []int, all bool) (*sources.Document, error) {
	ctx, end := s.l.calls.Begin(ctx) // the background yields to it
	defer end()
	snap, it, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	if p == "" {
		return snap.mainDoc(ctx, it, pages, all)
	}
	if err := s.inside(snap, p); err != nil {
		return nil, err
	}
	return snap.readPages(ctx, snap.item(p), pages, all)
}

func (s *itemSource) inside(snap *Snapshot, p string) error {
	if !strings.HasPrefix(p, "zotero:") {
		return fmt.Errorf("%w: not a Zotero document", sources.ErrOutside)
	}
	if it := snap.item(p); it != nil && snap.top(it) == snap.byKey[s.key] {
		return nil
	}
	return fmt.Errorf("%s: %w", textnorm.Line(p), sources.ErrNotFound)
}

func (s *itemSource) Describe(ctx context.Context) (*sources.Metadata, error) {
	ctx, end := s.l.calls.Begin(ctx) // the background yields to it
	defer end()
	snap, it, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	return snap.describe(ctx, it), nil
}

func (s *itemSource) Marks(ctx context.Context, p string) (*sources.Marks, error) {
	snap, it, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	if p == "" {
		return snap.marks(ctx, it), nil
	}
	if err := s.inside(snap, p); err != nil {
		return nil, err
	}
	return snap.marks(ctx, snap.item(p)), nil
}

func (s *itemSource) Relations(ctx context.Context) (*sources.Relations, error) {
	snap, it, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	return snap.relations(ctx, it)
}

// mainDoc is a regular item's main document: its record (metadata,
// abstract, attachments and notes) followed by the pages of its first PDF
// that can be read, with the scanned pages of pages (all: every page)
// recognised, so that the record of an item with a PDF can be read too
// (the item named as a document in a larger scope reads as its record
// only); the record alone when no PDF can be read. A note or an
// attachment is its own.
func (s *Snapshot) mainDoc(ctx context.Context, it *Item, pages []int, all bool) (*sources.Document, error) {
	if !it.isRegular() {
		return s.readPages(ctx, it, pages, all)
	}
	rec, err := s.read(ctx, it)
	if err != nil {
		return nil, err
	}
	for _, a := range s.children(it) {
		if !a.isPDF() {
			continue
		}
		doc, err := s.readPages(ctx, a, pages, all)
		if err == nil {
			return withRecord(rec, doc), nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return rec, nil
}

// withRecord returns doc (a PDF's, possibly shared with other reads) with
// the record's part before its pages and its sections anchored anew.
func withRecord(rec, doc *sources.Document) *sources.Document {
	out := *doc
	if rec.Title != "" {
		out.Title = rec.Title
	}
	out.Parts = append(append(make([]sources.Part, 0, len(doc.Parts)+len(rec.Parts)), rec.Parts...), doc.Parts...)
	out.Sections = make([]sources.Section, len(doc.Sections))
	for i, sec := range doc.Sections {
		sec.Part += len(rec.Parts)
		out.Sections[i] = sec
	}
	return &out
}

// read returns the document of one item: a regular item's record, a
// note's text, an attachment's file. A scanned PDF's pages are what the
// OCR cache holds: read waits for no engine.
func (s *Snapshot) read(ctx context.Context, it *Item) (*sources.Document, error) {
	return s.readPages(ctx, it, nil, false)
}

// readPages is read with the scanned pages of pages (1-based; all: every
// page) recognised.
func (s *Snapshot) readPages(ctx context.Context, it *Item, pages []int, all bool) (*sources.Document, error) {
	if it == nil {
		return nil, sources.ErrNotFound
	}
	p := s.path(it)
	switch {
	case it.isNote():
		text, secs := noteText(it.noteHTML)
		if strings.TrimSpace(text) == "" {
			text = "(empty note)"
		}
		return &sources.Document{Path: p, Title: noteTitleOf(it, text),
			Parts: []sources.Part{{Location: sources.Location{Path: p}, Text: text}}, Sections: secs}, nil
	case it.isAnnotation():
		return nil, fmt.Errorf("%s: %w: an annotation is read with its attachment's marks", p, sources.ErrNotFound)
	case it.isAttachment():
		return s.readAttachment(ctx, it, pages, all)
	}
	text := s.record(ctx, it)
	return &sources.Document{Path: p, Title: textnorm.Line(it.Title()),
		Parts: []sources.Part{{Location: sources.Location{Path: p}, Text: text}}}, nil
}

// maxSnapshotBytes bounds an HTML snapshot read as text.
const maxSnapshotBytes = 16 << 20

// readAttachment reads a PDF attachment by page, an HTML snapshot as text.
func (s *Snapshot) readAttachment(ctx context.Context, it *Item, pages []int, all bool) (*sources.Document, error) {
	p := s.path(it)
	title := textnorm.Line(it.Title())
	if parent := s.items[it.parentID]; parent != nil && it.parentID != 0 {
		title = textnorm.Line(parent.Title())
	}
	switch {
	case it.isPDF():
		doc, err := s.lib.pdfs.document(ctx, p, it)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		doc, notes := s.lib.pdfs.recognised(ctx, p, it, doc, pages, all)
		out := &sources.Document{Path: p, Title: title, Pages: len(doc.Pages), Parts: make([]sources.Part, len(doc.Pages))}
		for i, pg := range doc.Pages {
			part := sources.Part{Location: sources.Location{Path: p, Page: i + 1, Label: pageLabel(doc.Labels, i)}, Text: pg.Text, NoTextLayer: pg.NoTextLayer}
			if pg.Err != nil {
				part.Err = &units.UnreadableError{Err: pg.Err}
			}
			ocrPart(notes, i+1, &part)
			out.Parts[i] = part
		}
		return out, nil
	case it.contentType == "text/html" || strings.HasSuffix(strings.ToLower(it.filePath), ".html") || strings.HasSuffix(strings.ToLower(it.filePath), ".htm"):
		data, err := s.lib.readFile(it, maxSnapshotBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		text, secs := noteText(string(data))
		if strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("%s: %w: the snapshot holds no text", p, sources.ErrNotText)
		}
		return &sources.Document{Path: p, Title: title, Parts: []sources.Part{{Location: sources.Location{Path: p}, Text: text}}, Sections: secs}, nil
	case it.contentType == "application/epub+zip" || strings.HasSuffix(strings.ToLower(it.filePath), ".epub"):
		data, err := s.lib.readFile(it, maxEPUBBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		doc, err := epubDocument(p, title, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return doc, nil
	}
	if _, err := s.lib.locate(it); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return nil, fmt.Errorf("%s: %w: %s attachments are not read yet", p, sources.ErrUnsupported, textnorm.Line(it.contentType))
}

// record is the text of a regular item's record: its metadata, its
// abstract, and its attachments and notes with what can be read of them.
func (s *Snapshot) record(ctx context.Context, it *Item) string {
	var b strings.Builder
	line := func(k, v string) {
		if v = textnorm.Line(v); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	b.WriteString(textnorm.Line(it.Title()) + "\n")
	var names []string
	for _, c := range it.Creators {
		n := c.Name()
		if c.Type != "" && c.Type != "author" {
			n += " (" + c.Type + ")"
		}
		names = append(names, n)
	}
	line("Creators", strings.Join(names, "; "))
	line("Item type", it.Type)
	line("Date", shownDate(it.Fields["date"]))
	line("Publication", publication(it))
	line("DOI", it.Fields["DOI"])
	line("URL", it.Fields["url"])
	line("Citation key", it.citationKey())
	line("Tags", strings.Join(it.Tags, "; "))
	line("Collections", strings.Join(s.collNames(it), "; "))
	for _, a := range s.children(it) {
		status := "note"
		if a.isAttachment() {
			status = s.attachmentStatus(a)
		}
		line("Attachment "+a.Key, s.entryName(a)+" — "+status)
	}
	if ab := strings.TrimSpace(it.Fields["abstractNote"]); ab != "" {
		b.WriteString("\nAbstract\n" + ab + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// attachmentStatus says what an attachment is and whether its file can be
// read, in a few words (the reason it is not, once).
func (s *Snapshot) attachmentStatus(a *Item) string {
	kind := a.contentType
	if kind == "" {
		kind = "file"
	}
	if a.linkMode == linkLinkedURL {
		return "a link to a web page"
	}
	ref, err := s.lib.locate(a)
	if err == nil {
		var view, f, _, oerr = ref.open()
		if oerr == nil {
			f.Close()
			view.Close()
		}
		err = oerr
	}
	if err != nil {
		return kind + ": " + reasonOf(err)
	}
	return kind
}

// reasonOf is the reason part of an attachment error.
func reasonOf(err error) string {
	for _, e := range []error{ErrMissingFile, ErrLinkedOutside, ErrBadPath, ErrNoFile} {
		if errors.Is(err, e) {
			_, why, _ := strings.Cut(e.Error(), ": ")
			return why
		}
	}
	return textnorm.Line(err.Error())
}

// publication returns the name of what published the item.
func publication(it *Item) string {
	for _, f := range []string{"publicationTitle", "proceedingsTitle", "bookTitle", "websiteTitle", "institution", "publisher", "repository"} {
		if v := it.Fields[f]; v != "" {
			return v
		}
	}
	return ""
}

// collNames returns the paths of the collections an item is in, sorted.
func (s *Snapshot) collNames(it *Item) []string {
	var out []string
	for _, cid := range it.colls {
		if c := s.colls[cid]; c != nil {
			out = append(out, s.collPath(c))
		}
	}
	sort.Strings(out)
	return out
}

// describe returns an item's metadata.
func (s *Snapshot) describe(ctx context.Context, it *Item) *sources.Metadata {
	md := &sources.Metadata{Title: textnorm.Line(it.Title()), Year: year(it.Fields["date"]), Abstract: strings.TrimSpace(it.Fields["abstractNote"]), DOI: it.Fields["DOI"]}
	if md.Title == "" && it.isNote() {
		text, _ := noteText(it.noteHTML)
		md.Title = noteTitleOf(it, text)
	}
	for _, c := range it.Creators {
		if n := textnorm.Line(c.Name()); n != "" {
			md.Authors = append(md.Authors, n)
		}
	}
	if v := it.Fields["archiveID"]; strings.HasPrefix(strings.ToLower(v), "arxiv:") {
		md.ArXivID = strings.TrimSpace(v[len("arxiv:"):])
	}
	md.Documents = []string{s.path(it)}
	for _, c := range s.children(it) {
		if c.isNote() || c.isAttachment() {
			if !c.isPDF() {
				if _, err := s.read(ctx, c); err != nil {
					continue
				}
			} else {
				doc, err := s.lib.pdfs.document(ctx, s.path(c), c)
				if err != nil {
					continue
				}
				if md.Pages == 0 {
					md.Pages = len(doc.Pages)
					s.lib.pdfs.describeOCR(ctx, md, s.path(c), c, doc)
				}
			}
			md.Documents = append(md.Documents, s.path(c))
		}
	}
	return md
}
