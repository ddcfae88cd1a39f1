// Package sourcetest checks that a sources.Source behaves as the tools
// expect, the way testing/fstest checks an fs.FS. A connector for another
// library runs it against its own source:
//
//	if err := sourcetest.Test(ctx, src, "attention"); err != nil {
//		t.Fatal(err)
//	}
//
// The checks: Info is set and one line; Search honours Limit (on every
// search the kit makes, one that matches several passages included) and
// ExcerptChars, scores in [0, 1] best first, excerpts verbatim from the
// hit's text, nothing for nonsense; a search that answers while the
// source's documents are still being indexed says so (Indexing, with
// Truncated), and once they are all in, concurrent identical searches give
// the same hits (the kit waits for that, at most Options.SettleTime);
// every hit's document reads back with the hit's text on the hit's page;
// Read returns a Document whose Path is the path asked for, with parts and
// sections anchored in them, never an empty Document; every document a
// Describer advertises and every entry a Lister lists can be read (a
// folder is ErrIsDirectory, a binary file ErrNotText, ErrTooLarge or
// ErrUnreadable); errors are typed: a path outside the source wraps
// sources.ErrOutside, a missing path inside it sources.ErrNotFound, and no
// error echoes an absolute path it was given; a RegionReader's unknown id
// is sources.ErrNotFound; a ctx already cancelled gives an error wrapping
// context.Canceled, never hits or a document, from Search, Read, Describe
// and List.
//
// Memory is a Source over documents held in memory, as testing/fstest's
// MapFS is a file system: what a test or a connector prototype serves, and
// what a connector may use for records it builds itself.
package sourcetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// Test checks src with the default Options. probe is a query that must
// match at least one passage of the source. It returns every problem found,
// joined, or nil.
func Test(ctx context.Context, src sources.Source, probe string) error {
	return Options{}.Test(ctx, src, probe)
}

// Options tunes the checks of Test.
type Options struct {
	// SettleTime bounds how long the kit waits for the source to say that
	// its documents are all indexed (Results.Indexing nil) before it
	// checks that identical searches agree. Zero or less means two
	// minutes: long enough for a loaded machine.
	SettleTime time.Duration
}

// defaultSettleTime is the SettleTime of the zero Options.
const defaultSettleTime = 2 * time.Minute

// Test checks src as the package's Test does, under o.
func (o Options) Test(ctx context.Context, src sources.Source, probe string) error {
	settle := o.SettleTime
	if settle <= 0 {
		settle = defaultSettleTime
	}
	c := &checker{ctx: ctx, src: src, settle: settle}
	c.info()
	hits := c.search(probe)
	c.noMatch()
	c.determinism(probe, hits)
	c.caps(probe)
	c.limits(hits)
	c.cancelled(probe)
	c.read(hits)
	c.main()
	c.outside()
	c.missing()
	c.described()
	c.region()
	c.list()
	return errors.Join(c.errs...)
}

type checker struct {
	ctx    context.Context
	src    sources.Source
	settle time.Duration // Options.SettleTime
	errs   []error
}

func (c *checker) fail(format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: "+format, append([]any{c.src.Info().Path}, a...)...))
}

func (c *checker) info() {
	in := c.src.Info()
	if in.Path == "" {
		c.fail("Info().Path is empty")
	}
	if in.Kind == "" {
		c.fail("Info().Kind is empty")
	}
	c.title("Info().Title", in.Title)
	c.name("Info().Path", in.Path)
}

// title checks that a title, a heading or a label is one line of data, as
// textnorm.Line makes it: the tools show it next to their own words.
func (c *checker) title(what, s string) {
	if s != textnorm.Line(s) {
		c.fail("%s %q is not one line of data (want %q)", what, s, textnorm.Line(s))
	}
}

// name checks that a path or a name holds no line break, control or
// direction character.
func (c *checker) name(what, s string) {
	if textnorm.HasUnsafe(s) {
		c.fail("%s %q holds a control or direction character", what, s)
	}
}

// location checks the names and titles of a location.
func (c *checker) location(what string, l sources.Location) {
	c.name(what+" path", l.Path)
	c.title(what+" section", l.Section)
	c.title(what+" label", l.Label)
	c.name(what+" region", l.Region)
}

