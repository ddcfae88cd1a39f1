package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

func extractBytes(t testing.TB, data []byte, opts *Options) (*Document, error) {
	t.Helper()
	return Extract(context.Background(), bytes.NewReader(data), int64(len(data)), opts)
}

func mustExtract(t testing.TB, data []byte) *Document {
	t.Helper()
	d, err := extractBytes(t, data, nil)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	for _, p := range d.Pages {
		if p.Err != nil {
			t.Fatalf("page %d: %v", p.Number, p.Err)
		}
	}
	return d
}

// fixtures are the small PDFs of testdata/, built here so that they can be
// regenerated (go test -run TestFixtures -update) and reviewed.
func fixtures() map[string][]byte {
	m := map[string][]byte{}

	// Two pages of Helvetica: text operators, kerning, Info, outline, labels.
	m["simple.pdf"] = simpleDoc([]page{
		{content: `BT /F1 24 Tf 72 700 Td (A Study of Things) Tj ET
BT /F1 12 Tf 72 670 Td (Ada Lovelace, Charles Babbage) Tj ET
BT /F1 10 Tf 14 TL 72 600 Td [(Hello) -250 (W) 80 (orld)] TJ T* (second line here) Tj
(third line) ' 2 0 (fourth line) " ET
BT /F1 10 Tf 72 520 Td (after a gap) Tj ET`},
		{content: `BT /F1 10 Tf 72 700 Td (1 Introduction) Tj 0 -14 Td (Body text on page two.) Tj ET`},
	}, "/PageLabels << /Nums [0 << /S /r >> 1 << /S /D /P (p) >>] >>",
		"<< /Title (Info Title) /Author (Ada Lovelace and Charles Babbage) >>",
		func(b *pdfbuild.Builder, pages []int) string {
			ol := b.Len() + 1
			b.Add(fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count 2 >>", ol+1, ol+2))
			b.Add(fmt.Sprintf("<< /Title (Front) /Parent %d 0 R /Next %d 0 R /Dest [%d 0 R /XYZ 0 792 0] >>", ol, ol+2, pages[0]))
			b.Add(fmt.Sprintf("<< /Title <FEFF0049006E00740072006F> /Parent %d 0 R /Prev %d 0 R /First %d 0 R /Last %d 0 R /A << /S /GoTo /D [%d 0 R /Fit] >> >>", ol, ol+1, ol+3, ol+3, pages[1]))
			b.Add(fmt.Sprintf("<< /Title (1 Introduction) /Parent %d 0 R /Dest [%d 0 R /Fit] >>", ol+2, pages[1]))
			return fmt.Sprintf("/Outlines %d 0 R", ol)
		})

	// Two columns with a 10 pt gutter under a full-width title.
	var tc strings.Builder
	tc.WriteString("BT /F1 16 Tf 150 740 Td (Full Width Title Spanning Both Columns) Tj ET\n")
	for i := 0; i < 12; i++ {
		y := 700 - 12*i
		fmt.Fprintf(&tc, "BT /F1 9 Tf 72 %d Td (left column line %02d text) Tj ET\n", y, i)
		fmt.Fprintf(&tc, "BT /F1 9 Tf 311 %d Td (right column line %02d text) Tj ET\n", y, i)
	}
	// Widen the columns to 229 pt each so the gutter is 10 pt.
	for i := 0; i < 12; i++ {
		y := 700 - 12*i
		fmt.Fprintf(&tc, "BT /F1 9 Tf 190 %d Td (and more words) Tj ET\n", y)
		fmt.Fprintf(&tc, "BT /F1 9 Tf 429 %d Td (and more words) Tj ET\n", y)
	}
	m["twocol.pdf"] = simpleDoc([]page{{content: tc.String()}}, "", "", nil)

	// Simple font with /Differences: ligature and AGL names, uniXXXX, f_f_i.
	m["differences.pdf"] = simpleDoc([]page{{
		content:   `BT /F2 12 Tf 72 700 Td <01020304> Tj ( ) Tj <0506> Tj ET`,
		resources: "<< /Font << /F2 << /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /e /l /d 5 /uni00E9 /f_f_i] >> >> >> >>",
	}}, "", "", nil)

	// Type 0, Identity-H: one font with a ToUnicode CMap (bfrange with an
	// array), one Adobe-Japan1 font without (CIDs 843, 845: あ い).
	m["cid.pdf"] = simpleDoc([]page{{
		content: `BT /F3 12 Tf 72 700 Td <00030004> Tj ET BT /F4 12 Tf 72 680 Td <034B034D> Tj ET`,
		resources: `<< /Font << /F3 << /Type /Font /Subtype /Type0 /BaseFont /Test /Encoding /Identity-H
/DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Test /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 >>]
/ToUnicode 5 0 R >>
/F4 << /Type /Font /Subtype /Type0 /BaseFont /Mincho /Encoding /Identity-H
/DescendantFonts [<< /Type /Font /Subtype /CIDFontType0 /BaseFont /Mincho /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 6 >> /DW 1000 >>] >> >> >>`,
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		cm := `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <0000> <FFFF> endcodespacerange
1 beginbfrange <0003> <0004> [<004F004B> <0021>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`
		n := b.Stream("", cm)
		if n != 5 {
			panic(fmt.Sprintf("ToUnicode object is %d, want 5", n))
		}
		return ""
	})

	// Type 3 font whose glyph names are numbers: the codes pass through.
	m["type3.pdf"] = simpleDoc([]page{{
		content:   `BT /F5 10 Tf 72 700 Td (ABC) Tj ET`,
		resources: "<< /Font << /F5 << /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a65 5 0 R /a66 5 0 R /a67 5 0 R >> /Encoding << /Type /Encoding /Differences [65 /a65 /a66 /a67] >> /FirstChar 65 /LastChar 67 /Widths [600 600 600] >> >> >>",
	}}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		b.Stream("", "600 0 d0")
		return ""
	})

	// An image-only page, and a page whose text is in a Form XObject and
	// invisible (render mode 3, as OCR layers are).
	m["scan.pdf"] = simpleDoc([]page{
		{content: "q 612 0 0 792 0 0 cm BI /W 1 /H 1 /BPC 8 /CS /G ID \x80 EI Q"},
		{content: "q 1 0 0 1 10 10 cm /X1 Do Q", resources: "<< /XObject << /X1 7 0 R >> >>"},
	}, "", "", func(b *pdfbuild.Builder, _ []int) string {
		b.Stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 1 0 R >> >>",
			"BT 3 Tr /F1 11 Tf 72 700 Td (recognised words) Tj ET")
		return ""
	})
	gapFixtures(m)
	verticalFixtures(m)
	classFixtures(m)
	return m
}

