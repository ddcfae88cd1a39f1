package pdf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// type0Font is a Type 0 font resource on Identity-H with the given
// ToUnicode object and extra descendant entries.
func type0Font(toUnicode int, descendant string) string {
	tu := ""
	if toUnicode > 0 {
		tu = "/ToUnicode " + itoa(toUnicode) + " 0 R"
	}
	return `<< /Type /Font /Subtype /Type0 /BaseFont /Test /Encoding /Identity-H
/DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Test /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 ` + descendant + ` >>] ` + tu + ` >>`
}

func itoa(n int) string { return strconv.Itoa(n) }

// identityToUnicode is the ToUnicode CMap mPDF and TCPDF write: every
// two-byte code is its own UTF-16 code unit.
const identityToUnicode = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <0000> <FFFF> endcodespacerange
1 beginbfrange <0000> <FFFF> <0000> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`

// gapFixtures adds the fixtures of the text-layer gaps found on real-world
// files: one small document per class.
func gapFixtures(m map[string][]byte) {
	// The identity ToUnicode map mPDF and TCPDF write: one bfrange whose
	// destination is <0000>.
	m["identity-tounicode.pdf"] = simpleDoc([]page{{
		content:   `BT /F3 12 Tf 72 700 Td <0048006900210020004F004B> Tj ET`,
		resources: "<< /Font << /F3 " + type0Font(5, "") + " >> >>",
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Stream("", identityToUnicode), 5)
		return ""
	})

	// Negative font sizes: under a flipped text matrix the text is
	// upright; alone it is upside down. Either way it reads forwards.
	m["negative-size.pdf"] = simpleDoc([]page{{content: `BT /F1 -12 Tf -1 0 0 -1 72 700 Tm (Hello World) Tj -1 0 0 -1 72 686 Tm (second line) Tj ET
BT /F1 -12 Tf 1 0 0 1 400 500 Tm (upside down) Tj ET`}}, "", "", nil)

	// Glyphs far outside the page box (a crop box inside the media box,
	// and text parked beyond the media box) are not shown.
	m["off-page.pdf"] = simpleDoc([]page{{content: `BT /F1 12 Tf 72 700 Td (on the page) Tj ET
BT /F1 12 Tf 72 2000 Td (far above) Tj ET
BT /F1 12 Tf -900 300 Td (far left) Tj ET
BT /F1 12 Tf 700 300 Td (right of the page) Tj ET
BT /F1 12 Tf 72 20 Td (inside the media box, outside the crop box) Tj ET`}}, "", "", nil)
	m["off-page.pdf"] = bytes.Replace(m["off-page.pdf"], []byte("/MediaBox [0 0 612 792]"), []byte("/MediaBox [0 0 612 792] /CropBox [0 100 612 792]"), 1)

	// Free-text annotations and form fields: a free-text note, a text
	// field whose value is inherited from its parent field, a choice
	// field, a field shown only by its appearance stream; a password
	// field, a hidden note, a no-view note, a check box and a link give
	// nothing.
	m["annots.pdf"] = simpleDoc([]page{{
		content: `BT /F1 12 Tf 72 700 Td (Application form) Tj ET`,
		annots: `<< /Type /Annot /Subtype /FreeText /Rect [72 600 300 640] /Contents (Approved by the committee) /DA (/Helv 20 Tf) >>
