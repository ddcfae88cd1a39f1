package relations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/lenient"
	"github.com/researchctx/researchctx/internal/textnorm"
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
	// parsed marks an entry parsed from PDF text: only such an entry may be
	// matched by title (a sidecar's own title match is its localMatch).
	parsed bool
	// label is how the paper's body cites the entry, as printed, and
	// contexts the body's sentences that cite it (entries parsed from
	// PDF text only).
	label    string
	contexts []Context
}

// Match kinds a sidecar's localMatch may declare.
var matchKinds = map[string]bool{"doi": true, "arxiv": true, "title": true}

// maxRawTitle bounds the raw reference string used as a title fallback.
const maxRawTitle = 200

// sidecarJSON, citationJSON, metadataJSON and localMatchJSON are the parts
// of a reference sidecar this package reads. Text fields are typed strings:
// a value of another type (a number where an id belongs) is left empty
// rather than guessed at. Fields whose type varies in the wild stay raw and
// are read leniently.
type sidecarJSON struct {
	SchemaVersion json.RawMessage `json:"schemaVersion"`
	Citations     json.RawMessage `json:"citations"`
}

type citationJSON struct {
	Raw        string         `json:"raw"`
	Metadata   metadataJSON   `json:"metadata"`
	LocalMatch localMatchJSON `json:"localMatch"`
}

type metadataJSON struct {
	Title   string          `json:"title"`
	Authors json.RawMessage `json:"authors"`
	Year    json.RawMessage `json:"year"`
	DOI     string          `json:"doi"`
	ArXivID string          `json:"arxivId"`
	URL     string          `json:"url"`
}

type localMatchJSON struct {
	PaperPath string `json:"paperPath"`
	MatchBy   string `json:"matchBy"`
}

