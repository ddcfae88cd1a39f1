package figure

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/pdf"
)

func TestCaption(t *testing.T) {
	type got struct {
		Kind, Number string
		OK           bool
	}
	for _, tc := range []struct {
		line string
		want got
	}{
		{"Figure 3: The model.", got{Figure, "3", true}},
		{"Fig. 3. Detections obtained", got{Figure, "3", true}},
		{"FIGURE 12 | Results", got{Figure, "12", true}},
		{"FIG. 1. A figure caption.", got{Figure, "1", true}},
		{"Table 2: Results", got{Table, "2", true}},
		{"Tab. 2. Results", got{Table, "2", true}},
		{"TABLE IV. A table", got{Table, "4", true}},
		{"TABLE 1", got{Table, "1", true}},
		{"Algorithm 1 Minibatch stochastic gradient descent", got{Algorithm, "1", true}},
		{"Algorithm 2: Training", got{Algorithm, "2", true}},
		{"Fig. 1.1 A convolution layer", got{Figure, "1.1", true}},
		{"Supplementary Figure S1: Extra", got{Figure, "S1", true}},
		{"Supplementary Figure 2. Extra", got{Figure, "S2", true}},
		{"Table A.1: Appendix", got{Table, "A.1", true}},
		{"表 1 fduthesis 的主要组成部分", got{Table, "1", true}},
		{"图 2: CQUThesis 宣传海报", got{Figure, "2", true}},
		// Running text, not captions.
		{"Figure 3 shows the results", got{}},
		{"Table 2 and Fig. 2.", got{}},
		{"Fig. 3 (d). Consider the source", got{}},
		{"Figure 3a shows a small flaw", got{}},
		{"图 1-2，", got{}},
		{"Figure I think", got{}},
		{"TABLES", got{}},
		{"FIGURES", got{}},
		{"Table 1.1 模板文件 . . . . . . . . . . 3", got{}},
		{"as shown in Figure 3: the model", got{}},
	} {
		k, n, ok := Caption(tc.line)
		if diff := cmp.Diff(tc.want, got{k, n, ok}); diff != "" {
			t.Errorf("Caption(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
}

// line makes a line of a test page at a height, in page units.
func line(text string, x, y, w float64, size float64) pdf.Line {
	return pdf.Line{Text: text, Box: pdf.Box{X: x, Y: y, W: w, H: 0.013}, FontSize: size}
}

func testPage(lines ...pdf.Line) *pdf.Page {
	pg := &pdf.Page{Number: 2, Width: 612, Height: 792}
	for i, ln := range lines {
		if i > 0 {
			pg.Text += "\n"
		}
		lines[i].Start = len(pg.Text)
		pg.Text += ln.Text
	}
	pg.Lines = lines
	return pg
}

func TestPage(t *testing.T) {
	body := "the body text of the paper runs over the whole width of the column here"
	pg := testPage(
		line(body, 0.1, 0.10, 0.8, 10),
		line(body, 0.1, 0.115, 0.8, 10),
		line("loss", 0.3, 0.20, 0.05, 7),
		line("0 1 2 3 epoch", 0.3, 0.35, 0.2, 7),
		line("Figure 1: Training loss over the epochs of the run, on the left the", 0.1, 0.40, 0.8, 9),
		line("small model and on the right the large one.", 0.1, 0.415, 0.5, 9),
		line(body+" and the text goes on", 0.1, 0.45, 0.8, 10),
		line("as Figure 1 shows, the loss falls; Table 1 lists the numbers that", 0.1, 0.465, 0.8, 10),
		line("Table 1: Error rates.", 0.1, 0.50, 0.3, 9),
		line("model error", 0.2, 0.52, 0.3, 9),
		line("small 3.1", 0.2, 0.535, 0.1, 9),
		line("large 2.4", 0.2, 0.55, 0.1, 9),
		line(body, 0.1, 0.60, 0.8, 10),
	)
	items := Page(pg)
	type brief struct{ ID, Kind, Number, Caption, Text string }
	var gotItems []brief
	for _, it := range items {
		gotItems = append(gotItems, brief{it.ID, it.Kind, it.Number, it.Caption, it.Text})
	}
	want := []brief{
		{"figure-1", Figure, "1",
			"Figure 1: Training loss over the epochs of the run, on the left the small model and on the right the large one.",
			"Figure 1: Training loss over the epochs of the run, on the left the small model and on the right the large one.\n\nloss\n0 1 2 3 epoch"},
		{"table-1", Table, "1", "Table 1: Error rates.", "Table 1: Error rates.\n\nmodel error\nsmall 3.1\nlarge 2.4"},
	}
	if diff := cmp.Diff(want, gotItems); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if len(items) == 2 {
		if b := items[0].Box; b.Y > 0.2 || b.Y+b.H < 0.42 {
			t.Errorf("figure box %+v does not span its area and caption", b)
		}
		if b := items[1].Box; b.Y > 0.5 || b.Y+b.H < 0.56 || b.Y+b.H > 0.6 {
			t.Errorf("table box %+v does not end at the table", b)
		}
	}
}

func TestFindKeepsFirst(t *testing.T) {
	doc := &pdf.Document{Pages: []pdf.Page{
		*testPage(line("Figure 1: First.", 0.1, 0.5, 0.3, 9)),
		*testPage(line("Figure 1: Again.", 0.1, 0.5, 0.3, 9), line("Figure 2: Next.", 0.1, 0.7, 0.3, 9)),
	}}
	doc.Pages[0].Number, doc.Pages[1].Number = 1, 2
	var ids []string
	for _, it := range Find(doc) {
		ids = append(ids, it.ID+"@"+it.Caption)
	}
	if diff := cmp.Diff([]string{"figure-1@Figure 1: First.", "figure-2@Figure 2: Next."}, ids); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func TestClip(t *testing.T) {
	long := "Figure 1: " + string(make([]rune, 0))
	for len([]rune(long)) < 300 {
		long += "word "
	}
	if n := len([]rune(clip(long, MaxCaption))); n > MaxCaption {
		t.Errorf("clip: %d characters, want ≤ %d", n, MaxCaption)
	}
}

func TestSpans(t *testing.T) {
	text := "Body text that mentions\nFigure 2. In running text.\n\nFigure 1: The model.\nIts second line.\n\nMore body as in Table 1, which\nTable 2 shows.\nTable 3: Errors."
	var got []string
	for _, s := range Spans(text) {
		got = append(got, s.ID+"="+text[s.Start:s.End])
	}
	want := []string{"figure-2=Figure 2. In running text.", "figure-1=Figure 1: The model.\nIts second line.", "table-3=Table 3: Errors."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Spans (-want +got):\n%s", diff)
	}
	// Two captions in one paragraph (two panels captioned one under the
	// other): each span is its own caption, never the next one's.
	text = "Figure 3: Loss of the small model.\nover thirty epochs.\nFigure 4: Loss of the large model.\n\nBody."
	got = nil
	for _, s := range Spans(text) {
		got = append(got, s.ID+"="+text[s.Start:s.End])
	}
	want = []string{"figure-3=Figure 3: Loss of the small model.\nover thirty epochs.", "figure-4=Figure 4: Loss of the large model."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Spans of adjacent captions (-want +got):\n%s", diff)
	}
}
