package pdf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// extractPage runs one page, turning a failure or panic into Page.Err.
func (d *doc) extractPage(pi *pageInfo, number int) (p Page) {
	p.Number = number
	defer func() {
		if r := recover(); r != nil {
			p.Text, p.Lines, p.NoTextLayer = "", nil, false
			p.Err = fmt.Errorf("%w: page %d: %v", ErrMalformed, number, r)
		}
	}()
	w, h := pi.box[2]-pi.box[0], pi.box[3]-pi.box[1]
	if pi.rotate == 90 || pi.rotate == 270 {
		w, h = h, w
	}
	p.Width, p.Height = w, h
	if d.spent != nil {
		p.Err = pageErr(d.spent, number)
		return p
	}
	content, err := d.pageContent(pi.dict)
	if err != nil {
		p.Err = pageErr(err, number)
		return p
	}
	in := newInterp(d, pageMatrix(pi.box, pi.rotate))
	in.pageW, in.pageH = w, h
	in.glyphs = d.glyphBuf[:0] // reused: pages keep no reference to glyphs
	err = in.run(content, pi.resources, 0)
	d.glyphBuf = in.glyphs[:0]
	d.glyphBudget -= in.shown
	var le *LimitError
	if errors.As(err, &le) && le.Limit == LimitDocGlyphs {
		d.spent = le
	}
	if err == nil {
		err = d.spent // a font's stream spent the document's budget
	}
	if err != nil {
		p.Err = pageErr(err, number)
		return p
	}
	marks, at, refs, sels := d.pageMarks(pi, pageMatrix(pi.box, pi.rotate), w, h, in.glyphs)
	blocks := layoutBlocks(in.glyphs)
	p.Lines, p.Text = blockLines(blocks, w, h)
	markTexts(marks, at, sels, blocks, w, h)
	orderMarks(marks, at, refs, p.Lines)
	p.Marks = marks
	if d.markRefs != nil && number-1 < len(d.markRefs) {
		d.markRefs[number-1] = refs
	}
	if strings.TrimSpace(p.Text) == "" {
		p.Lines, p.Text = nil, ""
	}
	if textSize(p.Text, p.Lines) > MaxPageText {
		// Glyphs whose text is long (a ToUnicode entry of many
		// characters): within the glyph limit, over the text's.
		p.Text, p.Lines = "", nil
		p.Err = pageErr(&LimitError{Limit: LimitPageText, Max: MaxPageText}, number)
		return p
	}
	alines, atext, err := d.annotText(pi, pageMatrix(pi.box, pi.rotate), w, h, in.shown, textSize(p.Text, p.Lines))
	if err != nil {
		p.Text, p.Lines = "", nil
		p.Err = pageErr(err, number)
		return p
	}
	if atext != "" {
		off := 0
		if p.Text != "" {
			p.Text += "\n\n"
			off = len(p.Text)
		}
		for _, l := range alines {
			l.Start += off
			p.Lines = append(p.Lines, l)
		}
		p.Text += atext
	}
	p.NoTextLayer = strings.TrimSpace(p.Text) == ""
	if p.NoTextLayer {
		p.Text, p.Lines = "", nil
	}
	size := textSize(p.Text, p.Lines)
	if size > MaxPageText {
		p.Text, p.Lines = "", nil
		p.Err = pageErr(&LimitError{Limit: LimitPageText, Max: MaxPageText}, number)
		return p
	}
	if size > d.textBudget {
		d.textBudget = 0
		d.spent = &LimitError{Limit: LimitDocText, Max: MaxDocumentText}
		p.Text, p.Lines = "", nil
		p.Err = pageErr(d.spent, number)
		return p
	}
	d.textBudget -= size
	return p
}

// lineBytes is what a line costs in a page's text size beyond its text:
// about what its box and offsets take in a cache record.
const lineBytes = 64

// textSize is what a page's text and lines count against MaxPageText and
// MaxDocumentText.
func textSize(text string, lines []Line) int {
	return len(text) + lineBytes*len(lines)
}

// pageErr is err as the error of page number: a *LimitError gets the page
// number, other errors not already typed are ErrMalformed.
func pageErr(err error, number int) error {
	var le *LimitError
	switch {
	case errors.As(err, &le):
		c := *le
		c.Page = number
		return &c
	case errors.Is(err, ErrTimeout), errors.Is(err, ErrMalformed):
		return fmt.Errorf("page %d: %w", number, err)
	}
	return fmt.Errorf("%w: page %d: %v", ErrMalformed, number, err)
}

// pageMatrix maps default user space to the displayed page: origin at the
// crop box's lower-left corner, /Rotate applied clockwise.
func pageMatrix(box [4]float64, rotate int) matrix {
	w, h := box[2]-box[0], box[3]-box[1]
	m := matrix{1, 0, 0, 1, -box[0], -box[1]}
	switch rotate {
	case 90:
		m = m.mul(matrix{0, -1, 1, 0, 0, w})
	case 180:
		m = m.mul(matrix{-1, 0, 0, -1, w, h})
	case 270:
		m = m.mul(matrix{0, 1, -1, 0, h, 0})
	}
	return m
}

// pageContent concatenates a page's decoded content streams, at most
// MaxPageBytes of them.
func (d *doc) pageContent(pd types.Dict) ([]byte, error) {
	o := d.resolve(pd["Contents"])
	switch v := o.(type) {
	case types.StreamDict:
		return d.streamBytes(v)
	case types.Array:
		var out []byte
		for _, e := range v {
			sd, ok := d.resolve(e).(types.StreamDict)
			if !ok {
				continue
			}
			b, err := d.streamBytes(sd)
			if err != nil {
				return nil, err
			}
			if len(out)+len(b) > MaxPageBytes {
				return nil, &LimitError{Limit: LimitPageBytes, Max: MaxPageBytes}
			}
			out = append(out, b...)
			out = append(out, '\n')
		}
		return out, nil
	}
	return nil, nil
}
