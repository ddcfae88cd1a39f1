package pdf

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx/internal/pdf/font"
	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/internal/testkit/sfntfix"
)

// type3Font is a Type 3 font resource: glyphs named in glyphs (one
// CharProc object each, procs[i] its number), a font matrix, a bounding
// box and extra entries (Widths, FirstChar, ToUnicode).
func type3Font(matrix, bbox string, first int, names []string, procs []int, extra string) string {
	var cp, diffs strings.Builder
	for i, n := range names {
		fmt.Fprintf(&cp, "/%s %d 0 R ", n, procs[i])
		diffs.WriteString("/" + n + " ")
	}
	return fmt.Sprintf("<< /Type /Font /Subtype /Type3 /FontBBox [%s] /FontMatrix [%s] /CharProcs << %s>> /Encoding << /Type /Encoding /Differences [%d %s] >> /FirstChar %d /LastChar %d %s /Resources << >> >>",
		bbox, matrix, cp.String(), first, diffs.String(), first, first+len(names)-1, extra)
}

// classFixtures adds one document per class of page that came back empty
// or garbled where pdftotext reads it: Type 3 fonts, simple TrueType fonts
// read through their own cmap, malformed TJ arrays.
func classFixtures(m map[string][]byte) {
	// Type 3 fonts. Glyphs: codes 1.. name the letters of "Helowrd",
	// drawn by a square; each CharProc begins with its d0 or d1 width.
	letters := []string{"H", "e", "l", "o", "w", "r", "d"}
	hex := func(s string) string {
		var b strings.Builder
		b.WriteByte('<')
		for _, r := range s {
			fmt.Fprintf(&b, "%02X", 1+strings.IndexRune("Helowrd", r))
		}
		b.WriteByte('>')
		return b.String()
	}
	m["type3-spacing.pdf"] = simpleDoc([]page{{
		// F1: FontMatrix 0.01, an empty FontBBox, Widths in glyph space
		// (55 units: 0.55 em), words spaced by TJ kerning only.
		// F2: no Widths: the advances are the CharProcs' d0 and d1.
		// F3: a non-uniform matrix (glyphs twice as tall as wide).
		// F4: one glyph per Tj, each placed by Td (the words by Tm).
		content: `BT /F1 12 Tf 72 700 Td [` + hex("Hello") + ` -330 ` + hex("world") + `] TJ ET
BT /F2 12 Tf 72 670 Td [` + hex("Hello") + ` -330 ` + hex("world") + `] TJ ET
BT /F3 12 Tf 72 640 Td [` + hex("Hello") + ` -330 ` + hex("world") + ` -330 ` + hex("old") + `] TJ ET
BT /F4 12 Tf 1 0 0 1 72 610 Tm ` + oneByOne(hex("Hello"), 6.6) + ` 1 0 0 1 112 610 Tm ` + oneByOne(hex("world"), 6.6) + ` ET
BT /F5 12 Tf 72 580 Td [<0102> -330 <0304>] TJ ET`,
		resources: "<< /Font << " +
			"/F1 " + type3Font("0.01 0 0 0.01 0 0", "0 0 0 0", 1, letters, []int{5, 5, 5, 5, 5, 5, 5}, "/Widths [55 55 55 55 55 55 55]") +
			" /F2 " + type3Font("0.01 0 0 0.01 0 0", "0 0 0 0", 1, letters, []int{5, 6, 5, 6, 5, 6, 5}, "") +
			" /F3 " + type3Font("0.001 0 0 0.002 0 0", "0 0 550 500", 1, letters, []int{7, 7, 7, 7, 7, 7, 7}, "/Widths [550 550 550 550 550 550 550]") +
			" /F4 " + type3Font("0.01 0 0 0.01 0 0", "0 0 0 0", 1, letters, []int{5, 5, 5, 5, 5, 5, 5}, "/Widths [55 55 55 55 55 55 55]") +
			" /F5 " + strings.Replace(type3Font("0.01 0 0 0.01 0 0", "0 0 0 0", 1, []string{"g1", "g2", "g3", "g4"}, []int{5, 5, 5, 5}, "/Widths [55 55 55 55]"), "/Resources", "/ToUnicode 8 0 R /Resources", 1) +
			" >> >>",
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Stream("", "55 0 d0 0 0 50 70 re f"), 5)
		mustObj(b.Stream("", "55 0 0 0 50 70 d1 0 0 50 70 re f"), 6)
		mustObj(b.Stream("", "550 0 d0 0 0 500 700 re f"), 7)
		mustObj(b.Stream("", `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <00> <FF> endcodespacerange
4 beginbfchar <01> <0055> <02> <0070> <03> <006F> <04> <006E> endbfchar
endcmap CMapName currentdict /CMap defineresource pop end end`), 8)
		return ""
	})

	// Glyph names that map to no text (not in the glyph list, not of the
	// uniXXXX or uXXXX forms, no ToUnicode entry), one font a line, read
	// as pdftotext reads them: F1 (Type 3) and F7 (Type 1) pass each code
	// through; F2 to F4 have numeric /Differences (numbers at most 5, each
	// name a number after letters) and read the names as numbers, decimal
	// (F2, F4) or hex (F3, where G6C makes every name hex); F5's ToUnicode
	// maps one code and the others pass through; F6 passes codes 200–202
	// through as Latin-1; F8's /Differences starts at 6, so it passes its
	// codes through, 6 and 7 control characters that read as nothing.
	t3 := func(diffs, extra string) string {
		var cp strings.Builder
		for _, n := range strings.Fields(diffs) {
			if n[0] == '/' {
				fmt.Fprintf(&cp, "%s 5 0 R ", n)
			}
		}
		return fmt.Sprintf("<< /Type /Font /Subtype /Type3 /FontBBox [0 0 500 700] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << %s>> /Encoding << /Type /Encoding /Differences [%s] >> /FirstChar 0 /LastChar 255 /Widths [%s] %s /Resources << >> >>",
			cp.String(), diffs, strings.TrimSpace(strings.Repeat("500 ", 256)), extra)
	}
	m["type3-names.pdf"] = simpleDoc([]page{{
		content: `BT /F1 12 Tf 72 700 Td [(Hello) -500 (world)] TJ ET
BT /F2 12 Tf 72 680 Td [<0102030304> -500 <0504060307>] TJ ET
BT /F3 12 Tf 72 660 Td [<0102030304> -500 <05>] TJ ET
BT /F4 12 Tf 72 640 Td [<0102> -500 <0304>] TJ ET
BT /F5 12 Tf 72 620 Td (HIJ) Tj ET
BT /F6 12 Tf 72 600 Td <C8C9CA> Tj ET
BT /F7 12 Tf 72 580 Td (HIJ) Tj ET
BT /F8 12 Tf 72 560 Td <060748> Tj ET`,
		resources: "<< /Font << " +
			"/F1 " + t3("72 /g12 101 /g13 108 /g14 111 /g15 119 /cid5 114 /glyph7 100 /a1", "") +
			" /F2 " + t3("1 /g72 /g101 /g108 /g111 /g119 /g114 /g100", "") +
			" /F3 " + t3("1 /G48 /G65 /G6C /G6F /G41", "") +
			" /F4 " + t3("1 /c72 /ab73 /G51 /g50-", "") +
			" /F5 " + t3("72 /g1 /g2 /g3", "/ToUnicode 6 0 R") +
			" /F6 " + t3("200 /g1 /g2 /g3", "") +
			" /F7 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /Differences [72 /foo1 /foo2 /foo3] >> >>" +
			" /F8 " + t3("6 /g72 /g73 72 /g1", "") +
			" >> >>",
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Stream("", "500 0 d0 0 0 400 600 re f"), 5)
		mustObj(b.Stream("", `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <00> <FF> endcodespacerange
1 beginbfchar <48> <0057> endbfchar
endcmap CMapName currentdict /CMap defineresource pop end end`), 6)
		return ""
	})

	// Simple TrueType fonts without ToUnicode, read through their
	// embedded program. Glyphs 1..8 are H e l o w r d and space; code
	// is the code of each glyph (its character, or 1..8).
	const word = "Helowrd "
	trueTypes := func(code func(i int, r rune) uint16) []string {
		uni, f000, names := map[uint16]uint16{}, map[uint16]uint16{}, map[uint16]string{}
		mac := map[byte]byte{}
		var g12 [][3]uint32
		for i, r := range word {
			g := uint16(i + 1)
			uni[uint16(r)] = g
			f000[0xF000+code(i, r)] = g
			mac[byte(code(i, r))] = byte(g)
			names[g] = glyphNames[r]
			g12 = append(g12, [3]uint32{uint32(r), uint32(r), uint32(g)})
		}
		slices.SortFunc(g12, func(a, b [3]uint32) int { return int(a[0]) - int(b[0]) })
		// Format 6 covers the codes from the lowest to the highest.
		first, last := uint16(0xFFFF), uint16(0)
		for i, r := range word {
			first, last = min(first, code(i, r)), max(last, code(i, r))
		}
		f6 := make([]uint16, last-first+1)
		for i, r := range word {
			f6[code(i, r)-first] = uint16(i + 1)
		}
		return []string{
			// A symbolic font: a (3,0) cmap at 0xF000+code of one
			// segment per code, and a (3,1) cmap that names the
			// glyphs' characters.
			string(sfntOf(9, cmapOf(sfntSub{3, 0, cmapSegments(f000)}, sfntSub{3, 1, cmapSegments(uni)}), postOf(9, nil))),
			// Only the (3,0) cmap; the text is the post names.
			string(sfntOf(9, cmapOf(sfntSub{3, 0, cmapSegments(f000)}), postOf(9, names))),
			// A (1,0) Mac Roman cmap (format 0) and post names.
			string(sfntOf(9, cmapOf(sfntSub{1, 0, cmapFormat0(mac)}), postOf(9, names))),
			// A (3,0) format 6 cmap and a (3,10) format 12 cmap.
			string(sfntOf(9, cmapOf(sfntSub{3, 0, cmapFormat6(0xF000+first, f6)}, sfntSub{3, 10, sfntfix.CmapFormat12(g12)}), postOf(9, nil))),
			// Glyph names of /Differences that only the post table
			// knows, the text from the (3,1) cmap.
			string(sfntOf(9, cmapOf(sfntSub{3, 1, cmapSegments(uni)}), postOf(9, map[uint16]string{1: "glyph1", 2: "glyph2", 3: "glyph3", 4: "glyph4", 5: "glyph5", 6: "glyph6", 7: "glyph7", 8: "glyph8"}))),
		}
	}
	ttDesc := func(flags, file int) string {
		return fmt.Sprintf("<< /Type /FontDescriptor /FontName /Test /Flags %d /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 %d 0 R >>", flags, file)
	}
	tt := func(desc, first, last int, enc string) string {
		return fmt.Sprintf("<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+Test /FirstChar %d /LastChar %d /Widths [%s] /FontDescriptor %d 0 R %s >>",
			first, last, strings.TrimSpace(strings.Repeat("500 ", last-first+1)), desc, enc)
	}
	ascii := func(_ int, r rune) uint16 { return uint16(r) }
	small := func(i int, _ rune) uint16 { return uint16(i + 1) }
	codes := func(s string, code func(int, rune) uint16) string {
		var b strings.Builder
		b.WriteByte('<')
		for _, r := range s {
			fmt.Fprintf(&b, "%02X", code(strings.IndexRune(word, r), r))
		}
		return b.String() + ">"
	}
	var diffs, unknown strings.Builder
	for i, r := range word {
		fmt.Fprintf(&diffs, "%d /glyph%d ", r, i+1)
		fmt.Fprintf(&unknown, "%d /cid%d ", r, i+40)
	}
	// Page 1, codes of printable ASCII (what pdftotext reads too): the
	// four symbolic fonts, post-only names, AGL-style names (uniXXXX,
	// uXXXXX, afii, a.sc, ligatures) and names nothing knows.
	// Page 2, the codes 1..8, which pdftotext prints as control
	// characters.
	var p1, p2, fonts strings.Builder
	programs := append(trueTypes(ascii), trueTypes(small)[:4]...)
	for i := range 5 {
		fmt.Fprintf(&p1, "BT /F%d 12 Tf 72 %d Td %s Tj ET\n", i+1, 700-20*i, codes("Hello world", ascii))
		enc := ""
		if i == 4 {
			enc = "/Encoding << /Differences [" + diffs.String() + "] >>"
		}
		fmt.Fprintf(&fonts, "/F%d %s ", i+1, tt(16+i, 32, 126, enc))
	}
	fmt.Fprintf(&fonts, "/F6 %s /F7 %s ", tt(20, 65, 70, "/Encoding << /Differences [65 /uni0048 /u1F600 /afii10017 /a.sc /uni00660069 /T_h] >>"), tt(20, 32, 126, "/Encoding << /Differences ["+unknown.String()+"] >>"))
	p1.WriteString("BT /F6 12 Tf 72 580 Td (ABCDEF) Tj ET\n")
	fmt.Fprintf(&p1, "BT /F7 12 Tf 72 560 Td %s Tj ET\n", codes("Hello world", ascii))
	for i := range 4 {
		fmt.Fprintf(&p2, "BT /F%d 12 Tf 72 %d Td %s Tj ET\n", i+8, 700-20*i, codes("Hello world", small))
		fmt.Fprintf(&fonts, "/F%d %s ", i+8, tt(21+i, 1, 8, ""))
	}
	res := "<< /Font << " + fonts.String() + ">> >>"
	m["truetype-cmaps.pdf"] = simpleDoc([]page{{content: p1.String(), resources: res}, {content: p2.String(), resources: res}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Len(), 6)
		for i, p := range programs {
			mustObj(b.Stream(fmt.Sprintf("/Length1 %d", len(p)), p), 7+i)
		}
		for i := range programs {
			flags := 4
			if i == 4 {
				flags = 32
			}
			mustObj(b.Add(ttDesc(flags, 7+i)), 16+i)
		}
		return ""
	})

	// Malformed TJ arrays. Page 1, as pdftotext reads it: an operator, a
	// nested array, a dictionary, names, booleans and null inside the
	// array are skipped and the text around them kept. Page 2: a TJ array
	// without its closing bracket; page 3: without its opening bracket,
	// and a stray closing bracket (pdftotext loses these pages' text).
	m["tj-operators.pdf"] = simpleDoc([]page{
		{content: `BT /F1 12 Tf 72 700 Td [(Hello) -250 (wor) Tf (ld) -250 (again)] TJ ET
BT /F1 12 Tf 72 680 Td [(Nested) -250 [(array)] (words) << /A 1 >> -250 (here)] TJ ET
BT /F1 12 Tf 72 660 Td [(Names) /Name -250 true (and) null 12 Tw -250 (nulls)] TJ ET
BT /F1 12 Tf 72 640 Td [(Moved) -250 (by) 0 -14 Td -250 (nothing)] TJ ET
BT /F1 12 Tf 72 600 Td (last line here) Tj ET`},
		{content: `BT /F1 12 Tf 72 700 Td [(Hello) -250 (world) TJ ET
BT /F1 12 Tf 72 680 Td [(second) -250 (line) Tj ET
BT /F1 12 Tf 72 660 Td (third line here) Tj ET`},
		{content: `BT /F1 12 Tf 72 700 Td (Hello) -250 (world)] TJ ET
BT /F1 12 Tf 72 680 Td (next line) ] Tj ET`},
	}, "", "", nil)
}

