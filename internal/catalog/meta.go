package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/researchctx/researchctx/internal/lenient"
	"github.com/researchctx/researchctx/internal/textnorm"
)

// Metadata is the part of a paper's metadata.json the SDK uses. Unknown
// fields are ignored and missing ones left empty; fields whose JSON type is
// off in common ways (a numeric year as a string, authors as objects with a
// name) are still read.
type Metadata struct {
	Title       string   `json:"title,omitempty"`
	Authors     []string `json:"authors,omitempty"`
	Year        int      `json:"year,omitempty"`
	Date        string   `json:"date,omitempty"`
	Abstract    string   `json:"abstract,omitempty"`
	DOI         string   `json:"doi,omitempty"`
	ArXivID     string   `json:"arxiv_id,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Publication string   `json:"publication,omitempty"`
}

// ParseMetadata decodes metadata.json leniently. Only a document that is not
// a JSON object is an error. Every field but the abstract is one line of
// text (textnorm.Line): a title or an author with line breaks or direction
// characters is data, never a line of its own in a prompt or a tool result.
func ParseMetadata(data []byte) (Metadata, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Metadata{}, fmt.Errorf("metadata.json: not a JSON object: %w", err)
	}
	var m Metadata
	m.Title = lenient.Text(raw["title"])
	m.Authors = lenient.Names(raw["authors"])
	m.Date = lenient.String(raw["date"])
	m.Abstract = lenient.Text(raw["abstract"])
	m.DOI = lenient.Text(raw["doi"])
	m.ArXivID = lenient.String(raw["arxiv_id"])
	m.Tags = lenient.Names(raw["tags"])
	m.Publication = lenient.Text(raw["publication"])
	m.Title, m.Date, m.DOI, m.ArXivID, m.Publication = textnorm.Line(m.Title), textnorm.Line(m.Date),
		textnorm.Line(m.DOI), textnorm.Line(m.ArXivID), textnorm.Line(m.Publication)
	m.Authors, m.Tags = textnorm.Lines(m.Authors), textnorm.Lines(m.Tags)
	m.Year = lenient.Int(raw["year"])
	if m.Year == 0 {
		m.Year = lenient.LeadingInt(m.Date)
	}
	return m, nil
}
