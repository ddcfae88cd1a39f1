package pdf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// cidHex writes s as two-byte codes equal to its UTF-16 code units, for a
// font whose ToUnicode is identityToUnicode.
func cidHex(s string) string {
	var b strings.Builder
	b.WriteByte('<')
	for _, r := range s {
		fmt.Fprintf(&b, "%04X", r)
	}
	b.WriteByte('>')
	return b.String()
}

// verticalFixtures adds vertical writing: a horizontal heading above
// three columns of Japanese on Identity-V, set from right to left, each
// top to bottom, the last ending in the vertical form of the full stop.
func verticalFixtures(m map[string][]byte) {
	var content strings.Builder
	content.WriteString("BT /F1 12 Tf 72 750 Td (Vertical sample) Tj ET\n")
	for i, col := range []string{"縦書きの文章", "二行目です", "三行目\ufe12"} {
		x := 500 - 16*i
		content.WriteString("BT /F3 12 Tf 1 0 0 1 " + itoa(x) + " 700 Tm " + cidHex(col) + " Tj ET\n")
	}
	// A page in two tiers, as newspapers and some journals set vertical
	// text: the upper tier's columns right to left, then the lower one's.
	var tiers strings.Builder
	for tier, y := range []int{700, 400} {
		for i := range 5 {
			col := fmt.Sprintf("%s段%c列目", []string{"上", "下"}[tier], []rune("一二三四五")[i])
			tiers.WriteString("BT /F3 12 Tf 1 0 0 1 " + itoa(500-16*i) + " " + itoa(y) + " Tm " + cidHex(col) + " Tj ET\n")
		}
	}
	// Digits set upright inside a column (tate-chū-yoko): a horizontal
	// run centred on the column between its glyphs.
	upright := "BT /F1 12 Tf 72 750 Td (Upright digits) Tj ET\n" +
		"BT /F3 12 Tf 1 0 0 1 500 700 Tm " + cidHex("平成") + " Tj ET\n" +
		"BT /F1 12 Tf 493.33 666 Td (12) Tj ET\n" +
		"BT /F3 12 Tf 1 0 0 1 500 664 Tm " + cidHex("年です") + " Tj ET\n"
	font := "<< /Font << /F1 10 0 R /F3 " + strings.Replace(type0Font(9, ""), "/Identity-H", "/Identity-V", 1) + " >> >>"
	m["vertical.pdf"] = simpleDoc([]page{
		{content: content.String(), resources: font},
		{content: tiers.String(), resources: font},
		{content: upright, resources: font},
	}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		mustObj(b.Stream("", identityToUnicode), 9)
		mustObj(b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"), 10)
		return ""
	})
}

// TestVertical: columns of vertical writing read top to bottom, the
// columns from right to left, after the page's horizontal text; a page in
// tiers is read tier by tier; digits set upright in a column read in it.
func TestVertical(t *testing.T) {
	d := mustExtract(t, fixtures()["vertical.pdf"])
	want := []string{
		"Vertical sample\n\n縦書きの文章\n二行目です\n三行目。",
		"上段一列目\n上段二列目\n上段三列目\n上段四列目\n上段五列目\n\n下段一列目\n下段二列目\n下段三列目\n下段四列目\n下段五列目",
		"Upright digits\n\n平成12年です",
	}
	var got []string
	for _, p := range d.Pages {
		got = append(got, p.Text)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}