// glyphNames are the standard glyph names of the test fonts' characters.
var glyphNames = map[rune]string{'H': "H", 'e': "e", 'l': "l", 'o': "o", 'w': "w", 'r': "r", 'd': "d", ' ': "space"}

// oneByOne shows each code of a hex string with its own Tj, moving by
// step with Td after each.
func oneByOne(hex string, step float64) string {
	var b strings.Builder
	for i := 1; i+2 < len(hex); i += 2 {
		if i > 1 {
			fmt.Fprintf(&b, "%g 0 Td ", step)
		}
		b.WriteString("<" + hex[i:i+2] + "> Tj ")
	}
	return b.String()
}

// TestClasses checks one fixture per class of page that pdftotext reads
// and this extractor once returned empty or garbled.
func TestClasses(t *testing.T) {
	tests := []pageText{
		{"Type 3 fonts: widths in glyph space, d0/d1, non-uniform matrix, one glyph per Tj", "type3-spacing.pdf", 1,
			"Hello world\nHello world\nHello world old\nHello world\nUp on"},
		{"glyph names without text: codes passed through, numeric names read as numbers", "type3-names.pdf", 1,
			"Hello world\nHello world\nHello A\nHI 32\nWIJ\nÈÉÊ\n\nHIJ\n\nH"},
		{"TJ arrays holding operators and stray objects", "tj-operators.pdf", 1,
			"Hello world again\nNested words here\nNames and nulls\nMoved by nothing\n\nlast line here"},
		{"a TJ array without its closing bracket", "tj-operators.pdf", 2, "Hello world\nsecond line\nthird line here"},
		{"a TJ array without its opening bracket, a stray closing bracket", "tj-operators.pdf", 3, "Hello world\nnext line"},
		{"TrueType: symbolic (3,0) and (1,0) cmaps, post-only names, AGL-style names, unknown names", "truetype-cmaps.pdf", 1,
			"Hello world\nHello world\nHello world\nHello world\nHello world\n\nH😀АafiTh\nHello world"},
		{"TrueType: codes below 32 through the (3,0), (1,0), format 6 and format 12 cmaps", "truetype-cmaps.pdf", 2,
			"Hello world\nHello world\nHello world\nHello world"},
	}
	checkPageTexts(t, tests)
}

