package sources

import (
	"bytes"
	"encoding/xml"
	"io"
	"path"
	"strings"

	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/internal/vault"
)

// XMP is the metadata packet a PDF carries beside its Info dictionary
// (ISO 16684-1). The text layer decodes the catalog's /Metadata stream,
// compressed or not (pdf.Document.XMP). A document from a cache entry
// written before it did has none; metadata streams are by convention left
// uncompressed so that tools which do not parse PDF can find them, so the
// packet is then found by scanning the file's bytes.
const (
	xmpOpen  = "<x:xmpmeta"
	xmpClose = "</x:xmpmeta>"
	// xmpMaxPacket bounds one packet; a larger one is skipped.
	xmpMaxPacket = 1 << 20
	// xmpMaxPackets bounds how many packets are parsed (images carry
	// their own).
	xmpMaxPackets = 64
	// xmpChunk is how much of the file is read at a time.
	xmpChunk = 1 << 20
)

// XMP namespaces of the fields read.
const (
	nsRDF   = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsDC    = "http://purl.org/dc/elements/1.1/"
	nsPRISM = "http://prismstandard.org/namespaces/basic/" // any PRISM version
	nsPDF   = "http://ns.adobe.com/pdf/1.3/"
)

// xmpMeta is what the document's XMP packet says.
type xmpMeta struct {
	Title   string
	Authors []string
	DOI     string
	Year    int // publication year (prism), not the file's creation date
}

// readXMP finds the document's XMP packet in a PDF's bytes and returns its
// fields, or nil. Several packets may be present (an embedded image has
// its own): the document's is the first with the PDF schema (pdf:Producer
// and the like), else the only one.
func readXMP(r io.ReaderAt, size int64) *xmpMeta {
	var found []*xmpPacket
	for _, raw := range xmpPackets(r, size) {
		if p := parseXMP(raw); p != nil {
			found = append(found, p)
		}
	}
	for _, p := range found {
		if p.pdfSchema {
			return &p.meta
		}
	}
	if len(found) == 1 {
		return &found[0].meta
	}
	return nil
}

// xmpPackets returns the raw packets in the file, in file order, reading
// it a chunk at a time.
func xmpPackets(r io.ReaderAt, size int64) [][]byte {
	var out [][]byte
	var buf []byte // unread bytes: the tail of the last chunk, or an open packet
	open, closing := []byte(xmpOpen), []byte(xmpClose)
	inPacket := false
	for off := int64(0); off < size && len(out) < xmpMaxPackets; {
		chunk := make([]byte, min(int64(xmpChunk), size-off))
		m, err := r.ReadAt(chunk, off)
		off += int64(m)
		buf = append(buf, chunk[:m]...)
		for len(out) < xmpMaxPackets {
			if !inPacket {
				i := bytes.Index(buf, open)
				if i < 0 {
					// Keep a tail that may hold the start of a marker.
					buf = append([]byte(nil), buf[len(buf)-min(len(buf), len(open)-1):]...)
					break
				}
				inPacket, buf = true, buf[i:]
			}
			j := bytes.Index(buf, closing)
			if j < 0 {
				if len(buf) > xmpMaxPacket {
					// Too large to be metadata: look past its start.
					inPacket, buf = false, buf[len(open):]
					continue
				}
				break
			}
			out = append(out, append([]byte(nil), buf[:j+len(closing)]...))
			inPacket, buf = false, buf[j+len(closing):]
		}
		if err != nil || m == 0 {
			break
		}
	}
	return out
}

// xmpPacket is one parsed packet.
type xmpPacket struct {
	meta      xmpMeta
	pdfSchema bool
}

// parseXMP reads the fields of one packet, or returns nil for one that is
// not RDF in XML.
func parseXMP(raw []byte) *xmpPacket {
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	p := &xmpPacket{}
	described := false // an rdf:Description was seen
	var stack []xml.Name
	var text strings.Builder
	field := "" // the property being read: title, creator, doi, identifier, date
	for {
		tok, err := d.Token()
		if err != nil {
			if err != io.EOF && len(stack) > 0 {
				return nil
			}
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name)
			if t.Name.Space == nsRDF && t.Name.Local == "Description" {
				described = true
				// Properties may be attributes of the description.
				for _, a := range t.Attr {
					p.property(a.Name, a.Value)
				}
			}
			if f := xmpField(t.Name); f != "" && field == "" {
				field = f
			}
			text.Reset()
		case xml.CharData:
			if field != "" && text.Len() < 4096 {
				text.Write(t)
			}
		case xml.EndElement:
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
			if field == "" {
				continue
			}
			if t.Name.Space == nsRDF && t.Name.Local == "li" || xmpField(t.Name) == field && text.Len() > 0 {
				p.value(field, text.String())
				text.Reset()
			}
			if xmpField(t.Name) == field {
				field = ""
			}
		}
	}
	if !described {
		return nil
	}
	return p
}

// xmpField names the property an element is, or "".
func xmpField(n xml.Name) string {
	switch {
	case n.Space == nsDC && (n.Local == "title" || n.Local == "creator" || n.Local == "identifier"):
		return n.Local
	case strings.HasPrefix(n.Space, "http://prismstandard.org/namespaces/") && n.Local == "doi":
		return "doi"
	case strings.HasPrefix(n.Space, "http://prismstandard.org/namespaces/") && (n.Local == "publicationDate" || n.Local == "coverDate"):
		return "date"
	case n.Space == nsPDF:
		return "pdf"
	}
	return ""
}

// property records a property given as an attribute.
func (p *xmpPacket) property(n xml.Name, v string) {
	if f := xmpField(n); f != "" {
		p.value(f, v)
	}
}

// value records one value of a property.
func (p *xmpPacket) value(field, v string) {
	v = strings.TrimSpace(v)
	switch field {
	case "pdf":
		p.pdfSchema = true
	case "title":
		if p.meta.Title == "" && xmpTitleLike(v) {
			p.meta.Title = textnorm.Line(v)
		}
	case "creator":
		if name := textnorm.Line(v); nameLike(name) && len(p.meta.Authors) < 100 {
			p.meta.Authors = append(p.meta.Authors, name)
		}
	case "doi", "identifier":
		if p.meta.DOI == "" {
			p.meta.DOI = doiOf(v)
		}
	case "date":
		if p.meta.Year == 0 {
			p.meta.Year = yearOf(v)
		}
	}
}

// xmpTitleLike rejects what tools put in dc:title when the author gave no
// title: a file name ("erhan10a.dvi"), "untitled", a single word.
func xmpTitleLike(t string) bool {
	if len(strings.Fields(t)) < 2 || len(t) > 400 {
		return false
	}
	switch strings.ToLower(path.Ext(t)) {
	case ".dvi", ".tex", ".doc", ".docx", ".pdf", ".indd", ".ps", ".rtf", ".odt", ".qxd":
		return false
	}
	return true
}

// nameLike rejects creator values that are no one's name.
func nameLike(s string) bool {
	switch strings.ToLower(s) {
	case "", "administrator", "admin", "user", "owner", "unknown", "author":
		return false
	}
	return len(s) <= 200
}

// doiOf returns the DOI a dc:identifier or prism:doi value names, or "".
func doiOf(s string) string {
	return textnorm.Line(vault.NormalizeDOI(s))
}
