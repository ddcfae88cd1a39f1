package hostilepdf

import (
	"fmt"
	"strings"
)

// ImageCase is a hostile document for the page-image reader (what OCR
// reads): pages without text whose content is built to exhaust the scan
// for their images.
type ImageCase struct {
	Name  string
	Pages int
	Make  func() []byte
}

// ImageCases returns one case per class of attack on the page-image
// reader, at the sizes the issue tracker reported (or larger).
func ImageCases() []ImageCase {
	return []ImageCase{
		{"Do flood, 200 pages sharing 5.5M Do", 200, func() []byte { return DoFlood(200, 5_500_000) }},
		{"Do flood of one image, one page", 1, func() []byte { return ImageDoFlood(5_500_000) }},
		{"forms drawing forms, a million Do each", 1, func() []byte { return FormDoChain(MaxFormChain, 1_000_000) }},
		{"inline image flood", 1, func() []byte { return InlineImageFlood(900_000) }},
	}
}

// MaxFormChain is the forms FormDoChain cases nest: the extractor's
// MaxFormDepth.
const MaxFormChain = 12

// DoFlood is a document of pages pages, all drawing one Flate content
// stream of ops "/F Do" operators, F an empty Form XObject: a content
// stream that draws nothing but costs every operator's reading. 5.5
// million (33 MB decoded) make a file of about 50 kB.
func DoFlood(pages, ops int) []byte {
	w := &writer{}
	form := w.stream("/Type /XObject /Subtype /Form /BBox [0 0 1 1]", []byte(" "))
	c := w.flate(strings.NewReader(strings.Repeat("/F Do\n", ops)))
	contents := make([]int, pages)
	for i := range contents {
		contents[i] = c
	}
	return w.bytes(w.pages(contents, fmt.Sprintf("/XObject << /F %d 0 R >>", form), ""))
}

// ImageDoFlood is a page drawing one 1×1 image ops times.
func ImageDoFlood(ops int) []byte {
	w := &writer{}
	img := w.stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceGray", []byte{0})
	c := w.flate(strings.NewReader(strings.Repeat("/I Do\n", ops)))
	return w.bytes(w.pages([]int{c}, fmt.Sprintf("/XObject << /I %d 0 R >>", img), ""))
}

// FormDoChain is a page drawing the first of levels Form XObjects, each of
// which draws the next draws times; the last draws an empty form. None
// draws an image: levels × draws operators, however the forms are
// followed.
func FormDoChain(levels, draws int) []byte {
	w := &writer{}
	next := w.stream("/Type /XObject /Subtype /Form /BBox [0 0 1 1]", []byte(" "))
	body := strings.Repeat("/N Do", draws) // 5 bytes an operator: MaxOperators before MaxPageBytes
	for range levels {
		next = w.flateDict(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /XObject << /N %d 0 R >> >>", next), strings.NewReader(body))
	}
	c := w.stream("", []byte("/N Do"))
	return w.bytes(w.pages([]int{c}, fmt.Sprintf("/XObject << /N %d 0 R >>", next), ""))
}

// InlineImageFlood is a page of n one-pixel inline images (34 bytes
// each).
func InlineImageFlood(n int) []byte {
	w := &writer{}
	c := w.flate(strings.NewReader(strings.Repeat("BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI\n", n)))
	return onePage(c, w)
}
