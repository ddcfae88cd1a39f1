package pdf

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/image/font/sfnt"

	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// systemFont reads a font file the system's packages install (DejaVu
// from fonts-dejavu-core, URW's from fonts-urw-base35), skipping the test
// without it and failing it under CI=true, where .ci/run installs them.
func systemFont(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (.ci/run installs fonts-dejavu-core and fonts-urw-base35)", err)
		}
		t.Skipf("%v", err)
	}
	return data
}

// realFontFixture is one page of one line set in a real font program,
// embedded whole.
type realFontFixture struct {
	name    string
	font    func(b *pdfbuild.Builder) string // adds the program, returns the font dictionary
	content string                           // the string operand(s) of Tj
	want    string
	// differs says why pdftotext's words are not compared, where it
	// does not read what the font draws.
	differs string
}

// realFontFixtures embeds the system's fonts as producers do when they
// write no ToUnicode map: a TrueType program (DejaVu Sans) under each kind
// of simple encoding and as a CID font, Type 1 programs (URW's Standard
// Symbols, Dingbats and Nimbus Roman) read through their own encoding or
// /Differences, and a CFF OpenType program.
func realFontFixtures(t *testing.T) []realFontFixture {
	const (
		dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
		urwT1  = "/usr/share/fonts/type1/urw-base35/"
		urwOTF = "/usr/share/fonts/opentype/urw-base35/"
	)
	tt := systemFont(t, dejavu)
	widths := strings.TrimSpace(strings.Repeat("600 ", 256))
	descriptor := func(name string, flags int, file string) string {
		return fmt.Sprintf("<< /Type /FontDescriptor /FontName /%s /Flags %d /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 %s >>", name, flags, file)
	}
	trueType := func(flags int, enc string) func(b *pdfbuild.Builder) string {
		return func(b *pdfbuild.Builder) string {
			ff := b.Stream(fmt.Sprintf("/Length1 %d", len(tt)), string(tt))
			return fmt.Sprintf("<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+DejaVuSans /FirstChar 0 /LastChar 255 /Widths [%s] /FontDescriptor %s %s >>",
				widths, descriptor("ABCDEF+DejaVuSans", flags, fmt.Sprintf("/FontFile2 %d 0 R", ff)), enc)
		}
	}
	// The glyph of each character, by the font's own Unicode cmap, as
	// another reader of it finds it.
	ttf, err := sfnt.Parse(tt)
	if err != nil {
		t.Fatal(err)
	}
	glyphs := func(s string) string {
		var b strings.Builder
		var buf sfnt.Buffer
		for _, r := range s {
			g, err := ttf.GlyphIndex(&buf, r)
			if err != nil || g == 0 {
				t.Fatalf("%q: no glyph (%v)", r, err)
			}
			fmt.Fprintf(&b, "%04X", g)
		}
		return "<" + b.String() + ">"
	}
	// A Type 1 program as its PFA file holds it: clear text up to and
	// with "eexec", the encrypted part in hex, the trailer of zeros.
	type1 := func(name string, flags int, enc string) func(b *pdfbuild.Builder) string {
		data := systemFont(t, urwT1+name+".t1")
		return func(b *pdfbuild.Builder) string {
			e := bytes.Index(data, []byte("eexec")) + len("eexec\n")
			z := bytes.Index(data, []byte("0000000000"))
			if e < len("eexec\n") || z < e {
				t.Fatalf("%s: not a PFA file", name)
			}
			ff := b.Stream(fmt.Sprintf("/Length1 %d /Length2 %d /Length3 %d", e, z-e, len(data)-z), string(data))
			return fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /%s /FirstChar 0 /LastChar 255 /Widths [%s] /FontDescriptor %s %s >>",
				name, widths, descriptor(name, flags, fmt.Sprintf("/FontFile %d 0 R", ff)), enc)
		}
	}
	otf := systemFont(t, urwOTF+"StandardSymbolsPS.otf")
	return []realFontFixture{
		{name: "TrueType, WinAnsiEncoding", font: trueType(32, "/Encoding /WinAnsiEncoding"),
			content: `(Hello world caf\351 na\357ve)`, want: "Hello world café naïve"},
		{name: "symbolic TrueType without an encoding", font: trueType(4, ""),
			content: `(Hello world cafe)`, want: "Hello world cafe"},
		{name: "symbolic TrueType, MacRomanEncoding", font: trueType(4, "/Encoding /MacRomanEncoding"),
			content: `(Hello world caf\216)`, want: "Hello world café"},
		{name: "TrueType, /Differences of AGL-style and unknown names", font: trueType(32, "/Encoding << /Differences [65 /uni0410 /afii10018 /g72 /cid100 /uni00660069 /Eacute /afii57636 /u1D400 /Aring.sc /f_f] >>"),
			content: `(ABCDEFGHIJ)`, want: "АБCDfiÉ₪𝐀Åff"},
		{name: "CID TrueType without ToUnicode (Identity-H, glyph ids)", font: func(b *pdfbuild.Builder) string {
			ff := b.Stream(fmt.Sprintf("/Length1 %d", len(tt)), string(tt))
			return fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+DejaVuSans /Encoding /Identity-H /DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+DejaVuSans /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor %s /DW 600 /CIDToGIDMap /Identity >>] >>",
				descriptor("ABCDEF+DejaVuSans", 4, fmt.Sprintf("/FontFile2 %d 0 R", ff)))
		}, content: glyphs("Hello world café"), want: "Hello world café",
			differs: "pdftotext reads each glyph id as a character (Hello as +HOOR)"},
		{name: "Type 1 symbol font through its own encoding", font: type1("StandardSymbolsPS", 4, ""),
			content: `(abg dpf)`, want: "αβγ δπφ"},
		{name: "Type 1 dingbats: names without text pass their codes through", font: type1("D050000L", 4, ""),
			content: `(3456)`, want: "3456"},
		{name: "Type 1, /Differences of ligatures, quotes, afii and uni names", font: type1("NimbusRoman-Regular", 32, "/Encoding << /Differences [1 /fi /fl /uni2013 /quotedblleft /quotedblright /afii10017 /f_i] >>"),
			content: `(\001\002\003 \004x\005 \006\007)`, want: "fifl– “x” Аfi"},
		{name: "Type 1, its StandardEncoding", font: type1("NimbusRoman-Regular", 32, ""),
			content: `(\256\257 \252x\272 \341\351)`, want: "fifl “x” ÆØ"},
		{name: "OpenType (CFF) symbol font through its own encoding", font: func(b *pdfbuild.Builder) string {
			ff := b.Stream("/Subtype /OpenType", string(otf))
			return fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /StandardSymbolsPS /FirstChar 0 /LastChar 255 /Widths [%s] /FontDescriptor %s >>",
				widths, descriptor("StandardSymbolsPS", 4, fmt.Sprintf("/FontFile3 %d 0 R", ff)))
		}, content: `(abg dpf)`, want: "αβγ δπφ",
			differs: "pdftotext does not read an OpenType program's encoding and passes the codes through (abg dpf)"},
	}
}

// TestRealFontsMatchPdftotext: text set in real font programs without a
// ToUnicode map reads as the font draws it, and, where pdftotext reads it
// too, as pdftotext's words in its order.
func TestRealFontsMatchPdftotext(t *testing.T) {
	pdftotext := tool(t, "pdftotext")
	dir := t.TempDir()
	for i, fx := range realFontFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			data := simpleDoc([]page{{content: "BT /F1 12 Tf 72 700 Td " + fx.content + " Tj ET", resources: "<< /Font << /F1 5 0 R >> >>"}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
				mustObj(b.Add(""), 5)
				b.Set(5, fx.font(b))
				return ""
			})
			d := mustExtract(t, data)
			if d.Pages[0].Text != fx.want {
				t.Errorf("text %q, want %q", d.Pages[0].Text, fx.want)
			}
			if fx.differs != "" {
				return
			}
			path := filepath.Join(dir, fmt.Sprintf("font%d.pdf", i))
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(pdftotext, "-q", "-enc", "UTF-8", path, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			if diff := cmp.Diff(tokens(string(out)), tokens(d.Pages[0].Text)); diff != "" {
				t.Errorf("words (-pdftotext +ours):\n%s", diff)
			}
		})
	}
}
