package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// MarksFile is the marks a paper unit keeps besides its PDF's own
// annotations, as Agentero saves them.
const MarksFile = "marks/annotations.json"

// marksFileMax caps marks/annotations.json.
const marksFileMax = 16 << 20

var (
	_ sources.MarkReader = (*Paper)(nil)
	_ sources.MarkReader = (*PDF)(nil)
	_ sources.MarkReader = (*Directory)(nil)
)

// Marks implements sources.MarkReader.
func (s *Paper) Marks(ctx context.Context, p string) (*sources.Marks, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := s.resolve(p)
	if err != nil {
		return nil, err
	}
	out := &sources.Marks{}
	if s.p.PDF != "" && rel == s.p.PDF {
		doc, err := s.pdfDocument(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out.Problems = append(out.Problems, problemLine(err))
		} else {
			out.Marks = pdfMarks(s.p.PDF, doc)
		}
	} else if rel != s.p.PDF && s.p.PDF != "" {
		if !s.exists(rel) {
			return nil, fmt.Errorf("%s: %w", rel, sources.ErrNotFound)
		}
		return out, nil // a Markdown file holds no marks
	}
	at := s.p.PDF
	if at == "" {
		at = s.p.Ref + "/" + MarksFile
	}
	own, problem := s.fileMarks(at)
	if problem != "" {
		out.Problems = append(out.Problems, problem)
	}
	out.Marks = mergeMarks(out.Marks, own)
	return out, nil
}

// fileMarks reads the paper's marks/annotations.json, its marks located in
// the document at; a missing file has none, a malformed one says why.
func (s *Paper) fileMarks(at string) ([]sources.Mark, string) {
	rel := s.p.Ref + "/" + MarksFile
	data, err := s.l.v.FS().ReadFile(rel, marksFileMax)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ""
	case err != nil:
		return nil, rel + ": " + problemLine(fsErr(err))
	}
	marks, skipped, err := ParseMarksFile(data)
	for i := range marks {
		marks[i].Path = at
	}
	switch {
	case err != nil:
		return nil, rel + ": " + problemLine(err)
	case skipped > 0:
		return marks, fmt.Sprintf("%s: %d entries left out (no page, or not an object)", rel, skipped)
	}
	return marks, ""
}

// Marks implements sources.MarkReader: the PDF's own annotations.
func (s *PDF) Marks(ctx context.Context, p string) (*sources.Marks, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.own(p); err != nil {
		return nil, err
	}
	doc, err := s.pdf.document(ctx)
	if err != nil {
		return nil, err
	}
	return &sources.Marks{Marks: pdfMarks(s.ref, doc)}, nil
}

// Marks implements sources.MarkReader: the marks of a paper or PDF in the
// directory; other files have none.
func (d *Directory) Marks(ctx context.Context, p string) (*sources.Marks, error) {
	rel, err := d.inside(p)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, fmt.Errorf("%w: %s", sources.ErrIsDirectory, d.ref)
	}
	full := path.Join(d.ref, rel)
	if src, sub, err := d.paperAt(ctx, full); err != nil || src != nil {
		if err != nil {
			return nil, err
		}
		return src.Marks(ctx, sub)
	}
	f, err := d.view()
	if err != nil {
		return nil, err
	}
	st, err := f.Stat(rel)
	closeView(d, f)
	if err != nil {
		return nil, fsErr(err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%w: %s", sources.ErrIsDirectory, full)
	}
	if !isPDF(full) {
		return &sources.Marks{}, nil
	}
	src, err := d.lib.Open(ctx, grant.KindFile, full)
	if err != nil {
		return nil, fsErr(err)
	}
	mr, ok := src.(sources.MarkReader)
	if !ok {
		return &sources.Marks{}, nil
	}
	return mr.Marks(ctx, "")
}

// pdfMarks are the marks of an extracted PDF at rel, in page order.
func pdfMarks(rel string, doc *pdf.Document) []sources.Mark {
	var out []sources.Mark
	for i, pg := range doc.Pages {
		for _, m := range pg.Marks {
			out = append(out, sources.Mark{
				Location: sources.Location{Path: rel, Page: pg.Number, Label: pageLabel(doc, i)},
				Kind:     sources.MarkKind(m.Kind), Text: m.Text, Comment: m.Comment, Author: m.Author, Created: m.Created, Color: m.Color,
			})
		}
	}
	return out
}

// problemLine is an error as one short line.
func problemLine(err error) string {
	s, _ := textnorm.Truncate(textnorm.Line(err.Error()), 200)
	return s
}

// ErrMarksFile: marks/annotations.json is not what it should be (not JSON,
// not an array or an object with an annotations array).
var ErrMarksFile = errors.New("malformed marks file")

