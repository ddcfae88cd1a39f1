package zotero

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// Limits on an annotation's position, Zotero's JSON text.
const (
	// maxPositionBytes bounds the position JSON that is decoded; a larger
	// one is skipped with its reason.
	maxPositionBytes = 64 << 10
	// maxPage bounds the page an annotation may point at when its PDF's
	// page count is not known.
	maxPage = 100_000
	// maxProblems bounds the lines that say why annotations were skipped.
	maxProblems = 5
)

// Zotero's annotation types (itemAnnotations.type) and the mark kinds
// they are.
var annKinds = map[int]sources.MarkKind{
	1: sources.MarkHighlight,
	2: sources.MarkNote,
	3: "image",
	4: sources.MarkInk,
	5: sources.MarkUnderline,
	6: sources.MarkFreeText, // Zotero's "text" annotation, a text box
}

// errPosition is an annotation position that cannot be used.
var errPosition = errors.New("position")

// annotationPage returns the 0-based page index of an annotation's
// position, checked against pages (0 when unknown: then maxPage), or why
// it cannot be used. An EPUB's or a snapshot's position (a selector, no
// page) gives -1.
func annotationPage(pos string, pages int) (int, error) {
	if len(pos) > maxPositionBytes {
		return 0, fmt.Errorf("%w over %d KiB", errPosition, maxPositionBytes>>10)
	}
	var p struct {
		PageIndex json.RawMessage `json:"pageIndex"`
		Type      string          `json:"type"`
	}
	if err := json.Unmarshal([]byte(pos), &p); err != nil {
		return 0, fmt.Errorf("%w is not valid JSON", errPosition)
	}
	if p.PageIndex == nil {
		if p.Type != "" {
			return -1, nil
		}
		return 0, fmt.Errorf("%w has no page", errPosition)
	}
	raw := string(p.PageIndex)
	n, err := strconv.ParseInt(raw, 10, 64)
	limit := int64(maxPage)
	if pages > 0 {
		limit = int64(pages)
	}
	if err != nil || n < 0 || n >= limit {
		shown, _ := textnorm.Truncate(textnorm.Line(raw), 24)
		return 0, fmt.Errorf("%w points at page %s, not a page of the file", errPosition, shown)
	}
	return int(n), nil
}

// annotationCFI returns the EPUB CFI an annotation's position holds, a
// FragmentSelector whose value is "epubcfi(…)", or "" when it holds none
// that a citation URI can carry (cite.CFI's rules).
func annotationCFI(pos string) string {
	if len(pos) > maxPositionBytes {
		return ""
	}
	var p struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	}
	if json.Unmarshal([]byte(pos), &p) != nil || p.Type != "FragmentSelector" || !strings.HasPrefix(p.Value, "epubcfi(") {
		return ""
	}
	return p.Value
}

// marks returns the marks of an item: a regular item's are all its
// attachments', an attachment's its own annotations merged with those
// saved in its PDF file, a note has none.
func (s *Snapshot) marks(ctx context.Context, it *Item) *sources.Marks {
	out := &sources.Marks{}
	if it == nil {
		return out
	}
	atts := []*Item{it}
	if it.isRegular() {
		atts = nil
		for _, a := range s.children(it) {
			if a.isAttachment() {
				atts = append(atts, a)
			}
		}
	}
	skipped := map[string]int{}
	for _, a := range atts {
		if !a.isAttachment() {
			continue
		}
		ms, pdfMarks := s.attachmentMarks(ctx, a, skipped)
		out.Marks = append(out.Marks, merge(ms, pdfMarks)...)
	}
	var reasons []string
	for r := range skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		if len(out.Problems) == maxProblems {
			break
		}
		out.Problems = append(out.Problems, fmt.Sprintf("%d annotation(s) skipped: %s", skipped[r], r))
	}
	return out
}

