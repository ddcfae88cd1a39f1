package pdf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// rtlFixtures are documents of right-to-left text drawn through an
// Identity-H font whose codes are their Unicode values (the ToUnicode of
// type0Font), one per way producers draw it.
func rtlFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	doc := func(content string) []byte {
		return simpleDoc([]page{{content: content, resources: "<< /Font << /F3 " + type0Font(5, "") + " >> >>"}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
			mustObj(b.Stream("", identityToUnicode), 5)
			return ""
		})
	}
	codes := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "%04X", r)
		}
		return "<" + b.String() + ">"
	}
	// Logical order: each glyph placed by its own Tm at a smaller x than
	// the one before, as producers that do not reorder write it; and a
	// TJ whose kerning moves back over each glyph and the next.
	logical := func(y int, s string) string {
		var b strings.Builder
		x := 400.0
		for _, r := range s {
			if r == ' ' {
				x -= 4
				continue
			}
			x -= 7
			fmt.Fprintf(&b, "1 0 0 1 %.1f %d Tm %s Tj ", x, y, codes(string(r)))
		}
		return "BT /F3 12 Tf " + b.String() + "ET\n"
	}
	return map[string][]byte{
		// Arabic shaped into presentation forms (U+FB50–FDFF, U+FE70–
		// FEFC), which is what the ToUnicode maps of many producers give,
		// drawn in visual order: سلام as meem (isolated), lam-alef (final),
		// seen (initial); a line mixing them with Latin; peh's isolated
		// and final forms; a vowel mark's isolated form; Allah's ligature.
		"presentation-forms.pdf": doc(`BT /F3 12 Tf 72 700 Td ` + codes("\uFEE1\uFEFC\uFEB3") + ` Tj ET
BT /F3 12 Tf 72 680 Td ` + codes("\uFEE1\uFEFC\uFEB3 abc \uFEB3") + ` Tj ET
BT /F3 12 Tf 72 660 Td ` + codes("\uFB57\uFB56") + ` Tj ET
BT /F3 12 Tf 72 640 Td ` + codes("\uFDF2 \uFE8E\uFE70\uFE91") + ` Tj ET`),
		"logical-order.pdf": doc(logical(700, "سلام عليكم") + logical(680, "שלום עולם") +
			"BT /F3 12 Tf 300 660 Td [<0645> 1100 <0631> 1100 <062D> 1100 <0628> 1100 <0627>] TJ ET\n"),
	}
}

// TestRightToLeft checks one fixture per class of right-to-left text:
// presentation forms read as the letters they present, in logical
// order; glyphs drawn in logical order; a real shaped document (Chromium's
// rendering of Arabic and Hebrew with DejaVu Sans, testdata/rtl) whose
// lines are the paragraphs of the HTML it was printed from.
func TestRightToLeft(t *testing.T) {
	fx := rtlFixtures(t)
	html, err := os.ReadFile(filepath.Join("testdata", "rtl", "rtl.html"))
	if err != nil {
		t.Fatal(err)
	}
	var paras []string
	for _, m := range regexp.MustCompile(`<p[^>]*>([^<]*)</p>`).FindAllSubmatch(html, -1) {
		paras = append(paras, string(m[1]))
	}
	chromium, err := os.ReadFile(filepath.Join("testdata", "rtl", "rtl.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"presentation forms", fx["presentation-forms.pdf"], "سلام\nس abc سلام\nپپ\nبًا الله"},
		{"glyphs in logical order", fx["logical-order.pdf"], "سلام عليكم\nשלום עולם\nمرحبا"},
		{"Chromium: shaped Arabic with lam-alef ligatures, Hebrew, mixed lines", chromium, strings.Join(paras, "\n")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := mustExtract(t, tt.data)
			if diff := cmp.Diff(tt.want, d.Pages[0].Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRightToLeftMatchPdftotext: the words of each right-to-left fixture
// and their order are pdftotext's, line by line (tokens compares after
// NFKC, so presentation forms count as their letters on both sides).
// Three kinds of line are left out, where pdftotext's text is not the
// text drawn: one holding a ligature glyph of two right-to-left letters
// mapped to both (lam-alef), whose letters pdftotext reverses with the
// line (لا read as ال); a left-to-right paragraph holding right-to-left
// words, which pdftotext orders as a right-to-left one; and a vowel
// mark's isolated form, which pdftotext keeps and NFKC turns into a space
// and the mark, splitting its word.
func TestRightToLeftMatchPdftotext(t *testing.T) {
	bin := tool(t, "pdftotext")
	dir := t.TempDir()
	files := rtlFixtures(t)
	chromium, err := os.ReadFile(filepath.Join("testdata", "rtl", "rtl.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	files["chromium.pdf"] = chromium
	skip := map[string][]int{
		"presentation-forms.pdf": {3},
		"chromium.pdf":           {3, 4},
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "-q", "-enc", "UTF-8", path, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			ref := strings.Split(strings.TrimRight(string(out), "\n\f"), "\n")
			got := strings.Split(mustExtract(t, data).Pages[0].Text, "\n")
			if len(ref) != len(got) {
				t.Fatalf("%d lines, pdftotext %d:\n%q\n%q", len(got), len(ref), got, ref)
			}
			compared := 0
			for i := range ref {
				if slices.Contains(skip[name], i) {
					continue
				}
				compared++
				if diff := cmp.Diff(tokens(ref[i]), tokens(got[i])); diff != "" {
					t.Errorf("line %d words (-pdftotext +ours):\n%s", i+1, diff)
				}
			}
			if compared == 0 {
				t.Fatal("no line compared")
			}
		})
	}
}