// ParseMarksFile reads marks/annotations.json, tolerantly: an array, or an
// object whose "annotations" is one, of objects with id, page (1-based) or
// pageIndex (0-based), text or quote, contents or comment, and optional
// color, createdAt, author and kind; other fields are ignored. An entry
// with no page, or that is not an object, is left out and counted in
// skipped. Its marks are in page order; their Path is unset. A file that
// is not such JSON is an error wrapping ErrMarksFile.
func ParseMarksFile(data []byte) (marks []sources.Mark, skipped int, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		var obj struct {
			Annotations *[]json.RawMessage `json:"annotations"`
		}
		if err2 := json.Unmarshal(data, &obj); err2 != nil || obj.Annotations == nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, 0, fmt.Errorf("%w: not valid JSON (at byte %d)", ErrMarksFile, se.Offset)
			}
			return nil, 0, fmt.Errorf("%w: neither an array of marks nor an object with an annotations array", ErrMarksFile)
		}
		list = *obj.Annotations
	}
	for _, raw := range list {
		if len(marks) >= pdf.MaxDocumentMarks {
			skipped += len(list) - len(marks) - skipped
			break
		}
		var e map[string]json.RawMessage
		if json.Unmarshal(raw, &e) != nil || e == nil {
			skipped++
			continue
		}
		page := 0
		if n, ok := jsonNumber(e["page"]); ok && n >= 1 {
			page = int(n)
		} else if n, ok := jsonNumber(e["pageIndex"]); ok && n >= 0 {
			page = int(n) + 1
		}
		if page < 1 || page > 1_000_000 {
			skipped++
			continue
		}
		m := sources.Mark{Location: sources.Location{Page: page}}
		m.Text = oneLine(firstString(e, "text", "quote"), pdf.MaxMarkText)
		m.Comment = block(firstString(e, "contents", "comment"), pdf.MaxMarkComment)
		m.Color = oneLine(firstString(e, "color"), 32)
		m.Created = oneLine(firstString(e, "createdAt"), 64)
		m.Author = oneLine(firstString(e, "author"), 400)
		m.Kind = sources.MarkNote
		if m.Text != "" {
			m.Kind = sources.MarkHighlight
		}
		if k := strings.ToLower(firstString(e, "kind", "type")); pdf.IsMarkKind(k) {
			m.Kind = sources.MarkKind(k)
		}
		marks = append(marks, m)
	}
	slices.SortStableFunc(marks, func(a, b sources.Mark) int { return a.Page - b.Page })
	return marks, skipped, nil
}

// jsonNumber is a JSON number (or a numeric string) as a whole number.
func jsonNumber(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return 0, false
		}
		f = v
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, false
	}
	return f, true
}

// firstString is the first of keys whose value is a JSON string.
func firstString(e map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := e[k]; ok && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	s = textnorm.Line(s)
	if len(s) > n {
		s, _ = textnorm.Truncate(s, utf8.RuneCountInString(s[:n])-1)
	}
	return s
}

// block is a comment trimmed, its line ends normalised, at most n bytes.
func block(s string, n int) string {
	s = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"))
	if len(s) > n {
		s, _ = textnorm.Truncate(s, utf8.RuneCountInString(s[:n])-1)
	}
	return s
}

// mergeMarks adds the marks of the annotations file to the PDF's, leaving
// out one that the PDF holds already: on the same page, with the same
// marked text, or (for two without text) the same comment. A file's mark
// that adds a comment the PDF's lacks gives it that comment.
func mergeMarks(pdfs, own []sources.Mark) []sources.Mark {
	if len(own) == 0 {
		return pdfs
	}
	key := func(s string) string { return textnorm.Fold(strings.Join(strings.Fields(s), " ")) }
	out := slices.Clone(pdfs)
	for _, m := range own {
		dup := -1
		for i, p := range pdfs {
			if p.Page != m.Page {
				continue
			}
			sameText := m.Text != "" && p.Text != "" && sameWords(key(p.Text), key(m.Text))
			sameNote := m.Text == "" && p.Text == "" && key(p.Comment) == key(m.Comment)
			sameComment := m.Text == "" && m.Comment != "" && key(p.Comment) == key(m.Comment)
			if sameText || sameNote || sameComment {
				dup = i
				break
			}
		}
		if dup < 0 {
			out = append(out, m)
			continue
		}
		if out[dup].Comment == "" {
			out[dup].Comment = m.Comment
		}
	}
	slices.SortStableFunc(out, func(a, b sources.Mark) int { return a.Page - b.Page })
	return out
}

// sameWords reports whether two folded texts are the same marked text: the
// same, or one holding the other with at most a few words more (a viewer
// and Agentero can disagree on a word at either end).
func sameWords(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	return strings.Contains(a, b) && len(strings.Fields(a))-len(strings.Fields(b)) <= 2
}
