package hostilepdf

import (
	"fmt"
	"strings"
)

// PlainPages is an ordinary document of one page per element of pages,
// each showing its lines as Plain does: the control case for text that
// runs from one page on to the next.
func PlainPages(pages ...[]string) []byte {
	w := &writer{}
	esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	contents := make([]int, len(pages))
	for i, lines := range pages {
		var b strings.Builder
		b.WriteString("BT /F1 10 Tf 12 TL 72 740 Td ")
		for _, l := range lines {
			fmt.Fprintf(&b, "(%s) Tj T* ", esc.Replace(l))
		}
		b.WriteString("ET")
		contents[i] = w.stream("", []byte(b.String()))
	}
	return w.bytes(w.pages(contents, "", ""))
}
