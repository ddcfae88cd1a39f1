package pdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// TestXMP: the catalog's /Metadata stream comes out decoded whether it is
// stored in the clear or compressed (pdfcache.TestCacheXMP takes it
// through the cache), and one that is missing, not a stream or larger
// than MaxXMPBytes gives no XMP and costs the document nothing.
func TestXMP(t *testing.T) {
	const packet = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta><?xpacket end="w"?>`
	flate := func(s string) string {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write([]byte(s))
		zw.Close()
		return z.String()
	}
	body := []page{{content: "BT /F1 12 Tf 72 700 Td (Body text of the page) Tj ET"}}
	doc := func(metadata func(b *pdfbuild.Builder) string) []byte {
		return simpleDoc(body, "", "", func(b *pdfbuild.Builder, _ []int) string {
			if metadata == nil {
				return ""
			}
			return metadata(b)
		})
	}
	metadata := func(dict, data string) func(b *pdfbuild.Builder) string {
		return func(b *pdfbuild.Builder) string {
			return fmt.Sprintf("/Metadata %d 0 R", b.Stream("/Type /Metadata /Subtype /XML "+dict, data))
		}
	}
	tests := []struct {
		name string
		pdf  []byte
		want string
	}{
		{"in the clear", doc(metadata("", packet)), packet + "\n"},
		{"compressed", doc(metadata("/Filter /FlateDecode", flate(packet))), packet},
		{"none", doc(nil), ""},
		{"not a stream", doc(func(*pdfbuild.Builder) string { return "/Metadata << /Type /Metadata >>" }), ""},
		{"a bomb", doc(metadata("/Filter /FlateDecode", flate(packet+string(make([]byte, MaxXMPBytes))))), ""},
		{"does not decode", doc(metadata("/Filter /FlateDecode", "not zlib at all")), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustExtract(t, tt.pdf)
			if string(d.XMP) != tt.want {
				t.Errorf("XMP = %.80q, want %.80q", d.XMP, tt.want)
			}
			if len(d.Pages) != 1 || d.Pages[0].Text != "Body text of the page" {
				t.Errorf("pages %+v: the metadata cost the text", d.Pages)
			}
		})
	}
}

// TestXMPCorpus: the catalog's packet of real PDFs, byte for byte as the
// file stores it, including a bare rdf:RDF without the x:xmpmeta wrapper
// (as early XMP writers made them) that a scan of the file for the wrapper
// misses.
func TestXMPCorpus(t *testing.T) {
	dir := corpus.Dir(t, "pdfs")
	for _, tt := range []struct {
		file     string
		wrapped  bool
		contains string
	}{
		{"pwl-impossibility-scan.pdf", false, "<pdf:CreationDate>2003-07-24"},
		{"scirep-leibig.pdf", true, "10.1038/s41598-017-17876-z"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		d := mustExtract(t, data)
		if !bytes.Contains(d.XMP, []byte(tt.contains)) {
			t.Errorf("%s: XMP %.200q does not contain %q", tt.file, d.XMP, tt.contains)
		}
		if !bytes.Contains(data, d.XMP) {
			t.Errorf("%s: the packet is not the file's bytes", tt.file)
		}
		if got := bytes.Contains(d.XMP, []byte("<x:xmpmeta")); got != tt.wrapped {
			t.Errorf("%s: packet wrapped in x:xmpmeta: %v, want %v", tt.file, got, tt.wrapped)
		}
	}
}
