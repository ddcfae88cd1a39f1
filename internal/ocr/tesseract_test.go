package ocr_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// needProgram skips a test without the named program, except under CI,
// where .ci/run installs it and its absence is a failure.
func needProgram(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (CI installs tesseract-ocr, tesseract-ocr-eng and poppler-utils)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// TestTesseractReadsARenderedPage renders a born-digital corpus page at
// 200 dpi and reads it back with the real program.
func TestTesseractReadsARenderedPage(t *testing.T) {
	needProgram(t, "tesseract")
	pdftoppm := needProgram(t, "pdftoppm")
	src := filepath.Join(corpus.Dir(t, "pdfs"), "arxiv-1406.2661.pdf")
	out := filepath.Join(t.TempDir(), "p")
	if b, err := exec.Command(pdftoppm, "-f", "1", "-l", "1", "-r", "200", "-gray", "-singlefile", src, out).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, b)
	}
	data, err := os.ReadFile(out + ".pgm")
	if err != nil {
		t.Fatal(err)
	}
	// A generous deadline: the page runs below everything else, and on a
	// loaded machine takes minutes; what is checked is what it reads.
	eng, err := ocr.NewTesseract(context.Background(), "tesseract", []string{"eng"}, 10*time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	if id := eng.ID(); !strings.HasPrefix(id, "tesseract 5") || !strings.HasSuffix(id, " eng") {
		t.Errorf("ID = %q, want the version and the language", id)
	}
	r, err := eng.Recognize(context.Background(), ocr.Image{Data: data, Format: ocr.PNM})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Generative", "Adversarial", "Nets", "discriminative"} {
		if !strings.Contains(r.Text, w) {
			t.Errorf("text lacks %q", w)
		}
	}
	if r.Confidence < 0.8 || !ocr.Plausible(r) {
		t.Errorf("confidence %.2f, plausible %v; want a confident read", r.Confidence, ocr.Plausible(r))
	}
	for _, w := range r.Words {
		if w.X < 0 || w.Y < 0 || w.X+w.W > 1.0001 || w.Y+w.H > 1.0001 || w.W <= 0 {
			t.Fatalf("word %+v: box outside the page", w)
		}
	}
}

