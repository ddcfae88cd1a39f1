package pageimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/procstat"

	"github.com/researchctx/researchctx/internal/pdf"
)

// jpxCodestream is a JPEG 2000 codestream of one 8-bit grey component of
// w×h pixels in tiles of tw×th, whose one tile-part is empty: a header
// that declares what it likes.
func jpxCodestream(w, h, tw, th int) string {
	var b []byte
	u16 := func(v int) { b = append(b, byte(v>>8), byte(v)) }
	u32 := func(v int) { b = append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v)) }
	u16(0xFF4F) // SOC
	u16(0xFF51) // SIZ
	u16(41)
	u16(0)
	for _, v := range []int{w, h, 0, 0, tw, th, 0, 0} {
		u32(v)
	}
	u16(1)
	b = append(b, 7, 1, 1)
	u16(0xFF52) // COD: LRCP, 1 layer, 0 levels, 64×64 code-blocks, 5/3
	u16(12)
	b = append(b, 0, 0, 0, 1, 0, 0, 4, 4, 0, 1)
	u16(0xFF5C) // QCD: no quantisation, 2 guard bits
	u16(4)
	b = append(b, 0x40, 8<<3)
	u16(0xFF90) // SOT
	u16(10)
	u16(0)
	u32(0)
	b = append(b, 0, 1)
	u16(0xFF93) // SOD
	b = append(b, 0)
	u16(0xFFD9) // EOC
	return string(b)
}

