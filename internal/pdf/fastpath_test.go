package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// type1Doc builds a one-page document whose symbolic Type 1 font has no
// /Encoding: its codes are read through the encoding built into the
// embedded program's clear-text part. length1 is the font stream's
// /Length1 source ("" for none).
func type1Doc(t *testing.T, length1 func(clear int) string) []byte {
	t.Helper()
	clear := "%!PS-AdobeFont-1.0: Test\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n" +
		"dup 65 /B put\ndup 66 /A put\nreadonly def\ncurrentfile eexec\n"
	// The encrypted part: bytes that look nothing like the clear text.
	r := rand.New(rand.NewPCG(1, 2))
	secret := make([]byte, 64<<10)
	for i := range secret {
		secret[i] = byte(r.UintN(256))
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(clear))
	w.Write(secret)
	w.Close()
	b := &pdfbuild.Builder{}
	extra := ""
	if length1 != nil {
		extra = " /Length1 " + length1(len(clear))
	}
	ff := b.Add(fmt.Sprintf("<< /Filter /FlateDecode%s /Length2 %d /Length3 0 /Length %d >>\nstream\n%s\nendstream",
		extra, len(secret), z.Len()+1, z.Bytes()))
	desc := b.Add(fmt.Sprintf("<< /Type /FontDescriptor /FontName /Test /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile %d 0 R >>", ff))
	font := b.Add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 65 /LastChar 66 /Widths [600 600] /FontDescriptor %d 0 R >>", desc))
	content := b.Stream("", "BT /F1 12 Tf 72 700 Td (ABBA) Tj ET")
	pages := b.Add("")
	pg := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pages, font, content))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
	cat := b.Add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	return b.Bytes(cat, 0)
}

// TestType1BuiltinEncoding checks the encoding read from an embedded
// Type 1 program: from the first /Length1 bytes of its stream when that
// is right, from the whole stream when /Length1 is missing, too large or
// not a number.
func TestType1BuiltinEncoding(t *testing.T) {
	tests := []struct {
		name    string
		length1 func(clear int) string
	}{
		{"Length1 exact", func(c int) string { return fmt.Sprint(c) }},
		{"Length1 missing", nil},
		{"Length1 past the end", func(int) string { return "100000000" }},
		{"Length1 zero", func(int) string { return "0" }},
		{"Length1 not a number", func(int) string { return "/Big" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := type1Doc(t, tt.length1)
			d, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(d.Pages[0].Text); got != "BAAB" {
				t.Errorf("text %q, want %q (codes through the program's encoding)", got, "BAAB")
			}
		})
	}
}

// TestStreamPrefix checks that a stream's prefix decodes to the stream's
// first bytes and spends only them of the document's budget, and that a
// prefix longer than the stream is refused.
func TestStreamPrefix(t *testing.T) {
	data := type1Doc(t, nil)
	d, _, err := openDoc(context.Background(), bytes.NewReader(data), int64(len(data)), (*Options)(nil).withDefaults(), true)
	if err != nil {
		t.Fatal(err)
	}
	sd, ok := d.resolve(types.IndirectRef{ObjectNumber: 1}).(types.StreamDict)
	if !ok {
		t.Fatal("object 1 is not the font stream")
	}
	whole, err := d.streamBytes(sd)
	if err != nil || len(whole) < 1000 {
		t.Fatalf("whole stream: %d bytes, %v", len(whole), err)
	}
	before := d.budget
	got := d.streamPrefix(sd, 100)
	if !bytes.Equal(got, whole[:100]) {
		t.Errorf("prefix %q, want %q", got, whole[:100])
	}
	if spent := before - d.budget; spent != 100 {
		t.Errorf("prefix spent %d bytes of the budget, want 100", spent)
	}
	if got := d.streamPrefix(sd, int64(len(whole))+1); got != nil {
		t.Errorf("a prefix past the end gave %d bytes, want none", len(got))
	}
	d.budget = 50
	if got := d.streamPrefix(sd, 100); got != nil {
		t.Errorf("a prefix over the budget gave %d bytes, want none", len(got))
	}
}

// formsDoc builds a one-page document with the font F1 and the Form
// XObjects G (graphics only, graphics bytes of path operators) and T
// (text shown with the font it inherits, no resources of its own).
func formsDoc(content string, graphics int) []byte {
	b := &pdfbuild.Builder{}
	helv := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	g := b.Stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792]", strings.Repeat("0 0 m 10 10 l S\n", graphics/16+1))
	tf := b.Stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792]", "BT 72 650 Td (Inherited) Tj ET")
	c := b.Stream("", content)
	pages := b.Add("")
	pg := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> /XObject << /G %d 0 R /T %d 0 R >> >> /Contents %d 0 R >>", pages, helv, g, tf, c))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
	return b.Bytes(b.Add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages)), 0)
}

// TestFormsWithoutText checks the shortcut for Form XObjects that cannot
// show text: the text around them and in a form using the inherited font
// is all there, and drawing a graphics-only form over and over still
// meets the page's limit on interpreted bytes.
func TestFormsWithoutText(t *testing.T) {
	data := formsDoc("BT /F1 12 Tf 72 700 Td (Before) Tj ET /G Do /T Do /G Do BT 72 600 Td (After) Tj ET", 4096)
	d, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Fields(d.Pages[0].Text), []string{"Before", "Inherited", "After"}; !cmp.Equal(got, want) {
		t.Errorf("words %q, want %q", got, want)
	}
	const formBytes = 1 << 20
	draws := MaxPageBytes/formBytes + 2
	data = formsDoc("BT /F1 12 Tf 72 700 Td (Before) Tj ET "+strings.Repeat("/G Do ", draws), formBytes)
	d, err = Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var le *LimitError
	if err := d.Pages[0].Err; !errors.As(err, &le) || le.Limit != LimitPageBytes {
		t.Errorf("page error %v, want the %s limit", err, LimitPageBytes)
	}
}

// TestOverprintKey checks that a glyph's overprint key keeps its index
// and direction whatever its place, NaN and infinities included, and
// orders places on one line by x.
func TestOverprintKey(t *testing.T) {
	places := []float64{0, -1, 1, 1e9, -1e9, math.Inf(1), math.Inf(-1), math.NaN()}
	for _, x := range places {
		for _, y := range places {
			for dir := uint8(0); dir < 4; dir++ {
				i := MaxGlyphs - 1
				k := overprintKey(&glyph{x: x, y: y, dir: dir}, i)
				if got := int(k & (1<<keyIndexBits - 1)); got != i {
					t.Errorf("x %v y %v: index %d, want %d", x, y, got, i)
				}
				if got := uint8(k >> (keyLineShift + keyYBits)); got != dir {
					t.Errorf("x %v y %v: direction %d, want %d", x, y, got, dir)
				}
			}
		}
	}
	a := overprintKey(&glyph{x: 10, y: 700}, 5)
	b := overprintKey(&glyph{x: 10.5, y: 700.2}, 1)
	if a>>keyLineShift != b>>keyLineShift || a >= b {
		t.Errorf("keys %x, %x: want one line, x first", a, b)
	}
}
