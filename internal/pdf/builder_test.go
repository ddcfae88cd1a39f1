package pdf

import (
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

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
func simpleDoc(pages []page, catalog string, info string, extra func(b *pdfbuild.Builder, pages []int) string) []byte {
	b := &pdfbuild.Builder{}
	helv := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	pagesObj := b.Add("") // filled below
	var kids []string
	var pageNrs []int
	for _, p := range pages {
		res := p.resources
		if res == "" {
			res = fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", helv)
		}
		c := b.Stream(p.streamDict, p.content)
		annots := ""
		if p.annots != "" {
			annots = " /Annots [" + p.annots + "]"
		}
		n := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources %s /Contents %d 0 R%s >>", pagesObj, res, c, annots))
		kids = append(kids, fmt.Sprintf("%d 0 R", n))
		pageNrs = append(pageNrs, n)
	}
	b.Set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	if extra != nil {
		catalog += " " + extra(b, pageNrs)
	}
	for i, n := range pageNrs {
		catalog = strings.ReplaceAll(catalog, fmt.Sprintf("{{page %d}}", i+1), fmt.Sprintf("%d 0 R", n))
	}
	root := b.Add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R %s >>", pagesObj, catalog))
	infoObj := 0
	if info != "" {
		infoObj = b.Add(info)
	}
	return b.Bytes(root, infoObj)
}