// fakeTesseract writes a program that answers --version and --list-langs
// as tesseract does and does body on a page.
func fakeTesseract(t *testing.T, body string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	p := filepath.Join(t.TempDir(), "tesseract")
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo 'tesseract 9.9.9'; exit 0;;\n--list-langs) echo 'List of available languages (1):'; echo eng; exit 0;;\nesac\n" + body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTesseractBadPrograms: a program that hangs, crashes, prints garbage
// or floods its output ends in a bounded error, never a result.
func TestTesseractBadPrograms(t *testing.T) {
	tests := []struct {
		name string
		body string
		want error
	}{
		{"hangs", "exec sleep 30", ocr.ErrTimeout},
		{"crashes", "echo 'Segmentation fault' >&2; kill -SEGV $$", ocr.ErrFailed},
		{"garbage", "echo '%%%% not tsv'", ocr.ErrFailed},
		{"short rows", "printf 'level\\tx\\n5\\t1\\n'", ocr.ErrFailed},
		{"floods", "exec yes 'level\t1\t1\t1\t1\t1\t1\t1\t1\t1\t90\tword'", ocr.ErrFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := ocr.NewTesseract(context.Background(), fakeTesseract(t, tc.body), nil, 2*time.Second, 1)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r, err := eng.Recognize(context.Background(), ocr.Image{Data: []byte("P5 1 1 255\n\x00"), Format: ocr.PNM})
			if !errors.Is(err, tc.want) || r != nil {
				t.Fatalf("Recognize = %v, %v; want %v", r, err, tc.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// TestTesseractCommandLine pins how a page is handed to the program: the
// image on standard input, TSV on standard output, the layout found
// automatically, no second reading of lines inverted, one thread
// (OMP_THREAD_LIMIT=1), and a grey page coded as a colour JPEG as the grey
// PGM it is, with the resolution of its JFIF header. The fake program
// reads back its arguments, that variable and the first bytes of its
// input as the page's words.
func TestTesseractCommandLine(t *testing.T) {
	body := `head=$(head -c 2 | od -An -tx1 | tr -d ' \n'); cat >/dev/null
printf 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n'
for w in "$@" "OMP_THREAD_LIMIT=$OMP_THREAD_LIMIT" "input=$head"; do printf '5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\t%s\n' "$w"; done`
	eng, err := ocr.NewTesseract(context.Background(), fakeTesseract(t, body), nil, time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	grey, colour := pageJPEG(t, false), pageJPEG(t, true)
	// Over the pixels the engine decodes: the frame's size patched.
	big := bytes.Clone(grey)
	sof := bytes.Index(big, []byte{0xFF, 0xC0})
	big[sof+5], big[sof+6], big[sof+7], big[sof+8] = 0xFF, 0xFF, 0xFF, 0xFF
	// A progressive frame, whose decoding time its bytes do not bound:
	// the same page made progressive (jpegtran -progressive), which would
	// decode to grey.
	progressive, err := os.ReadFile(filepath.Join("testdata", "progressive-grey.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"stdin", "stdout", "-l", "eng", "--psm", "3", "-c", "tessedit_do_invert=0"}
	tests := []struct {
		name string
		img  ocr.Image
		want []string // beside args
	}{
		{"PGM", ocr.Image{Data: []byte("P5 1 1 255\n\x00"), Format: ocr.PNM}, []string{"tsv", "input=5035"}},
		{"grey coded in colour, 200 dpi", ocr.Image{Data: jfif(grey, 1, 200), Format: ocr.JPEG}, []string{"--dpi", "200", "tsv", "input=5035"}},
		{"grey coded in colour, 79 per cm", ocr.Image{Data: jfif(grey, 2, 79), Format: ocr.JPEG}, []string{"--dpi", "201", "tsv", "input=5035"}},
		{"grey coded in colour, no resolution", ocr.Image{Data: grey, Format: ocr.JPEG}, []string{"tsv", "input=5035"}},
		{"in colour", ocr.Image{Data: jfif(colour, 1, 200), Format: ocr.JPEG}, []string{"tsv", "input=ffd8"}},
		{"over the pixels decoded", ocr.Image{Data: big, Format: ocr.JPEG}, []string{"tsv", "input=ffd8"}},
		{"progressive", ocr.Image{Data: progressive, Format: ocr.JPEG}, []string{"tsv", "input=ffd8"}},
		{"not a JPEG", ocr.Image{Data: []byte("not a JPEG"), Format: ocr.JPEG}, []string{"tsv", "input=6e6f"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := eng.Recognize(context.Background(), tc.img)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range r.Words {
				got = append(got, w.Text)
			}
			want := append(slices.Clone(args), tc.want...)
			want = append(want[:len(want)-1], "OMP_THREAD_LIMIT=1", want[len(want)-1])
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the program's arguments, thread limit and input (-want +got):\n%s", diff)
			}
		})
	}
}

// pageJPEG encodes a small page of dark lines on light grey, coded in
// colour (three components, as a scanner in colour mode or pdftoppm
// -jpeg writes it); with colour, one line is red.
func pageJPEG(t *testing.T, colour bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			c := color.RGBA{230, 230, 230, 255}
			if y%8 < 2 && x > 4 && x < 60 {
				c = color.RGBA{20, 20, 20, 255}
				if colour && y < 8 {
					c = color.RGBA{200, 0, 0, 255}
				}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jfif returns the JPEG data with a JFIF header of the given density
// units (1: per inch, 2: per centimetre) and density.
func jfif(data []byte, units byte, density uint16) []byte {
	app0 := []byte{0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, units, byte(density >> 8), byte(density), byte(density >> 8), byte(density), 0, 0}
	return slices.Concat(data[:2], app0, data[2:])
}

func TestNewTesseractRefuses(t *testing.T) {
	if _, err := ocr.NewTesseract(context.Background(), filepath.Join(t.TempDir(), "none"), nil, 0, 0); !errors.Is(err, ocr.ErrUnavailable) {
		t.Errorf("missing program: %v", err)
	}
	fake := fakeTesseract(t, "exit 0")
	if _, err := ocr.NewTesseract(context.Background(), fake, []string{"jpn"}, 0, 0); !errors.Is(err, ocr.ErrUnavailable) {
		t.Errorf("missing language: %v", err)
	}
	eng, err := ocr.NewTesseract(context.Background(), fake, nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"eng"}, eng.Langs()); diff != "" {
		t.Errorf("default languages (-want +got):\n%s", diff)
	}
	if got, want := eng.ID(), "tesseract 9.9.9 eng"; got != want {
		t.Errorf("ID = %q, want %q", got, want)
	}
}

func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t100\t200\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t10\t20\t30\t10\t90\tHello\n" +
		"5\t1\t1\t1\t1\t2\t50\t20\t30\t10\t80\tworld\n" +
		"5\t1\t1\t1\t2\t1\t10\t40\t20\t10\t70\tnext\n" +
		"5\t1\t2\t1\t1\t1\t10\t80\t20\t10\t60\tpara\n"
	r, err := ocr.ParseTSV([]byte(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Hello world\nnext\n\npara"; r.Text != want {
		t.Errorf("Text = %q, want %q", r.Text, want)
	}
	want := ocr.Word{Text: "world", X: 0.5, Y: 0.1, W: 0.3, H: 0.05, Confidence: 0.8, Line: 0}
	if diff := cmp.Diff(want, r.Words[1]); diff != "" {
		t.Errorf("word (-want +got):\n%s", diff)
	}
	if r.Words[3].Line != 2 {
		t.Errorf("line of the last word = %d, want 2", r.Words[3].Line)
	}
	// (5·.9 + 5·.8 + 4·.7 + 4·.6) / 18 = 13.7 / 18
	if got, want := r.Confidence, 13.7/18; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("Confidence = %v, want %v", got, want)
	}
}