const excerptChars = 200

// settled runs q until the source answers with its documents all indexed,
// for at most c.settle. A search that answers before says so with
// Indexing and must set Truncated too.
func (c *checker) settled(q sources.Query) (*sources.Results, error) {
	deadline := time.Now().Add(c.settle)
	for {
		res, err := c.src.Search(c.ctx, q)
		if err != nil || res.Indexing == nil {
			return res, err
		}
		if !res.Truncated {
			c.fail("Search(%q) answered while indexing (%d of %d) without Truncated", q.Text, res.Indexing.Done, res.Indexing.Total)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("Search(%q) still indexing after %v (%d of %d)", q.Text, c.settle, res.Indexing.Done, res.Indexing.Total)
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-c.ctx.Done():
			t.Stop()
			return nil, c.ctx.Err()
		case <-t.C:
		}
	}
}

func (c *checker) search(probe string) []sources.Hit {
	res, err := c.settled(sources.Query{Text: probe, Limit: 3, ExcerptChars: excerptChars})
	if err != nil {
		c.fail("Search(%q): %v", probe, err)
		return nil
	}
	if len(res.Hits) == 0 {
		c.fail("Search(%q) found nothing; the probe must match", probe)
	}
	c.limited(3, res)
	if res.Total < len(res.Hits) {
		c.fail("Search Total %d < %d hits", res.Total, len(res.Hits))
	}
	for i, h := range res.Hits {
		if h.Score < 0 || h.Score > 1 {
			c.fail("hit %d score %v outside [0, 1]", i, h.Score)
		}
		if i > 0 && h.Score > res.Hits[i-1].Score {
			c.fail("hits not sorted by score: %v after %v", h.Score, res.Hits[i-1].Score)
		}
		if h.Excerpt != "" {
			if !strings.Contains(h.Text, h.Excerpt) {
				c.fail("hit %d excerpt is not verbatim from its text", i)
			}
			if n := utf8.RuneCountInString(h.Excerpt); n > excerptChars {
				c.fail("hit %d excerpt has %d characters, above the %d asked", i, n, excerptChars)
			}
		}
		if h.Path == "" {
			c.fail("hit %d has no path", i)
		}
		c.title(fmt.Sprintf("hit %d title", i), h.Title)
		c.location(fmt.Sprintf("hit %d", i), h.Location)
	}
	if one, err := c.src.Search(c.ctx, sources.Query{Text: probe, Limit: 1}); err == nil {
		c.limited(1, one)
	}
	return res.Hits
}

func (c *checker) noMatch() {
	res, err := c.src.Search(c.ctx, sources.Query{Text: "zqxjvkw qpzzyxv", Limit: 3})
	if err != nil {
		c.fail("Search for nonsense: %v", err)
	} else if len(res.Hits) != 0 {
		c.fail("Search for nonsense found %d hits", len(res.Hits))
	}
}

// limited checks that a search asked for at most limit hits returned no
// more.
func (c *checker) limited(limit int, res *sources.Results) {
	if res != nil && len(res.Hits) > limit {
		c.fail("Search with Limit %d returned %d hits", limit, len(res.Hits))
	}
}