// TestPageImageJPXBounds: a JPX image whose codestream declares more
// than its dictionary (a bomb) ends in the pixel limit, at once and
// without the renderer; one this package does not decode goes to the
// renderer, and without one is ErrUndecodable.
func TestPageImageJPXBounds(t *testing.T) {
	const dict = "/Type /XObject /Subtype /Image /Width 16 /Height 16 /Filter /JPXDecode"
	var limit *pdf.LimitError
	tests := []struct {
		name   string
		data   string
		want   error
		limit  pdf.Limit
		render bool
	}{
		{"a small image declaring 100000×100000 pixels", jpxCodestream(100000, 100000, 100000, 100000), pdf.ErrTooLarge, LimitPixels, true},
		{"65535 tiles", jpxCodestream(65535, 1, 1, 1), ErrUndecodable, "", false},
		{"not JPEG 2000", "\x00\x00\x00\x0cjP  \r\n\x87\n", ErrUndecodable, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{}
			if tc.render {
				o.Renderer = "pdftoppm-that-must-not-run"
			}
			img, err := pageImage(t, imagePage([2]string{dict, tc.data}), o)
			if !errors.Is(err, tc.want) || img != nil {
				t.Fatalf("got %v, %v; want %v", img, err, tc.want)
			}
			if tc.limit != "" && (!errors.As(err, &limit) || limit.Limit != tc.limit || limit.Page != 1) {
				t.Errorf("error %v, want the %s limit on page 1", err, tc.limit)
			}
		})
	}
	// A blank 16×16 tile decodes, in the image's own colour space.
	img, err := pageImage(t, imagePage([2]string{dict, jpxCodestream(16, 16, 16, 16)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "P5\n16 16\n255\n" + string(bytes.Repeat([]byte{128}, 256)); string(img.Data) != want {
		t.Errorf("blank tile: got %q", img.Data)
	}
}

// TestPageImageJPX decodes a JPEG 2000 scan without a renderer and checks
// it against the page it was made from and, where libopenjp2-tools is
// installed, against opj_decompress's decoding of the image pdfimages
// extracts. testdata/jpx-page.pdf is page 1 of the sample vault's
// 2401.01234 rendered by pdftoppm at 200 dpi in grey, coded by
// opj_compress -I -r 100 (the 9/7 wavelet at a hundredth of its size) and
// wrapped by img2pdf --pagesize Letter, which keeps the JP2 file.
func TestPageImageJPX(t *testing.T) {
	data, err := os.ReadFile("../testdata/jpx-page.pdf")
	if err != nil {
		t.Fatal(err)
	}
	img, err := pageImage(t, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	const w, h = 1700, 2200
	if img.Rendered || img.Format != PNM || img.Width != w || img.Height != h {
		t.Fatalf("got %s %dx%d rendered %v, want the decoded %dx%d PGM", img.Format, img.Width, img.Height, img.Rendered, w, h)
	}
	got := pgmPixels(t, img.Data)
	dir := t.TempDir()
	if pdftoppm := Renderer(); pdftoppm != "" {
		src := filepath.Join("..", "..", "..", "samplevault", "vault", "papers", "2401.01234", "2401.01234.pdf")
		out := filepath.Join(dir, "src")
		if b, err := exec.Command(pdftoppm, "-gray", "-r", "200", "-f", "1", "-l", "1", "-singlefile", src, out).CombinedOutput(); err != nil {
			t.Fatalf("pdftoppm: %v: %s", err, b)
		}
		ref, err := os.ReadFile(out + ".pgm")
		if err != nil {
			t.Fatal(err)
		}
		// A hundredfold compression keeps a page of text legible, 20.8
		// dB from the page; a blank page is 13.7 dB from it, a garbled
		// decode further.
		if p := psnr(got, pgmPixels(t, ref)); p < 19 {
			t.Errorf("%.1f dB from the page it was made from", p)
		}
	} else if os.Getenv("CI") == "true" {
		t.Fatal("pdftoppm is not installed (CI installs poppler-utils)")
	}
	pdfimages, err1 := exec.LookPath("pdfimages")
	opj, err2 := exec.LookPath("opj_decompress")
	if err1 != nil || err2 != nil {
		t.Skip("pdfimages or opj_decompress is not installed: not compared with another decoder")
	}
	src := filepath.Join(dir, "jpx.pdf")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(pdfimages, "-jp2", src, filepath.Join(dir, "im")).CombinedOutput(); err != nil {
		t.Fatalf("pdfimages: %v: %s", err, b)
	}
	ref := filepath.Join(dir, "ref.pgm")
	if b, err := exec.Command(opj, "-i", filepath.Join(dir, "im-000.jp2"), "-o", ref).CombinedOutput(); err != nil {
		t.Fatalf("opj_decompress: %v: %s", err, b)
	}
	b, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	// opj_decompress writes a comment in the header, which pnmSize does
	// not read: the samples are the file's last w×h bytes.
	if !bytes.HasPrefix(b, []byte("P5")) || !bytes.Contains(b[:min(len(b), 64)], []byte("1700 2200\n255\n")) {
		t.Fatalf("opj_decompress wrote %q", b[:min(len(b), 64)])
	}
	want := b[len(b)-len(got):]
	// The 9/7 wavelet is computed in floating point, whose rounding
	// differs between decoders by 1 in a few samples; more is an error.
	differ := 0
	for i := range got {
		switch d := int(got[i]) - int(want[i]); {
		case d > 1 || d < -1:
			t.Fatalf("sample %d: %d, opj_decompress %d", i, got[i], want[i])
		case d != 0:
			differ++
		}
	}
	if differ > len(got)/1000 {
		t.Errorf("%d of %d samples differ by 1 from opj_decompress's", differ, len(got))
	}
}

// pgmPixels returns the samples of a binary PGM of 8 bits a sample.
func pgmPixels(t *testing.T, b []byte) []byte {
	t.Helper()
	w, h, ok := pnmSize(b)
	if !ok || !bytes.HasPrefix(b, []byte("P5")) || len(b) < w*h {
		t.Fatalf("not a binary PGM: %q", b[:min(len(b), 16)])
	}
	return b[len(b)-w*h:]
}

// psnr is the peak signal-to-noise ratio of a against b, in dB.
func psnr(a, b []byte) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var se float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		se += d * d
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255*float64(len(a))/se)
}

// BenchmarkJPXPage decodes testdata/jpx-page.pdf's JPEG 2000 page
// (1700×2200 grey, 9/7 at a hundredth of its size) through Read,
// beside pdftoppm rendering the same page at 200 dpi in grey, which is
// what the page cost before; where opj_compress is installed, the same
// page coded losslessly (5/3) too:
//
//	go test -run '^$' -bench JPXPage -benchtime 10x -count 5 ./internal/pdf
func BenchmarkJPXPage(b *testing.B) {
	data, err := os.ReadFile("../testdata/jpx-page.pdf")
	if err != nil {
		b.Fatal(err)
	}
	pages := [][2]any{{"lossy", data}}
	if opj, err := exec.LookPath("opj_compress"); err == nil && Renderer() != "" {
		dir := b.TempDir()
		src := filepath.Join("..", "..", "..", "samplevault", "vault", "papers", "2401.01234", "2401.01234.pdf")
		out := filepath.Join(dir, "p")
		if o, err := exec.Command(Renderer(), "-gray", "-r", "200", "-f", "1", "-l", "1", "-singlefile", src, out).CombinedOutput(); err != nil {
			b.Fatalf("pdftoppm: %v: %s", err, o)
		}
		if o, err := exec.Command(opj, "-i", out+".pgm", "-o", out+".jp2").CombinedOutput(); err != nil {
			b.Fatalf("opj_compress: %v: %s", err, o)
		}
		jp2, err := os.ReadFile(out + ".jp2")
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, [2]any{"lossless", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 1700 /Height 2200 /Filter /JPXDecode", string(jp2)})})
	}
	for _, pg := range pages {
		name, data := pg[0].(string), pg[1].([]byte)
		b.Run(name+"/decode", func(b *testing.B) {
			start := procstat.CPUTime()
			defer func() { b.ReportMetric(float64((procstat.CPUTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op") }()
			for range b.N {
				var res []Result
				err := Read(context.Background(), bytes.NewReader(data), int64(len(data)), []int{1}, nil, func(r Result) error {
					res = append(res, r)
					return nil
				})
				if err != nil || res[0].Err != nil || res[0].Image.Rendered {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
		b.Run(name+"/pdftoppm", func(b *testing.B) {
			r := Renderer()
			if r == "" {
				b.Skip("pdftoppm is not installed")
			}
			var cpu time.Duration
			defer func() { b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op") }()
			for range b.N {
				cmd := exec.Command(r, "-r", "200", "-gray", "-f", "1", "-l", "1", "-")
				cmd.Stdin = bytes.NewReader(data)
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Run(); err != nil || out.Len() < 1700*2200 {
					b.Fatalf("pdftoppm: %v, %d bytes", err, out.Len())
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
		})
	}
}

// TestPageImageJPXColour: a colour JPX image becomes grey by the luma the
// other images use (grayOf), in its own colour space (the JP2 header's
// sRGB, a bare codestream's three components) or in the dictionary's;
// a grey dictionary colour space over it reads its first component;
// sub-sampled components are read at each pixel's place.
func TestPageImageJPXColour(t *testing.T) {
	src, err := os.ReadFile("../../jpx/testdata/rgb.ppm")
	if err != nil {
		t.Fatal(err)
	}
	const w, h = 128, 96
	rgb := src[len(src)-w*h*3:]
	luma := make([]byte, w*h)
	red := make([]byte, w*h)
	for i := range luma {
		luma[i] = grayOf(rgb[3*i:3*i+3], 255)
		red[i] = rgb[3*i]
	}
	// Components sampled every second pixel across and down, on a grid of
	// 255×191: each pixel is its component samples' (nearest) luma.
	sub := make([]byte, 255*191)
	for y := range 191 {
		for x := range 255 {
			sub[y*255+x] = luma[(y/2)*w+x/2]
		}
	}
	for _, tc := range []struct {
		file, cs string
		want     []byte
	}{
		{"lossless-rgb-jp2.jp2", "", luma},
		{"lossless-rgb.j2k", "", luma},
		{"lossless-rgb.j2k", "/ColorSpace /DeviceRGB", luma},
		{"lossless-rgb-jp2.jp2", "/ColorSpace /DeviceGray", red},
		{"lossless-subsampled.j2k", "", sub},
	} {
		t.Run(tc.file+" "+tc.cs, func(t *testing.T) {
			data, err := os.ReadFile("../../jpx/testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			img, err := pageImage(t, imagePage([2]string{fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /Filter /JPXDecode %s", w, h, tc.cs), string(data)}), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := pgmPixels(t, img.Data); !bytes.Equal(got, tc.want) {
				differ := 0
				for i := range min(len(got), len(tc.want)) {
					if got[i] != tc.want[i] {
						differ++
					}
				}
				t.Errorf("%d of %d grey levels differ", differ, len(tc.want))
			}
		})
	}
}
