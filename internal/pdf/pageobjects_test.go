package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// drawingPage builds a one-page PDF whose content is content, with image
// XObjects /Im0…/Im(images-1) and a form /Fm drawing formContent with the
// same images.
func drawingPage(images int, content, formContent string) []byte {
	b := &pdfbuild.Builder{}
	pagesObj := b.Add("")
	xobjects := ""
	for i := range images {
		n := b.Stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceGray", "\x00")
		xobjects += fmt.Sprintf(" /Im%d %d 0 R", i, n)
	}
	res := b.Add("")
	fm := b.Stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources %d 0 R", res), formContent)
	b.Set(res, fmt.Sprintf("<< /XObject <<%s /Fm %d 0 R >> >>", xobjects, fm))
	c := b.Stream("", content)
	pg := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources %d 0 R /Contents %d 0 R >>", pagesObj, res, c))
	b.Set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pg))
	cat := b.Add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj))
	return b.Bytes(cat, 0)
}

// TestObjectsDrawn: Drawn lists the images a page draws, through its
// forms, and stops as soon as more than the images asked for are drawn,
// inside a form too, rather than reading on.
func TestObjectsDrawn(t *testing.T) {
	tests := []struct {
		name   string
		pdf    []byte
		max    int
		images int
		inline bool
	}{
		{"two images and an inline one", drawingPage(2, "/Im0 Do /Im1 Do BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI", ""), 10, 2, true},
		{"an image in a form", drawingPage(1, "/Fm Do", "/Im0 Do /Im0 Do"), 10, 2, false},
		{"stops at the page's images", drawingPage(1, "/Im0 Do /Im0 Do /Im0 Do /Im0 Do", ""), 2, 3, false},
		{"stops inside a form", drawingPage(1, "/Fm Do /Im0 Do /Im0 Do /Im0 Do", "/Im0 Do /Im0 Do /Im0 Do /Im0 Do"), 2, 3, false},
		{"no images", drawingPage(0, "0 0 m 10 10 l S", ""), 10, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := OpenObjects(context.Background(), bytes.NewReader(tc.pdf), int64(len(tc.pdf)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if objs.Pages() != 1 {
				t.Fatalf("%d pages, want 1", objs.Pages())
			}
			before := objs.Budget()
			dr, err := objs.Drawn(context.Background(), 1, tc.max)
			if err != nil || len(dr.Images) != tc.images || dr.Inline != tc.inline {
				t.Errorf("got %d images, inline %v, error %v; want %d, %v", len(dr.Images), dr.Inline, err, tc.images, tc.inline)
			}
			if objs.Budget() >= before {
				t.Errorf("the content was not decoded out of the document's budget (%d left of %d)", objs.Budget(), before)
			}
		})
	}
	one := drawingPage(1, "/Im0 Do", "")
	objs, err := OpenObjects(context.Background(), bytes.NewReader(one), int64(len(one)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := objs.Drawn(context.Background(), 2, 10); !errors.Is(err, ErrMalformed) {
		t.Errorf("page 2 of 1: %v, want ErrMalformed", err)
	}
	if err := objs.SpendAll(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("SpendAll: %v, want a limit", err)
	}
	if _, err := objs.Drawn(context.Background(), 1, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Drawn after the budget is spent: %v, want the document's bytes limit", err)
	}
}
