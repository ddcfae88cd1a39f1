package vault

import (
	"bytes"
	"encoding/xml"
	"io"
	"path"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// XMP is the metadata packet a PDF carries beside its Info dictionary
// (ISO 16684-1). The document's packet is the catalog's /Metadata stream,
// which the text layer decodes, compressed or not, up to pdf.MaxXMPBytes
// (pdf.Document.XMP). A packet elsewhere in the file belongs to an image
// or a page and is never read.

// XMP namespaces of the fields read.
const (
	nsRDF   = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsDC    = "http://purl.org/dc/elements/1.1/"
	nsPRISM = "http://prismstandard.org/namespaces/" // any PRISM version
)

// xmpMeta is what the document's XMP packet says.
type xmpMeta struct {
	Title   string
	Authors []string
	DOI     string
	Year    int // publication year (prism), not the file's creation date
}

// parseXMP reads the fields of one packet, or returns nil for one that is
// not RDF in XML.
func parseXMP(raw []byte) *xmpMeta {
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	m := &xmpMeta{}
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
					m.property(a.Name, a.Value)
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
				m.value(field, text.String())
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
	return m
}

// xmpField names the property an element is, or "".
func xmpField(n xml.Name) string {
	switch {
	case n.Space == nsDC && (n.Local == "title" || n.Local == "creator" || n.Local == "identifier"):
		return n.Local
	case strings.HasPrefix(n.Space, nsPRISM) && n.Local == "doi":
		return "doi"
	case strings.HasPrefix(n.Space, nsPRISM) && (n.Local == "publicationDate" || n.Local == "coverDate"):
		return "date"
	}
	return ""
}

// property records a property given as an attribute.
func (m *xmpMeta) property(n xml.Name, v string) {
	if f := xmpField(n); f != "" {
		m.value(f, v)
	}
}

// value records one value of a property.
func (m *xmpMeta) value(field, v string) {
	v = strings.TrimSpace(v)
	switch field {
	case "title":
		if m.Title == "" && xmpTitleLike(v) {
			m.Title = textnorm.Line(v)
		}
	case "creator":
		if name := textnorm.Line(v); nameLike(name) && len(m.Authors) < 100 {
			m.Authors = append(m.Authors, name)
		}
	case "doi", "identifier":
		if m.DOI == "" {
			m.DOI = doiOf(v)
		}
	case "date":
		if m.Year == 0 {
			m.Year = yearOf(v)
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
	return textnorm.Line(cite.NormalizeDOI(s))
}