// attachmentMarks returns Zotero's annotations of one attachment, in
// reading order, and the marks saved in its PDF file.
func (s *Snapshot) attachmentMarks(ctx context.Context, a *Item, skipped map[string]int) (own, inFile []sources.Mark) {
	p := s.path(a)
	pages := 0
	var labels []string
	var texts []string
	flat := map[int]*flatPage{}
	if a.isPDF() {
		if doc, err := s.lib.pdfs.document(ctx, p, a); err == nil {
			pages, labels = len(doc.Pages), doc.Labels
			for _, pg := range doc.Pages {
				texts = append(texts, pg.Text)
			}
			for i, pg := range doc.Pages {
				for _, m := range pg.Marks {
					inFile = append(inFile, sources.Mark{
						Location: sources.Location{Path: p, Page: i + 1, Label: pageLabel(labels, i)},
						Kind:     sources.MarkKind(m.Kind), Text: m.Text, Comment: m.Comment, Author: m.Author, Created: m.Created, Color: m.Color,
					})
				}
			}
		}
	}
	anns := make([]*Item, 0, len(a.children))
	for _, c := range a.children {
		if c.isAnnotation() && !c.trashed {
			anns = append(anns, c)
		}
	}
	sort.SliceStable(anns, func(i, j int) bool { return anns[i].annSort < anns[j].annSort })
	for _, an := range anns {
		kind, ok := annKinds[an.annType]
		if !ok {
			skipped["unknown annotation type"]++
			continue
		}
		page := -1
		if a.isPDF() {
			n, err := annotationPage(an.annPos, pages)
			if err != nil {
				skipped[err.Error()]++
				continue
			}
			page = n
		}
		m := sources.Mark{
			Location: sources.Location{Path: p},
			Kind:     kind,
			Text:     strings.TrimSpace(an.annText),
			Comment:  an.annCmt,
			Author:   textnorm.Line(an.annAuthor),
			Color:    textnorm.Line(an.annColor),
			Tags:     an.Tags,
		}
		if page >= 0 {
			m.Page = page + 1
			if l := textnorm.Line(an.annLabel); l != "" && l != fmt.Sprint(page+1) {
				m.Label = l
			}
			m.URI = cite.Annotation(p, m.Page, an.Key)
			if page < len(texts) && m.Text != "" {
				if flat[page] == nil {
					flat[page] = flatten(texts[page])
				}
				if v, ok := flat[page].verbatim(m.Text); ok {
					m.Text = v
				}
			}
		} else if cfi := annotationCFI(an.annPos); cfi != "" {
			// An EPUB's annotation is where its CFI says; one cite.CFI
			// refuses is cited by its attachment, as before.
			if u := cite.CFI(p, cfi); u != cite.File(p) {
				m.URI = u
			}
		}
		own = append(own, m)
	}
	return own, inFile
}

// merge returns Zotero's annotations and then the file's marks that are
// not one of them (same page and the same words), in page order.
func merge(own, inFile []sources.Mark) []sources.Mark {
	out := append([]sources.Mark(nil), own...)
	for _, f := range inFile {
		dup := false
		for _, o := range own {
			if o.Page == f.Page && sameWords(o.Text+" "+o.Comment, f.Text+" "+f.Comment) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Page < out[j].Page })
	return out
}

// sameWords compares texts by their words, case and spacing aside.
func sameWords(a, b string) bool {
	return bytes.EqualFold([]byte(strings.Join(strings.Fields(a), " ")), []byte(strings.Join(strings.Fields(b), " ")))
}

// flatPage is a page's text with every run of white space made one space,
// and where each of its bytes is in the page.
type flatPage struct {
	page string
	flat string
	at   []int32
}

func flatten(page string) *flatPage {
	var b strings.Builder
	at := make([]int32, 0, len(page))
	space := true
	for i := 0; i < len(page); i++ {
		c := page[i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			if !space {
				b.WriteByte(' ')
				at = append(at, int32(i))
			}
			space = true
			continue
		}
		b.WriteByte(c)
		at = append(at, int32(i))
		space = false
	}
	return &flatPage{page: page, flat: b.String(), at: at}
}

// verbatim returns the span of the page that holds text with its white
// space as the page has it (Zotero stores a highlight's text with its line
// breaks as spaces), so that a mark quotes the page verbatim.
func (f *flatPage) verbatim(text string) (string, bool) {
	want := strings.Join(strings.Fields(text), " ")
	i := strings.Index(f.flat, want)
	if i < 0 || want == "" {
		return "", false
	}
	return f.page[f.at[i] : f.at[i+len(want)-1]+1], true
}
