package vault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
// a JSON object is an error.
func ParseMetadata(data []byte) (Metadata, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Metadata{}, fmt.Errorf("metadata.json: not a JSON object: %w", err)
	}
	var m Metadata
	m.Title = str(raw["title"])
	m.Authors = strList(raw["authors"])
	m.Date = str(raw["date"])
	m.Abstract = str(raw["abstract"])
	m.DOI = str(raw["doi"])
	m.ArXivID = str(raw["arxiv_id"])
	m.Tags = strList(raw["tags"])
	m.Publication = str(raw["publication"])
	if y := str(raw["year"]); y != "" {
		m.Year, _ = strconv.Atoi(y)
	}
	if m.Year == 0 && len(m.Date) >= 4 {
		m.Year, _ = strconv.Atoi(m.Date[:4])
	}
	return m, nil
}

// str reads a JSON string or number as a trimmed string; anything else is "".
func str(r json.RawMessage) string {
	r = bytes.TrimSpace(r)
	if len(r) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(r, &n) == nil {
		return n.String()
	}
	return ""
}

// strList reads a list of strings, of objects with a "name" (or "family" and
// "given"), or a single string.
func strList(r json.RawMessage) []string {
	if s := str(r); s != "" {
		return []string{s}
	}
	var items []json.RawMessage
	if json.Unmarshal(r, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		if s := str(it); s != "" {
			out = append(out, s)
			continue
		}
		var o struct{ Name, Given, Family string }
		if json.Unmarshal(it, &o) != nil {
			continue
		}
		name := strings.TrimSpace(o.Name)
		if name == "" {
			name = strings.TrimSpace(o.Given + " " + o.Family)
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}
