package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// MarksFile is the marks a paper unit keeps besides its PDF's own
// annotations, as Agentero saves them.
const MarksFile = "marks/annotations.json"

// Bounds of marks/annotations.json. Agentero writes a few hundred bytes a
// mark, so a file of MarksFileMaxEntries real marks is about 4 MiB;
// MarksFileMaxEntries is the most marks a document keeps
// (pdf.MaxDocumentMarks). A file over either bound is refused whole, its
// reason said, and the paper's other content and its PDF's marks are
// still served.
const (
	// MarksFileMaxBytes bounds the file, checked before it is read.
	MarksFileMaxBytes = 4 << 20
	// MarksFileMaxEntries bounds its entries, counted as they are read,
	// each before it is decoded.
	MarksFileMaxEntries = pdf.MaxDocumentMarks
)

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
	data, err := s.l.v.FS().ReadFile(rel, MarksFileMaxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ""
	case errors.Is(err, safefs.ErrTooLarge):
		return nil, fmt.Sprintf("%s: not read: larger than the %d MiB limit of a marks file", rel, MarksFileMaxBytes>>20)
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
// not an array or an object with an annotations array, or over
// MarksFileMaxEntries).
var ErrMarksFile = errors.New("malformed marks file")

// ParseMarksFile reads marks/annotations.json, tolerantly: an array, or an
// object whose "annotations" is one, of objects with id, page (1-based) or
// pageIndex (0-based), text or quote, contents or comment, and optional
// color, createdAt, author and kind; other fields are ignored. An entry
// with no page, or that is not an object, is left out and counted in
// skipped. Its marks are in page order; their Path is unset. A file that
// is not such JSON, or that holds more than MarksFileMaxEntries entries,
// is an error wrapping ErrMarksFile.
//
// The file is read entry by entry: no more than one entry is held
// decoded besides the marks, and the entries are counted before each is
// decoded, so that what a file costs is bounded by its bytes and
// MarksFileMaxEntries, not by how many values it nests.
func ParseMarksFile(data []byte) (marks []sources.Mark, skipped int, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(data))
	object, err := openMarks(dec)
	if err != nil {
		return nil, 0, err
	}
	for n := 1; dec.More(); n++ {
		if n > MarksFileMaxEntries {
			return nil, 0, fmt.Errorf("%w: more than %d entries", ErrMarksFile, MarksFileMaxEntries)
		}
		var e markEntry
		if err := dec.Decode(&e); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				skipped++ // not an object: the decoder has read past it
				continue
			}
			return nil, 0, notJSON(dec, err)
		}
		m, ok := e.mark()
		if !ok {
			skipped++
			continue
		}
		marks = append(marks, m)
	}
	if _, err := dec.Token(); err != nil { // the array's ]
		return nil, 0, notJSON(dec, err)
	}
	if object {
		if err := closeObject(dec); err != nil {
			return nil, 0, err
		}
	}
	if _, err := dec.Token(); err != io.EOF { // nothing after the marks
		return nil, 0, notJSON(dec, err)
	}
	slices.SortStableFunc(marks, func(a, b sources.Mark) int { return a.Page - b.Page })
	return marks, skipped, nil
}

// openMarks reads the start of a marks file up to the [ of its array of
// marks: the file's own, or its object's "annotations" (whose other
// members before it are skipped). object says which.
func openMarks(dec *json.Decoder) (object bool, err error) {
	t, err := dec.Token()
	if err != nil {
		return false, notJSON(dec, err)
	}
	switch t {
	case json.Delim('['):
		return false, nil
	case json.Delim('{'):
	default:
		return false, errMarksShape
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return true, notJSON(dec, err)
		}
		if k, _ := key.(string); strings.EqualFold(k, "annotations") {
			t, err := dec.Token()
			switch {
			case err != nil:
				return true, notJSON(dec, err)
			case t != json.Delim('['):
				return true, errMarksShape
			}
			return true, nil
		}
		if err := skipValue(dec); err != nil {
			return true, err
		}
	}
	return true, errMarksShape
}

// closeObject reads the members of a marks file's object after its
// "annotations", to its }.
func closeObject(dec *json.Decoder) error {
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the key
			return notJSON(dec, err)
		}
		if err := skipValue(dec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return notJSON(dec, err)
	}
	return nil
}

// skipValue reads past the next value, keeping nothing of it.
func skipValue(dec *json.Decoder) error {
	var none struct{}
	err := dec.Decode(&none)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
		return notJSON(dec, err)
	}
	return nil
}

// errMarksShape: valid JSON, but not marks.
var errMarksShape = fmt.Errorf("%w: neither an array of marks nor an object with an annotations array", ErrMarksFile)

// notJSON is the error of a marks file that is not valid JSON: where it
// stops being JSON, never the text found there.
func notJSON(dec *json.Decoder, err error) error {
	at := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at = se.Offset
	}
	return fmt.Errorf("%w: not valid JSON (at byte %d)", ErrMarksFile, at)
}

// markEntry is one entry of a marks file: the fields read, each as it is
// written, whatever its type; other fields are skipped unread.
type markEntry struct {
	Page      json.RawMessage `json:"page"`
	PageIndex json.RawMessage `json:"pageIndex"`
	Text      json.RawMessage `json:"text"`
	Quote     json.RawMessage `json:"quote"`
	Contents  json.RawMessage `json:"contents"`
	Comment   json.RawMessage `json:"comment"`
	Color     json.RawMessage `json:"color"`
	CreatedAt json.RawMessage `json:"createdAt"`
	Author    json.RawMessage `json:"author"`
	Kind      json.RawMessage `json:"kind"`
	Type      json.RawMessage `json:"type"`
}

// mark is the entry as a mark, each field cut to its bound; false when it
// has no valid page.
func (e *markEntry) mark() (sources.Mark, bool) {
	page := 0
	if n, ok := jsonNumber(e.Page); ok && n >= 1 {
		page = int(n)
	} else if n, ok := jsonNumber(e.PageIndex); ok && n >= 0 {
		page = int(n) + 1
	}
	if page < 1 || page > 1_000_000 {
		return sources.Mark{}, false
	}
	m := sources.Mark{Location: sources.Location{Page: page}}
	m.Text = oneLine(firstString(e.Text, e.Quote), pdf.MaxMarkText)
	m.Comment = block(firstString(e.Contents, e.Comment), pdf.MaxMarkComment)
	m.Color = oneLine(firstString(e.Color), 32)
	m.Created = oneLine(firstString(e.CreatedAt), 64)
	m.Author = oneLine(firstString(e.Author), 400)
	m.Kind = sources.MarkNote
	if m.Text != "" {
		m.Kind = sources.MarkHighlight
	}
	if k := strings.ToLower(firstString(e.Kind, e.Type)); pdf.IsMarkKind(k) {
		m.Kind = sources.MarkKind(k)
	}
	return m, true
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

// firstString is the first of values that is a JSON string not blank.
func firstString(values ...json.RawMessage) string {
	for _, raw := range values {
		var s string
		if len(raw) > 0 && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
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
