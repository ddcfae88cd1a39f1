package sources

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/internal/index"
)

// unit is one searchable piece of a source: a text file, a PDF page, a
// PAPER.md or NOTES.md. Its key in the index is its position.
type unit struct {
	Loc   Location
	Title string
	Text  string
}

// unitIndex is the search index of one source over its units.
type unitIndex struct {
	units []unit
	ix    *index.Index
}

func buildUnitIndex(units []unit) *unitIndex {
	var b unitBuilder
	if err := b.add(units...); err != nil {
		// Only an index past 2³² positions fails; keep what fits.
		return b.index()
	}
	return b.index()
}

// unitBuilder indexes units as they come.
type unitBuilder struct {
	units []unit
	b     index.Builder
}

func (u *unitBuilder) add(units ...unit) error {
	for _, un := range units {
		if err := u.addTokenized(un, tokenize(un)); err != nil {
			return err
		}
	}
	return nil
}

// tokenize prepares a unit for addTokenized; it may run on any goroutine.
func tokenize(un unit) index.Tokenized {
	return index.Tokenize(index.Doc{Key: unitKey(un.Loc), Title: un.Title, Body: bodyAfterTitle(un.Text, un.Title)})
}

func (u *unitBuilder) addTokenized(un unit, t index.Tokenized) error {
	if err := u.b.AddTokenized(t); err != nil {
		return err
	}
	u.units = append(u.units, un)
	return nil
}

func (u *unitBuilder) index() *unitIndex {
	return &unitIndex{units: u.units, ix: u.b.Index()}
}

// bodyAfterTitle drops the text's first line when it is the title, so the
// title is weighted once, as a title, not again as body text.
func bodyAfterTitle(text, title string) string {
	if title == "" {
		return text
	}
	rest := strings.TrimLeft(text, " \t\r\n")
	line, after, _ := strings.Cut(rest, "\n")
	if firstLine(line) == title {
		return after
	}
	return text
}

func unitKey(l Location) string {
	if l.Page > 0 {
		return fmt.Sprintf("%s#page=%06d", l.Path, l.Page)
	}
	return l.Path + "#" + l.Section
}

// search ranks the units for q and picks each hit's excerpt.
func (u *unitIndex) search(q Query) *Results {
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	hits, total := u.ix.Search(q.Text, limit)
	res := &Results{Total: total, Hits: make([]Hit, 0, len(hits))}
	for _, h := range hits {
		un := u.units[h.Doc]
		hit := Hit{Location: un.Loc, Title: un.Title, Text: un.Text, Score: h.Norm}
		if q.ExcerptChars > 0 {
			s, e := u.ix.BestPassage(un.Text, q.Text, q.ExcerptChars)
			hit.Excerpt = un.Text[s:e]
		}
		res.Hits = append(res.Hits, hit)
	}
	return res
}

// stampOf hashes what a source's index depends on.
func stampOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// firstLine returns the first non-empty line of text without Markdown
// heading marks, at most 200 characters: a text file's title.
func firstLine(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" {
			if r := []rune(line); len(r) > 200 {
				line = string(r[:200])
			}
			return line
		}
	}
	return ""
}
