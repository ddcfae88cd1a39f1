package hostilepdf

import (
	"fmt"
	"strings"
)

// ManyMarks is a one-page document with n entries in its page's /Annots:
// highlight annotations, each its own object (as a viewer saves them)
// with a comment of its own, (n+1)/2 of them, each listed twice (a file
// holds at most MaxObjects objects).
func ManyMarks(n int) []byte {
	w := &writer{}
	var sb strings.Builder
	sb.WriteString("[")
	var objs []int
	for i := range (n + 1) / 2 {
		objs = append(objs, w.add(fmt.Sprintf("<< /Type /Annot /Subtype /Highlight /Rect [72 690 200 712] /QuadPoints [72 712 200 712 72 690 200 690] /Contents (c%d) >>", i)))
	}
	for i := range n {
		fmt.Fprintf(&sb, "%d 0 R\n", objs[i%len(objs)])
	}
	sb.WriteString("]")
	list := w.add(sb.String())
	c := w.stream("", []byte("BT /F1 12 Tf 72 700 Td (marked page text) Tj ET"))
	return w.bytes(w.pages([]int{c}, "", fmt.Sprintf("/Annots %d 0 R", list)))
}

// TangledMarks is a one-page document whose marks are built to trap a
// reader of annotations: a highlight whose QuadPoints hold NaN, infinite,
// huge and negative numbers; two highlights whose Popups are each other's
// (a Popup cycle), a Popup that is its own; two notes that reply to each
// other (an /IRT loop) and one that replies to itself; and a note whose
// comment is commentBytes long. One plain highlight over the page's text
// ("marked page text"), commented "plain", comes last.
func TangledMarks(commentBytes int) []byte {
	w := &writer{}
	c := w.stream("", []byte("BT /F1 12 Tf 72 700 Td (marked page text) Tj ET"))
	quads := w.add("<< /Type /Annot /Subtype /Highlight /Rect [72 690 200 712] /QuadPoints [NaN 712 1e400 712 -1e30 690 99999999999 690 72 712 200 712 72 690 200 690 -5 -5 -5] /Contents (odd quads) >>")
	popA := w.add("")
	popB := w.add("")
	markA := w.add("")
	markB := w.add("")
	w.set(popA, fmt.Sprintf("<< /Type /Annot /Subtype /Popup /Rect [300 600 400 700] /Parent %d 0 R /Popup %d 0 R >>", markA, popB))
	w.set(popB, fmt.Sprintf("<< /Type /Annot /Subtype /Popup /Rect [300 600 400 700] /Parent %d 0 R /Popup %d 0 R /Contents (popup text) >>", markB, popA))
	w.set(markA, fmt.Sprintf("<< /Type /Annot /Subtype /Highlight /Rect [72 690 120 712] /Popup %d 0 R >>", popA))
	w.set(markB, fmt.Sprintf("<< /Type /Annot /Subtype /Highlight /Rect [72 690 120 712] /Popup %d 0 R >>", popB))
	loopA := w.add("")
	loopB := w.add("")
	w.set(loopA, fmt.Sprintf("<< /Type /Annot /Subtype /Text /Rect [500 700 520 720] /IRT %d 0 R /Contents (loop a) >>", loopB))
	w.set(loopB, fmt.Sprintf("<< /Type /Annot /Subtype /Text /Rect [500 700 520 720] /IRT %d 0 R /Contents (loop b) >>", loopA))
	self := w.add("")
	w.set(self, fmt.Sprintf("<< /Type /Annot /Subtype /Text /Rect [500 650 520 670] /IRT %d 0 R /Contents (self reply) >>", self))
	big := w.add(fmt.Sprintf("<< /Type /Annot /Subtype /Text /Rect [500 600 520 620] /Contents (%s) >>", strings.Repeat("x", commentBytes)))
	plain := w.add("<< /Type /Annot /Subtype /Highlight /Rect [72 690 200 712] /QuadPoints [72 712 200 712 72 690 200 690] /Contents (plain) >>")
	annots := fmt.Sprintf("/Annots [%d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R %d 0 R]", quads, markA, markB, popA, popB, loopA, loopB, self, big, plain, plain)
	return w.bytes(w.pages([]int{c}, "", annots))
}