<< /Type /Annot /Subtype /Widget /Rect [72 500 300 520] /Parent << /FT /Tx /T (name) /V <FEFF0041006400E0> /DA (/Helv 10 Tf) >> >>
<< /Type /Annot /Subtype /Widget /FT /Ch /Rect [72 450 300 470] /V [(red) (blue)] >>
<< /Type /Annot /Subtype /Widget /FT /Tx /Rect [72 400 300 420] /AP << /N 5 0 R >> >>
<< /Type /Annot /Subtype /Widget /FT /Tx /Ff 8192 /Rect [72 350 300 370] /V (secret) >>
<< /Type /Annot /Subtype /FreeText /F 2 /Rect [72 300 300 320] /Contents (hidden note) >>
<< /Type /Annot /Subtype /FreeText /F 32 /Rect [72 300 300 320] /Contents (printed only) >>
<< /Type /Annot /Subtype /Widget /FT /Btn /Rect [72 250 90 270] /V /Yes /AS /Yes /AP << /N << /Yes 5 0 R >> >> >>
<< /Type /Annot /Subtype /Link /Rect [72 200 300 220] /Contents (a link) >>`,
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Stream("/Type /XObject /Subtype /Form /BBox [0 0 228 20] /Resources << /Font << /F1 1 0 R >> >>",
			"/Tx BMC BT /F1 10 Tf 2 6 Td (Shown by its appearance) Tj ET EMC"), 5)
		return ""
	})

	// CID fonts without ToUnicode whose embedded TrueType program maps
	// glyphs to characters: by its cmap table (through an identity and a
	// stream CIDToGIDMap) and by its post table's glyph names.
	ttf := testTrueType(map[rune]uint16{'H': 3, 'i': 7, '!': 9}, map[uint16]string{11: "eacute"})
	m["embedded-cmap.pdf"] = simpleDoc([]page{{
		content:   `BT /F3 12 Tf 72 700 Td <000300070009000B> Tj ET BT /F4 12 Tf 72 680 Td <00010002> Tj ET`,
		resources: "<< /Font << /F3 " + type0Font(0, "/FontDescriptor 5 0 R") + " /F4 " + type0Font(0, "/FontDescriptor 5 0 R /CIDToGIDMap 7 0 R") + " >> >>",
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Add("<< /Type /FontDescriptor /FontName /Test /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 6 0 R >>"), 5)
		mustObj(b.Stream("", string(ttf)), 6)
		mustObj(b.Stream("", "\x00\x00\x00\x03\x00\x07"), 7)
		return ""
	})

	// A CIDFontType0 font without ToUnicode whose embedded CFF program is
	// name-keyed: the glyph index is the CID, the charset names the glyph.
	m["embedded-cff.pdf"] = simpleDoc([]page{{
		content:   `BT /F3 12 Tf 72 700 Td <0001000200030001> Tj ET`,
		resources: "<< /Font << /F3 " + strings.Replace(type0Font(0, "/FontDescriptor 5 0 R"), "CIDFontType2", "CIDFontType0", 1) + " >> >>",
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Add("<< /Type /FontDescriptor /FontName /Test /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile3 6 0 R >>"), 5)
		mustObj(b.Stream("/Subtype /CIDFontType0C", string(testCFF([]string{"H", "i", "uni00E9"}))), 6)
		return ""
	})

	// Right-to-left script drawn in visual order: a Hebrew line with a
	// number, an Arabic line, and a Hebrew word inside a Latin line.
	m["rtl.pdf"] = simpleDoc([]page{{
		content: `BT /F3 12 Tf 72 700 Td <00310032003300200020002005DD05D505DC05E9> Tj ET