// TestClassesMatchPdftotext: for each class fixture, where poppler's
// pdftotext is installed, the words (as the quality gate counts them) and
// their order are pdftotext's.
func TestClassesMatchPdftotext(t *testing.T) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		file  string
		pages []int // the pages pdftotext reads (the others it prints empty)
	}{
		{"type3-spacing.pdf", []int{1}},
		{"truetype-cmaps.pdf", []int{1}},
		{"tj-operators.pdf", []int{1}},
		{"type3-names.pdf", []int{1}},
	} {
		data := fixtures()[c.file]
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d := mustExtract(t, data)
		for _, n := range c.pages {
			t.Run(fmt.Sprintf("%s page %d", c.file, n), func(t *testing.T) {
				out, err := exec.Command(bin, "-q", "-enc", "UTF-8", "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), path, "-").Output()
				if err != nil {
					t.Fatalf("pdftotext: %v", err)
				}
				if diff := cmp.Diff(tokens(string(out)), tokens(d.Pages[n-1].Text)); diff != "" {
					t.Errorf("words (-pdftotext +ours):\n%s", diff)
				}
			})
		}
	}
}

// sfntSub is one encoding record and subtable of a test cmap table.
type sfntSub struct {
	pid, eid uint16
	sub      []byte
}

// cmapOf builds a cmap table of the given subtables.
func cmapOf(subs ...sfntSub) []byte {
	be := binary.BigEndian
	cm := be.AppendUint16(nil, 0)
	cm = be.AppendUint16(cm, uint16(len(subs)))
	off := 4 + 8*len(subs)
	for _, s := range subs {
		cm = be.AppendUint16(cm, s.pid)
		cm = be.AppendUint16(cm, s.eid)
		cm = be.AppendUint32(cm, uint32(off))
		off += len(s.sub)
	}
	for _, s := range subs {
		cm = append(cm, s.sub...)
	}
	return cm
}

