// Package sourcetest checks that a sources.Source behaves as the tools
// expect, the way testing/fstest checks an fs.FS. A connector for another
// library runs it against its own source:
//
//	if err := sourcetest.Test(ctx, src, "attention"); err != nil {
//		t.Fatal(err)
//	}
package sourcetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// Test checks src. probe is a query that must match at least one passage of
// the source. It returns every problem found, joined, or nil.
func Test(ctx context.Context, src sources.Source, probe string) error {
	c := &checker{ctx: ctx, src: src}
	c.info()
	hits := c.search(probe)
	c.noMatch()
	c.determinism(probe, hits)
	c.read(hits)
	c.outside()
	c.list()
	return errors.Join(c.errs...)
}

type checker struct {
	ctx  context.Context
	src  sources.Source
	errs []error
}

func (c *checker) fail(format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: "+format, append([]any{c.src.Info().Ref}, a...)...))
}

func (c *checker) info() {
	in := c.src.Info()
	if in.Ref == "" {
		c.fail("Info().Ref is empty")
	}
	if in.Kind == "" {
		c.fail("Info().Kind is empty")
	}
	c.title("Info().Title", in.Title)
	c.name("Info().Ref", in.Ref)
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

func (c *checker) search(probe string) []sources.Hit {
	res, err := c.src.Search(c.ctx, sources.Query{Text: probe, Limit: 3, ExcerptChars: excerptChars})
	if err != nil {
		c.fail("Search(%q): %v", probe, err)
		return nil
	}
	if len(res.Hits) == 0 {
		c.fail("Search(%q) found nothing; the probe must match", probe)
	}
	if len(res.Hits) > 3 {
		c.fail("Search with Limit 3 returned %d hits", len(res.Hits))
	}
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
	one, err := c.src.Search(c.ctx, sources.Query{Text: probe, Limit: 1})
	if err == nil && len(one.Hits) > 1 {
		c.fail("Search with Limit 1 returned %d hits", len(one.Hits))
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

// determinism runs the probe concurrently and expects the same hits.
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
			if err != nil {
				c.fail("concurrent Search: %v", err)
			} else if !reflect.DeepEqual(res.Hits, want) {
				c.fail("concurrent Search gave different hits")
			}
		}()
	}
	wg.Wait()
}

// read checks that every hit's document can be read and holds its text.
func (c *checker) read(hits []sources.Hit) {
	for i, h := range hits {
		doc, err := c.src.Read(c.ctx, h.Path)
		if err != nil {
			c.fail("Read(%q) of hit %d: %v", h.Path, i, err)
			continue
		}
		c.document(doc)
		found := false
		for _, p := range doc.Parts {
			if (h.Page == 0 || p.Page == h.Page) && strings.Contains(p.Text, h.Text) {
				found = true
				break
			}
		}
		if !found {
			c.fail("hit %d text is not in %s (page %d)", i, h.Path, h.Page)
		}
	}
}

func (c *checker) document(doc *sources.Document) {
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

func (c *checker) outside() {
	for _, p := range []string{"../outside.txt", "zz-not-in-this-source/x.txt", "/etc/passwd", ".agentero/x"} {
		if _, err := c.src.Read(c.ctx, p); err == nil {
			c.fail("Read(%q) outside the source succeeded", p)
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
	ref := c.src.Info().Ref
	seenFile := false
	for _, e := range entries {
		c.name("List entry", e.Name)
		c.name("List entry path", e.Path)
		if strings.HasPrefix(e.Name, ".") {
			c.fail("List shows hidden entry %q", e.Name)
		}
		if ref != "." && !strings.HasPrefix(e.Path, ref+"/") {
			c.fail("List entry %q is outside the source", e.Path)
		}
		if e.Kind == grant.KindFile {
			seenFile = true
		} else if seenFile {
			c.fail("List puts folder %q after files", e.Name)
		}
	}
}
