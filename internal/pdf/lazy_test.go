package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/pdf/object"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

// extractBoth extracts data through the lazy reader (as Extract does)
// and through pdfcpu alone, and reports whether the lazy reader served
// the file itself.
func extractBoth(t *testing.T, data []byte) (lazyDoc, pdfcpuDoc *Document, lazyErr, pdfcpuErr error, served bool) {
	t.Helper()
	lazyDoc, served, lazyErr = extractServed(t, data)
	pdfcpuDoc, pdfcpuErr = extractPdfcpu(data)
	return
}

// extractServed extracts data as Extract does and reports whether the
// lazy reader served it (as Extract's own call of it tells).
func extractServed(t testing.TB, data []byte) (d *Document, served bool, err error) {
	t.Helper()
	lazyExtract = func(ctx context.Context, data []byte, o Options) (*Document, bool) {
		d, ok := extractLazy(ctx, data, o)
		served = ok
		return d, ok
	}
	defer func() { lazyExtract = extractLazy }()
	d, err = extractBytes(t, data, nil)
	return d, served, err
}

// extractPdfcpu extracts data through pdfcpu alone.
func extractPdfcpu(data []byte) (*Document, error) {
	lazyObjects = false
	defer func() { lazyObjects = true }()
	return Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
}

// TestLazyMatchesPdfcpu checks that every corpus file and every fixture
// extracts identically through the lazy reader and through pdfcpu, and
// that the lazy reader serves the corpus files itself.
func TestLazyMatchesPdfcpu(t *testing.T) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*.pdf"))
	files := fixtures
	corpusFiles, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "pdfs"), "*.pdf"))
	files = append(files, corpusFiles...)
	docs := extractCorpus(t, corpusFiles)
	served, corpusServed := 0, 0
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var lz, pc *Document
		var lerr, perr error
		var ok bool
		if c, read := docs[f]; read {
			lz, lerr, ok = c.doc, c.err, c.served
			pc, perr = extractPdfcpu(data)
		} else {
			lz, pc, lerr, perr, ok = extractBoth(t, data)
		}
		if ok {
			served++
			if i >= len(fixtures) {
				corpusServed++
			}
		} else {
			t.Logf("%s: read through pdfcpu", filepath.Base(f))
		}
		if (lerr == nil) != (perr == nil) || lerr != nil && lerr.Error() != perr.Error() {
			t.Errorf("%s: err %v, pdfcpu's %v", filepath.Base(f), lerr, perr)
			continue
		}
		if diff := cmp.Diff(pc, lz); diff != "" {
			t.Errorf("%s: lazy reader differs from pdfcpu (-pdfcpu +lazy):\n%.3000s", filepath.Base(f), diff)
		}
	}
	t.Logf("%d of %d files served by the lazy reader", served, len(files))
	if corpusServed < len(corpusFiles) {
		t.Errorf("the lazy reader served %d of %d corpus files, want all", corpusServed, len(corpusFiles))
	}
}

// fileWriter writes test PDFs object by object, with whatever
// cross-reference sections a case needs.
type fileWriter struct {
	buf  bytes.Buffer
	offs map[int]int
}

func newFileWriter() *fileWriter {
	w := &fileWriter{offs: map[int]int{}}
	w.buf.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	return w
}

func (w *fileWriter) obj(nr int, src string) {
	w.offs[nr] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", nr, src)
}

func (w *fileWriter) stream(nr int, dict string, data []byte) {
	w.offs[nr] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n<< %s /Length %d >>\nstream\n", nr, dict, len(data))
	w.buf.Write(data)
	w.buf.WriteString("\nendstream\nendobj\n")
}

// classic writes a table listing nrs at their offsets (shifted by
// shift), and its trailer; it returns the table's offset.
func (w *fileWriter) classic(nrs []int, shift int, trailer string) int {
	at := w.buf.Len()
	w.buf.WriteString("xref\n0 1\n0000000000 65535 f \n")
	for _, nr := range nrs {
		fmt.Fprintf(&w.buf, "%d 1\n%010d 00000 n \n", nr, w.offs[nr]+shift)
	}
	fmt.Fprintf(&w.buf, "trailer\n<< %s >>\n", trailer)
	return at
}