func TestFixtures(t *testing.T) {
	for name, data := range fixtures() {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestFixtures -update)", err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s is stale: run go test -run TestFixtures -update", path)
		}
	}
}

func TestExtractSimple(t *testing.T) {
	d := mustExtract(t, fixtures()["simple.pdf"])
	if len(d.Pages) != 2 || d.Pages[0].Number != 1 || d.Pages[1].Number != 2 {
		t.Fatalf("pages: %+v", d.Pages)
	}
	want := "A Study of Things\n\nAda Lovelace, Charles Babbage\n\nHello World\nsecond line here\nthird line\nfourth line\n\nafter a gap"
	if diff := cmp.Diff(want, d.Pages[0].Text); diff != "" {
		t.Errorf("page 1 text (-want +got):\n%s", diff)
	}
	for _, l := range d.Pages[0].Lines {
		if got := d.Pages[0].Text[l.Start : l.Start+len(l.Text)]; got != l.Text {
			t.Errorf("line %q: Start points at %q", l.Text, got)
		}
	}
	first := d.Pages[0].Lines[0]
	if first.FontSize != 24 || first.Box.X < 0.11 || first.Box.X > 0.12 || first.Box.Y > 0.12 || first.Box.W <= 0 || first.Box.H <= 0 {
		t.Errorf("title line: %+v", first)
	}
	if diff := cmp.Diff([]string{"i", "p1"}, d.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	wantOutline := []OutlineItem{{"Front", 1, 0}, {"Intro", 2, 0}, {"1 Introduction", 2, 1}}
	if diff := cmp.Diff(wantOutline, d.Outline); diff != "" {
		t.Errorf("outline (-want +got):\n%s", diff)
	}
	if d.Title != "A Study of Things" || d.InfoTitle != "Info Title" {
		t.Errorf("title %q, info title %q", d.Title, d.InfoTitle)
	}
	if diff := cmp.Diff([]string{"Ada Lovelace", "Charles Babbage"}, d.Authors); diff != "" {
		t.Errorf("authors (-want +got):\n%s", diff)
	}
}

func TestExtractText(t *testing.T) {
	tests := []struct {
		name, file string
		page       int
		want       string
		noText     bool
	}{
		{"two columns read left then right", "twocol.pdf", 1, "", false},
		{"differences, ligatures and uniXXXX names", "differences.pdf", 1, "field éffi", false},
		{"Identity-H with ToUnicode and Adobe-Japan1 without", "cid.pdf", 1, "OK!\nあい", false},
		{"Type 3 numeric glyph names pass the code through", "type3.pdf", 1, "ABC", false},
		{"image-only page has no text layer", "scan.pdf", 1, "", true},
		{"invisible text in a form XObject", "scan.pdf", 2, "recognised words", false},
	}
	fx := fixtures()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustExtract(t, fx[tt.file])
			p := d.Pages[tt.page-1]
			if p.NoTextLayer != tt.noText {
				t.Errorf("NoTextLayer = %v, want %v", p.NoTextLayer, tt.noText)
			}
			if tt.file == "twocol.pdf" {
				var order []string
				for _, l := range p.Lines {
					order = append(order, strings.Fields(l.Text)[0])
				}
				want := []string{"Full"}
				for range 12 {
					want = append(want, "left")
				}
				for range 12 {
					want = append(want, "right")
				}
				if diff := cmp.Diff(want, order); diff != "" {
					t.Errorf("reading order (-want +got):\n%s\n%s", diff, p.Text)
				}
				if !strings.Contains(p.Text, "left column line 00 text and more words\nleft column line 01") {
					t.Errorf("column lines not joined:\n%s", p.Text)
				}
				return
			}
			if diff := cmp.Diff(tt.want, p.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractErrors(t *testing.T) {
	simple := fixtures()["simple.pdf"]
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		data []byte
		ctx  context.Context
		opts *Options
		want error
	}{
		{"not a PDF", []byte("hello, world\n"), nil, nil, ErrMalformed},
		{"empty", nil, nil, nil, ErrMalformed},
		{"garbage after header", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{0xff, '('}, 500)...), nil, nil, ErrMalformed},
		{"larger than MaxBytes", simple, nil, &Options{MaxBytes: 100}, ErrTooLarge},
		{"more pages than MaxPages", simple, nil, &Options{MaxPages: 1}, ErrTooLarge},
		{"context already canceled", simple, canceled, nil, ErrTimeout},
		{"encrypted with a user password", encryptedFixture(t), nil, nil, ErrEncrypted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			d, err := Extract(ctx, bytes.NewReader(tt.data), int64(len(tt.data)), tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if d != nil {
				t.Errorf("document returned with error %v", err)
			}
		})
	}
}