// limits checks Limit on a query that matches more than the probe: the
// words of the probe's first hit, which find every passage sharing one of
// them. A source that ignores Limit returns more than asked even when the
// probe matches a single passage.
func (c *checker) limits(hits []sources.Hit) {
	if len(hits) == 0 {
		return
	}
	seen := map[string]bool{}
	var words []string
	for _, w := range strings.FieldsFunc(hits[0].Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if k := strings.ToLower(w); utf8.RuneCountInString(k) > 2 && !seen[k] && len(words) < 30 {
			seen[k] = true
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return
	}
	q := strings.Join(words, " ")
	for _, n := range []int{1, 2} {
		res, err := c.src.Search(c.ctx, sources.Query{Text: q, Limit: n, ExcerptChars: excerptChars})
		if err != nil {
			c.fail("Search for the words of a hit with Limit %d: %v", n, err)
			continue
		}
		c.limited(n, res)
	}
}

// cancelled checks that a ctx already cancelled ends every call at once:
// an error wrapping context.Canceled, no hits, no document.
func (c *checker) cancelled(probe string) {
	ctx, cancel := context.WithCancel(c.ctx)
	cancel()
	check := func(call string, got bool, err error) {
		if !errors.Is(err, context.Canceled) || got {
			c.fail("%s with a cancelled context: %v (a result: %v), want an error wrapping context.Canceled and no result", call, err, got)
		}
	}
	res, err := c.src.Search(ctx, sources.Query{Text: probe, Limit: 3})
	check("Search", res != nil && len(res.Hits) > 0, err)
	doc, err := c.src.Read(ctx, "")
	check("Read", doc != nil, err)
	if d, ok := c.src.(sources.Describer); ok {
		md, err := d.Describe(ctx)
		check("Describe", md != nil, err)
	}
	if l, ok := c.src.(sources.Lister); ok {
		es, _, err := l.List(ctx, "", 10)
		check("List", len(es) > 0, err)
	}
}

// determinism runs the probe concurrently, once the source's documents are
// all indexed, and expects the same hits as the first complete answer.
func (c *checker) determinism(probe string, want []sources.Hit) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.src.Search(c.ctx, sources.Query{Text: probe, Limit: 3, ExcerptChars: excerptChars})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				c.fail("concurrent Search: %v", err)
			case res.Indexing != nil:
				c.fail("concurrent Search says it is still indexing (%d of %d) after a complete answer", res.Indexing.Done, res.Indexing.Total)
			case !reflect.DeepEqual(res.Hits, want):
				c.fail("concurrent Search gave different hits: %s, want %s", hitList(res.Hits), hitList(want))
			}
		}()
	}
	wg.Wait()
}

// hitList names hits for a failure message: path, page and score.
func hitList(hits []sources.Hit) string {
	var b strings.Builder
	for i, h := range hits {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s p%d %.4f", h.Path, h.Page, h.Score)
	}
	return "[" + b.String() + "]"
}

// read checks that every hit's document can be read and holds its text.
func (c *checker) read(hits []sources.Hit) {
	for i, h := range hits {
		doc, err := c.src.Read(c.ctx, h.Path)
		if err != nil {
			c.fail("Read(%q) of hit %d: %v", h.Path, i, err)
			continue
		}
		c.document(h.Path, doc)
		if doc == nil {
			continue
		}
		// A hit that runs over several locations (Continues) holds each
		// piece of its text on the page it names.
		start, page := 0, h.Page
		for k, next := range append(h.Continues, sources.Continuation{Location: sources.Location{Page: -1}, Offset: len(h.Text)}) {
			if next.Offset < start || next.Offset > len(h.Text) || next.Offset < len(h.Text) && !utf8.RuneStart(h.Text[next.Offset]) {
				c.fail("hit %d continuation %d at byte %d is not after the last, within its text, on a character", i, k, next.Offset)
				break
			}
			piece := strings.TrimSpace(h.Text[start:next.Offset])
			found := piece == ""
			for _, p := range doc.Parts {
				if (page == 0 || p.Page == page) && strings.Contains(p.Text, piece) {
					found = true
					break
				}
			}
			if !found {
				c.fail("hit %d text is not in %s (page %d)", i, h.Path, page)
			}
			start, page = next.Offset, next.Page
		}
	}
}

