package pageimage

import (
	"bytes"
	"fmt"
	"strings"
)

// maxHostileRSS bounds the peak resident set of a process reading the
// page images of any single hostile input, as package pdf's hostile tests
// bound extraction.
const maxHostileRSS = 300 << 20

// lastLines returns the last n lines of s, for a child's stderr.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

// pdfBuilder writes small PDFs for tests: objects are given as PDF source
// and numbered in the order added; the catalog must be added by the caller.
type pdfBuilder struct {
	objs []string
}

func (b *pdfBuilder) add(src string) int {
	b.objs = append(b.objs, src)
	return len(b.objs)
}

// stream adds a stream object with the given extra dictionary entries.
func (b *pdfBuilder) stream(dict, data string) int {
	return b.add(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data)+1, data))
}

// set replaces object n (to close reference cycles such as page → parent).
func (b *pdfBuilder) set(n int, src string) { b.objs[n-1] = src }

func (b *pdfBuilder) bytes(root, info int) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(b.objs))
	for i, o := range b.objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(b.objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R", len(b.objs)+1, root)
	if info > 0 {
		fmt.Fprintf(&out, " /Info %d 0 R", info)
	}
	fmt.Fprintf(&out, " >>\nstartxref\n%d\n%%%%EOF\n", xref)
	return out.Bytes()
}