// cmapSegments builds a format 4 subtable mapping each code of m to its
// glyph, one segment per code (many segments), closed by 0xFFFF.
func cmapSegments(m map[uint16]uint16) []byte {
	codes := slices.Sorted(maps.Keys(m))
	var segs [][4]uint16
	for _, c := range codes {
		segs = append(segs, [4]uint16{c, c, m[c] - c, 0})
	}
	segs = append(segs, [4]uint16{0xFFFF, 0xFFFF, 1, 0})
	return sfntfix.CmapFormat4(segs)
}

// cmapFormat0 builds a byte-encoding subtable (format 0).
func cmapFormat0(m map[byte]byte) []byte {
	sub := binary.BigEndian.AppendUint16(nil, 0)
	sub = binary.BigEndian.AppendUint16(sub, 262)
	sub = binary.BigEndian.AppendUint16(sub, 0)
	var g [256]byte
	for c, v := range m {
		g[c] = v
	}
	return append(sub, g[:]...)
}

// cmapFormat6 builds a trimmed-table subtable (format 6) from first.
func cmapFormat6(first uint16, glyphs []uint16) []byte {
	u16 := binary.BigEndian.AppendUint16
	sub := u16(u16(u16(nil, 6), uint16(10+2*len(glyphs))), 0)
	sub = u16(u16(sub, first), uint16(len(glyphs)))
	for _, g := range glyphs {
		sub = u16(sub, g)
	}
	return sub
}

