package relations

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/vault"
)

// ref is one reference of a paper before it is resolved against the
// catalogue: what a sidecar citation or an identifier found in PDF text says.
type ref struct {
	title   string
	authors []string
	year    int
	doi     string // normalised
	arxiv   string // normalised
	local   string // localMatch paperPath, cleaned; "" when none or unusable
}

// Match kinds a sidecar's localMatch may declare.
var matchKinds = map[string]bool{"doi": true, "arxiv": true, "title": true}

// maxRawTitle bounds the raw reference string used as a title fallback.
const maxRawTitle = 200

// parseSidecar decodes a reference sidecar leniently: unknown fields are
// ignored, a field of the wrong type is treated as absent, and a citation
// that is not an object or says nothing usable is skipped and counted. Only a
// document that is not a JSON object, declares another schemaVersion or has
// a citations field that is not a list is an error.
func parseSidecar(data []byte) (refs []ref, skipped int, err error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, 0, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	if err := checkSchema(doc["schemaVersion"]); err != nil {
		return nil, 0, err
	}
	var items []json.RawMessage
	if raw, ok := doc["citations"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &items) != nil {
			return nil, 0, fmt.Errorf("%w: citations is not a list", ErrMalformed)
		}
	}
	if len(items) > maxCitations {
		skipped += len(items) - maxCitations
		items = items[:maxCitations]
	}
	for _, it := range items {
		r, ok := parseCitation(it)
		if !ok {
			skipped++
			continue
		}
		refs = append(refs, r)
	}
	return refs, skipped, nil
}