func (w *fileWriter) end(xref int) []byte {
	fmt.Fprintf(&w.buf, "startxref\n%d\n%%%%EOF\n", xref)
	return bytes.Clone(w.buf.Bytes())
}

// xrefRow is one row of a cross-reference stream.
type xrefRow struct{ nr, typ, f2, f3 int }

// xrefStream writes cross-reference stream nr listing rows (and itself),
// with extra dictionary entries; it returns its offset.
func (w *fileWriter) xrefStream(nr int, rows []xrefRow, extra string) int {
	at := w.buf.Len()
	rows = append(rows, xrefRow{nr, 1, at, 0})
	slices.SortFunc(rows, func(a, b xrefRow) int { return a.nr - b.nr })
	var data []byte
	var index []string
	for _, r := range rows {
		data = append(data, byte(r.typ), byte(r.f2>>24), byte(r.f2>>16), byte(r.f2>>8), byte(r.f2), byte(r.f3>>8), byte(r.f3))
		index = append(index, fmt.Sprintf("%d 1", r.nr))
	}
	w.stream(nr, fmt.Sprintf("/Type /XRef /W [1 4 2] /Index [%s] /Size %d %s", strings.Join(index, " "), rows[len(rows)-1].nr+1, extra), data)
	return at
}

// objectStream writes object stream nr holding objs (numbers and
// sources), Flate-compressed.
func (w *fileWriter) objectStream(nr int, nrs []int, srcs []string) {
	var head, body strings.Builder
	for i, src := range srcs {
		fmt.Fprintf(&head, "%d %d ", nrs[i], body.Len())
		body.WriteString(src + "\n")
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte(head.String() + body.String()))
	zw.Close()
	w.stream(nr, fmt.Sprintf("/Type /ObjStm /N %d /First %d /Filter /FlateDecode", len(srcs), head.Len()), z.Bytes())
}

// lazyDocObjects are a one-page document's objects: catalog 1, pages 2,
// page 3, content 4, font 5.
var lazyDocObjects = []string{
	"<< /Type /Catalog /Pages 2 0 R >>",
	"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
	"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
	"",
	"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
}

func lazyContent(text string) []byte { return []byte("BT /F1 12 Tf 72 700 Td (" + text + ") Tj ET") }