// postOf builds a version 2 post table naming glyphs 0..n-1 (custom
// names, or .notdef).
func postOf(n uint16, names map[uint16]string) []byte {
	be := binary.BigEndian
	post := be.AppendUint32(nil, 0x00020000)
	post = append(post, make([]byte, 28)...)
	post = be.AppendUint16(post, n)
	var strs []byte
	k := uint16(258)
	for g := range n {
		if name, ok := names[g]; ok {
			post = be.AppendUint16(post, k)
			strs = append(append(strs, byte(len(name))), name...)
			k++
		} else {
			post = be.AppendUint16(post, 0)
		}
	}
	return append(post, strs...)
}

// sfntOf writes a TrueType program of n empty glyphs with the given cmap
// and post tables and the tables every TrueType reader requires.
func sfntOf(n uint16, cmap, post []byte) []byte {
	be := binary.BigEndian
	head := be.AppendUint32(nil, 0x00010000)
	head = be.AppendUint32(head, 0x00010000)
	head = be.AppendUint32(head, 0)                   // checkSumAdjustment
	head = be.AppendUint32(head, 0x5F0F3CF5)          // magic
	head = be.AppendUint16(head, 0)                   // flags
	head = be.AppendUint16(head, 1000)                // unitsPerEm
	head = append(head, make([]byte, 16)...)          // created, modified
	head = append(head, 0, 0, 0, 0, 3, 0xE8, 3, 0xE8) // bbox
	head = append(head, 0, 0, 0, 8, 0, 2, 0, 0, 0, 0) // macStyle, lowestRec, direction, indexToLoc 0, glyphData
	hhea := be.AppendUint32(nil, 0x00010000)
	hhea = append(hhea, 3, 0x20, 0xFF, 0x38, 0, 0) // ascender 800, descender -200, lineGap
	hhea = append(hhea, make([]byte, 26)...)
	hhea = be.AppendUint16(hhea[:34], n) // numberOfHMetrics
	maxp := be.AppendUint32(nil, 0x00005000)
	maxp = be.AppendUint16(maxp, n)
	var hmtx, loca []byte
	for range n {
		hmtx = be.AppendUint16(hmtx, 500)
		hmtx = be.AppendUint16(hmtx, 0)
	}
	for range n + 1 {
		loca = be.AppendUint16(loca, 0)
	}
	tables := []struct {
		tag  string
		data []byte
	}{{"cmap", cmap}, {"glyf", nil}, {"head", head}, {"hhea", hhea}, {"hmtx", hmtx}, {"loca", loca}, {"maxp", maxp}, {"post", post}}
	out := be.AppendUint32(nil, 0x00010000)
	out = be.AppendUint16(out, uint16(len(tables)))
	out = append(out, 0, 0x80, 0, 3, 0, 0)
	off := uint32(12 + 16*len(tables))
	for _, tb := range tables {
		for len(tb.data)%4 != 0 {
			tb.data = append(tb.data, 0)
		}
		out = append(out, tb.tag...)
		out = be.AppendUint32(out, 0)
		out = be.AppendUint32(out, off)
		out = be.AppendUint32(out, uint32(len(tb.data)))
		off += uint32(len(tb.data)+3) &^ 3
	}
	for _, tb := range tables {
		out = append(out, tb.data...)
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
	}
	return out
}

