package sources

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/textnorm"
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
	var b index.Builder
	out := &unitIndex{}
	for _, u := range units {
		if err := b.AddTokenized(index.Tokenize(index.Doc{Key: unitKey(u.Loc), Title: u.Title, Body: bodyAfterTitle(u.Text, u.Title)})); err != nil {
			break // only an index past 2³² positions fails; keep what fits
		}
		out.units = append(out.units, u)
	}
	out.ix = b.Index()
	return out
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

// maxUnitBytes bounds the text of one search unit. A longer unit (a file
// without headings, a one-line PAPER.md, a huge section) is split into
// pieces of at most this size, cut at a line, sentence or word end, so that
// tokenising a unit and picking a hit's passage from it cost time and
// memory bounded by the piece, not by the file.
const maxUnitBytes = 64 << 10

// splitUnits returns units with every unit above maxUnitBytes split into
// pieces with the same location.
func splitUnits(units []unit) []unit {
	n := 0
	for _, u := range units {
		n += len(u.Text)/maxUnitBytes + 1
	}
	if n == len(units) {
		return units
	}
	out := make([]unit, 0, n)
	for _, u := range units {
		for len(u.Text) > maxUnitBytes {
			cut := pieceEnd(u.Text, maxUnitBytes)
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

// unitsVersion changes whenever what goes into the search units changes,
// so that a library index built the old way is rebuilt rather than misread.
const unitsVersion = "units-5"

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
		// Only the start of a long line can become the title: do not
		// fold megabytes to keep 200 characters.
		line = strings.TrimLeft(line, " \t\r")
		if len(line) > 4*maxTitle {
			cut := 4 * maxTitle
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			line = line[:cut]
		}
		line = textnorm.Line(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" {
			line, _ = textnorm.Truncate(line, maxTitle)
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// maxTitle is the longest title, in characters, taken from a file's first
// line.
const maxTitle = 200
