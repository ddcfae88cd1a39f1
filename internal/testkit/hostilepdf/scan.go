package hostilepdf

import (
	"bytes"
	"fmt"
)

// Scan is an image-only PDF, a page per JPEG of pages (each w × h
// pixels, grey), as a scanner or img2pdf writes one: every page draws its
// one DCT image over the whole page and has no text.
func Scan(w, h int, pages ...[]byte) []byte {
	wr := &writer{}
	var contents []int
	var xobjects string
	for i, jpg := range pages {
		img := wr.stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode", w, h), jpg)
		xobjects += fmt.Sprintf(" /Im%d %d 0 R", i, img)
		contents = append(contents, wr.stream("", []byte(fmt.Sprintf("q 612 0 0 792 0 0 cm /Im%d Do Q", i))))
	}
	return wr.bytes(wr.pages(contents, "/XObject <<"+xobjects+" >>", ""))
}

// FlateScan is an image-only PDF like Scan whose pages are w × h grey
// images of one level each (levels), stored with FlateDecode: a few
// kilobytes on disk, w × h bytes each once decoded, as an uncompressed or
// losslessly compressed scan is.
func FlateScan(w, h int, levels ...byte) []byte {
	wr := &writer{}
	var contents []int
	var xobjects string
	for i, level := range levels {
		img := wr.flateRun(level, int64(w)*int64(h))
		wr.objs[img-1] = bytes.Replace(wr.objs[img-1], []byte("<< /Filter /FlateDecode"),
			fmt.Appendf(nil, "<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", w, h), 1)
		xobjects += fmt.Sprintf(" /Im%d %d 0 R", i, img)
		contents = append(contents, wr.stream("", []byte(fmt.Sprintf("q 612 0 0 792 0 0 cm /Im%d Do Q", i))))
	}
	return wr.bytes(wr.pages(contents, "/XObject <<"+xobjects+" >>", ""))
}
