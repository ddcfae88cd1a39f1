package pdf

import (
	"context"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/pdf/font"
	"github.com/researchctx/researchctx/internal/pdf/object"
)

// doc wraps a file's objects with lenient accessors: a missing or
// mistyped object reads as nil or zero rather than failing.
type doc struct {
	xr  object.Objects
	ctx context.Context
	// budget, glyphBudget and textBudget are what is left of
	// MaxDocumentBytes, MaxDocumentGlyphs and MaxDocumentText; spent is
	// the error of the first page that ran out of one, with which every
	// later page fails.
	budget      int64
	glyphBudget int
	textBudget  int
	spent       error
	fonts       map[int]*font.Font
	forms       map[int]*formXObject
	pageIndex   map[int]int             // page object number → physical page number
	destNames   map[string]types.Object // the /Dests name tree, read on first use
	glyphBuf    []glyph                 // glyph storage reused from page to page
	markCount   int                     // marks kept so far (MaxDocumentMarks)
	markRefs    [][]markRef             // by page, for foldReplies
}

func (d *doc) resolve(o types.Object) types.Object {
	for i := 0; i < 32; i++ {
		ref, ok := o.(types.IndirectRef)
		if !ok {
			if p, ok := o.(*types.IndirectRef); ok && p != nil {
				ref = *p
			} else {
				return o
			}
		}
		o = d.xr.Deref(ref)
	}
	return nil
}

func (d *doc) dict(o types.Object) types.Dict     { return object.DictOf(d.resolve(o)) }
func (d *doc) array(o types.Object) types.Array   { return object.ArrayOf(d.resolve(o)) }
func (d *doc) name(o types.Object) string         { return object.NameOf(d.resolve(o)) }
func (d *doc) num(o types.Object) (float64, bool) { return object.NumOf(d.resolve(o)) }

func objNr(o types.Object) int {
	switch v := o.(type) {
	case types.IndirectRef:
		return v.ObjectNumber.Value()
	case *types.IndirectRef:
		if v != nil {
			return v.ObjectNumber.Value()
		}
	}
	return 0
}

// rawString returns the bytes of a string object.
func (d *doc) rawString(o types.Object) []byte {
	switch v := d.resolve(o).(type) {
	case types.StringLiteral:
		b, err := types.Unescape(string(v))
		if err != nil {
			return []byte(v)
		}
		return b
	case types.HexLiteral:
		b, err := v.Bytes()
		if err != nil {
			lx := object.NewLexer([]byte(string(v) + ">"))
			return append([]byte(nil), lx.HexString()...)
		}
		return b
	case types.Name:
		return []byte(v)
	}
	return nil
}

// text decodes a text string (§7.9.2.2): UTF-16BE or UTF-8 with a byte
// order mark, else PDFDocEncoding.
func (d *doc) text(o types.Object) string { return decodeTextString(d.rawString(o)) }

func decodeTextString(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
		return strings.ToValidUTF8(string(utf16.Decode(u)), "")
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i+1])<<8|uint16(b[i]))
		}
		return strings.ToValidUTF8(string(utf16.Decode(u)), "")
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return strings.ToValidUTF8(string(b[3:]), "")
	}
	if utf8.Valid(b) && !strings.ContainsFunc(string(b), func(r rune) bool { return r >= 0x80 && r < 0xA0 }) {
		return string(b)
	}
	var sb strings.Builder
	for _, c := range b {
		if c < 32 {
			if c == '\n' || c == '\r' || c == '\t' {
				sb.WriteByte(' ')
			}
			continue
		}
		sb.WriteString(font.PDFDocText(c))
	}
	return sb.String()
}