// decodeLenient decodes data into v in one pass, ignoring values of the
// wrong type (encoding/json leaves them zero and decodes the rest). Only a
// syntax error is returned.
func decodeLenient(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// parseSidecar decodes a reference sidecar leniently: unknown fields are
// ignored, a field of the wrong type is treated as absent, and a citation
// that is not an object or says nothing usable is skipped and counted. Only a
// document that is not a JSON object, declares another schemaVersion or has
// a citations field that is not a list is an error.
func parseSidecar(data []byte) (refs []ref, skipped int, err error) {
	var doc sidecarJSON
	if !isObject(data) || json.Unmarshal(data, &doc) != nil {
		return nil, 0, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	if err := checkSchema(doc.SchemaVersion); err != nil {
		return nil, 0, err
	}
	if len(doc.Citations) == 0 || isNull(doc.Citations) {
		return nil, 0, nil
	}
	if !isArray(doc.Citations) {
		return nil, 0, fmt.Errorf("%w: citations is not a list", ErrMalformed)
	}
	var items []citationJSON
	if err := decodeLenient(doc.Citations, &items); err != nil {
		return nil, 0, fmt.Errorf("%w: citations: %v", ErrMalformed, err)
	}
	if len(items) > maxCitations {
		skipped += len(items) - maxCitations
		items = items[:maxCitations]
	}
	for i := range items {
		r, ok := citationRef(&items[i])
		if !ok {
			skipped++
			continue
		}
		refs = append(refs, r)
	}
	return refs, skipped, nil
}

// citationRef reads one citation; ok is false when it says nothing usable
// (which includes an entry that was not an object at all).
func citationRef(c *citationJSON) (ref, bool) {
	m := &c.Metadata
	r := ref{
		title:   oneLine(m.Title),
		authors: lenient.Names(m.Authors),
		year:    lenient.Int(m.Year),
	}
	r.doi, r.arxiv = identifiers(m.DOI, m.ArXivID)
	if r.doi == "" && r.arxiv == "" {
		// Some producers leave the identifier only in the URL.
		r.doi, r.arxiv = identifiersFromURL(m.URL)
	}
	if matchKinds[strings.ToLower(strings.TrimSpace(c.LocalMatch.MatchBy))] {
		if p, err := catalog.Clean(strings.TrimSpace(c.LocalMatch.PaperPath)); err == nil && p != "." {
			r.local = p
		}
	}
	if r.title == "" {
		r.title = shorten(oneLine(c.Raw), maxRawTitle)
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
	arxivNew = lazyRegexp(`^[0-9]{4}\.[0-9]{4,5}$`)
	arxivOld = lazyRegexp(`^[a-z][a-z-]*(\.[a-z]{2})?/[0-9]{7}$`)
)

// identifiers normalises a DOI and an arXiv id like cite.Identifiers and
// drops an arXiv id that has neither arXiv shape, so that junk never becomes
// an https://arxiv.org/abs/ link.
func identifiers(doi, arxiv string) (string, string) {
	d, a := cite.Identifiers(doi, arxiv)
	if a != "" && !arxivNew().MatchString(a) && !arxivOld().MatchString(a) {
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

// citingJSON is the part of a cache entry this package reads (see
// sidecarJSON for the typing rules).
type citingJSON struct {
	S2ID          string          `json:"s2Id"`
	Title         string          `json:"title"`
	Date          string          `json:"date"`
	DOI           string          `json:"doi"`
	ArXivID       string          `json:"arxivId"`
	CitationCount json.RawMessage `json:"citationCount"`
}

type seedJSON struct {
	Citing json.RawMessage `json:"citing"`
}

// parseScan decodes the cited-by cache leniently, like parseSidecar. Seeds
// are returned under their keys as written; a seed or citing entry that is
// not an object or says nothing usable is skipped and counted per seed key.
func parseScan(data []byte) (seeds map[string][]citing, skipped map[string]int, err error) {
	var doc struct {
		SchemaVersion json.RawMessage            `json:"schemaVersion"`
		Seeds         map[string]json.RawMessage `json:"seeds"`
	}
	if !isObject(data) {
		return nil, nil, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "seeds" {
			return nil, nil, fmt.Errorf("%w: seeds is not an object", ErrMalformed)
		}
		return nil, nil, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	if err := checkSchema(doc.SchemaVersion); err != nil {
		return nil, nil, err
	}
	seeds, skipped = map[string][]citing{}, map[string]int{}
	for key, raw := range doc.Seeds {
		var sd seedJSON
		var items []citingJSON
		if !isObject(raw) || decodeLenient(raw, &sd) != nil || !isArray(sd.Citing) || decodeLenient(sd.Citing, &items) != nil {
			seeds[key] = nil
			skipped[key]++
			continue
		}
		if len(items) > maxCiting {
			skipped[key] += len(items) - maxCiting
			items = items[:maxCiting]
		}
		list := make([]citing, 0, len(items))
		for i := range items {
			c, ok := citingOf(&items[i])
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

// citingOf reads one cache entry; ok is false when it has neither a title
// nor an identifier (the card would say nothing), which includes an entry
// that was not an object.
func citingOf(m *citingJSON) (citing, bool) {
	c := citing{
		s2:    strings.TrimSpace(m.S2ID),
		title: oneLine(m.Title),
		year:  lenient.LeadingInt(m.Date),
		count: lenient.Int(m.CitationCount),
	}
	c.doi, c.arxiv = identifiers(m.DOI, m.ArXivID)
	if c.title == "" && c.doi == "" && c.arxiv == "" {
		return citing{}, false
	}
	return c, true
}

// checkSchema accepts a missing schemaVersion or 1.
func checkSchema(raw json.RawMessage) error {
	if len(raw) == 0 || isNull(raw) {
		return nil
	}
	if v := lenient.String(raw); v != "1" {
		return fmt.Errorf("%w %q", ErrUnsupportedSchema, shorten(v, 20))
	}
	return nil
}

// isObject reports whether r is a JSON object (by its first byte; the
// decoder checks the rest).
func isObject(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	return len(r) > 0 && r[0] == '{'
}

// isArray reports whether r is a JSON array (by its first byte).
func isArray(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	return len(r) > 0 && r[0] == '['
}

func isNull(r json.RawMessage) bool { return string(bytes.TrimSpace(r)) == "null" }

// oneLine folds runs of white space to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shorten cuts s to at most n runes, on a rune boundary, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, _ := textnorm.Truncate(s, n-1)
	return strings.TrimSpace(cut) + "…"
}
