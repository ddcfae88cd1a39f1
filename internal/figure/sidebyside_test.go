package figure

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/pdf"
)

var update = flag.Bool("update", false, "rewrite testdata/side-by-side.pdf")

// sideBySidePDF writes a one-column page in Helvetica: two figure panels
// whose two-line captions share their lines, body text across the page,
// then two tables side by side, each with its caption above its rows.
func sideBySidePDF() []byte {
	var c strings.Builder
	text := func(x, y, size float64, s string) {
		fmt.Fprintf(&c, "BT /F1 %g Tf %g %g Td (%s) Tj ET\n", size, x, y, s)
	}
	// The panels: axis labels and tick numbers.
	text(120, 700, 7, "loss")
	text(100, 620, 7, "0 10 20 30 epoch")
	text(370, 700, 7, "accuracy")
	text(350, 620, 7, "0 10 20 30 epoch")
	text(72, 600, 9, "Figure 2: Training loss of the small")
	text(72, 589, 9, "model over thirty epochs.")
	text(320, 600, 9, "Figure 3: Validation accuracy of the")
	text(320, 589, 9, "large model over thirty epochs.")
	body := "The body text of the paper runs over the whole width of the page, from one margin to the other"
	for i := range 8 {
		text(72, float64(560-12*i), 10, body)
	}
	text(72, 440, 9, "Table 1: Error rates of the small model.")
	text(320, 440, 9, "Table 2: Error rates of the large model.")
	for i, row := range []string{"split error", "train 3.1", "test 4.2"} {
		y := float64(425 - 11*i)
		text(100, y, 9, row)
		text(350, y, 9, strings.Replace(row, "3.1", "2.4", 1))
	}
	for i := range 8 {
		text(72, float64(370-12*i), 10, body)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", c.Len(), c.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out.Bytes()
}

// TestSideBySide: two captions on one line (two figure panels, two
// tables) are two items, each with its own caption and area.
func TestSideBySide(t *testing.T) {
	data := sideBySidePDF()
	path := filepath.Join("testdata", "side-by-side.pdf")
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%s is stale or missing (go test ./internal/figure -run TestSideBySide -update): %v", path, err)
	}
	doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	type brief struct {
		ID, Caption, Text string
		Right             bool // the caption is in the right half, else the left
	}
	var got []brief
	items := Find(doc)
	for i, it := range items {
		right := it.CaptionBox.X > 0.5
		if !right && it.CaptionBox.X+it.CaptionBox.W > 0.52 {
			t.Errorf("%s: caption box %+v not in one half", it.ID, it.CaptionBox)
		}
		// The two items of a row are apart: the left one's area ends
		// where the right one's begins.
		if i%2 == 1 && i < len(items) {
			if l := items[i-1].Box; l.X+l.W > it.Box.X+1e-9 {
				t.Errorf("%s %+v overlaps %s %+v", items[i-1].ID, l, it.ID, it.Box)
			}
		}
		got = append(got, brief{it.ID, it.Caption, it.Text, right})
	}
	want := []brief{
		{"figure-2", "Figure 2: Training loss of the small model over thirty epochs.",
			"Figure 2: Training loss of the small model over thirty epochs.\n\nloss\n0 10 20 30 epoch", false},
		{"figure-3", "Figure 3: Validation accuracy of the large model over thirty epochs.",
			"Figure 3: Validation accuracy of the large model over thirty epochs.\n\naccuracy\n0 10 20 30 epoch", true},
		{"table-1", "Table 1: Error rates of the small model.",
			"Table 1: Error rates of the small model.\n\nsplit error\ntrain 3.1\ntest 4.2", false},
		{"table-2", "Table 2: Error rates of the large model.",
			"Table 2: Error rates of the large model.\n\nsplit error\ntrain 2.4\ntest 4.2", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}