// document checks a Document that Read(asked) returned.
func (c *checker) document(asked string, doc *sources.Document) {
	if doc == nil {
		c.fail("Read(%q) returned no Document and no error", asked)
		return
	}
	if doc.Path == "" {
		c.fail("Read(%q) returned a Document without a Path", asked)
	}
	if asked != "" && asked != c.src.Info().Path && doc.Path != asked {
		c.fail("Read(%q) returned the Document of %q", asked, doc.Path)
	}
	if len(doc.Parts) == 0 {
		c.fail("Read(%q) returned an empty Document (no parts): an empty file is one empty part, a missing one ErrNotFound", asked)
	}
	paged := 0
	for _, p := range doc.Parts {
		if p.Page > 0 {
			paged++
			if doc.Pages > 0 && p.Page > doc.Pages {
				c.fail("%s part on page %d of a %d-page document", doc.Path, p.Page, doc.Pages)
			}
		}
	}
	if doc.Pages > 0 && paged != doc.Pages {
		c.fail("%s says %d pages but has %d paged parts", doc.Path, doc.Pages, paged)
	}
	c.title(doc.Path+" title", doc.Title)
	for i, s := range doc.Sections {
		c.title(fmt.Sprintf("%s section %d title", doc.Path, i), s.Title)
		if s.Part < 0 || s.Part >= len(doc.Parts) || s.Offset < 0 || s.Offset > len(doc.Parts[s.Part].Text) {
			c.fail("%s section %d (%q) is anchored outside the text", doc.Path, i, s.Title)
		}
	}
	for i, p := range doc.Parts {
		c.location(fmt.Sprintf("%s part %d", doc.Path, i), p.Location)
		if !utf8.ValidString(p.Text) {
			c.fail("%s part %d is not valid UTF-8", doc.Path, i)
		}
		if p.NoTextLayer && p.Text != "" {
			c.fail("%s part %d has text but says it has no text layer", doc.Path, i)
		}
	}
}

// outside checks that paths outside the source are refused with
// ErrOutside, without echoing an absolute path.
func (c *checker) outside() {
	for _, p := range []string{"../outside.txt", "zz-not-in-this-source/x.txt", "/etc/passwd", ".agentero/x"} {
		_, err := c.src.Read(c.ctx, p)
		switch {
		case err == nil:
			c.fail("Read(%q) outside the source succeeded", p)
		case !errors.Is(err, sources.ErrOutside):
			c.fail("Read(%q) outside the source: %v, want an error wrapping sources.ErrOutside", p, err)
		}
		c.noEcho(p, err)
	}
}

// noEcho checks that an error does not repeat an absolute path it was
// given: it would reach the model and the host's logs.
func (c *checker) noEcho(p string, err error) {
	if err != nil && strings.HasPrefix(p, "/") && strings.Contains(err.Error(), p) {
		c.fail("the error of Read(%q) echoes the absolute path: %v", p, err)
	}
}

// missing checks that a path inside the source that does not exist is
// ErrNotFound (ErrOutside for a source of one document, which holds no
// other path).
func (c *checker) missing() {
	in := c.src.Info()
	p := strings.TrimSuffix(in.Path, "/") + "/zz-sourcetest-missing.txt"
	_, err := c.src.Read(c.ctx, p)
	_, lister := c.src.(sources.Lister)
	single := !lister && in.Kind == grant.KindFile
	switch {
	case err == nil:
		c.fail("Read(%q) of a missing document succeeded", p)
	case errors.Is(err, sources.ErrNotFound):
	case single && errors.Is(err, sources.ErrOutside):
	case single:
		c.fail("Read(%q) of a missing document: %v, want an error wrapping sources.ErrNotFound or sources.ErrOutside", p, err)
	default:
		c.fail("Read(%q) of a missing document: %v, want an error wrapping sources.ErrNotFound", p, err)
	}
}

// main checks Read(""): the main document of a source that is not a
// folder, ErrIsDirectory for one that lists.
func (c *checker) main() {
	doc, err := c.src.Read(c.ctx, "")
	_, lister := c.src.(sources.Lister)
	switch {
	case lister && (err == nil || errors.Is(err, sources.ErrIsDirectory)):
		// A folder lists; one that also has a main document may read it.
		if err == nil {
			c.document("", doc)
		}
	case err != nil:
		c.fail("Read(\"\"), the main document: %v", err)
	default:
		c.document("", doc)
	}
}

// region checks that a RegionReader says ErrNotFound for an id it does not
// know.
func (c *checker) region() {
	rr, ok := c.src.(sources.RegionReader)
	if !ok {
		return
	}
	reg, err := rr.Region(c.ctx, "zz-sourcetest-missing-region")
	switch {
	case err == nil:
		c.fail("Region of an unknown id returned %+v", reg)
	case !errors.Is(err, sources.ErrNotFound):
		c.fail("Region of an unknown id: %v, want an error wrapping sources.ErrNotFound", err)
	}
}