BT /F3 12 Tf 72 680 Td <0645062706440633> Tj ET
BT /F3 12 Tf 72 660 Td <0073006500650020002005DD05D505DC05E900200020006800650072006500200031> Tj ET`,
		resources: "<< /Font << /F3 " + type0Font(5, "") + " >> >>",
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Stream("", identityToUnicode), 5)
		return ""
	})

	// Predefined CJK CMaps other than the Unicode ones, one line each:
	// codes in Shift-JIS (with a one-byte Latin letter and a half-width
	// katakana), EUC-JP, GBK, GB 18030, Big Five, EUC-KR, UTF-8,
	// ISO-2022 row-cell codes, and CNS 11643 through its CIDs.
	cjk := []struct{ cmap, ordering, hex string }{
		{"90ms-RKSJ-H", "Japan1", "93fa967b41b1"},
		{"EUC-H", "Japan1", "c6fccbdc"},
		{"GBK-EUC-H", "GB1", "d6d0cec4"},
		{"GBK2K-H", "GB1", "d6d095328236"},
		{"B5pc-H", "CNS1", "a4a4a4e5"},
		{"KSC-EUC-H", "Korea1", "c7d1b1b9"},
		{"UniJIS-UTF8-H", "Japan1", "e697a5e69cac"},
		{"H", "Japan1", "467c4b5c"},
		{"CNS1-H", "CNS1", "4421"}, // no decoder: text by CID and collection
	}
	var content, fonts strings.Builder
	for i, c := range cjk {
		fmt.Fprintf(&content, "BT /C%d 12 Tf 72 %d Td <%s> Tj ET\n", i, 700-30*i, c.hex)
		fmt.Fprintf(&fonts, "/C%d << /Type /Font /Subtype /Type0 /BaseFont /Test /Encoding /%s /DescendantFonts [<< /Type /Font /Subtype /CIDFontType0 /BaseFont /Test /CIDSystemInfo << /Registry (Adobe) /Ordering (%s) /Supplement 2 >> /DW 1000 >>] >>\n", i, c.cmap, c.ordering)
	}
	m["predefined-cmaps.pdf"] = simpleDoc([]page{{content: content.String(), resources: "<< /Font << " + fonts.String() + ">> >>"}}, "", "", nil)

	// Cross-reference tables viewers repair: every offset wrong, and a
	// table whose subsection is cut short.
	simple := m["simple.pdf"]
	m["xref-offsets.pdf"] = regexp.MustCompile(`(?m)^\d{10} 00000 n`).ReplaceAll(simple, []byte("0000000017 00000 n"))
	m["xref-cut.pdf"] = regexp.MustCompile(`(?s)xref\n0 (\d+)\n.*?trailer`).ReplaceAll(simple, []byte("xref\n0 $1\n0000000000 65535 f \n0000000015 00000 n \ntrailer"))
}

func mustObj(got, want int) {
	if got != want {
		panic("fixture object " + itoa(got) + ", want " + itoa(want))
	}
}

// TestGaps checks one fixture per class of text-layer gap.
func TestGaps(t *testing.T) {
	tests := []pageText{
		{"bfrange to <0000> is the identity map", "identity-tounicode.pdf", 1, "Hi! OK"},
		{"negative font size", "negative-size.pdf", 1, "Hello World\nsecond line\n\nupside down"},
		{"glyphs off the page box are dropped", "off-page.pdf", 1, "on the page"},
		{"embedded TrueType cmap and post names", "embedded-cmap.pdf", 1, "Hi!é\nHi"},
		{"embedded CFF glyph names", "embedded-cff.pdf", 1, "HiéH"},
		{"right-to-left lines in logical order", "rtl.pdf", 1, "שלום 123\nسلام\nsee שלום here 1"},
		{"predefined CJK CMaps", "predefined-cmaps.pdf", 1, "日本Aｱ\n日本\n中文\n中𠀀\n中文\n한국\n日本\n日本\n一"},
		{"xref with wrong offsets is rebuilt", "xref-offsets.pdf", 2, "1 Introduction\nBody text on page two."},
		{"xref cut short is rebuilt", "xref-cut.pdf", 2, "1 Introduction\nBody text on page two."},
	}
	checkPageTexts(t, tests)
}

// TestPredefinedCMapWidths: the widths of a font on a predefined CMap are
// found by CID, through the generated code → CID tables: two half-width
// "A" (CID 264, 300 units wide by /W) and 日 (the default 1000) make a line
// 1.6 em long.
func TestPredefinedCMapWidths(t *testing.T) {
	data := simpleDoc([]page{{
		content:   `BT /F3 10 Tf 72 700 Td <414193FA> Tj ET`,
		resources: `<< /Font << /F3 << /Type /Font /Subtype /Type0 /BaseFont /Test /Encoding /90ms-RKSJ-H /DescendantFonts [<< /Type /Font /Subtype /CIDFontType0 /BaseFont /Test /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 2 >> /DW 1000 /W [264 [300]] >>] >> >> >>`,
	}}, "", "", nil)
	d := mustExtract(t, data)
	l := d.Pages[0].Lines[0]
	if l.Text != "AA日" {
		t.Errorf("text %q", l.Text)
	}
	if w := l.Box.W * d.Pages[0].Width; w < 15.5 || w > 16.5 {
		t.Errorf("line is %.1f pt long, want 16", w)
	}
}

// TestAnnotationText checks the lines of annotation text: after the
// page's own lines, marked with their kind, with Start and Box set.
func TestAnnotationText(t *testing.T) {
	d := mustExtract(t, fixtures()["annots.pdf"])
	p := d.Pages[0]
	type line struct{ Text, Annot string }
	var got []line
	for _, l := range p.Lines {
		got = append(got, line{l.Text, l.Annot})
		if p.Text[l.Start:l.Start+len(l.Text)] != l.Text {
			t.Errorf("line %q: Start points at %q", l.Text, p.Text[l.Start:])
		}
		if l.Annot != "" && (l.Box.W <= 0 || l.Box.H <= 0 || l.Box.X < 0.11 || l.Box.X > 0.13) {
			t.Errorf("line %q: box %+v", l.Text, l.Box)
		}
	}
	want := []line{
		{"Application form", ""},
		{"Approved by the committee", AnnotFreeText},
		{"Adà", AnnotWidget},
		{"red", AnnotWidget},
		{"blue", AnnotWidget},
		{"Shown by its appearance", AnnotWidget},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if d.Title != "Application form" {
		t.Errorf("title %q: annotation text must not be the title", d.Title)
	}
	for _, h := range d.Headings() {
		if h.Line >= 0 && p.Lines[h.Line].Annot != "" {
			t.Errorf("heading %q is annotation text", h.Title)
		}
	}
	wantText := "Application form\n\nApproved by the committee\n\nAdà\n\nred\nblue\n\nShown by its appearance"
	if diff := cmp.Diff(wantText, p.Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// TestEncryptedEmptyUserPassword: AES-256 files (revisions 5 and 6) with
// an empty user password open, also when their /Perms entry disagrees with
// /P or is missing, as viewers open them; a file with a user password stays
// refused.
func TestEncryptedEmptyUserPassword(t *testing.T) {
	newConfig(Options{}, 0)
	simple := fixtures()["simple.pdf"]
	perms := regexp.MustCompile(`/Perms\s*<[0-9a-fA-F]+>`)
	pEntry := regexp.MustCompile(`/P -?\d+`)
	for _, version := range []string{"%PDF-1.7", "%PDF-2.0"} { // revisions 5 and 6
		conf := model.NewAESConfiguration("", "owner-secret", 256)
		var out bytes.Buffer
		src := bytes.Replace(simple, []byte("%PDF-1.7"), []byte(version), 1)
		if err := api.Encrypt(bytes.NewReader(src), &out, conf); err != nil {
			t.Fatalf("encrypting the fixture: %v", err)
		}
		enc := out.Bytes()
		tests := map[string][]byte{
			"as written": enc,
			// Same length, so that the offsets stay right.
			"/P disagrees with /Perms": pEntry.ReplaceAllFunc(enc, func(b []byte) []byte {
				return []byte(fmt.Sprintf("%-*s", len(b), "/P -4"))
			}),
			"no /Perms": perms.ReplaceAllFunc(enc, func(b []byte) []byte { return bytes.Repeat([]byte(" "), len(b)) }),
		}
		for name, data := range tests {
			d, err := extractBytes(t, data, nil)
			if err != nil {
				t.Errorf("%s, %s: %v", version, name, err)
				continue
			}
			if got := d.Pages[1].Text; got != "1 Introduction\nBody text on page two." {
				t.Errorf("%s, %s: page 2 text %q", version, name, got)
			}
		}
	}
	if _, err := extractBytes(t, encryptedFixture(t), nil); !errors.Is(err, ErrEncrypted) {
		t.Errorf("a file with a user password: %v, want ErrEncrypted", err)
	}
}

// testTrueType writes a TrueType program with only a cmap table (format 4,
// platform 3 encoding 1) and a version 2 post table naming the glyphs in
// names (custom names, after the 258 standard ones).
func testTrueType(cmap map[rune]uint16, names map[uint16]string) []byte {
	be := binary.BigEndian
	var chars []rune
	for c := range cmap {
		chars = append(chars, c)
	}
	slices.Sort(chars)
	segs := len(chars) + 1
	sub := be.AppendUint16(nil, 4)
	sub = be.AppendUint16(sub, uint16(16+8*segs))
	sub = be.AppendUint16(sub, 0)
	sub = be.AppendUint16(sub, uint16(2*segs))
	sub = append(sub, 0, 0, 0, 0, 0, 0)
	for _, c := range chars {
		sub = be.AppendUint16(sub, uint16(c))
	}
	sub = be.AppendUint16(sub, 0xFFFF)
	sub = be.AppendUint16(sub, 0)
	for _, c := range chars {
		sub = be.AppendUint16(sub, uint16(c))
	}
	sub = be.AppendUint16(sub, 0xFFFF)
	for _, c := range chars {
		sub = be.AppendUint16(sub, cmap[c]-uint16(c))
	}
	sub = be.AppendUint16(sub, 1)
	for range segs {
		sub = be.AppendUint16(sub, 0)
	}
	cm := be.AppendUint16(nil, 0)
	cm = be.AppendUint16(cm, 1)
	cm = be.AppendUint16(cm, 3)
	cm = be.AppendUint16(cm, 1)
	cm = be.AppendUint32(cm, 12)
	cm = append(cm, sub...)

	n := uint16(0)
	for g := range names {
		n = max(n, g+1)
	}
	post := postOf(n, names)

	out := be.AppendUint32(nil, 0x00010000)
	out = be.AppendUint16(out, 2)
	out = append(out, 0, 0, 0, 0, 0, 0)
	off := uint32(12 + 2*16)
	for _, tb := range []struct {
		tag  string
		data []byte
	}{{"cmap", cm}, {"post", post}} {
		out = append(out, tb.tag...)
		out = be.AppendUint32(out, 0)
		out = be.AppendUint32(out, off)
		out = be.AppendUint32(out, uint32(len(tb.data)))
		off += uint32(len(tb.data))
	}
	out = append(out, cm...)
	return append(out, post...)
}

// cffStandardSIDs are the string IDs (CFF specification, Appendix A) of
// the standard strings that testCFF's callers name; custom strings are
// numbered after the cffStandardCount standard ones.
var cffStandardSIDs = map[string]int{"H": 41, "i": 74}

const cffStandardCount = 391

// testCFF writes a name-keyed CFF program whose glyphs 1, 2, ... have the
// given names (standard strings where cffStandardSIDs has them, else
// custom strings) and empty charstrings.
func testCFF(names []string) []byte {
	index := func(items ...[]byte) []byte {
		out := []byte{0, byte(len(items)), 1, 1}
		off := 1
		for _, it := range items {
			off += len(it)
			out = append(out, byte(off))
		}
		for _, it := range items {
			out = append(out, it...)
		}
		return out
	}
	num := func(v int) []byte { return []byte{29, byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)} }
	var custom [][]byte
	var sids []int
	for _, n := range names {
		sid, ok := cffStandardSIDs[n]
		if !ok {
			sid = cffStandardCount + len(custom)
			custom = append(custom, []byte(n))
		}
		sids = append(sids, sid)
	}
	head := []byte{1, 0, 4, 1}
	nameIdx := index([]byte("Test"))
	strIdx := []byte{0, 0}
	if len(custom) > 0 {
		strIdx = index(custom...)
	}
	gsubrs := []byte{0, 0}
	topLen := 2*5 + 2            // charset and CharStrings offsets
	topIdx := 2 + 1 + 2 + topLen // one item
	base := len(head) + len(nameIdx) + topIdx + len(strIdx) + len(gsubrs)
	charset := []byte{0}
	for _, sid := range sids {
		charset = append(charset, byte(sid>>8), byte(sid))
	}
	csOff, charStrOff := base, base+len(charset)
	top := append(append(num(csOff), 15), append(num(charStrOff), 17)...)
	var glyphs [][]byte
	for range len(names) + 1 {
		glyphs = append(glyphs, []byte{14})
	}
	out := append(append([]byte{}, head...), nameIdx...)
	out = append(out, index(top)...)
	out = append(out, strIdx...)
	out = append(out, gsubrs...)
	out = append(out, charset...)
	return append(out, index(glyphs...)...)
}

// TestRepairGivesUp: a file that only looks repairable still fails as
// malformed (or encrypted), with nothing invented.
func TestRepairGivesUp(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"objects but no catalog", []byte("%PDF-1.7\n" + strings.Repeat("1 0 obj << /Type /Page >> endobj\n", 1000) + "%%EOF\n"), ErrMalformed},
		{"a root that is not there", []byte("%PDF-1.7\n1 0 obj << >> endobj\ntrailer << /Root 7 0 R >>\n%%EOF\n"), ErrMalformed},
		{"obj keywords only", []byte("%PDF-1.7\n" + strings.Repeat("obj 0 obj x obj\n", 5000)), ErrMalformed},
		{"encrypted with a user password", encryptedFixture(t), ErrEncrypted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := extractBytes(t, tt.data, nil); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestRebuildObjectStreams: a file whose objects sit in object streams
// and whose cross-reference stream is damaged is rebuilt from its objects,
// those in the object streams included.
func TestRebuildObjectStreams(t *testing.T) {
	newConfig(Options{}, 0)
	conf := model.NewDefaultConfiguration()
	conf.WriteObjectStream = true
	conf.WriteXRefStream = true
	var out bytes.Buffer
	if err := api.Optimize(bytes.NewReader(fixtures()["simple.pdf"]), &out, conf); err != nil {
		t.Fatal(err)
	}
	data := out.Bytes()
	if !bytes.Contains(data, []byte("/ObjStm")) {
		t.Fatal("the fixture has no object stream")
	}
	// Overwrite the cross-reference stream's data, keeping its length.
	x := regexp.MustCompile(`/Type\s*/XRef[^>]*>>\s*stream\r?\n`).FindIndex(data)
	if x == nil {
		t.Fatal("the fixture has no cross-reference stream")
	}
	end := bytes.Index(data[x[1]:], []byte("endstream"))
	for i := x[1]; i < x[1]+end; i++ {
		data[i] = 'x'
	}
	d, err := extractBytes(t, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Pages[1].Text; got != "1 Introduction\nBody text on page two." {
		t.Errorf("page 2 text %q", got)
	}
	if len(d.Outline) != 3 {
		t.Errorf("outline %+v", d.Outline)
	}
}

// pageText is a case of checkPageTexts: the text of page (1-based) of the
// fixture file.
type pageText struct {
	name, file string
	page       int
	want       string
}

// checkPageTexts extracts each case's fixture and compares its page's text.
func checkPageTexts(t *testing.T, tests []pageText) {
	t.Helper()
	fx := fixtures()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustExtract(t, fx[tt.file])
			if diff := cmp.Diff(tt.want, d.Pages[tt.page-1].Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}
