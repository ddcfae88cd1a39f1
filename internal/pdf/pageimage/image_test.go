package pageimage

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// imagePage builds a one-page PDF whose page draws the given XObjects
// (dictionary entries and data each) by name, full page.
func imagePage(images ...[2]string) []byte {
	b := &pdfbuild.Builder{}
	pagesObj := b.Add("")
	var names, draws []string
	for i, im := range images {
		n := b.Stream(im[0], im[1])
		names = append(names, fmt.Sprintf("/Im%d %d 0 R", i, n))
		draws = append(draws, fmt.Sprintf("q 612 0 0 792 0 0 cm /Im%d Do Q", i))
	}
	c := b.Stream("", strings.Join(draws, "\n"))
	pg := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /XObject << %s >> >> /Contents %d 0 R >>", pagesObj, strings.Join(names, " "), c))
	b.Set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
	cat := b.Add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj))
	return b.Bytes(cat, 0)
}

// g4Fax is a 16×4 image in CCITT Group 4 coding (see TestPageImageDecodes).
const g4Fax = "\x36\xcd\xb2\x6a\xcd\xb8\x8c\x9a\xa2\x3a\x23\xa2\x3a\x23\xa2\x3a\x23\xa0\x94\x00\x40\x04"

// jbig2Halftone is a JBIG2 page of 10×10 pixels (a page information
// segment) with a pattern dictionary of template 2, for a halftone
// region, which internal/jbig2 does not decode.
const jbig2Halftone = "\x00\x00\x00\x00\x30\x00\x01\x00\x00\x00\x13" +
	"\x00\x00\x00\x0a\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00" +
	"\x00\x00\x00\x01\x10\x00\x01\x00\x00\x00\x07" +
	"\x04\x04\x04\x00\x00\x00\x01"

func zlibbed(b []byte) string {
	var out bytes.Buffer
	w := zlib.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.String()
}

func pageImage(t *testing.T, data []byte, o *Options) (*Image, error) {
	t.Helper()
	var res []Result
	err := Read(context.Background(), bytes.NewReader(data), int64(len(data)), []int{1}, o, func(r Result) error {
		res = append(res, r)
		return nil
	})
	if err != nil || len(res) != 1 {
		t.Fatalf("Read: %v, %d results", err, len(res))
	}
	return res[0].Image, res[0].Err
}

