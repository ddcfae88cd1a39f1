package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// Read answers context_read. The default mode is metadata; full text is only
// given when mode "full" is named, and then cut to the read cap and paged
// with a cursor. A directory target returns its entries one level deep and
// nothing else.
func (t *Toolset) Read(ctx context.Context, in ReadInput) (out *ReadOutput, err error) {
	ctx, cancel := t.callContext(ctx)
	defer cancel()
	defer func() {
		if t.recovered(grant.ToolRead, recover(), &err) {
			out = nil
		}
		if err = t.ctxErr(ctx, grant.ToolRead, err); err != nil {
			out = nil
		}
	}()
	if in.Cursor != "" {
		c, err := decodeCursor(in.Cursor, t.fingerprint)
		if err != nil {
			return nil, err
		}
		if c.Tool != "" {
			return nil, fmt.Errorf("%w: the cursor belongs to paper_relations, not context_read", ErrInvalidArgument)
		}
		if in.Target != "" && in.Target != c.Target {
			return nil, fmt.Errorf("%w: the cursor belongs to target %s", ErrInvalidArgument, quoteArg(c.Target))
		}
		in = ReadInput{Target: c.Target, Mode: ReadMode(c.Mode), Page: c.Page, Section: c.Section, Region: c.Region}
		return t.read(ctx, in, c.Offset)
	}
	return t.read(ctx, in, 0)
}