// TestLazyReader reads hand-written files with the lazy reader: the
// objects it resolves, whether it gives the file up to pdfcpu, and that
// the text extracted is pdfcpu's.
func TestLazyReader(t *testing.T) {
	plainObjects := func(w *fileWriter, text string) {
		for i, src := range lazyDocObjects {
			if i == 3 {
				w.stream(4, "", lazyContent(text))
				continue
			}
			w.obj(i+1, src)
		}
	}
	all := []int{1, 2, 3, 4, 5}
	type check struct {
		nr   int
		want types.Object
	}
	tests := []struct {
		name   string
		file   func() []byte
		checks []check
		unsure bool   // the lazy reader gives the file to pdfcpu
		text   string // the page's text
	}{{
		name: "classic table",
		file: func() []byte {
			w := newFileWriter()
			plainObjects(w, "classic")
			w.obj(6, "<< /A [1 -2 +3 4.5 -.5 (a\\)b) <48656c6c6f> <abc> /N#41me true false null] /R 7 0 R /S 6 0 R >>")
			return w.end(w.classic(append(all, 6), 0, "/Size 7 /Root 1 0 R"))
		},
		checks: []check{
			{6, types.Dict{
				"A": types.Array{types.Integer(1), types.Integer(-2), types.Integer(3), types.Float(4.5), types.Float(-0.5),
					types.StringLiteral(`a\)b`), types.HexLiteral("48656C6C6F"), types.HexLiteral("ABC0"), types.Name("NAme"),
					types.Boolean(true), types.Boolean(false), nil},
				"R": *types.NewIndirectRef(7, 0),
				"S": *types.NewIndirectRef(6, 0),
			}},
			{7, nil}, // missing: the null object
			{5, types.Dict{"Type": types.Name("Font"), "Subtype": types.Name("Type1"), "BaseFont": types.Name("Helvetica"), "Encoding": types.Name("WinAnsiEncoding")}},
		},
		text: "classic",
	}, {
		name: "cross-reference stream and object stream",
		file: func() []byte {
			w := newFileWriter()
			w.stream(4, "", lazyContent("compressed"))
			w.objectStream(6, []int{1, 2, 3, 5}, []string{lazyDocObjects[0], lazyDocObjects[1], lazyDocObjects[2], lazyDocObjects[4]})
			rows := []xrefRow{{1, 2, 6, 0}, {2, 2, 6, 1}, {3, 2, 6, 2}, {5, 2, 6, 3}, {4, 1, w.offs[4], 0}, {6, 1, w.offs[6], 0}}
			return w.end(w.xrefStream(7, rows, "/Root 1 0 R"))
		},
		checks: []check{{2, types.Dict{"Type": types.Name("Pages"), "Kids": types.Array{*types.NewIndirectRef(3, 0)}, "Count": types.Integer(1)}}},
		text:   "compressed",
	}, {
		name: "incremental update: /Prev chain with an updated object",
		file: func() []byte {
			w := newFileWriter()
			plainObjects(w, "first")
			first := w.classic(all, 0, "/Size 6 /Root 1 0 R")
			w.buf.WriteString("startxref\n" + strconv.Itoa(first) + "\n%%EOF\n")
			w.stream(4, "", lazyContent("updated"))
			w.obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>")
			return w.end(w.classic([]int{4, 5}, 0, fmt.Sprintf("/Size 6 /Root 1 0 R /Prev %d", first)))
		},
		checks: []check{{5, types.Dict{"Type": types.Name("Font"), "Subtype": types.Name("Type1"), "BaseFont": types.Name("Courier")}}},
		text:   "updated",
	}, {
		name: "hybrid file: a classic table and /XRefStm",
		file: func() []byte {
			w := newFileWriter()
			w.stream(4, "", lazyContent("hybrid"))
			w.obj(1, lazyDocObjects[0])
			w.objectStream(6, []int{2, 3, 5}, []string{lazyDocObjects[1], lazyDocObjects[2], lazyDocObjects[4]})
			xs := w.xrefStream(7, []xrefRow{{2, 2, 6, 0}, {3, 2, 6, 1}, {5, 2, 6, 2}}, "")
			return w.end(w.classic([]int{1, 4, 6}, 0, fmt.Sprintf("/Size 8 /Root 1 0 R /XRefStm %d", xs)))
		},
		checks: []check{{3, nil}}, // checked through the text
		text:   "hybrid",
	}, {
		name: "offsets off by some: pdfcpu repairs",
		file: func() []byte {
			w := newFileWriter()
			plainObjects(w, "shifted")
			return w.end(w.classic(all, 3, "/Size 6 /Root 1 0 R"))
		},
		unsure: true,
		text:   "shifted",
	}, {
		name: "a reference cycle: objects referring to each other",
		file: func() []byte {
			w := newFileWriter()
			plainObjects(w, "cycle")
			w.obj(6, "7 0 R")
			w.obj(7, "6 0 R")
			return w.end(w.classic(append(all, 6, 7), 0, "/Size 8 /Root 1 0 R"))
		},
		checks: []check{{6, *types.NewIndirectRef(7, 0)}},
		text:   "cycle",
	}, {
		name: "a stream whose length refers to itself",
		file: func() []byte {
			w := newFileWriter()
			for i, src := range lazyDocObjects {
				if i != 3 {
					w.obj(i+1, src)
				}
			}
			w.offs[4] = w.buf.Len()
			c := lazyContent("self")
			fmt.Fprintf(&w.buf, "4 0 obj\n<< /Length 4 0 R >>\nstream\n%s\nendstream\nendobj\n", c)
			return w.end(w.classic(all, 0, "/Size 6 /Root 1 0 R"))
		},
		unsure: true,
	}, {
		name: "a missing object: the page's font",
		file: func() []byte {
			w := newFileWriter()
			plainObjects(w, "no font")
			return w.end(w.classic([]int{1, 2, 3, 4}, 0, "/Size 6 /Root 1 0 R"))
		},
		checks: []check{{5, nil}}, // and the page has no text, as with pdfcpu
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.file()
			ctx := context.Background()
			a, err := object.AuditTable(ctx, bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("audit: %v", err)
			}
			lz := object.NewLazy(ctx, data, a)
			if lz == nil {
				t.Fatal("not read by the lazy reader")
			}
			for _, c := range tt.checks {
				if c.want == nil && c.nr == 3 {
					if lz.Deref(*types.NewIndirectRef(3, 0)) == nil {
						t.Errorf("object 3 not found")
					}
					continue
				}
				if diff := cmp.Diff(c.want, lz.Deref(*types.NewIndirectRef(c.nr, 0))); diff != "" {
					t.Errorf("object %d (-want +got):\n%s", c.nr, diff)
				}
			}
			d := newDoc(ctx, lz)
			if pages, err := d.pageTree(); err == nil {
				d.document(pages, (*Options)(nil).withDefaults())
			}
			if (lz.Unsure != nil) != tt.unsure {
				t.Errorf("unsure = %v, want %v", lz.Unsure, tt.unsure)
			}
			lzDoc, pcDoc, lerr, perr, _ := extractBoth(t, data)
			if (lerr == nil) != (perr == nil) {
				t.Fatalf("err %v, pdfcpu's %v", lerr, perr)
			}
			if diff := cmp.Diff(pcDoc, lzDoc); diff != "" {
				t.Errorf("differs from pdfcpu (-pdfcpu +lazy):\n%s", diff)
			}
			if tt.text != "" {
				if lerr != nil || len(lzDoc.Pages) != 1 || !strings.Contains(lzDoc.Pages[0].Text, tt.text) {
					t.Errorf("text = %+v, err %v, want %q", lzDoc, lerr, tt.text)
				}
			}
		})
	}
}

