package pdfcache

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/pdf"
)

var update = flag.Bool("update", false, "rewrite testdata's entries of the current pdf.Version")

// fixedExtractor returns its document or its error, whatever the file.
type fixedExtractor struct {
	doc *pdf.Document
	err error
	n   int // calls
}

func (e *fixedExtractor) Extract(context.Context, io.ReaderAt, int64, *pdf.Options) (*pdf.Document, error) {
	e.n++
	return e.doc, e.err
}

// formatDoc has every field a cache entry keeps: metadata, XMP, lines
// with a gap and an annotation's kind, marks, a page without a text layer
// and a page's error.
func formatDoc() *pdf.Document {
	return &pdf.Document{
		Labels:    []string{"i", "p2"},
		Outline:   []pdf.OutlineItem{{Title: "Front", Page: 1}, {Title: "Intro", Page: 2, Level: 1}},
		Title:     "A Study of Things",
		Authors:   []string{"Ada Lovelace", "Charles Babbage"},
		InfoTitle: "Info Title",
		XMP:       []byte(`<x:xmpmeta xmlns:x="adobe:ns:meta/"/>`),
		Pages: []pdf.Page{
			{Number: 1, Width: 612, Height: 792, Text: "A Study of Things\nLeft cell Right cell\n\nA note typed on the page", Lines: []pdf.Line{
				{Text: "A Study of Things", Box: pdf.Box{X: 0.1, Y: 0.1, W: 0.5, H: 0.03}, FontSize: 24, Bold: true, Start: 0},
				{Text: "Left cell Right cell", Box: pdf.Box{X: 0.1, Y: 0.2, W: 0.7, H: 0.02}, FontSize: 10, Start: 18, Gaps: []pdf.Gap{{At: 10, X: 0.52}}},
				{Text: "A note typed on the page", Box: pdf.Box{X: 0.2, Y: 0.8, W: 0.4, H: 0.02}, FontSize: 9, Start: 40, Annot: pdf.AnnotFreeText},
			}, Marks: []pdf.Mark{
				{Kind: pdf.MarkHighlight, Text: "Study", Comment: "key word\n\nEve: agreed", Author: "Ada", Created: "2024-01-02T03:04:05Z", Color: "#ffff00", Box: pdf.Box{X: 0.2, Y: 0.1, W: 0.1, H: 0.03}},
				{Kind: pdf.MarkNote, Comment: "a sticky note", Box: pdf.Box{X: 0.9, Y: 0.9, W: 0.02, H: 0.02}},
			}},
			{Number: 2, Width: 792, Height: 612, NoTextLayer: true, Err: &pdf.LimitError{Limit: pdf.LimitGlyphs, Max: pdf.MaxGlyphs, Page: 2}},
		},
	}
}

