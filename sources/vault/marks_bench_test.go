package vault

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/sources"
)

// markedBook is a PDF of pages pages of running text, each with three
// highlights (one over two lines) and a sticky note, all commented, as a
// viewer saves them.
func markedBook(pages int) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	tree := add("")
	var kids []string
	for p := 1; p <= pages; p++ {
		var content strings.Builder
		content.WriteString("BT /F1 11 Tf 72 720 Td 14 TL ")
		for l := 0; l < 40; l++ {
			fmt.Fprintf(&content, "(Page %d line %d of the book on sparse attention and long documents.) Tj T* ", p, l)
		}
		content.WriteString("ET")
		c := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()))
		var annots []string
		for k, l := range []int{3, 12, 25} {
			y := 720 - 14*float64(l)
			quads := fmt.Sprintf("72 %g 300 %g 72 %g 300 %g", y+11, y+11, y-3, y-3)
			if k == 1 {
				quads += fmt.Sprintf(" 72 %g 300 %g 72 %g 300 %g", y-3, y-3, y-17, y-17)
			}
			annots = append(annots, fmt.Sprintf("%d 0 R", add(fmt.Sprintf("<< /Type /Annot /Subtype /Highlight /Rect [72 %g 300 %g] /QuadPoints [%s] /Contents (Comment %d on page %d: check the block size.) /T (Reader) /M (D:20240314103000Z) /C [1 1 0] >>", y-17, y+11, quads, k, p))))
		}
		annots = append(annots, fmt.Sprintf("%d 0 R", add(fmt.Sprintf("<< /Type /Annot /Subtype /Text /Rect [560 700 580 720] /Contents (A note on page %d.) /T (Reader) >>", p))))
		kids = append(kids, fmt.Sprintf("%d 0 R", add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R /Annots [%s] >>", tree, font, c, strings.Join(annots, " ")))))
	}
	objs[tree-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
	root := add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, root, x)
	return out.Bytes()
}

// bookVault writes a vault holding one paper, the marked book.
func bookVault(tb testing.TB) string {
	root := tb.TempDir()
	dir := filepath.Join(root, "papers", "book")
	if err := os.MkdirAll(filepath.Join(dir, "marks"), 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"book.pdf":               markedBook(300),
		"metadata.json":          []byte(`{"title": "A marked book"}`),
		"marks/annotations.json": []byte(`[{"id": "a", "page": 7, "comment": "Agentero's own note"}]`),
	} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

func TestMarkedBook(t *testing.T) {
	l := paperLibrary(t, bookVault(t))
	ms, err := openPaper(t, l, "papers/book").Marks(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.Marks) != 300*4+1 || len(ms.Problems) != 0 {
		t.Fatalf("%d marks, problems %q", len(ms.Marks), ms.Problems)
	}
	m := ms.Marks[1]
	if m.Page != 1 || m.Kind != sources.MarkHighlight || m.Text != "Page 1 line 12 of the book on sparse attention Page 1 line 13 of the book on sparse attention" {
		// The quadrilaterals end at x = 300: the words after are not marked.
		t.Errorf("second mark %+v", m)
	}
}

// BenchmarkMarksWarm lists the marks of a 300-page annotated book (1,201
// marks) from a paper source whose PDF is parsed already (memory).
func BenchmarkMarksWarm(b *testing.B) {
	l := paperLibrary(b, bookVault(b))
	p := openPaper(b, l, "papers/book")
	ctx := context.Background()
	if _, err := p.Marks(ctx, ""); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := p.Marks(ctx, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarksWarmCache lists them in a new Library each time, as a new
// process does: the PDF's text and marks come from the disk cache.
func BenchmarkMarksWarmCache(b *testing.B) {
	root := bookVault(b)
	cache := b.TempDir()
	open := func() (*Library, *Paper) {
		l := openLibraryAt(b, root, cache)
		return l, openPaper(b, l, "papers/book")
	}
	l, p := open()
	if _, err := p.Marks(context.Background(), ""); err != nil {
		b.Fatal(err)
	}
	l.Close()
	b.ResetTimer()
	for range b.N {
		l, p := open()
		if _, err := p.Marks(context.Background(), ""); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		l.Close()
		b.StartTimer()
	}
}

// openLibraryAt opens a Library over the Vault at root with its caches in
// cache, closed with the test.
func openLibraryAt(tb testing.TB, root, cache string) *Library {
	tb.Helper()
	v, err := catalog.Open(root, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	l := NewLibrary(v, &LibraryOptions{CacheDir: cache})
	tb.Cleanup(func() { l.Close() })
	return l
}