// TestLazyHostile checks that each hostile document held in memory that
// the lazy reader serves ends as it does through pdfcpu alone, in about
// the same time (the extraction is the same), and that a document it
// gives up is given up early (it is read through pdfcpu then, as
// TestHostileContent bounds). Both extractions are the child's of
// TestHostileContent (runHostile), one after the other.
func TestLazyHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every hostile document")
	}
	for _, c := range hostilepdf.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			r := runHostile(t, c)
			switch r.Lazy {
			case "":
				if r.Size <= readWhole {
					t.Errorf("a file of %d bytes not read through the lazy reader", r.Size)
				}
				return // read through pdfcpu: not held in memory
			case "given up":
				if r.LazyTook > 5*time.Second {
					t.Errorf("the lazy reader took %v to give the document up", r.LazyTook)
				}
				return
			}
			if r.LazyTook > 2*r.PdfcpuTook+2*time.Second {
				t.Errorf("the lazy reader took %v, pdfcpu %v", r.LazyTook, r.PdfcpuTook)
			}
			if r.Outcome != r.Pdfcpu {
				t.Errorf("outcome %q, pdfcpu's %q", r.Outcome, r.Pdfcpu)
			}
		})
	}
}

// TestLazyLengthChain checks that streams whose /Length refers to the
// next stream, thousands deep, end the lazy reader at once.
func TestLazyLengthChain(t *testing.T) {
	w := newFileWriter()
	for i, src := range lazyDocObjects {
		if i != 3 {
			w.obj(i+1, src)
		}
	}
	const n = 5000
	nrs := []int{1, 2, 3, 5}
	for k := 0; k < n; k++ {
		nr := 4 + 2*k
		if k > 0 {
			nr = 5 + k
		}
		next := 5 + k + 1
		w.offs[nr] = w.buf.Len()
		fmt.Fprintf(&w.buf, "%d 0 obj\n<< /Length %d 0 R >>\nstream\nx\nendstream\nendobj\n", nr, next)
		nrs = append(nrs, nr)
	}
	data := w.end(w.classic(nrs, 0, fmt.Sprintf("/Size %d /Root 1 0 R", n+10)))
	ctx := context.Background()
	a, err := object.AuditTable(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	lz := object.NewLazy(ctx, data, a)
	if got := lz.Deref(*types.NewIndirectRef(4, 0)); got != nil || lz.Unsure == nil {
		t.Fatalf("got %v, unsure %v; want nil and the file given up", got, lz.Unsure)
	}
	if !strings.Contains(lz.Unsure.Error(), "deep") {
		t.Errorf("unsure = %v", lz.Unsure)
	}
}