func parseCitation(data json.RawMessage) (ref, bool) {
	var c map[string]json.RawMessage
	if json.Unmarshal(data, &c) != nil || c == nil {
		return ref{}, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(c["metadata"], &m) != nil {
		m = nil
	}
	r := ref{
		title:   oneLine(text(m["title"])),
		authors: strList(m["authors"]),
		year:    num(m["year"]),
	}
	r.doi, r.arxiv = identifiers(text(m["doi"]), text(m["arxivId"]))
	if r.doi == "" && r.arxiv == "" {
		// Some producers leave the identifier only in the URL.
		r.doi, r.arxiv = identifiersFromURL(text(m["url"]))
	}
	var lm map[string]json.RawMessage
	if json.Unmarshal(c["localMatch"], &lm) == nil && matchKinds[strings.ToLower(text(lm["matchBy"]))] {
		if p, err := vault.Clean(text(lm["paperPath"])); err == nil && p != "." {
			r.local = p
		}
	}
	if r.title == "" {
		r.title = shorten(oneLine(text(c["raw"])), maxRawTitle)
	}
	if r.title == "" && r.doi == "" && r.arxiv == "" && r.local == "" {
		return ref{}, false
	}
	return r, true
}

// identifiersFromURL reads a DOI or arXiv id out of a doi.org or arxiv.org
// link; any other URL yields nothing.
func identifiersFromURL(u string) (doi, arxiv string) {
	l := strings.ToLower(u)
	switch {
	case strings.Contains(l, "doi.org/"):
		return identifiers(u[strings.Index(l, "doi.org/")+len("doi.org/"):], "")
	case strings.Contains(l, "arxiv.org/abs/"):
		return identifiers("", u[strings.Index(l, "arxiv.org/abs/")+len("arxiv.org/abs/"):])
	}
	return "", ""
}

// arXiv id shapes after normalisation: 2401.01234 or hep-th/9901001.
var (
	arxivNew = regexp.MustCompile(`^[0-9]{4}\.[0-9]{4,5}$`)
	arxivOld = regexp.MustCompile(`^[a-z][a-z-]*(\.[a-z]{2})?/[0-9]{7}$`)
)

// identifiers normalises a DOI and an arXiv id like vault.Identifiers and
// drops an arXiv id that has neither arXiv shape, so that junk never becomes
// an https://arxiv.org/abs/ link.
func identifiers(doi, arxiv string) (string, string) {
	d, a := vault.Identifiers(doi, arxiv)
	if a != "" && !arxivNew.MatchString(a) && !arxivOld.MatchString(a) {
		a = ""
	}
	return d, a
}

// citing is one entry of the cited-by cache.
type citing struct {
	s2    string
	title string
	year  int
	doi   string // normalised
	arxiv string // normalised
	count int
}

// parseScan decodes the cited-by cache leniently, like parseSidecar. Seeds
// are returned under their keys as written; a seed or citing entry that is
// not an object or says nothing usable is skipped and counted per seed key.
func parseScan(data []byte) (seeds map[string][]citing, skipped map[string]int, err error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	if err := checkSchema(doc["schemaVersion"]); err != nil {
		return nil, nil, err
	}
	var raw map[string]json.RawMessage
	if s, ok := doc["seeds"]; ok && !isNull(s) {
		if json.Unmarshal(s, &raw) != nil {
			return nil, nil, fmt.Errorf("%w: seeds is not an object", ErrMalformed)
		}
	}
	seeds, skipped = map[string][]citing{}, map[string]int{}
	for key, sd := range raw {
		var seed map[string]json.RawMessage
		var items []json.RawMessage
		if json.Unmarshal(sd, &seed) != nil || seed == nil || json.Unmarshal(seed["citing"], &items) != nil {
			seeds[key] = nil
			skipped[key]++
			continue
		}
		if len(items) > maxCiting {
			skipped[key] += len(items) - maxCiting
			items = items[:maxCiting]
		}
		list := []citing{}
		for _, it := range items {
			c, ok := parseCiting(it)
			if !ok {
				skipped[key]++
				continue
			}
			list = append(list, c)
		}
		seeds[key] = list
	}
	return seeds, skipped, nil
}

func parseCiting(data json.RawMessage) (citing, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || m == nil {
		return citing{}, false
	}
	c := citing{
		s2:    text(m["s2Id"]),
		title: oneLine(text(m["title"])),
		year:  num(m["date"]),
		count: num(m["citationCount"]),
	}
	c.doi, c.arxiv = identifiers(text(m["doi"]), text(m["arxivId"]))
	if c.title == "" && c.doi == "" && c.arxiv == "" {
		// Without a title or an identifier the card would say nothing.
		return citing{}, false
	}
	return c, true
}

// checkSchema accepts a missing schemaVersion or 1.
func checkSchema(raw json.RawMessage) error {
	if len(raw) == 0 || isNull(raw) {
		return nil
	}
	if v := str(raw); v != "1" {
		return fmt.Errorf("%w %q", ErrUnsupportedSchema, shorten(v, 20))
	}
	return nil
}

func isNull(r json.RawMessage) bool { return string(bytes.TrimSpace(r)) == "null" }

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

// text reads a JSON string, trimmed; anything else is "". Identifiers and
// titles are never read from numbers, which lose digits in JSON.
func text(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// num reads a non-negative integer from a JSON number or from the leading
// digits of a string (a year in "2024-03-11"); anything else is 0.
func num(r json.RawMessage) int {
	s := str(r)
	end := 0
	for end < len(s) && end < 9 && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

// strList reads a list of strings or of objects with a name (or family and
// given names), or a single string.
func strList(r json.RawMessage) []string {
	if s := text(r); s != "" {
		return []string{s}
	}
	var items []json.RawMessage
	if json.Unmarshal(r, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		s := text(it)
		if s == "" {
			var o map[string]json.RawMessage
			if json.Unmarshal(it, &o) == nil {
				s = text(o["name"])
				if s == "" {
					s = strings.TrimSpace(text(o["given"]) + " " + text(o["family"]))
				}
			}
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// oneLine folds runs of white space to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shorten cuts s to at most n runes, on a rune boundary, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return strings.TrimSpace(s[:i]) + "…"
}