func (t *Toolset) read(ctx context.Context, in ReadInput, offset int) (*ReadOutput, error) {
	if in.Mode != "" && modeOf(in.Mode) == nil {
		return nil, fmt.Errorf("%w: mode %s is not one of %s", ErrInvalidArgument, quoteArg(string(in.Mode)), modeNames())
	}
	if in.Page < 0 {
		return nil, fmt.Errorf("%w: page must be 1 or more", ErrInvalidArgument)
	}
	tn, err := t.begin(ctx, func(b grant.Budget) int { return b.ReadChars })
	if err != nil {
		return nil, err
	}
	defer tn.end()
	tg, err := t.resolve(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	mode := inferMode(in, tg.frag)
	if mode.fromFragment != nil {
		mode.fromFragment(&in, tg.frag)
	}
	r := &reader{t: t, tg: tg, mode: mode, limit: tn.limit(), listMax: tn.grant.Budget.ListEntries, offset: offset}
	out := &ReadOutput{Target: tg.frag.Path, Mode: mode.mode}
	if err := r.do(ctx, in, out); err != nil {
		return nil, err
	}
	cursorTarget := tg.frag.Path
	if mode.cursorTarget != nil {
		cursorTarget = mode.cursorTarget(tg, in)
	}
	settle := func() {
		out.NextCursor = ""
		if r.more {
			out.NextCursor = encodeCursor(cursor{
				Target: cursorTarget, Mode: string(mode.mode), Page: in.Page, Section: in.Section, Region: in.Region, Offset: r.next,
			}, t.fingerprint)
		}
		r.cite(out)
	}
	if err := r.fit(out, tn, settle); err != nil {
		return nil, err
	}
	// Every URI a result hands out is logged: a listing's, the folder's;
	// text's, every locator it came from.
	var uris []string
	var same [][]string
	switch {
	case r.listing:
		uris = []string{out.CitationURI}
	case len(out.CitationURIs) > 0:
		uris = out.CitationURIs
	default:
		uris = []string{out.CitationURI}
		if mode.sameWork {
			// A document's metadata names it and its DOI and arXiv
			// links: one work.
			if set := sameWork(out.CitationURI, out.DOI, out.ArXivID); set != nil {
				same = append(same, set)
			}
		}
	}
	out.Budget, err = t.finishSame(tn, grant.ToolRead, uris, same, out.Chars())
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fit cuts out until its charge is within the call's reservation: the text
// first (a cut read keeps a cursor to go on from), then the entries, the
// figures, the sections, the documents, the abstract, the authors and the title. A
// result that cannot fit, or whose text would be cut away, is the
// budget-spent error. settle sets what follows from the text kept (the
// cursor, the citation URIs) before each measure.
func (r *reader) fit(out *ReadOutput, tn *turn, settle func()) error {
	hadText := out.Text != ""
	need := -1
	for {
		settle()
		n := out.Chars()
		if need < 0 {
			need = n
		}
		over := n - r.limit
		if over <= 0 {
			if hadText && out.Text == "" {
				return tn.spent(need)
			}
			return nil
		}
		out.Truncated = true
		switch {
		case out.Text != "":
			r.recut(out, max(0, runes(out.Text)-over))
		case r.mode.cut != nil && r.mode.cut(r, out, over):
		case len(out.Entries) > 0:
			out.Entries = dropTail(out.Entries, over, func(e EntryInfo) int { return runes(e.Name, string(e.Kind)) })
		case len(out.Figures) > 0:
			out.Figures = dropTail(out.Figures, over, func(f FigureInfo) int { return f.chars() })
		case len(out.Sections) > 0:
			out.Sections = dropTail(out.Sections, over, func(s SectionInfo) int { return runes(s.Title) })
		case len(out.Documents) > 0:
			out.Documents = dropTail(out.Documents, over, func(s string) int { return runes(s) })
		case out.Abstract != "":
			out.Abstract, _ = textnorm.Truncate(out.Abstract, max(0, runes(out.Abstract)-over))
		case len(out.Authors) > 0:
			out.Authors = dropTail(out.Authors, over, func(s string) int { return runes(s) })
		case out.Title != "":
			out.Title, _ = textnorm.Truncate(out.Title, max(0, runes(out.Title)-over))
		default:
			return tn.spent(need)
		}
	}
}

// dropTail drops items from the end of l until their charge reaches over,
// at least one.
func dropTail[E any](l []E, over int, chars func(E) int) []E {
	n := len(l)
	for dropped := 0; n > 0 && (n == len(l) || dropped < over); n-- {
		dropped += chars(l[n-1])
	}
	return l[:n]
}

// reader carries one read call.
type reader struct {
	t       *Toolset
	tg      *target
	mode    *readMode
	limit   int // characters this read may return
	listMax int
	offset  int    // byte offset to continue from (cursor)
	next    int    // byte offset of the next piece, when cut
	more    bool   // the text was cut: hand out a cursor
	whole   string // the text cut from (after offset), for recut
	cutText bool   // out.Text came from cut, so it pages with a cursor
	listing bool   // the result is a directory listing
	// spans are the locators of the text: in the text given to cut when
	// cutText, else in out.Text. None means out.CitationURI, as the mode
	// set it, is the only one.
	spans []span

	markTotal int // the marks of the document, for a marks read's cursor
}

// span says which locator bytes [start, end) of a read's text came from.
type span struct {
	start, end int
	uri        string
}

// addSpan records that text[start:end] came from uri, without the white
// space at its ends: a page whose text the agent does not receive is not
// one of its sources.
func (r *reader) addSpan(text string, start, end int, uri string) {
	piece := text[start:end]
	start += len(piece) - len(strings.TrimLeftFunc(piece, unicode.IsSpace))
	end -= len(piece) - len(strings.TrimRightFunc(piece, unicode.IsSpace))
	if start < end {
		r.spans = append(r.spans, span{start, end, uri})
	}
}

// cite sets out's citation URIs from the text it holds now: CitationURI is
// the first locator the text came from, and CitationURIs every one, in
// order, when there are more than one. The text's range is measured after
// any cut, so a locator whose text was cut away is not cited.
func (r *reader) cite(out *ReadOutput) {
	if r.mode.cite != nil {
		r.mode.cite(r, out)
		return
	}
	if len(r.spans) == 0 {
		return
	}
	from, to := 0, len(out.Text)
	if r.cutText {
		from, to = r.offset, r.offset+len(out.Text)
	}
	var uris []string
	for _, sp := range r.spans {
		if max(sp.start, from) < min(sp.end, to) && !slices.Contains(uris, sp.uri) {
			uris = append(uris, sp.uri)
		}
	}
	out.CitationURIs = nil
	switch {
	case len(uris) > 1:
		out.CitationURIs = uris
		fallthrough
	case len(uris) == 1:
		out.CitationURI = uris[0]
	}
}

// do reads in r's mode: a directory's entries, or what the mode reads.
func (r *reader) do(ctx context.Context, in ReadInput, out *ReadOutput) error {
	src := r.tg.src
	info := src.Info()
	// Directories list; to read text the agent names a file in them. A
	// connector's source that lists its documents may also be one to read
	// (a Zotero item, its record and PDF): in a read mode it is read, and
	// it is a directory only if its source says so.
	l, listable := src.(sources.Lister)
	listable = listable && (r.tg.path == "" || info.Kind == grant.KindDirectory)
	readFirst := listable && !r.mode.lists && r.tg.conn && info.Kind != grant.KindDirectory
	if listable && !readFirst {
		entries, truncated, err := l.List(ctx, r.tg.path, r.listMax)
		switch {
		case err == nil:
			if !r.mode.lists {
				return errListOnly(r.path())
			}
			out.Title = path.Base(r.path())
			out.Entries = make([]EntryInfo, 0, len(entries))
			for _, e := range entries {
				out.Entries = append(out.Entries, EntryInfo{Name: e.Name, Kind: e.Kind, Size: e.Size})
			}
			out.Truncated = truncated
			out.CitationURI = cite.File(r.path())
			r.listing = true
			return nil
		case !errors.Is(err, sources.ErrNotFound) && !errors.Is(err, sources.ErrUnsupported) && !errors.Is(err, sources.ErrOutside):
			return r.mapErr(err, r.path())
		}
		// Not a folder this source lists (a file, say): read it below.
	}
	if r.mode.load == nil {
		return r.mode.read(r, ctx, nil, in, out)
	}
	doc, err := r.mode.load(r, ctx, in)
	if readFirst && errors.Is(err, sources.ErrIsDirectory) {
		return errListOnly(r.path())
	}
	if err != nil {
		return r.mapErr(err, r.path())
	}
	if err := r.checkDocument(doc); err != nil {
		return err
	}
	out.Title = doc.Title
	return r.mode.read(r, ctx, doc, in, out)
}

// errListOnly is the error of a read, in a mode other than metadata, of a
// directory.
func errListOnly(p string) error {
	return fmt.Errorf("%w: %s is a directory: it can only be listed; name a file in it to read text", ErrInvalidArgument, quoteArg(p))
}

// readFor reads the document at p of src for a read other than full
// (see reader.readFull): a source with slow pages (a scan's, recognised
// by OCR) does that work only for pages (page mode's one page), and none
// when pages is nil, answering from what is at hand; a read never waits
// for pages it does not return.
func readFor(ctx context.Context, src sources.Source, p string, pages []int) (*sources.Document, error) {
	pr, ok := src.(sources.PageReader)
	if !ok {
		return src.Read(ctx, p)
	}
	return pr.ReadPages(ctx, p, pages)
}

// loadDocument reads the target's document from what is at hand
// (readFor), for a mode that reads no page in particular.
func (r *reader) loadDocument(ctx context.Context, _ ReadInput) (*sources.Document, error) {
	return readFor(ctx, r.tg.src, r.tg.path, nil)
}

// path is the vault path the read is about.
func (r *reader) path() string {
	if r.tg.path != "" {
		return r.tg.path
	}
	return r.tg.src.Info().Path
}

// mapErr turns a source error into a one-line, path-safe tool error.
func mapErr(err error, p string) error {
	switch {
	case errors.Is(err, sources.ErrNotFound):
		return fmt.Errorf("%w: %s", sources.ErrNotFound, quoteArg(p))
	case errors.Is(err, sources.ErrOutside):
		return fmt.Errorf("%w: %s", ErrNotGranted, quoteArg(p))
	case errors.Is(err, sources.ErrNotText):
		return fmt.Errorf("%w: %s is not a text file", ErrInvalidArgument, quoteArg(p))
	case errors.Is(err, sources.ErrIsDirectory):
		return fmt.Errorf("%w: %s is a directory; list it with mode metadata, or name a file in it", ErrInvalidArgument, quoteArg(p))
	case errors.Is(err, sources.ErrUnsupported):
		return fmt.Errorf("%w: %s does not support this", ErrInvalidArgument, quoteArg(p))
	}
	return fmt.Errorf("%s cannot be read: %w", quoteArg(p), err)
}