// described reads every document a Describer advertises.
func (c *checker) described() {
	d, ok := c.src.(sources.Describer)
	if !ok {
		return
	}
	m, err := d.Describe(c.ctx)
	if err != nil {
		c.fail("Describe: %v", err)
		return
	}
	if m == nil {
		c.fail("Describe returned no Metadata and no error")
		return
	}
	c.title("Describe title", m.Title)
	for _, a := range m.Authors {
		c.title("Describe author", a)
	}
	for _, p := range m.Documents {
		c.name("Describe document", p)
		doc, err := c.src.Read(c.ctx, p)
		if err != nil {
			c.fail("Read(%q), a document Describe lists: %v", p, err)
			continue
		}
		c.document(p, doc)
	}
}

// caps checks that Limit and ExcerptChars bound every search, not only the
// probe's first one.
func (c *checker) caps(probe string) {
	for _, n := range []int{1, 24} {
		res, err := c.src.Search(c.ctx, sources.Query{Text: probe, Limit: 2, ExcerptChars: n})
		if err != nil {
			c.fail("Search(%q) with ExcerptChars %d: %v", probe, n, err)
			continue
		}
		c.limited(2, res)
		for i, h := range res.Hits {
			if m := utf8.RuneCountInString(h.Excerpt); m > n {
				c.fail("hit %d excerpt has %d characters, above the %d asked", i, m, n)
			}
			if h.Excerpt != "" && !strings.Contains(h.Text, h.Excerpt) {
				c.fail("hit %d excerpt is not verbatim from its text", i)
			}
		}
	}
}

func (c *checker) list() {
	l, ok := c.src.(sources.Lister)
	if !ok {
		return
	}
	entries, _, err := l.List(c.ctx, "", 1000)
	if err != nil {
		c.fail("List: %v", err)
		return
	}
	ref := c.src.Info().Path
	seenFile := false
	for _, e := range entries {
		c.name("List entry", e.Name)
		c.name("List entry path", e.Path)
		if strings.HasPrefix(e.Name, ".") {
			c.fail("List shows hidden entry %q", e.Name)
		}
		if ref != "." && !strings.HasPrefix(e.Path, ref+"/") && !holds(c.src, e.Path) {
			c.fail("List entry %q is outside the source", e.Path)
		}
		if e.Kind == grant.KindFile {
			seenFile = true
		} else if seenFile {
			c.fail("List puts folder %q after files", e.Name)
		}
	}
	c.readEntries(l, entries)
}

// maxEntryReads bounds how many listed entries are read back.
const maxEntryReads = 50

// readEntries reads back what a listing advertises: a file's text (or a
// typed refusal of a binary, oversized or unreadable one), a paper's main
// document, a folder's own listing.
func (c *checker) readEntries(l sources.Lister, entries []sources.Entry) {
	for i, e := range entries {
		if i == maxEntryReads {
			break
		}
		if e.Kind == grant.KindDirectory {
			if _, err := c.src.Read(c.ctx, e.Path); !errors.Is(err, sources.ErrIsDirectory) {
				c.fail("Read(%q) of a listed folder: %v, want an error wrapping sources.ErrIsDirectory", e.Path, err)
			}
			if _, _, err := l.List(c.ctx, e.Path, 10); err != nil {
				c.fail("List(%q) of a listed folder: %v", e.Path, err)
			}
			continue
		}
		doc, err := c.src.Read(c.ctx, e.Path)
		switch {
		case err == nil:
			if e.Kind == grant.KindFile {
				c.document(e.Path, doc)
			} else {
				c.document("", doc) // a paper gives its main document
			}
		case e.Kind == grant.KindFile && (errors.Is(err, sources.ErrNotText) || errors.Is(err, sources.ErrTooLarge) || errors.Is(err, sources.ErrUnreadable)):
		default:
			c.fail("Read(%q) of a listed %s: %v", e.Path, e.Kind, err)
		}
	}
}

// holds reports whether src says it holds the document p though p is not
// below its path (sources.Holder).
func holds(src sources.Source, p string) bool {
	h, ok := src.(sources.Holder)
	return ok && h.Holds(p)
}
