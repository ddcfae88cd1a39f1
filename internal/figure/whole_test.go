package figure

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/pdf"
)

// wholeCaption is a caption as typeset, line by line, and as a reader
// reads it; hang indents the lines after the first by that many points.
type wholeCaption struct {
	id    string
	lines []string
	want  string
	hang  float64
}

// hangingCaptions is a caption set with a hanging indent, its lines after
// the first under its text, justified to the first line's right edge.
var hangingCaptions = []wholeCaption{{"figure-5", []string{
	"Figure 5: Effect of depth on performance for a model trained (left) without unsupervised pre-",
	"training and (right) with unsupervised pre-training, for 1 to 5 hidden layers (networks",
	"with 5 layers failed to converge to a solution, without the use of unsupervised pre-",
	"training). Experiments on MNIST.",
}, "Figure 5: Effect of depth on performance for a model trained (left) without unsupervised pretraining and (right) with unsupervised pre-training, for 1 to 5 hidden layers (networks with 5 layers failed to converge to a solution, without the use of unsupervised pretraining). Experiments on MNIST.", 40}}

// wholeCaptions are the captions of wholeCaptionsPDF as typeset, line by
// line, and as a reader reads them.
var wholeCaptions = []wholeCaption{
	{"figure-1", []string{
		"Figure 1: Throughput of the stack-",
		"ing scheduler against the perfor-",
		"mances of the baseline, and the me-",
		"dian of five runs on each machine.",
	}, "Figure 1: Throughput of the stacking scheduler against the performances of the baseline, and the median of five runs on each machine.", 0},
	{"table-2", []string{
		"Table 2: Performance boost of AnB+",
		"over the plain model, in percent-",
		"age points, on all four tasks.",
	}, "Table 2: Performance boost of AnB+ over the plain model, in percentage points, on all four tasks.", 0},
	{"table-4", []string{
		"Table 4: Speed-up of AnB^+ (the superscript raised) over the",
		"plain model and of AnB+",
		"on two machines and four tasks.",
	}, "Table 4: Speed-up of AnB+ (the superscript raised) over the plain model and of AnB+ on two machines and four tasks.", 0},
	{"figure-3", []string{
		"Figure 3: Accuracy of the C++ and C# ports of ResNet-",
		"50 and Fast R-CNN, with x- and y-axes in log scale; the R-",
		"CNN runs with L1 + L2 regularisation, on four machines.",
	}, "Figure 3: Accuracy of the C++ and C# ports of ResNet-50 and Fast R-CNN, with x- and y-axes in log scale; the R-CNN runs with L1 + L2 regularisation, on four machines.", 0},
}

