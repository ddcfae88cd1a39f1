package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// imagePage builds a one-page PDF whose page draws the given XObjects
// (dictionary entries and data each) by name, full page.
func imagePage(images ...[2]string) []byte {
	b := &pdfBuilder{}
	pagesObj := b.add("")
	var names, draws []string
	for i, im := range images {
		n := b.stream(im[0], im[1])
		names = append(names, fmt.Sprintf("/Im%d %d 0 R", i, n))
		draws = append(draws, fmt.Sprintf("q 612 0 0 792 0 0 cm /Im%d Do Q", i))
	}
	c := b.stream("", strings.Join(draws, "\n"))
	pg := b.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /XObject << %s >> >> /Contents %d 0 R >>", pagesObj, strings.Join(names, " "), c))
	b.set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
	cat := b.add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj))
	return b.bytes(cat, 0)
}

func zlibbed(b []byte) string {
	var out bytes.Buffer
	w := zlib.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.String()
}

func pageImage(t *testing.T, data []byte, o *ImageOptions) (*PageImage, error) {
	t.Helper()
	var res []ImageResult
	err := PageImages(context.Background(), bytes.NewReader(data), int64(len(data)), []int{1}, o, func(r ImageResult) error {
		res = append(res, r)
		return nil
	})
	if err != nil || len(res) != 1 {
		t.Fatalf("PageImages: %v, %d results", err, len(res))
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
		want  PageImage
		check func(t *testing.T, img *PageImage)
	}{
		{
			name: "flate grey",
			dict: "/Type /XObject /Subtype /Image /Width 3 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode",
			data: zlibbed([]byte{0, 128, 255, 10, 20, 30}),
			want: PageImage{Data: []byte("P5\n3 2\n255\n\x00\x80\xff\x0a\x14\x1e"), Format: ImagePNM, Width: 3, Height: 2},
		},
		{
			name: "1-bit grey, PBM inverted",
			dict: "/Type /XObject /Subtype /Image /Width 8 /Height 2 /BitsPerComponent 1 /ColorSpace /DeviceGray",
			data: "\x0f\xf0",
			want: PageImage{Data: []byte("P4\n8 2\n\xf0\x0f"), Format: ImagePNM, Width: 8, Height: 2},
		},
		{
			name: "image mask with Decode [1 0]",
			dict: "/Type /XObject /Subtype /Image /Width 8 /Height 1 /ImageMask true /Decode [1 0]",
			data: "\x0f",
			want: PageImage{Data: []byte("P4\n8 1\n\x0f"), Format: ImagePNM, Width: 8, Height: 1},
		},
		{
			name: "RGB",
			dict: "/Type /XObject /Subtype /Image /Width 2 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode",
			data: zlibbed([]byte{255, 255, 255, 255, 0, 0}),
			want: PageImage{Data: []byte("P5\n2 1\n255\n\xff\x4c"), Format: ImagePNM, Width: 2, Height: 1},
		},
		{
			name: "CMYK",
			dict: "/Type /XObject /Subtype /Image /Width 2 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceCMYK",
			data: "\x00\x00\x00\x00\x00\x00\x00\xff",
			want: PageImage{Data: []byte("P5\n2 1\n255\n\xff\x00"), Format: ImagePNM, Width: 2, Height: 1},
		},
		{
			name: "indexed 4-bit over RGB",
			dict: "/Type /XObject /Subtype /Image /Width 2 /Height 1 /BitsPerComponent 4 /ColorSpace [/Indexed /DeviceRGB 1 <000000ffffff>]",
			data: "\x10",
			want: PageImage{Data: []byte("P5\n2 1\n255\n\xff\x00"), Format: ImagePNM, Width: 2, Height: 1},
		},
		{
			name: "DCT passed through",
			dict: "/Type /XObject /Subtype /Image /Width 8 /Height 8 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /DCTDecode",
			data: jpg.String(), // the builder ends a stream's data with a newline
			want: PageImage{Data: append(jpg.Bytes(), '\n'), Format: ImageJPEG, Width: 8, Height: 8},
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
	var limit *LimitError
	tests := []struct {
		name   string
		pdf    []byte
		want   error
		limit  Limit
		render bool
	}{
		{"20,000 × 20,000 grey", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 20000 /Height 20000 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode", zlibbed(make([]byte, 1<<20))}), ErrTooLarge, LimitImagePixels, true},
		{"JPX bomb", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 30000 /Height 30000 /Filter /JPXDecode", "\x00\x00\x00\x0cjP  "}), ErrTooLarge, LimitImagePixels, true},
		{"JBIG2 bomb", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /JBIG2Decode", "\x00\x00\x00\x00"}), ErrTooLarge, LimitImagePixels, true},
		{"5,000 tiny images", imagePage(tiny...), ErrTooLarge, LimitPageImages, true},
		{"JBIG2 without a renderer", imagePage([2]string{"/Type /XObject /Subtype /Image /Width 10 /Height 10 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /JBIG2Decode", "\x00"}), ErrImageUndecodable, "", false},
		{"a text page", simpleDoc([]page{{content: "BT /F1 12 Tf 72 700 Td (Hello) Tj ET"}}, "", "", nil), ErrNoImage, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &ImageOptions{}
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
	img, err := pageImage(t, imagePage([2]string{grey, "\x00\x00\x00\x00"}, [2]string{grey, "\xff\xff\xff\xff"}), &ImageOptions{Renderer: r})
	if err != nil {
		t.Fatal(err)
	}
	if !img.Rendered || img.Format != ImagePNM || img.Height != RenderPixels || !bytes.HasPrefix(img.Data, []byte("P5")) {
		t.Errorf("got %s %dx%d rendered %v, want a rendered PGM %d high", img.Format, img.Width, img.Height, img.Rendered, RenderPixels)
	}
	if _, err := exec.LookPath(r); err != nil {
		t.Fatal(err)
	}
	// A renderer that is not there fails the page, not the call.
	_, err = pageImage(t, imagePage([2]string{grey, "\x00\x00\x00\x00"}, [2]string{grey, "\xff\xff\xff\xff"}), &ImageOptions{Renderer: "/nonexistent/pdftoppm"})
	if !errors.Is(err, ErrImageUndecodable) {
		t.Errorf("missing renderer: %v", err)
	}
}
