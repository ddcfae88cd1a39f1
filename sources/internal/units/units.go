// Package units cuts a source's documents into search units — a page, a
// file, a Markdown section, a piece of a long one, one of the researcher's
// marks — and reads a text file
// as a Document (its Markdown headings as sections). The Vault's sources
// (package sources/vault) put their units in the library index; Index is
// the in-memory index of one source that keeps its own
// (sourcetest.Memory).
package units

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// Unit is one searchable piece of a source: a text file, a PDF page, a
// PAPER.md or NOTES.md, one of the researcher's marks. Its key in the index
// is its position.
type Unit struct {
	Loc   sources.Location
	Title string
	Text  string
	// Mark, for one of the researcher's marks, is its kind; Text is then
	// the page text it marks (empty for a note) and Comment the comment,
	// searched with it.
	Mark    sources.MarkKind
	Comment string
	// URI, for a mark without a page, is the mark's own citation URI (a
	// location in an EPUB), which its Location cannot say; a mark on a
	// page is cited by its page.
	URI string
}

// OfMarks makes the search units of marks, one per mark with text or a
// comment, under the document's title. They are not split: a mark's text
// and comment are bounded well below MaxBytes.
func OfMarks(marks []sources.Mark, title string) []Unit {
	var out []Unit
	for _, m := range marks {
		if strings.TrimSpace(m.Text) == "" && strings.TrimSpace(m.Comment) == "" {
			continue
		}
		un := Unit{Loc: m.Location, Title: title, Text: m.Text, Mark: m.Kind, Comment: m.Comment}
		if m.Page == 0 {
			un.URI = m.URI
		}
		out = append(out, un)
	}
	return out
}

// HitMark is the Mark a hit on a mark unit carries, and the hit's text: the
// marked text, or the comment of a mark without one.
func HitMark(loc sources.Location, kind sources.MarkKind, text, comment string) (*sources.Mark, string) {
	m := &sources.Mark{Location: loc, Kind: kind, Text: text, Comment: comment}
	if strings.TrimSpace(text) == "" {
		text = comment
	}
	return m, text
}

// Index is the search index of one source over its units.
type Index struct {
	units []Unit
	ix    *index.Index
}

// Build indexes units, in order.
func Build(units []Unit) *Index {
	var b index.Builder
	out := &Index{}
	for _, u := range units {
		title, body := u.Title, BodyAfterTitle(u.Text, u.Title)
		key := unitKey(u.Loc)
		if u.Mark != "" {
			// A mark is found by its own words, not its document's title.
			title, body = "", u.Text+"\n"+u.Comment
			key = u.Loc.Path + "#!mark" + key[len(u.Loc.Path):]
		}
		if err := b.AddTokenized(index.Tokenize(index.Doc{Key: key, Title: title, Body: body})); err != nil {
			break // only an index past 2³² positions fails; keep what fits
		}
		out.units = append(out.units, u)
	}
	out.ix = b.Index()
	return out
}

// BodyAfterTitle drops the text's first line when it is the title, so the
// title is weighted once, as a title, not again as body text.
func BodyAfterTitle(text, title string) string {
	if title == "" {
		return text
	}
	rest := strings.TrimLeft(text, " \t\r\n")
	line, after, _ := strings.Cut(rest, "\n")
	if FirstLine(line) == title {
		return after
	}
	return text
}

// MaxBytes bounds the text of one search unit. A longer unit (a file
// without headings, a one-line PAPER.md, a huge section) is split into
// pieces of at most this size, cut at a line, sentence or word end, so that
// tokenising a unit and picking a hit's passage from it cost time and
// memory bounded by the piece, not by the file.
const MaxBytes = 64 << 10

// Split returns units with every unit above MaxBytes split into
// pieces with the same location.
func Split(units []Unit) []Unit {
	n := 0
	for _, u := range units {
		n += len(u.Text)/MaxBytes + 1
	}
	if n == len(units) {
		return units
	}
	out := make([]Unit, 0, n)
	for _, u := range units {
		for len(u.Text) > MaxBytes {
			cut := pieceEnd(u.Text, MaxBytes)
			piece := u
			piece.Text = u.Text[:cut]
			out = append(out, piece)
			u.Text = u.Text[cut:]
		}
		if u.Text != "" {
			out = append(out, u)
		}
	}
	return out
}