// TestEntryFormat pins the bytes of an entry: one of a document with every
// field the format holds and one of a remembered failure, as testdata
// keeps them. An entry written before is read back as it was, without an
// extraction, and writing the same document gives the same bytes. A change
// of the format must come with a new pdf.Version (go test -update writes
// that version's entries).
func TestEntryFormat(t *testing.T) {
	tests := []struct {
		name string
		ext  fixedExtractor
		opts pdf.Options
	}{
		{"document", fixedExtractor{doc: formatDoc()}, pdf.Options{}},
		{"failure", fixedExtractor{err: &pdf.LimitError{Limit: pdf.LimitPages, Max: 1}}, pdf.Options{MaxPages: 1}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte("the " + tt.name + "'s file\n")
			h := sha256.Sum256(data)
			sum := hex.EncodeToString(h[:])
			key := FileInfo{Path: "papers/" + tt.name + ".pdf", Size: int64(len(data)), ModTime: time.Unix(1700000000, 0)}
			open := (&countingOpener{data: data}).open
			golden := filepath.Join("testdata", "v"+strconv.Itoa(pdf.Version)+"-"+tt.name+".pdfc")

			// Written now.
			c := &Cache{Dir: t.TempDir(), Extractor: &tt.ext, Options: &tt.opts}
			c.Extract(ctx, key, open)
			got, err := os.ReadFile(filepath.Join(c.Dir, c.entryPath(sum)))
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (a new pdf.Version: go test -update writes its entries)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("entry written differs from %s: %d bytes, want %d", golden, len(got), len(want))
			}

			// Written before: read back as it is, the file never extracted.
			none := &fixedExtractor{err: errors.New("extracted, not read from the entry")}
			c = &Cache{Dir: t.TempDir(), Extractor: none, Options: &tt.opts}
			name := filepath.Join(c.Dir, c.entryPath(sum))
			if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, want, 0o600); err != nil {
				t.Fatal(err)
			}
			d, err := c.Extract(ctx, key, open)
			if none.n != 0 {
				t.Fatalf("the file was extracted: %v", err)
			}
			if tt.ext.err != nil {
				var le *pdf.LimitError
				if !errors.As(err, &le) || *le != *tt.ext.err.(*pdf.LimitError) {
					t.Errorf("err = %v, want %v", err, tt.ext.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.ext.doc, d, cmpDoc); diff != "" {
				t.Errorf("document read from the entry (-want +got):\n%s", diff)
			}
			if !errors.Is(d.Pages[1].Err, pdf.ErrTooLarge) {
				t.Errorf("page 2's error %v, want pdf.ErrTooLarge", d.Pages[1].Err)
			}
		})
	}
}

// TestCacheKeepsFixtures reads every fixture PDF of package pdf through
// the cache, whole and page by page, and compares it with the extractor's
// own result: line gaps, annotation lines and marks included.
func TestCacheKeepsFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "pdf", "testdata", "*.pdf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	ctx := context.Background()
	var gaps, annots, marks int
	for _, path := range paths {
		name := filepath.Base(path)
		data := fixture(t, name)
		want := mustExtract(t, data)
		c := &Cache{Dir: t.TempDir()}
		o := &countingOpener{data: data}
		key := FileInfo{Path: "papers/" + name, Size: int64(len(data)), ModTime: time.Unix(1700000000, 0)}
		if _, err := c.Extract(ctx, key, o.open); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := c.Extract(ctx, key, o.open)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got, cmpDoc); diff != "" {
			t.Errorf("%s: cached document (-want +got):\n%s", name, diff)
		}
		for i := range want.Pages {
			p, err := c.Page(ctx, key, o.open, i+1)
			if err != nil {
				t.Fatalf("%s page %d: %v", name, i+1, err)
			}
			if diff := cmp.Diff(want.Pages[i], *p, cmpDoc); diff != "" {
				t.Errorf("%s: cached page %d (-want +got):\n%s", name, i+1, diff)
			}
			marks += len(p.Marks)
			for _, l := range p.Lines {
				gaps += len(l.Gaps)
				if l.Annot != "" {
					annots++
				}
			}
		}
		if n := o.opens.Load(); n != 1 {
			t.Errorf("%s: file opened %d times, want 1", name, n)
		}
	}
	if gaps == 0 || annots == 0 || marks == 0 {
		t.Errorf("the fixtures read %d gaps, %d annotation lines, %d marks: each kind must be tried", gaps, annots, marks)
	}
}

func TestMarksCached(t *testing.T) {
	p := &pdf.Page{Number: 3, Width: 612, Height: 792, Text: "x", Marks: []pdf.Mark{
		{Kind: pdf.MarkHighlight, Text: "a", Comment: "b", Author: "c", Created: "d", Color: "#000000", Box: pdf.Box{X: 0.1, Y: 0.2, W: 0.3, H: 0.4}},
		{Kind: pdf.MarkNote, Comment: "only a note"},
	}}
	got, err := decodePage(encodePage(p))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p.Marks, got.Marks); diff != "" {
		t.Errorf("marks after the cache (-want +got):\n%s", diff)
	}
	rec := encodePage(&pdf.Page{Number: 1, Marks: []pdf.Mark{{Kind: "evil"}}})
	if _, err := decodePage(rec); err == nil {
		t.Error("a record with an unknown mark kind decoded")
	}
}

