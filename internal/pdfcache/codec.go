package pdfcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/pdf"
)

// errKind names the sentinel err matches, for a record: its message, or
// "" for none.
func errKind(err error) string {
	for _, k := range []error{pdf.ErrMalformed, pdf.ErrTooLarge, pdf.ErrTimeout, pdf.ErrEncrypted} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	return ""
}

// kindErr is the sentinel errKind named kind; an unknown kind reads as
// pdf.ErrMalformed.
func kindErr(kind string) error {
	for _, k := range []error{pdf.ErrMalformed, pdf.ErrTooLarge, pdf.ErrTimeout, pdf.ErrEncrypted} {
		if k.Error() == kind {
			return k
		}
	}
	return pdf.ErrMalformed
}

// Page records are binary, not JSON: decoding a page's lines from JSON
// costs more than the millisecond a cached page read may take. A line's
// text is stored as its span of the page text, which it always is.

// encodePage is the record of p.
func encodePage(p *pdf.Page) []byte {
	b := make([]byte, 0, len(p.Text)+len(p.Lines)*48+64)
	b = binary.AppendUvarint(b, uint64(p.Number))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(p.Width))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(p.Height))
	flags := byte(0)
	if p.NoTextLayer {
		flags |= 1
	}
	b = append(b, flags)
	b = appendString(b, p.Text)
	var errMsg, kind string
	if p.Err != nil {
		errMsg, kind = truncateUTF8(p.Err.Error(), maxErrMsg), errKind(p.Err)
	}
	b = appendString(b, errMsg)
	b = appendString(b, kind)
	b = binary.AppendUvarint(b, uint64(len(p.Lines)))
	for _, l := range p.Lines {
		b = binary.AppendUvarint(b, uint64(l.Start))
		b = binary.AppendUvarint(b, uint64(len(l.Text)))
		for _, f := range [...]float64{l.Box.X, l.Box.Y, l.Box.W, l.Box.H, l.FontSize} {
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(f))
		}
		bold := byte(0)
		if l.Bold {
			bold = 1
		}
		b = append(b, bold)
		b = appendString(b, l.Annot)
		b = binary.AppendUvarint(b, uint64(len(l.Gaps)))
		for _, g := range l.Gaps {
			b = binary.AppendUvarint(b, uint64(g.At))
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(g.X))
		}
	}
	return appendMarks(b, p.Marks)
}

// maxErrMsg bounds a page's error message in its record.
const maxErrMsg = 4 << 10

// truncateUTF8 cuts s to at most n bytes, on a character boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// appendString adds s, its length first.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// pageDecoder reads a page record; the first error ends it.
type pageDecoder struct {
	b   []byte
	err error
}

func (d *pageDecoder) uvarint() int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > 1<<31 {
		d.err = errors.New("bad varint")
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *pageDecoder) float() float64 {
	if len(d.b) < 8 {
		d.err = errors.New("short record")
		d.b = nil
		return 0
	}
	v := math.Float64frombits(binary.BigEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *pageDecoder) byte1() byte {
	if len(d.b) < 1 {
		d.err = errors.New("short record")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *pageDecoder) str() string {
	n := d.uvarint()
	if n > len(d.b) {
		d.err = errors.New("short record")
		d.b = nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// decodePage reads a record encodePage wrote, checking every count and
// offset against the record.
func decodePage(b []byte) (*pdf.Page, error) {
	d := &pageDecoder{b: b}
	p := &pdf.Page{Number: d.uvarint(), Width: d.float(), Height: d.float()}
	p.NoTextLayer = d.byte1()&1 != 0
	p.Text = d.str()
	if msg, kind := d.str(), d.str(); msg != "" {
		p.Err = fmt.Errorf("%w (cached): %s", kindErr(kind), msg)
	}
	n := d.uvarint()
	if n > len(b) {
		return nil, errors.New("bad line count")
	}
	if n > 0 {
		p.Lines = make([]pdf.Line, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		start, ln := d.uvarint(), d.uvarint()
		if start+ln > len(p.Text) {
			return nil, errors.New("line outside the page text")
		}
		l := &p.Lines[i]
		l.Start, l.Text = start, p.Text[start:start+ln]
		l.Box = pdf.Box{X: d.float(), Y: d.float(), W: d.float(), H: d.float()}
		l.FontSize = d.float()
		l.Bold = d.byte1() == 1
		switch a := d.str(); a {
		case "", pdf.AnnotFreeText, pdf.AnnotWidget:
			l.Annot = a
		default:
			return nil, errors.New("unknown annotation kind")
		}
		ng := d.uvarint()
		if ng > pdf.MaxGaps || d.err != nil {
			return nil, errors.New("bad gap count")
		}
		for j := 0; j < ng; j++ {
			at, x := d.uvarint(), d.float()
			if at > ln {
				return nil, errors.New("gap outside its line")
			}
			l.Gaps = append(l.Gaps, pdf.Gap{At: at, X: x})
		}
	}
	if d.err == nil {
		if err := d.marks(p, len(b)); err != nil {
			return nil, err
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, errors.New("trailing bytes")
	}
	return p, nil
}

// appendMarks adds a page's marks to its record.
func appendMarks(b []byte, marks []pdf.Mark) []byte {
	b = binary.AppendUvarint(b, uint64(len(marks)))
	for _, m := range marks {
		for _, s := range [...]string{m.Kind, m.Text, m.Comment, m.Author, m.Created, m.Color} {
			b = appendString(b, s)
		}
		for _, f := range [...]float64{m.Box.X, m.Box.Y, m.Box.W, m.Box.H} {
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(f))
		}
	}
	return b
}

// marks reads the marks of a page record of size bytes into p.
func (d *pageDecoder) marks(p *pdf.Page, size int) error {
	n := d.uvarint()
	if n > size || n > pdf.MaxPageMarks {
		return errors.New("bad mark count")
	}
	if n > 0 {
		p.Marks = make([]pdf.Mark, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		m := &p.Marks[i]
		m.Kind, m.Text, m.Comment, m.Author, m.Created, m.Color = d.str(), d.str(), d.str(), d.str(), d.str(), d.str()
		m.Box = pdf.Box{X: d.float(), Y: d.float(), W: d.float(), H: d.float()}
		if d.err == nil && !pdf.IsMarkKind(m.Kind) {
			return errors.New("unknown mark kind")
		}
	}
	return nil
}