// wholeCaptionsPDF writes a page in Helvetica: body text, and each caption
// of caps under a figure's or over a table's few words; spacing gives the
// character spacing (Tc) of a caption's line, by its text.
func wholeCaptionsPDF(caps []wholeCaption, spacing map[string]float64) []byte {
	var c strings.Builder
	text := func(x, y, size float64, s string) {
		tc := spacing[s]
		s = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
		// "^+" is a superscript plus: smaller, raised.
		s = strings.ReplaceAll(s, "^+", fmt.Sprintf(") Tj /F1 %g Tf 3 Ts (+) Tj /F1 %g Tf 0 Ts (", 0.7*size, size))
		fmt.Fprintf(&c, "BT /F1 %g Tf %g Tc %g %g Td (%s) Tj ET\n", size, tc, x, y, s)
	}
	body := "The body text of the paper runs over the whole width of the page, from one margin to"
	y := 740.0
	para := func() {
		for range 4 {
			text(72, y, 10, body)
			y -= 12
		}
		y -= 14
	}
	para()
	for _, cp := range caps {
		if strings.HasPrefix(cp.id, "table") { // a table: its caption above its rows
			for k, l := range cp.lines {
				text(72+min(float64(k), 1)*cp.hang, y, 9, l)
				y -= 11
			}
			y -= 4
			for _, row := range []string{"task base AnB+", "one 71.2 74.9", "two 64.0 66.3"} {
				text(100, y, 9, row)
				y -= 11
			}
		} else { // a figure: its axis labels, then its caption
			text(120, y, 7, "speed")
			text(100, y-60, 7, "0 10 20 30 jobs")
			y -= 80
			for k, l := range cp.lines {
				text(72+min(float64(k), 1)*cp.hang, y, 9, l)
				y -= 11
			}
		}
		y -= 14
		para()
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

// justifiedPDF is wholeCaptionsPDF for caps whose lines after the first
// are set flush with the first line's right edge but the last, as a
// justified paragraph is: the page is read once to measure each line, and
// set again with the character spacing that makes up the difference.
func justifiedPDF(t *testing.T, caps []wholeCaption) []byte {
	t.Helper()
	data := wholeCaptionsPDF(caps, nil)
	doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	right := map[string]float64{} // a line's right edge, in points
	for _, pg := range doc.Pages {
		for _, ln := range pg.Lines {
			right[strings.TrimSpace(ln.Text)] = (ln.Box.X + ln.Box.W) * pg.Width
		}
	}
	spacing := map[string]float64{}
	for _, c := range caps {
		edge, ok := right[c.lines[0]]
		if !ok {
			t.Fatalf("%s: line %q not read", c.id, c.lines[0])
		}
		for _, l := range c.lines[1 : len(c.lines)-1] {
			r, ok := right[l]
			if !ok {
				t.Fatalf("%s: line %q not read", c.id, l)
			}
			spacing[l] = (edge - r) / float64(len(l)-1)
		}
	}
	return wholeCaptionsPDF(caps, spacing)
}

// TestWholeCaptions: a caption reads whole, to the end of its block, with
// a word hyphenated over a line end joined as the page's text is read for
// search, symbols ("AnB+", "C++", "x-") kept where they stand, and the
// lines of a hanging indent read on; where poppler's pdftotext is
// installed, each caption's letters and digits are those of pdftotext's
// text from the caption's label on.
func TestWholeCaptions(t *testing.T) {
	for _, d := range []struct {
		name string
		data []byte
		caps []wholeCaption
	}{
		{"captions", wholeCaptionsPDF(wholeCaptions, nil), wholeCaptions},
		{"hanging indent", justifiedPDF(t, hangingCaptions), hangingCaptions},
	} {
		t.Run(d.name, func(t *testing.T) { checkWholeCaptions(t, d.data, d.caps) })
	}
}

// checkWholeCaptions checks the captions caps of the PDF data.
func checkWholeCaptions(t *testing.T, data []byte, caps []wholeCaption) {
	doc, err := pdf.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	items := Find(doc)
	got := map[string]Item{}
	for _, it := range items {
		got[it.ID] = it
	}
	var popplerText string
	if bin, err := exec.LookPath("pdftotext"); err == nil {
		path := filepath.Join(t.TempDir(), "captions.pdf")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "-q", "-enc", "UTF-8", path, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext: %v", err)
		}
		popplerText = string(out)
	} else {
		t.Log("pdftotext is not installed: captions checked against the typeset text only")
	}
	for _, c := range caps {
		it, ok := got[c.id]
		if !ok {
			t.Errorf("%s not found; found %d items", c.id, len(items))
			continue
		}
		if want := clip(c.want, MaxCaption); it.Caption != want {
			t.Errorf("%s: caption\n%q, want\n%q", c.id, it.Caption, want)
		}
		if !strings.HasPrefix(it.Text, c.want) {
			t.Errorf("%s: text %q does not open with the whole caption", c.id, it.Text)
		}
		if popplerText == "" {
			continue
		}
		// pdftotext joins a word hyphenated over a line end too (and
		// drops the hyphen of "ResNet-" "50"): the caption's letters and
		// digits are those of its text from the label on.
		label := c.lines[0][:strings.IndexByte(c.lines[0], ':')+1]
		i := strings.Index(popplerText, label)
		if i < 0 {
			t.Errorf("%s: pdftotext has no %q", c.id, label)
			continue
		}
		text, _, _ := strings.Cut(it.Text, "\n\n")
		if p := alnum(popplerText[i:]); !strings.HasPrefix(p, alnum(text)) {
			t.Errorf("%s: caption\n%q, pdftotext's text\n%q", c.id, text, clip(oneLine(popplerText[i:]), len(text)+20))
		}
	}
}