func TestPageImageDecodes(t *testing.T) {
	var jpg bytes.Buffer
	src := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range src.Pix {
		src.Pix[i] = byte(i * 4)
	}
	if err := jpeg.Encode(&jpg, src, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		dict  string
		data  string
		want  Image
		check func(t *testing.T, img *Image)
	}{
		{
			name: "flate grey",
			dict: "/Type /XObject /Subtype /Image /Width 3 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode",
			data: zlibbed([]byte{0, 128, 255, 10, 20, 30}),
			want: Image{Data: []byte("P5\n3 2\n255\n\x00\x80\xff\x0a\x14\x1e"), Format: PNM, Width: 3, Height: 2},
		},
		{
			name: "1-bit grey, PBM inverted",
			dict: "/Type /XObject /Subtype /Image /Width 8 /Height 2 /BitsPerComponent 1 /ColorSpace /DeviceGray",
			data: "\x0f\xf0",
			want: Image{Data: []byte("P4\n8 2\n\xf0\x0f"), Format: PNM, Width: 8, Height: 2},
		},
		{
			name: "image mask with Decode [1 0]",
			dict: "/Type /XObject /Subtype /Image /Width 8 /Height 1 /ImageMask true /Decode [1 0]",
			data: "\x0f",
			want: Image{Data: []byte("P4\n8 1\n\x0f"), Format: PNM, Width: 8, Height: 1},
		},
		{
			name: "RGB",
			dict: "/Type /XObject /Subtype /Image /Width 2 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode",
			data: zlibbed([]byte{255, 255, 255, 255, 0, 0}),
			want: Image{Data: []byte("P5\n2 1\n255\n\xff\x4c"), Format: PNM, Width: 2, Height: 1},
		},
		{
			name: "CMYK",
			dict: "/Type /XObject /Subtype /Image /Width 2 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceCMYK",
			data: "\x00\x00\x00\x00\x00\x00\x00\xff",
			want: Image{Data: []byte("P5\n2 1\n255\n\xff\x00"), Format: PNM, Width: 2, Height: 1},
		},
		{
			name: "indexed 4-bit over RGB",
			dict: "/Type /XObject /Subtype /Image /Width 2 /Height 1 /BitsPerComponent 4 /ColorSpace [/Indexed /DeviceRGB 1 <000000ffffff>]",
			data: "\x10",
			want: Image{Data: []byte("P5\n2 1\n255\n\xff\x00"), Format: PNM, Width: 2, Height: 1},
		},
		// The fax data were coded by libtiff (ppm2tiff -c g4, -c g3) from
		// the PBM P4 16×4 0f0f f0f0 0000 aaaa.
		{
			name: "CCITT Group 4",
			dict: "/Type /XObject /Subtype /Image /Width 16 /Height 4 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 16 /Rows 4 >>",
			data: g4Fax,
			want: Image{Data: []byte("P4\n16 4\n\x0f\x0f\xf0\xf0\x00\x00\xaa\xaa"), Format: PNM, Width: 16, Height: 4},
		},
		{
			name: "CCITT Group 4 mask, BlackIs1, parameters in an array",
			dict: "/Type /XObject /Subtype /Image /Width 16 /Height 4 /ImageMask true /Filter [/CCF] /DecodeParms [<< /K -1 /Columns 16 /BlackIs1 true >>]",
			data: g4Fax,
			want: Image{Data: []byte("P4\n16 4\n\xf0\xf0\x0f\x0f\xff\xff\x55\x55"), Format: PNM, Width: 16, Height: 4},
		},
		{
			name: "CCITT Group 3 with end-of-line codes",
			dict: "/Type /XObject /Subtype /Image /Width 16 /Height 4 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /CCITTFaxDecode /DecodeParms << /K 0 /Columns 16 /Rows 4 /EndOfLine true >>",
			data: "\x00\x1b\x76\xc0\x04\xd5\xdb\xb0\x01\xa8\x00\x4d\x50\xe8\x74\x3a\x1d\x0e\x87\x43\xa1\xc0",
			want: Image{Data: []byte("P4\n16 4\n\x0f\x0f\xf0\xf0\x00\x00\xaa\xaa"), Format: PNM, Width: 16, Height: 4},
		},
		{
			name: "DCT passed through",
			dict: "/Type /XObject /Subtype /Image /Width 8 /Height 8 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /DCTDecode",
			data: jpg.String(), // the builder ends a stream's data with a newline
			want: Image{Data: append(jpg.Bytes(), '\n'), Format: JPEG, Width: 8, Height: 8},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img, err := pageImage(t, imagePage([2]string{tc.dict, tc.data}), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *img); diff != "" {
				t.Errorf("image (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPageImageBounds: the bad inputs of a scan — a huge declared image, a
// JPX or JBIG2 image declared huge (a bomb), thousands of tiny images, an
// image this package does not decode with no renderer, a text page — end
// in the page's error, never in a decode.
func TestPageImageBounds(t *testing.T) {
	tiny := make([][2]string, 5000)
	for i := range tiny {
		tiny[i] = [2]string{"/Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceGray", "\x00"}
	}
	var limit *pdf.LimitError
	tests := []struct {
		name   string
		pdf    []byte
		want   error
		limit  pdf.Limit
		render bool
	}{
		{"20,000 × 20,000 grey", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 20000 /Height 20000 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode", zlibbed(make([]byte, 1<<20))}), pdf.ErrTooLarge, LimitPixels, true},
		{"JPX bomb", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 30000 /Height 30000 /Filter /JPXDecode", "\x00\x00\x00\x0cjP  "}), pdf.ErrTooLarge, LimitPixels, true},
		{"JBIG2 bomb", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /JBIG2Decode", "\x00\x00\x00\x00"}), pdf.ErrTooLarge, LimitPixels, true},
		{"5,000 tiny images", imagePage(tiny...), pdf.ErrTooLarge, LimitImages, true},
		{"broken JBIG2 without a renderer", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 10 /Height 10 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /JBIG2Decode", "\x00"}), ErrUndecodable, "", false},
		{"halftone JBIG2 without a renderer", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 10 /Height 10 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /JBIG2Decode", jbig2Halftone}), ErrUndecodable, "", false},
		{"halftone JBIG2 behind Flate without a renderer", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 10 /Height 10 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter [/FlateDecode /JBIG2Decode]", zlibbed([]byte(jbig2Halftone))}), ErrUndecodable, "", false},
		{"JBIG2 of another size without a renderer", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 12 /Height 10 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /JBIG2Decode", jbig2Halftone[:30]}), ErrUndecodable, "", false},
		{"CCITT bomb", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ImageMask true /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 100000 >>", "\x00"}), pdf.ErrTooLarge, LimitPixels, true},
		{"CCITT of mixed coding without a renderer", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 16 /Height 4 /ImageMask true /Filter /CCITTFaxDecode /DecodeParms << /K 2 /Columns 16 >>", g4Fax}), ErrUndecodable, "", false},
		{"CCITT data cut short", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 16 /Height 40 /ImageMask true /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 16 >>", g4Fax[:6]}), ErrUndecodable, "", false},
		{"CCITT coded at another width", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 16 /Height 4 /ImageMask true /Filter /CCITTFaxDecode /DecodeParms << /K -1 >>", g4Fax}), ErrUndecodable, "", false},
		{"CCITT of 8 bits a sample", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 16 /Height 4 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 16 >>", g4Fax}), pdf.ErrMalformed, "", false},
		{"a text page", hostilepdf.Plain("Hello"), ErrNoImage, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{}
			if tc.render {
				o.Renderer = "pdftoppm-that-must-not-run"
			}
			img, err := pageImage(t, tc.pdf, o)
			if !errors.Is(err, tc.want) || img != nil {
				t.Fatalf("got %v, %v; want %v", img, err, tc.want)
			}
			if tc.limit != "" && (!errors.As(err, &limit) || limit.Limit != tc.limit || limit.Page != 1) {
				t.Errorf("error %v, want the %s limit on page 1", err, tc.limit)
			}
		})
	}
}

// TestPageImageRenders: a page of two images is rendered by pdftoppm, its
// long side RenderPixels.
func TestPageImageRenders(t *testing.T) {
	r := Renderer()
	if r == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdftoppm is not installed")
		}
		t.Skip("pdftoppm is not installed")
	}
	grey := "/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceGray"
	img, err := pageImage(t, imagePage([2]string{grey, "\x00\x00\x00\x00"}, [2]string{grey, "\xff\xff\xff\xff"}), &Options{Renderer: r})
	if err != nil {
		t.Fatal(err)
	}
	if !img.Rendered || img.Format != PNM || img.Height != RenderPixels || !bytes.HasPrefix(img.Data, []byte("P5")) {
		t.Errorf("got %s %dx%d rendered %v, want a rendered PGM %d high", img.Format, img.Width, img.Height, img.Rendered, RenderPixels)
	}
	if _, err := exec.LookPath(r); err != nil {
		t.Fatal(err)
	}
	// A renderer that is not there fails the page, not the call.
	_, err = pageImage(t, imagePage([2]string{grey, "\x00\x00\x00\x00"}, [2]string{grey, "\xff\xff\xff\xff"}), &Options{Renderer: "/nonexistent/pdftoppm"})
	if !errors.Is(err, ErrUndecodable) {
		t.Errorf("missing renderer: %v", err)
	}
}

// TestPageImageFax decodes a real fax-coded scan without a renderer and
// checks it pixel for pixel against poppler's own decoding of the image
// (pdfimages). testdata/fax-g4.pdf is page 1 of the sample vault's
// 2401.01234 rendered by pdftoppm at 200 dpi in black and white, coded in
// CCITT Group 4 by libtiff (ppm2tiff -c g4) and wrapped by img2pdf, which
// keeps the fax data and writes object streams.
func TestPageImageFax(t *testing.T) {
	decodedScan(t, "../testdata/fax-g4.pdf", 1700, 2200)
}

// TestPageImageJBIG2 decodes real JBIG2 scans without a renderer, pixel
// for pixel as poppler does. Both are the page of fax-g4.pdf, coded by
// internal/jbig2's test encoder and checked against jbig2dec (see
// internal/jbig2's TestWriteFixtures): jbig2-generic.pdf as one generic
// region coded arithmetically (template 0, typical prediction);
// jbig2-globals.pdf as a text region of the page's connected components
// whose symbol dictionary is in the stream's /JBIG2Globals, as Acrobat and
// jbig2enc write scans.
func TestPageImageJBIG2(t *testing.T) {
	for _, name := range []string{"jbig2-generic.pdf", "jbig2-globals.pdf"} {
		t.Run(name, func(t *testing.T) {
			decodedScan(t, filepath.Join("..", "testdata", name), 1700, 2200)
		})
	}
}

// TestPageImageJBIG2Filters: a JBIG2 image behind Flate, its globals
// behind Flate too, and inverted by /Decode [1 0], decodes as the plain
// one does.
func TestPageImageJBIG2Filters(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "jbig2", "testdata", "text-globals.jb2"))
	if err != nil {
		t.Fatal(err)
	}
	globals, err := os.ReadFile(filepath.Join("..", "..", "jbig2", "testdata", "text-globals.globals.jb2"))
	if err != nil {
		t.Fatal(err)
	}
	image := func(filter, decode, data string, globals string) []byte {
		b := &pdfbuild.Builder{}
		pagesObj := b.Add("")
		g := b.Stream("/Filter /FlateDecode", globals)
		im := b.Stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width 640 /Height 288 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter %s /DecodeParms [null << /JBIG2Globals %d 0 R >>]%s", filter, g, decode), data)
		c := b.Stream("", "q 612 0 0 792 0 0 cm /Im0 Do Q")
		pg := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>", pagesObj, im, c))
		b.Set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
		cat := b.Add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj))
		return b.Bytes(cat, 0)
	}
	plain, err := pageImage(t, image("[/JBIG2Decode]", "", string(page), zlibbed(globals)), nil)
	if err != nil {
		t.Fatal(err)
	}
	flate, err := pageImage(t, image("[/FlateDecode /JBIG2Decode]", "", zlibbed(page), zlibbed(globals)), nil)
	if err != nil {
		t.Fatal(err)
	}
	inverted, err := pageImage(t, image("[/FlateDecode /JBIG2Decode]", " /Decode [1 0]", zlibbed(page), zlibbed(globals)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := pbmPixels(t, plain.Data)
	if !bytes.Equal(pbmPixels(t, flate.Data), want) {
		t.Error("behind Flate: not the plain image")
	}
	inv := pbmPixels(t, inverted.Data)
	for i := range inv {
		inv[i] = ^inv[i]
	}
	if got := pbmPixels(t, append([]byte("P4\n640 288\n"), inv...)); !bytes.Equal(got, want) {
		t.Error("/Decode [1 0]: not the plain image inverted")
	}
}

// decodedScan decodes the one-page scan in file, of w×h pixels, without a
// renderer, and compares it with poppler's decoding where pdfimages is
// installed.
func decodedScan(t *testing.T, file string, w, h int) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	img, err := pageImage(t, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if img.Rendered || img.Format != PNM || img.Width != w || img.Height != h {
		t.Fatalf("got %s %dx%d rendered %v, want the decoded %dx%d PBM", img.Format, img.Width, img.Height, img.Rendered, w, h)
	}
	got := pbmPixels(t, img.Data)
	black := 0
	for _, b := range got {
		black += bits.OnesCount8(b)
	}
	// A page of text is mostly white; an inverted or garbled decode is not.
	if frac := float64(black) / float64(w*h); frac < 0.01 || frac > 0.2 {
		t.Errorf("%.3f of the pixels black, want a page of text", frac)
	}
	pdfimages, err := exec.LookPath("pdfimages")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdfimages is not installed (CI installs poppler-utils)")
		}
		t.Skip("pdfimages is not installed: decoded, not compared")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "scan.pdf")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(pdfimages, src, filepath.Join(dir, "im")).CombinedOutput(); err != nil {
		t.Fatalf("pdfimages: %v: %s", err, b)
	}
	ref, err := os.ReadFile(filepath.Join(dir, "im-000.pbm"))
	if err != nil {
		t.Fatal(err)
	}
	if want := pbmPixels(t, ref); !bytes.Equal(got, want) {
		differ := 0
		for i := range min(len(got), len(want)) {
			differ += bits.OnesCount8(got[i] ^ want[i])
		}
		t.Errorf("%d pixels differ from poppler's decoding", differ)
	}
}

// pbmPixels returns the pixel rows of a binary PBM, the bits that pad
// each row to a byte cleared.
func pbmPixels(t *testing.T, b []byte) []byte {
	t.Helper()
	w, h, ok := pnmSize(b)
	if !ok || !bytes.HasPrefix(b, []byte("P4")) {
		t.Fatalf("not a binary PBM: %q", b[:min(len(b), 16)])
	}
	row := (w + 7) / 8
	if len(b) < row*h {
		t.Fatalf("PBM of %dx%d has %d bytes", w, h, len(b))
	}
	px := bytes.Clone(b[len(b)-row*h:])
	if pad := row*8 - w; pad > 0 {
		for y := range h {
			px[y*row+row-1] &^= 1<<pad - 1
		}
	}
	return px
}

// BenchmarkPageImageScan decodes the scan fixtures' page images, each a
// letter page at 200 dpi (docs/benchmarks.md, "JBIG2 pages without
// pdftoppm").
func BenchmarkPageImageScan(b *testing.B) {
	for _, name := range []string{"fax-g4.pdf", "jbig2-generic.pdf", "jbig2-globals.pdf"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				err := Read(context.Background(), bytes.NewReader(data), int64(len(data)), []int{1}, nil, func(r Result) error {
					if r.Err != nil || r.Image.Rendered {
						return fmt.Errorf("page 1: %v", r.Err)
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
