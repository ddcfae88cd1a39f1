package pdf

import (
	"bytes"
	"fmt"
	"strings"
)

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

// page describes one page for simpleDoc.
type page struct {
	content    string
	resources  string // resource dictionary source; default: /F1 Helvetica
	streamDict string // extra content stream dictionary entries
	annots     string // the page's /Annots array, without brackets
}

// simpleDoc builds a document with the given pages on US Letter paper;
// extra catalog entries (outlines, labels) come from catalog, which may
// refer to pages as {{page N}} (1-based).
func simpleDoc(pages []page, catalog string, info string, extra func(b *pdfBuilder, pages []int) string) []byte {
	b := &pdfBuilder{}
	helv := b.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	pagesObj := b.add("") // filled below
	var kids []string
	var pageNrs []int
	for _, p := range pages {
		res := p.resources
		if res == "" {
			res = fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", helv)
		}
		c := b.stream(p.streamDict, p.content)
		annots := ""
		if p.annots != "" {
			annots = " /Annots [" + p.annots + "]"
		}
		n := b.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources %s /Contents %d 0 R%s >>", pagesObj, res, c, annots))
		kids = append(kids, fmt.Sprintf("%d 0 R", n))
		pageNrs = append(pageNrs, n)
	}
	b.set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	if extra != nil {
		catalog += " " + extra(b, pageNrs)
	}
	for i, n := range pageNrs {
		catalog = strings.ReplaceAll(catalog, fmt.Sprintf("{{page %d}}", i+1), fmt.Sprintf("%d 0 R", n))
	}
	root := b.add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R %s >>", pagesObj, catalog))
	infoObj := 0
	if info != "" {
		infoObj = b.add(info)
	}
	return b.bytes(root, infoObj)
}
