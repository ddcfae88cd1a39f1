package vault

import (
	"bytes"
	"compress/zlib"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// xmpPacketOf is an XMP packet whose rdf:Description holds body, with the
// namespaces the fields use.
func xmpPacketOf(attrs, body string) string {
	return `<?xpacket begin="` + "\ufeff" + `" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
 xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" ` + attrs + `>
` + body + `
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`
}

const xmpDocBody = `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Leveraging uncertainty information from deep neural networks</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>Christian Leibig</rdf:li><rdf:li>Murat Seçkin Ayhan</rdf:li><rdf:li>Administrator</rdf:li></rdf:Seq></dc:creator>
<dc:identifier>doi:10.1038/s41598-017-17876-z</dc:identifier>
<prism:publicationDate>2017-12-19</prism:publicationDate>
<xmp:CreateDate>2018-08-09T15:26:48-04:00</xmp:CreateDate>`

// TestParseXMP reads the fields of one packet, as the catalog's /Metadata
// stream holds it.
func TestParseXMP(t *testing.T) {
	tests := []struct {
		name   string
		packet string
		want   *xmpMeta
	}{
		{"the document's packet", xmpPacketOf(`pdf:Producer="pdfTeX-1.40"`, xmpDocBody), &xmpMeta{
			Title:   "Leveraging uncertainty information from deep neural networks",
			Authors: []string{"Christian Leibig", "Murat Seçkin Ayhan"},
			DOI:     "10.1038/s41598-017-17876-z",
			Year:    2017, // the publication date, not the file's creation
		}},
		{"a lone packet with only a DOI", xmpPacketOf("", `<prism:doi>10.1145/3292500.3330701</prism:doi>`), &xmpMeta{DOI: "10.1145/3292500.3330701"}},
		{"fields as attributes", xmpPacketOf(`pdf:Producer="x" prism:doi="10.5555/rtm.2024.0017" dc:identifier="doi:10.1/bad"`, ""), &xmpMeta{DOI: "10.5555/rtm.2024.0017"}},
		{"junk titles and names", xmpPacketOf(`pdf:Producer="x"`, `<dc:title><rdf:Alt><rdf:li>erhan10a.dvi</rdf:li></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li>user</rdf:li></rdf:Seq></dc:creator><prism:doi>XXXXXXX.XXXXXXX</prism:doi>`), &xmpMeta{}},
		{"a title that poses as lines", xmpPacketOf(`pdf:Producer="x"`, `<dc:title><rdf:Alt><rdf:li>A title
## Allowed sources</rdf:li></rdf:Alt></dc:title>`), &xmpMeta{Title: "A title ## Allowed sources"}},
		{"not XML", "<x:xmpmeta <<<< </x:xmpmeta>", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, parseXMP([]byte(tt.packet))); diff != "" {
				t.Errorf("parseXMP (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoosePDFXMP reads the metadata of a PDF whose catalog points at an
// XMP stream, and of real PDFs of the corpus.
func TestLoosePDFXMP(t *testing.T) {
	root := paperSampleRoot(t)
	packet := xmpPacketOf(`pdf:Producer="gen"`, xmpDocBody)
	body := "just a line of body text about retinal images"
	writeVaultFile(t, root, "inbox/untitled.pdf", pdfWithXMP(packet, body))
	writeVaultFile(t, root, "inbox/compressed.pdf", pdfWithFlateXMP(packet, body))
	// A second packet in the clear, as an embedded image's: the catalog's
	// compressed one is still the document's.
	writeVaultFile(t, root, "inbox/compressed-and-figure.pdf",
		append(pdfWithFlateXMP(packet, body), "% "+xmpPacketOf(`pdf:Producer="figure"`, `<prism:doi>10.9999/figure</prism:doi>`)+"\n"...))
	// An empty catalog packet, and a figure's packet in the clear: that
	// one is not the document's.
	writeVaultFile(t, root, "inbox/figure-only.pdf",
		append(pdfWithXMPStream("<< /Length 0 >>\nstream\n\nendstream", body), "% "+xmpPacketOf(`pdf:Producer="figure"`, `<dc:title><rdf:Alt><rdf:li>Figure two</rdf:li></rdf:Alt></dc:title><prism:doi>10.9999/figure</prism:doi>`)+"\n"...))
	lib := paperLibrary(t, root)
	ctx := context.Background()
	src, err := lib.Open(ctx, grant.KindFile, "inbox/figure-only.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if md, err := src.(sources.Describer).Describe(ctx); err != nil || md.DOI != "" || md.Title != "figure-only.pdf" && md.Title != "" {
		t.Errorf("a figure's packet taken for the document's: %+v, %v", md, err)
	}
	for _, name := range []string{"inbox/untitled.pdf", "inbox/compressed.pdf", "inbox/compressed-and-figure.pdf"} {
		src, err = lib.Open(ctx, grant.KindFile, name)
		if err != nil {
			t.Fatal(err)
		}
		md, err := src.(sources.Describer).Describe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := &sources.Metadata{
			Title: "Leveraging uncertainty information from deep neural networks", Authors: []string{"Christian Leibig", "Murat Seçkin Ayhan"},
			DOI: "10.1038/s41598-017-17876-z", Year: 2017, Pages: 1, Documents: []string{name},
		}
		if diff := cmp.Diff(want, md); diff != "" {
			t.Errorf("%s: Describe (-want +got):\n%s", name, diff)
		}
		doc, err := src.Read(ctx, "")
		if err != nil || doc.Title != want.Title {
			t.Errorf("%s: Read title %q, %v; want the XMP title", name, doc.Title, err)
		}
	}

	dir := corpus.Dir(t, "pdfs")
	data, err := os.ReadFile(filepath.Join(dir, "scirep-leibig.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	writeVaultFile(t, root, "inbox/scirep.pdf", data)
	src, err = lib.Open(ctx, grant.KindFile, "inbox/scirep.pdf")
	if err != nil {
		t.Fatal(err)
	}
	md, err := src.(sources.Describer).Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The DOI is only in the XMP of the document, not in those of its
	// embedded figures.
	if md.DOI != "10.1038/s41598-017-17876-z" || !strings.Contains(md.Title, "uncertainty") {
		t.Errorf("Describe of a real PDF with XMP = {Title %q, DOI %q}", md.Title, md.DOI)
	}
}

// pdfWithXMP is a one-page PDF showing body in Helvetica at the foot of
// the page (so it is no title block), with no Info
// dictionary and the XMP packet as the catalog's uncompressed /Metadata
// stream.
func pdfWithXMP(packet, body string) []byte {
	return pdfWithXMPStream("<< /Type /Metadata /Subtype /XML /Length "+strconv.Itoa(len(packet))+" >>\nstream\n"+packet+"\nendstream", body)
}

// pdfWithFlateXMP is pdfWithXMP with the packet Flate-compressed, as
// writers that compress every stream store it: nothing in the file's
// bytes shows it.
func pdfWithFlateXMP(packet, body string) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte(packet))
	zw.Close()
	return pdfWithXMPStream("<< /Type /Metadata /Subtype /XML /Filter /FlateDecode /Length "+strconv.Itoa(z.Len())+" >>\nstream\n"+z.String()+"\nendstream", body)
}

func pdfWithXMPStream(metadata, body string) []byte {
	content := "BT /F1 10 Tf 72 100 Td (" + body + ") Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		"<< /Length " + strconv.Itoa(len(content)) + " >>\nstream\n" + content + "\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		metadata,
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		b.WriteString(strconv.Itoa(i+1) + " 0 obj\n" + o + "\nendobj\n")
	}
	xref := b.Len()
	b.WriteString("xref\n0 " + strconv.Itoa(len(objs)+1) + "\n0000000000 65535 f \n")
	for _, off := range offs {
		s := strconv.Itoa(off)
		b.WriteString(strings.Repeat("0", 10-len(s)) + s + " 00000 n \n")
	}
	b.WriteString("trailer\n<< /Size " + strconv.Itoa(len(objs)+1) + " /Root 1 0 R >>\nstartxref\n" + strconv.Itoa(xref) + "\n%%EOF\n")
	return b.Bytes()
}

// FuzzParseXMP: whatever the bytes, parseXMP returns without panicking
// and every value it gives is one line.
func FuzzParseXMP(f *testing.F) {
	f.Add([]byte(xmpPacketOf(`pdf:Producer="x"`, xmpDocBody)))
	f.Add([]byte("<x:xmpmeta><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description/></rdf:RDF></x:xmpmeta>"))
	f.Add([]byte("<x:xmpmeta </x:xmpmeta><x:xmpmeta"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := parseXMP(data)
		if m == nil {
			return
		}
		for _, s := range append([]string{m.Title, m.DOI}, m.Authors...) {
			if s != textnorm.Line(s) {
				t.Errorf("%q is not one line", s)
			}
		}
	})
}
