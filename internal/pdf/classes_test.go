package pdf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	}}, "", "", func(b *pdfBuilder, _ []int) string {
		mustObj(b.stream("", "55 0 d0 0 0 50 70 re f"), 5)
		mustObj(b.stream("", "55 0 0 0 50 70 d1 0 0 50 70 re f"), 6)
		mustObj(b.stream("", "550 0 d0 0 0 500 700 re f"), 7)
		mustObj(b.stream("", `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <00> <FF> endcodespacerange
4 beginbfchar <01> <0055> <02> <0070> <03> <006F> <04> <006E> endbfchar
endcmap CMapName currentdict /CMap defineresource pop end end`), 8)
		return ""
	})
}

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
	tests := []struct {
		name, file string
		page       int
		want       string
	}{
		{"Type 3 fonts: widths in glyph space, d0/d1, non-uniform matrix, one glyph per Tj", "type3-spacing.pdf", 1,
			"Hello world\nHello world\nHello world old\nHello world\nUp on"},
	}
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

// TestClassesMatchPdftotext: for each class fixture, where poppler's
// pdftotext is installed, the words (as the quality gate counts them) and
// their order are pdftotext's.
func TestClassesMatchPdftotext(t *testing.T) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed")
	}
	dir := t.TempDir()
	for _, name := range []string{"type3-spacing.pdf"} {
		t.Run(name, func(t *testing.T) {
			data := fixtures()[name]
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "-q", "-enc", "UTF-8", path, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			d := mustExtract(t, data)
			var got strings.Builder
			for _, p := range d.Pages {
				got.WriteString(p.Text + "\n")
			}
			if diff := cmp.Diff(tokens(string(out)), tokens(got.String())); diff != "" {
				t.Errorf("words (-pdftotext +ours):\n%s", diff)
			}
		})
	}
}