// TestExtractTruncated cuts a file at every length: each cut either
// extracts or fails with ErrMalformed, never anything else.
func TestExtractTruncated(t *testing.T) {
	data := fixtures()["simple.pdf"]
	for n := 1; n < len(data); n += 7 {
		d, err := extractBytes(t, data[:n], &Options{Timeout: 5 * time.Second})
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if err == nil {
			for _, p := range d.Pages {
				if p.Text == "" && !p.NoTextLayer && p.Err == nil {
					t.Fatalf("cut at %d: page %d silently empty", n, p.Number)
				}
			}
		}
	}
}

func TestBadPageFailsAlone(t *testing.T) {
	data := simpleDoc([]page{
		{content: "BT /F1 10 Tf 72 700 Td (good page) Tj ET", streamDict: "/Filter /FlateDecode"},
		{content: "BT /F1 10 Tf 72 700 Td (other good page) Tj ET"},
	}, "", "", nil)
	d := mustExtractAllowPageErr(t, data)
	if d.Pages[1].Text != "other good page" {
		t.Errorf("page 2: %q", d.Pages[1].Text)
	}
	if p := d.Pages[0]; p.Err == nil && !p.NoTextLayer {
		t.Errorf("page 1: want an error or NoTextLayer, got %+v", p)
	}
}

func mustExtractAllowPageErr(t *testing.T, data []byte) *Document {
	t.Helper()
	d, err := extractBytes(t, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestHeadings(t *testing.T) {
	d := mustExtract(t, fixtures()["simple.pdf"])
	got := d.Headings()
	want := []Heading{{Title: "Front", Page: 1, Level: 0, Line: -1}, {Title: "Intro", Page: 2, Level: 0, Line: -1}, {Title: "1 Introduction", Page: 2, Level: 1, Line: 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outline headings (-want +got):\n%s", diff)
	}
	d.Outline = nil
	got = d.Headings()
	want = []Heading{{Title: "A Study of Things", Page: 1, Level: 0, Line: 0}, {Title: "Ada Lovelace, Charles Babbage", Page: 1, Level: 1, Line: 1}}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("font headings (-want +got):\n%s", diff)
	}
}

// TestHostileLayout checks that pages built to defeat the layout stages
// (many glyphs stacked on one spot, a long line drawn right to left, many
// nearly-equal baselines) finish quickly.
func TestHostileLayout(t *testing.T) {
	var stacked, rtl, baselines []glyph
	for i := 0; i < 50000; i++ {
		stacked = append(stacked, glyph{x: 100, y: 100, w: 5, size: 10, text: "a", seq: int32(i)})
		rtl = append(rtl, glyph{x: float64(50000 - i), y: 100, w: 1, size: 10, text: "b", seq: int32(i)})
		baselines = append(baselines, glyph{x: 100, y: 100 + float64(i)*1e-4, w: 5, size: 10, text: string(rune('a' + i%26)), seq: int32(i)})
	}
	for name, gs := range map[string][]glyph{"stacked": stacked, "right to left": rtl, "baselines": baselines} {
		start := time.Now()
		layoutPage(gs, 612, 792)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: layout took %v", name, d)
		}
	}
}

func TestExtractShortReader(t *testing.T) {
	data := fixtures()["simple.pdf"]
	f := filepath.Join(t.TempDir(), "short.pdf")
	if err := os.WriteFile(f, data[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := Extract(context.Background(), r, int64(len(data)), nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("err = %v, want ErrMalformed", err)
	}
}