// pieceEnd returns where to cut the first piece of s, at most max bytes
// long: after its last line break, else sentence end, else space in the
// second half, else on a character boundary.
func pieceEnd(s string, max int) int {
	head := s[:max]
	if i := strings.LastIndexByte(head, '\n'); i >= max/2 {
		return i + 1
	}
	if i := strings.LastIndex(head, ". "); i >= max/2 {
		return i + 2
	}
	if i := strings.LastIndexByte(head, ' '); i >= max/2 {
		return i + 1
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return cut
}

func unitKey(l sources.Location) string {
	if l.Page > 0 {
		return fmt.Sprintf("%s#page=%06d", l.Path, l.Page)
	}
	return l.Path + "#" + l.Section
}

// Search ranks the units for q and picks each hit's excerpt.
func (u *Index) Search(q sources.Query) *sources.Results {
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	hits, total := u.ix.Search(q.Text, 2*limit) // room for the marks left out
	res := &sources.Results{Total: total, Hits: make([]sources.Hit, 0, min(limit, len(hits)))}
	for _, h := range hits {
		un := u.units[h.Doc]
		if un.Mark != "" && !MarkAnswers(un.Text, un.Comment, q.Text) {
			res.Total--
			continue
		}
		if len(res.Hits) == limit {
			break
		}
		hit := sources.Hit{Location: un.Loc, Title: un.Title, Text: un.Text, Score: h.Norm}
		if un.Mark != "" {
			hit.Mark, hit.Text = HitMark(un.Loc, un.Mark, un.Text, un.Comment)
			hit.Mark.URI = un.URI
			hit.Excerpt = MarkExcerpt(hit.Text, q.ExcerptChars)
		} else if q.ExcerptChars > 0 {
			s, e := u.ix.BestPassage(un.Text, q.Text, q.ExcerptChars)
			hit.Excerpt = un.Text[s:e]
		}
		res.Hits = append(res.Hits, hit)
	}
	return res
}

// MarkAnswers reports whether a mark answers query: its text and comment
// hold at least half of the query's words (stopwords aside, when it has
// others). A mark is short: one word of a longer query in common with it
// is not a reason to show it beside its page.
func MarkAnswers(text, comment, query string) bool {
	terms := map[string]bool{}
	for _, t := range textnorm.Tokens(text + "\n" + comment) {
		terms[t.Term] = true
	}
	q := textnorm.Tokens(query)
	want := map[string]bool{}
	for _, t := range q {
		if !t.Stop {
			want[t.Term] = true
		}
	}
	if len(want) == 0 {
		for _, t := range q {
			want[t.Term] = true
		}
	}
	found := 0
	for t := range want {
		if terms[t] {
			found++
		}
	}
	return len(want) > 0 && 2*found >= len(want)
}

// MarkExcerpt is the excerpt of a mark's hit: its text, trimmed, at most
// chars characters (all of it when chars is 0).
func MarkExcerpt(text string, chars int) string {
	ex := strings.TrimSpace(text)
	if chars > 0 {
		ex, _ = textnorm.Truncate(ex, chars)
	}
	return ex
}

// FirstLine returns the first non-empty line of text without Markdown
// heading marks, at most 200 characters: a text file's title.
func FirstLine(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		// Only the start of a long line can become the title: do not
		// fold megabytes to keep 200 characters.
		line = strings.TrimLeft(line, " \t\r")
		if len(line) > 4*MaxTitle {
			cut := 4 * MaxTitle
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			line = line[:cut]
		}
		line = textnorm.Line(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" {
			line, _ = textnorm.Truncate(line, MaxTitle)
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// MaxTitle is the longest title, in characters, taken from a file's first
// line.
const MaxTitle = 200

// TextDocument makes the Document of a text file: one part, with the
// Markdown ATX headings ("# Title") outside fenced code blocks as sections.
func TextDocument(p, text string) *sources.Document {
	doc := &sources.Document{Path: p, Title: FirstLine(text), Parts: []sources.Part{{Location: sources.Location{Path: p}, Text: text}}}
	if doc.Title == "" {
		doc.Title = textnorm.Line(path.Base(p))
	}
	if !IsMarkdown(p) {
		return doc
	}
	doc.Sections = MarkdownSections(text, 0)
	return doc
}

// IsMarkdown reports whether a file name is Markdown by its extension.
func IsMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return true
	}
	return false
}

// MarkdownSections returns the ATX headings of text, anchored in part.
func MarkdownSections(text string, part int) []sources.Section {
	var secs []sources.Section
	fence := ""
	off := 0
	for line := range strings.SplitSeq(text, "\n") {
		start := off
		off += len(line) + 1
		trim := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			fence = trim[:3]
			continue
		}
		if !strings.HasPrefix(line, "#") {
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		title := textnorm.Line(strings.Trim(strings.TrimSpace(line[level:]), "#"))
		if level > 6 || title == "" || len(line) > level && line[level] != ' ' && line[level] != '\t' {
			continue
		}
		secs = append(secs, sources.Section{Title: title, Level: level, Part: part, Offset: start})
	}
	return secs
}

// Of makes the search units of a document: one per part, or one
// per section for a part with headings; a unit above MaxBytes is split.
func Of(doc *sources.Document) []Unit {
	return Split(partUnits(doc))
}

func partUnits(doc *sources.Document) []Unit {
	var units []Unit
	for i, p := range doc.Parts {
		if p.NoTextLayer || p.Err != nil || p.Text == "" {
			continue
		}
		var secs []sources.Section
		for _, s := range doc.Sections {
			if s.Part == i {
				secs = append(secs, s)
			}
		}
		if len(secs) == 0 {
			units = append(units, Unit{Loc: p.Location, Title: doc.Title, Text: p.Text})
			continue
		}
		// One unit per section, so a card cites the section it is from.
		cuts := []int{0}
		titles := []string{""}
		for _, s := range secs {
			if s.Offset > 0 {
				cuts = append(cuts, s.Offset)
				titles = append(titles, s.Title)
			} else {
				titles[0] = s.Title
			}
		}
		cuts = append(cuts, len(p.Text))
		for k := 0; k+1 < len(cuts); k++ {
			text := p.Text[cuts[k]:cuts[k+1]]
			if text == "" {
				continue
			}
			loc := p.Location
			loc.Section = titles[k]
			units = append(units, Unit{Loc: loc, Title: doc.Title, Text: text})
		}
	}
	return units
}
