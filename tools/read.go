package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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
	defer func() {
		if t.recovered(grant.ToolRead, recover(), &err) {
			out = nil
		}
		if err = ctxErr(ctx, grant.ToolRead, err); err != nil {
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
		in = ReadInput{Target: c.Target, Mode: c.Mode, Page: c.Page, Section: c.Section, Region: c.Region}
		return t.read(ctx, in, c.Offset)
	}
	return t.read(ctx, in, 0)
}

func (t *Toolset) read(ctx context.Context, in ReadInput, offset int) (*ReadOutput, error) {
	switch in.Mode {
	case "", ModeMetadata, ModeExcerpt, ModeSection, ModePage, ModeRegion, ModeFull, ModeMarks:
	default:
		return nil, fmt.Errorf("%w: mode %s is not one of metadata, excerpt, section, page, region, full, marks", ErrInvalidArgument, quoteArg(in.Mode))
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
	if mode == ModePage && in.Page == 0 {
		in.Page = tg.frag.Page
	}
	if mode == ModeSection && in.Section == "" {
		in.Section = tg.frag.Section
	}
	if mode == ModeRegion && in.Region == "" {
		in.Region = tg.frag.Region
	}
	r := &reader{t: t, tg: tg, limit: tn.limit(), listMax: tn.grant.Budget.ListEntries, offset: offset}
	out := &ReadOutput{Target: tg.frag.Path, Mode: mode}
	if err := r.do(ctx, mode, in, out); err != nil {
		return nil, err
	}
	settle := func() {
		out.NextCursor = ""
		if r.more {
			out.NextCursor = encodeCursor(cursor{
				Target: tg.frag.Path, Mode: mode, Page: in.Page, Section: in.Section, Region: in.Region, Offset: r.next,
			}, t.fingerprint)
		}
		r.cite(out)
	}
	if err := r.fit(out, tn, settle); err != nil {
		return nil, err
	}
	// A listing names what a folder holds; it cites nothing. Text cites
	// every locator it came from.
	var uris []string
	var same [][]string
	switch {
	case r.listing:
	case len(out.CitationURIs) > 0:
		uris = out.CitationURIs
	default:
		uris = []string{out.CitationURI}
		if mode == ModeMetadata {
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
// sections, the documents, the abstract, the authors and the title. A
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
		case r.cutMarks(out, over):
		case len(out.Entries) > 0:
			out.Entries = dropTail(out.Entries, over, func(e EntryInfo) int { return runes(e.Name, e.Kind) })
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

// inferMode picks the mode: named, else from the arguments, else from the
// target's fragment, else metadata.
func inferMode(in ReadInput, frag cite.URI) string {
	switch {
	case in.Mode != "":
		return in.Mode
	case in.Quote != "":
		return ModeExcerpt
	case in.Page > 0 || frag.Page > 0:
		return ModePage
	case in.Section != "" || frag.Section != "":
		return ModeSection
	case in.Region != "" || frag.Region != "":
		return ModeRegion
	}
	return ModeMetadata
}

// reader carries one read call.
type reader struct {
	t       *Toolset
	tg      *target
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

	marksRead bool // a marks read: Marks cite, and page with a cursor
	markTotal int  // the marks of the document, for the cursor
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
	if r.marksRead {
		r.citeMarks(out)
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

func (r *reader) do(ctx context.Context, mode string, in ReadInput, out *ReadOutput) error {
	src := r.tg.src
	info := src.Info()
	// Directories list; to read text the agent names a file in them.
	if l, ok := src.(sources.Lister); ok && (r.tg.path == "" || info.Kind == grant.KindDirectory) {
		entries, truncated, err := l.List(ctx, r.tg.path, r.listMax)
		switch {
		case err == nil:
			if mode != ModeMetadata {
				return fmt.Errorf("%w: %s is a directory: it can only be listed; name a file in it to read text", ErrInvalidArgument, quoteArg(r.path()))
			}
			out.Title = path.Base(r.path())
			out.Entries = make([]EntryInfo, 0, len(entries))
			for _, e := range entries {
				out.Entries = append(out.Entries, EntryInfo{Name: e.Name, Kind: string(e.Kind), Size: e.Size})
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
	if mode == ModeRegion {
		return r.region(ctx, in.Region, out)
	}
	if mode == ModeMarks {
		return r.marks(ctx, out)
	}
	doc, err := src.Read(ctx, r.tg.path)
	if err != nil {
		return r.mapErr(err, r.path())
	}
	if err := r.checkDocument(doc); err != nil {
		return err
	}
	out.Title = doc.Title
	switch mode {
	case ModeMetadata:
		return r.metadata(ctx, doc, out)
	case ModePage:
		return r.page(doc, in.Page, out)
	case ModeSection:
		return r.section(doc, in.Section, out)
	case ModeExcerpt:
		return r.excerpt(ctx, doc, in.Quote, out)
	case ModeFull:
		return r.full(doc, out)
	}
	return fmt.Errorf("%w: mode %s", ErrInvalidArgument, quoteArg(mode))
}

// path is the vault path the read is about.
func (r *reader) path() string {
	if r.tg.path != "" {
		return r.tg.path
	}
	return r.tg.src.Info().Ref
}

// mapErr turns a source error into a one-line, path-safe tool error.
func mapErr(err error, p string) error {
	switch {
	case errors.Is(err, sources.ErrNotFound):
		return fmt.Errorf("%w: %s", ErrNotFound, quoteArg(p))
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

func (r *reader) metadata(ctx context.Context, doc *sources.Document, out *ReadOutput) error {
	out.Pages = doc.Pages
	if d, ok := r.tg.src.(sources.Describer); ok && r.tg.path == "" {
		m, err := d.Describe(ctx)
		if err != nil {
			return r.mapErr(err, r.path())
		}
		out.Title, out.Authors, out.Year, out.DOI, out.ArXivID = m.Title, m.Authors, m.Year, m.DOI, m.ArXivID
		out.Abstract, _ = textnorm.Truncate(m.Abstract, r.limit)
		if m.Pages > 0 {
			out.Pages = m.Pages
		}
		out.Documents = m.Documents
	}
	if out.Title == "" {
		out.Title = path.Base(doc.Path)
	}
	for i, s := range doc.Sections {
		out.Sections = append(out.Sections, SectionInfo{Title: s.Title, Number: sectionNumber(doc, i), Level: s.Level, Page: s.Page})
	}
	out.CitationURI = cite.File(doc.Path)
	r.countMarks(ctx, out)
	return nil
}

func (r *reader) page(doc *sources.Document, n int, out *ReadOutput) error {
	if n < 1 {
		return fmt.Errorf("%w: page mode needs page (1-based)", ErrInvalidArgument)
	}
	for _, p := range doc.Parts {
		if p.Page != n {
			continue
		}
		if p.NoTextLayer {
			return fmt.Errorf("%w: no text layer on page %d of %s (an image-only scan)", ErrNotFound, n, quoteArg(doc.Path))
		}
		if p.Err != nil {
			return fmt.Errorf("page %d of %s could not be extracted: %v", n, quoteArg(doc.Path), r.t.sourceErr(r.tg.conn, r.tg.src.Info().Ref, p.Err))
		}
		out.Page, out.PageLabel = n, p.Label
		out.CitationURI = cite.Page(doc.Path, n)
		r.cut(p.Text, out)
		return nil
	}
	if doc.Pages == 0 {
		return fmt.Errorf("%w: %s has no pages; read it with mode full or section", ErrInvalidArgument, quoteArg(doc.Path))
	}
	return fmt.Errorf("%w: page %d of %s (it has %d pages)", ErrNotFound, n, quoteArg(doc.Path), doc.Pages)
}

// cut puts the piece of text from the reader's offset into out, within the
// read limit, and arranges a cursor when more remains.
func (r *reader) cut(text string, out *ReadOutput) {
	if r.offset > len(text) || r.offset < len(text) && !utf8.RuneStart(text[r.offset]) {
		r.offset = 0
	}
	r.whole, r.cutText = text[r.offset:], true
	r.recut(out, r.limit)
}

// recut sets out's text to at most n characters: of the text cut from, from
// the reader's offset, arranging a cursor when more remains; or, for text
// that is not paged (an excerpt's passage), its first n characters.
func (r *reader) recut(out *ReadOutput, n int) {
	if !r.cutText {
		out.Text, _ = textnorm.Truncate(out.Text, n)
		return
	}
	piece, cut := textnorm.Truncate(r.whole, n)
	out.Text = piece
	r.more = cut
	if cut {
		out.Truncated = true
		r.next = r.offset + len(piece)
	}
}

// findSection looks a section up: by exact title; by number ("3.5",
// "§3.5", "Sec. 3.5", "Section 3.5 Positional Encoding"); by title ignoring
// case and numbering, or a unique prefix of it; else by the title's words
// stemmed ("positional encodings" finds "3.5 Positional Encoding"), when
// one section is clearly the closest.
func findSection(doc *sources.Document, title string) (int, bool) {
	secs := doc.Sections
	want := sectionKey(title)
	if want == "" && strings.TrimSpace(title) == "" {
		return 0, false
	}
	for i, s := range secs {
		if s.Title == title {
			return i, true
		}
	}
	if num, rest := splitSectionArg(title); num != "" {
		found := -1
		for i := range secs {
			if !strings.EqualFold(sectionNumber(doc, i), num) {
				continue
			}
			if found < 0 || rest != "" && titleSimilarity(rest, secs[i].Title) > titleSimilarity(rest, secs[found].Title) {
				found = i
			}
		}
		if found >= 0 {
			return found, true
		}
	}
	if want == "" {
		return 0, false
	}
	for i, s := range secs {
		if sectionKey(s.Title) == want {
			return i, true
		}
	}
	found := -1
	for i, s := range secs {
		if strings.HasPrefix(sectionKey(s.Title), want) {
			if found >= 0 {
				found = -2
				break
			}
			found = i
		}
	}
	if found >= 0 {
		return found, true
	}
	best, second := -1, 0.0
	bestSim := 0.0
	for i, s := range secs {
		sim := titleSimilarity(title, s.Title)
		switch {
		case sim > bestSim:
			best, second, bestSim = i, bestSim, sim
		case sim > second:
			second = sim
		}
	}
	if best >= 0 && bestSim >= minTitleSimilarity && bestSim-second >= 0.1 {
		return best, true
	}
	return 0, false
}

// minTitleSimilarity is the least word overlap (Dice, on stemmed content
// words) at which an approximate title names a section.
const minTitleSimilarity = 0.6

// titleSimilarity is the Dice coefficient of the stemmed content words of
// a section argument and a title, numbering left out; it is 0 unless the
// title holds at least three quarters of the argument's words, so that
// "attention visualizations" does not name "3.2 Attention".
func titleSimilarity(arg, title string) float64 {
	ta, tb := titleTerms(arg), titleTerms(title)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	common := 0
	for t := range ta {
		if tb[t] {
			common++
		}
	}
	if 4*common < 3*len(ta) {
		return 0
	}
	return 2 * float64(common) / float64(len(ta)+len(tb))
}

func titleTerms(s string) map[string]bool {
	_, rest := splitSectionArg(s)
	if rest == "" {
		rest = s
	}
	all, content := map[string]bool{}, map[string]bool{}
	for _, t := range textnorm.Tokens(rest) {
		all[t.Term] = true
		if !t.Stop {
			content[t.Term] = true
		}
	}
	if len(content) == 0 {
		return all
	}
	return content
}

// sectionArg parses a section argument: an optional "§", "Sec.",
// "Section" or "Appendix", a number ("3", "3.5", "A.2", "IV"), and the
// title words after it.
var sectionArg = regexp.MustCompile(`^(?i:§+\s*|sec(?:t|tion)?\.?\s+|sec\.|appendix\s+|chapter\s+)?((?:\d+|[A-Z]|[IVX]+)(?:\.\d+)*)\.?(?:\s+(.*))?$`)

// splitSectionArg returns the number and the rest of a section argument or
// heading, or "" and the whole when it has no number.
func splitSectionArg(s string) (num, rest string) {
	s = strings.TrimSpace(s)
	m := sectionArg.FindStringSubmatchIndex(s)
	if m == nil {
		return "", s
	}
	num, rest = s[m[2]:m[3]], ""
	if m[4] >= 0 {
		rest = strings.TrimSpace(s[m[4]:m[5]])
	}
	if strings.Trim(num, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && rest != "" && !strings.HasPrefix(s[m[3]:], ".") {
		// A bare letter is a number only before a capitalised word:
		// "A Proofs", not the spaced small capitals of "I NTRODUCTION".
		r := []rune(rest)
		if len(r) < 2 || !unicode.IsUpper(r[0]) || !unicode.IsLower(r[1]) {
			return "", s
		}
	}
	return num, rest
}

// sectionNumber returns the number of section i: from its title, else from
// the start of its heading line in the text ("3.5" when a bookmark says
// "Positional Encoding" and the page "3.5 Positional Encoding").
func sectionNumber(doc *sources.Document, i int) string {
	s := doc.Sections[i]
	if num, rest := splitSectionArg(s.Title); num != "" && rest != "" {
		return num
	}
	if s.Part < 0 || s.Part >= len(doc.Parts) {
		return ""
	}
	text := doc.Parts[s.Part].Text
	if s.Offset < 0 || s.Offset > len(text) {
		return ""
	}
	line, _, _ := strings.Cut(text[s.Offset:], "\n")
	num, rest := splitSectionArg(line)
	if num == "" || rest == "" || sectionKey(rest) != sectionKey(s.Title) {
		return ""
	}
	return num
}

// sectionKey folds a heading and drops its numbering ("3.1 Method" → "method").
func sectionKey(s string) string {
	s = textnorm.Fold(strings.TrimSpace(s))
	s = strings.TrimLeft(s, "0123456789.ivx) ")
	return strings.Join(strings.Fields(s), " ")
}

func (r *reader) section(doc *sources.Document, title string, out *ReadOutput) error {
	if strings.TrimSpace(title) == "" {
		return fmt.Errorf("%w: section mode needs section (a title or number from the metadata)", ErrInvalidArgument)
	}
	i, ok := findSection(doc, title)
	if !ok {
		return fmt.Errorf("%w: section %s in %s; the metadata mode lists its sections", ErrNotFound, quoteArg(title), quoteArg(doc.Path))
	}
	s := doc.Sections[i]
	end := sources.Section{Part: len(doc.Parts), Offset: 0}
	for _, n := range doc.Sections[i+1:] {
		if n.Level <= s.Level || s.Level == 0 {
			end = n
			break
		}
	}
	var b strings.Builder
	var spans []span
	for p := s.Part; p < len(doc.Parts) && p <= end.Part; p++ {
		text := doc.Parts[p].Text
		from, to := 0, len(text)
		if p == s.Part {
			from = min(s.Offset, len(text))
		}
		if p == end.Part {
			to = min(end.Offset, len(text))
		}
		if from < to {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			uri := cite.Section(doc.Path, s.Title)
			if pg := doc.Parts[p].Page; pg > 0 {
				uri = cite.Page(doc.Path, pg)
			}
			spans = append(spans, span{b.Len(), b.Len() + to - from, uri})
			b.WriteString(text[from:to])
		}
	}
	out.Section = s.Title
	if s.Page > 0 {
		out.Page = s.Page
		out.CitationURI = cite.Page(doc.Path, s.Page)
	} else {
		out.CitationURI = cite.Section(doc.Path, s.Title)
	}
	// The section runs over every page its text is on.
	raw := b.String()
	text := strings.TrimSpace(raw)
	lead := len(raw) - len(strings.TrimLeftFunc(raw, unicode.IsSpace))
	for _, sp := range spans {
		r.addSpan(text, max(0, sp.start-lead), min(len(text), max(0, sp.end-lead)), sp.uri)
	}
	r.cut(text, out)
	return nil
}

func (r *reader) full(doc *sources.Document, out *ReadOutput) error {
	var b strings.Builder
	var spans []span
	firstPage := 0
	for _, p := range doc.Parts {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if p.Page > 0 {
			fmt.Fprintf(&b, "[page %d]\n", p.Page)
		}
		switch {
		case p.NoTextLayer:
			b.WriteString("(no text layer on this page)")
		case p.Err != nil:
			b.WriteString("(this page could not be extracted)")
		default:
			// Every page whose text the piece holds is cited, not
			// only the one it starts on.
			uri := cite.File(doc.Path)
			if p.Page > 0 {
				uri = cite.Page(doc.Path, p.Page)
			}
			start := b.Len()
			b.WriteString(p.Text)
			spans = append(spans, span{start, b.Len(), uri})
		}
	}
	text := b.String()
	for _, sp := range spans {
		r.addSpan(text, sp.start, sp.end, sp.uri)
	}
	r.cut(text, out)
	// Cite the page the piece starts on, so the source is precise.
	if doc.Pages > 0 {
		firstPage = pageAt(text, r.offset)
	}
	if firstPage > 0 {
		out.CitationURI = cite.Page(doc.Path, firstPage)
	} else {
		out.CitationURI = cite.File(doc.Path)
	}
	return nil
}

// pageAt returns the page whose "[page N]" marker last precedes offset.
func pageAt(text string, offset int) int {
	i := strings.LastIndex(text[:min(offset+len("[page "), len(text))], "[page ")
	if i < 0 {
		return 1
	}
	rest := text[i+len("[page "):]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return 1
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil {
		return 1
	}
	return n
}

func (r *reader) excerpt(ctx context.Context, doc *sources.Document, quote string, out *ReadOutput) error {
	quote = strings.TrimSpace(quote)
	if quote == "" {
		return fmt.Errorf("%w: excerpt mode needs quote", ErrInvalidArgument)
	}
	docs := []*sources.Document{doc}
	if d, ok := r.tg.src.(sources.Describer); ok && r.tg.path == "" {
		// A paper: the quote may be in its PDF, PAPER.md or NOTES.md.
		if m, err := d.Describe(ctx); err == nil {
			for _, p := range m.Documents {
				if p == doc.Path {
					continue
				}
				if other, err := r.tg.src.Read(ctx, p); err == nil {
					docs = append(docs, other)
				}
			}
		}
	}
	// The first exact match in document order wins, else the best
	// approximate one; a near miss only names its pages.
	var hit, near textnorm.QuoteResult
	var hitDoc, nearDoc *sources.Document
	total := 0
	for _, d := range docs {
		texts := make([]string, len(d.Parts))
		for i, p := range d.Parts {
			texts[i] = p.Text
		}
		res := textnorm.FindQuote(texts, quote)
		total += res.Matches
		switch {
		case res.Found && (hitDoc == nil || res.Exact && !hit.Exact || res.Exact == hit.Exact && res.Score > hit.Score):
			hit, hitDoc = res, d
		case !res.Found && len(res.Hints) > 0 && (nearDoc == nil || res.Score > near.Score):
			near, nearDoc = res, d
		}
	}
	if hitDoc == nil {
		return fmt.Errorf("%w: the quote is not in %s%s; try context_search", ErrNotFound, quoteArg(r.path()), nearPages(nearDoc, near))
	}
	hitPart := hitDoc.Parts[hit.Part]
	// A quote that runs across a page break is returned, and cited, on
	// both pages: the passage is taken from the pages joined.
	text, matchEnd := hitPart.Text, hit.End
	last := min(max(hit.EndPart, hit.Part), len(hitDoc.Parts)-1)
	starts := []int{0}
	if last > hit.Part {
		var b strings.Builder
		for i := hit.Part; i <= last; i++ {
			if i > hit.Part {
				b.WriteString("\n\n")
				starts = append(starts, b.Len())
			}
			b.WriteString(hitDoc.Parts[i].Text)
		}
		text = b.String()
		matchEnd = starts[len(starts)-1] + min(hit.EndPartEnd, len(hitDoc.Parts[last].Text))
	}
	start, end := passage(text, hit.Start, matchEnd, min(r.limit, excerptWindow))
	// A passage is a window by design, not a cut read: the rest of its
	// page is a page read away, so it carries no cursor and is not marked
	// truncated.
	out.Text = text[start:end]
	if last > hit.Part {
		for k, off := range starts {
			i := hit.Part + k
			from, to := max(off, start), min(off+len(hitDoc.Parts[i].Text), end)
			if from < to {
				r.addSpan(out.Text, from-start, to-start, partURI(hitDoc, i, max(0, from-off)))
			}
		}
	}
	out.Matches = total
	out.Match, out.Score = MatchApproximate, math.Round(hit.Score*100)/100
	if hit.Exact {
		out.Match, out.Score = MatchExact, 1
	}
	out.Page, out.PageLabel = hitPart.Page, hitPart.Label
	out.Title = hitDoc.Title
	if hitPart.Page == 0 {
		out.Section = sectionAt(hitDoc.Sections, hit.Part, hit.Start)
	}
	out.CitationURI = partURI(hitDoc, hit.Part, hit.Start)
	return nil
}

// partURI is the citation URI of byte off of part i of doc: its page, else
// the section it is in, else the file.
func partURI(doc *sources.Document, i, off int) string {
	if pg := doc.Parts[i].Page; pg > 0 {
		return cite.Page(doc.Path, pg)
	}
	if s := sectionAt(doc.Sections, i, off); s != "" {
		return cite.Section(doc.Path, s)
	}
	return cite.File(doc.Path)
}

// nearPages names the pages of the closest passages of a quote that was
// not found, as a hint.
func nearPages(doc *sources.Document, res textnorm.QuoteResult) string {
	if doc == nil {
		return ""
	}
	var pages []string
	for _, i := range res.Hints {
		if p := doc.Parts[i].Page; p > 0 {
			pages = append(pages, strconv.Itoa(p))
		}
	}
	if len(pages) == 0 {
		return ""
	}
	word := "page"
	if len(pages) > 1 {
		word = "pages"
	}
	return fmt.Sprintf(" (no passage is close enough; the nearest are on %s %s)", word, strings.Join(pages, ", "))
}

// sectionAt returns the title of the innermost section that contains byte
// off of part.
func sectionAt(secs []sources.Section, part, off int) string {
	title := ""
	for _, s := range secs {
		if s.Part < part || s.Part == part && s.Offset <= off {
			title = s.Title
		}
	}
	return title
}

// excerptWindow is the size of an excerpt read: the passage around a quote,
// not the page it is on (page mode reads that).
const excerptWindow = 1500

// passage widens [start, end) to at most limit characters around the match,
// preferring to start at a paragraph or sentence boundary.
func passage(text string, start, end, limit int) (int, int) {
	matchLen := utf8.RuneCountInString(text[start:end])
	if matchLen >= limit {
		s, _ := textnorm.Truncate(text[start:end], limit)
		return start, start + len(s)
	}
	room := limit - matchLen
	// Up to a third of the room before the match, the rest after it.
	before := room / 3
	s := start
	for n := 0; n < before && s > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:s])
		s -= size
	}
	if i := strings.LastIndex(text[s:start], "\n\n"); i >= 0 {
		s += i + 2
	} else if i := strings.LastIndex(text[s:start], ". "); i >= 0 {
		s += i + 2
	}
	used := utf8.RuneCountInString(text[s:end])
	rest, _ := textnorm.Truncate(text[end:], limit-used)
	return s, end + len(rest)
}

func (r *reader) region(ctx context.Context, id string, out *ReadOutput) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("%w: region mode needs region (a layout id such as figure-1)", ErrInvalidArgument)
	}
	rr, ok := r.tg.src.(sources.RegionReader)
	if !ok {
		return fmt.Errorf("%w: %s has no layout regions", ErrInvalidArgument, quoteArg(r.path()))
	}
	reg, err := rr.Region(ctx, id)
	if err != nil {
		return r.mapErr(err, r.path()+"#region="+id)
	}
	out.Region, out.Page, out.Section = reg.ID, reg.Page, reg.Title
	out.Title = reg.Title
	text := reg.Text
	if text == "" {
		text = reg.Title
	}
	out.CitationURI = cite.Region(reg.Path, reg.ID)
	r.cut(text, out)
	return nil
}

// cursor is the state of a cut read, handed to the agent as an opaque string.
type cursor struct {
	Target  string `json:"t"`
	Mode    string `json:"m"`
	Page    int    `json:"p,omitempty"`
	Section string `json:"s,omitempty"`
	Region  string `json:"r,omitempty"`
	Offset  int    `json:"o"`
	Scope   string `json:"f"` // fingerprint prefix: a cursor is valid for its grant only
	// A paper_relations cursor: Tool is cursorRelations, Target the
	// paper, Mode the kind, Library the filter and Offsets where each
	// list (references, cited by, related) goes on.
	Tool    string `json:"k,omitempty"`
	Library bool   `json:"b,omitempty"`
	Offsets []int  `json:"l,omitempty"`
}

// cursorRelations marks a cursor of paper_relations; a cursor of
// context_read has no tool.
const cursorRelations = "rel"

func encodeCursor(c cursor, fingerprint string) string {
	c.Scope = scopeTag(fingerprint)
	b, _ := json.Marshal(c)
	return "c1." + base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s, fingerprint string) (cursor, error) {
	var c cursor
	bad := fmt.Errorf("%w: cursor is not one this server handed out", ErrInvalidArgument)
	rest, ok := strings.CutPrefix(s, "c1.")
	if !ok || len(rest) > 4096 {
		return c, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Scope != scopeTag(fingerprint) || c.Offset < 0 || c.Target == "" {
		return c, bad
	}
	return c, nil
}

func scopeTag(fp string) string {
	fp = strings.TrimPrefix(fp, "sha256:")
	return fp[:min(12, len(fp))]
}