// TestUnclosedArraysLinear: arrays that never close, each holding an
// operator, before a long stream are read in linear time: only the first
// maxArrayRewinds arrays are ended at their operator (each a scan to the
// end), the next runs to the end of the stream.
func TestUnclosedArraysLinear(t *testing.T) {
	data := []byte(strings.Repeat("[ (a) Tf ", 40) + strings.Repeat("(b) Tj ", 200000))
	d := &doc{ctx: context.Background(), budget: 1 << 20, glyphBudget: MaxDocumentGlyphs, fonts: map[int]*font.Font{}, forms: map[int]*formXObject{}}
	in := newInterp(d, identity)
	// CPU time, not wall time: the work is what is bounded, and a busy
	// machine stretches the wall clock.
	start := procstat.CPUTime()
	if err := in.run(data, nil, 0); err != nil {
		t.Fatal(err)
	}
	if el := procstat.CPUTime() - start; el > 2*time.Second {
		t.Errorf("took %v of CPU time", el)
	}
	if in.ops > 2*maxArrayRewinds {
		t.Errorf("%d operators run, want at most %d", in.ops, 2*maxArrayRewinds)
	}
}

// TestLineGaps: a line that crosses a wide blank (two captions side by
// side) records where, in its text and on the page; word spaces do not.
func TestLineGaps(t *testing.T) {
	data := simpleDoc([]page{{content: `BT /F1 10 Tf 72 700 Td (Figure 2: a left panel) Tj ET BT /F1 10 Tf 320 700 Td (Figure 3: the right one) Tj ET`}}, "", "", nil)
	d := mustExtract(t, data)
	ln := d.Pages[0].Lines[0]
	if ln.Text != "Figure 2: a left panel Figure 3: the right one" {
		t.Fatalf("line %q", ln.Text)
	}
	want := []Gap{{At: len("Figure 2: a left panel "), X: 320.0 / 612}}
	if diff := cmp.Diff(want, ln.Gaps, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
}