// withXMP appends to the PDF base an incremental update that gives its
// catalog a /Metadata stream of the dictionary entries dict and data, as
// a viewer that saves metadata writes it.
func withXMP(t *testing.T, base []byte, dict, data string) []byte {
	t.Helper()
	last := func(re string) string {
		m := regexp.MustCompile(re).FindAllSubmatch(base, -1)
		if len(m) == 0 {
			t.Fatalf("no %s in the file", re)
		}
		return string(m[len(m)-1][1])
	}
	root, size, prev := last(`/Root (\d+) 0 R`), last(`/Size (\d+)`), last(`startxref\s+(\d+)`)
	info := regexp.MustCompile(`/Info \d+ 0 R`).Find(base)
	cat := last(`(?s)\n` + root + ` 0 obj\s*(<<.*?>>)\s*endobj`)
	meta, _ := strconv.Atoi(size)
	var b bytes.Buffer
	b.Write(base)
	offMeta := b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /Metadata /Subtype /XML %s /Length %d >>\nstream\n%s\nendstream\nendobj\n", meta, dict, len(data), data)
	offCat := b.Len()
	fmt.Fprintf(&b, "%s 0 obj\n%s /Metadata %d 0 R >>\nendobj\n", root, cat[:len(cat)-2], meta)
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n%s 1\n%010d 00000 n \n%d 1\n%010d 00000 n \n", root, offCat, meta, offMeta)
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %s 0 R %s /Prev %s >>\nstartxref\n%d\n%%%%EOF\n", meta+1, root, info, prev, xref)
	return b.Bytes()
}

// TestCacheXMP: the document's XMP packet, stored in the clear or
// compressed, survives the cache, and a damaged XMP record (the entry's
// last bytes) is a corrupt entry: rebuilt, never read as another packet.
func TestCacheXMP(t *testing.T) {
	const packet = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta><?xpacket end="w"?>`
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte(packet))
	zw.Close()
	base := fixture(t, "simple.pdf")
	tests := []struct {
		name string
		pdf  []byte
		xmp  bool
	}{
		{"in the clear", withXMP(t, base, "", packet), true},
		{"compressed", withXMP(t, base, "/Filter /FlateDecode", z.String()), true},
		{"none", base, false},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := mustExtract(t, tt.pdf)
			if has := len(want.XMP) > 0; has != tt.xmp {
				t.Fatalf("extracted XMP %.80q", want.XMP)
			}
			c := &Cache{Dir: t.TempDir()}
			o := &countingOpener{data: tt.pdf}
			key := FileInfo{Path: "x.pdf", Size: int64(len(tt.pdf)), ModTime: time.Unix(4, 0)}
			for range 2 { // extracted, then from the cache
				got, err := c.Extract(ctx, key, o.open)
				if err != nil || !bytes.Equal(got.XMP, want.XMP) {
					t.Errorf("through the cache: XMP %.80q, %v", got.XMP, err)
				}
			}
			if !tt.xmp {
				return
			}
			entries, _ := filepath.Glob(filepath.Join(c.Dir, "v*", "*", "*.pdfc"))
			if len(entries) != 1 {
				t.Fatalf("entries: %v", entries)
			}
			b, _ := os.ReadFile(entries[0])
			b[len(b)-1] ^= 1
			if err := os.WriteFile(entries[0], b, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := c.Extract(ctx, key, o.open)
			if err != nil || !bytes.Equal(got.XMP, want.XMP) {
				t.Errorf("after damage: XMP %.80q, %v", got.XMP, err)
			}
			if p, err := c.Page(ctx, key, o.open, 1); err != nil || p.Text != want.Pages[0].Text {
				t.Errorf("page after the rebuild: %v, %v", p, err)
			}
		})
	}
}
