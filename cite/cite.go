// Package cite builds and parses citation URIs, the locators that tell a host
// where a piece of evidence came from.
//
// Inside the Vault a citation URI is the vault-relative path of a file,
// '/'-separated and percent-encoded, with at most one fragment:
//
//	papers/1706.03762/1706.03762.pdf#page=3
//	notes/reading%20group.md#section=Open%20questions
//	papers/2401.01234/2401.01234.pdf#region=figure-1
//	papers/2401.01234/2401.01234.pdf#figure=1
//
// The fragments #figure=N, #table=N and #algorithm=N are the host's own
// names of a figure, table or algorithm, by the number its caption gives.
//
// Outside the Vault only two forms exist: https://doi.org/<doi> and
// https://arxiv.org/abs/<id>. Anything else is rejected by Parse, so a URI
// that reaches a host can always be opened.
//
// A Zotero library's items are cited by Zotero's own URIs, so that a click
// opens Zotero at the place. Their paths are "zotero:items/<KEY>" (the
// user's library) and "zotero:groups/<groupID>/items/<KEY>" (a group
// library): with a page they encode as
//
//	zotero://open-pdf/library/items/QTBRV54N?page=3
//	zotero://open-pdf/library/items/QTBRV54N?page=3&annotation=NXDAMBZG
//
// with a location in an EPUB, an EPUB CFI, as
//
//	zotero://open-pdf/library/items/E77HNKG7?cfi=epubcfi%28%2F6%2F14%21%2F4%2F2%2F4%29
//
// (the CFI percent-encoded like a fragment's value), and without either as
// zotero://select/library/items/<KEY> (a section or region has no Zotero
// form and is left off).
package cite

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrInvalid is returned (wrapped) by Parse for any string that is not a
// citation URI of one of the accepted forms.
var ErrInvalid = errors.New("invalid citation URI")

// Prefixes of the two external forms.
const (
	doiPrefix   = "https://doi.org/"
	arxivPrefix = "https://arxiv.org/abs/"
)

// URI is a parsed citation URI. Exactly one of Path, DOI and ArXiv is set;
// for a Vault path at most one of Page, Section, Region and Item is set.
type URI struct {
	Path    string // vault-relative path, decoded, '/'-separated
	Page    int    // 1-based physical page, 0 when absent
	Section string // section label, decoded
	Region  string // layout region or layout-index id
	// Item is a figure, table or algorithm by its kind and number,
	// "figure-3" for #figure=3 (a figure, table or algorithm).
	Item  string
	DOI   string // for https://doi.org/ links
	ArXiv string // for https://arxiv.org/abs/ links
	// Annotation is a Zotero annotation's key, on the page of a Zotero
	// path (&annotation=<KEY>).
	Annotation string
	// CFI is a location in an EPUB of a Zotero path, an EPUB CFI
	// "epubcfi(…)" (?cfi=…); a page, when set, wins.
	CFI string
}

// String encodes u. The zero URI encodes as "".
//
// String only returns what Parse accepts back, so a URI handed out can
// always be read back: a section or region label Parse refuses (one that
// reads as a traversal, say a heading "../../etc/passwd", or a region id
// with a slash) is left off, so the URI cites the whole file; a path, DOI
// or arXiv id Parse refuses encodes as "", no link at all.
func (u URI) String() string {
	s := u.encode()
	if s == "" {
		return ""
	}
	if _, err := Parse(s); err == nil {
		return s
	}
	if u.Page > 0 || u.Section != "" || u.Region != "" || u.Item != "" || u.CFI != "" {
		return URI{Path: u.Path}.String()
	}
	return ""
}

// encode writes u without checking it.
func (u URI) encode() string {
	switch {
	case u.DOI != "":
		return doiPrefix + escape(u.DOI, true)
	case u.ArXiv != "":
		return arxivPrefix + escape(u.ArXiv, true)
	case u.Path == "":
		return ""
	}
	if lib, key, ok := zoteroPath(u.Path); ok {
		if u.Page == 0 && u.CFI != "" {
			return zoteroScheme + "open-pdf/" + lib + "/items/" + key + "?cfi=" + escape(u.CFI, false)
		}
		if u.Page == 0 {
			return zoteroScheme + "select/" + lib + "/items/" + key
		}
		s := zoteroScheme + "open-pdf/" + lib + "/items/" + key + "?page=" + strconv.Itoa(u.Page)
		if zoteroKey(u.Annotation) {
			s += "&annotation=" + u.Annotation
		}
		return s
	}
	s := escape(u.Path, true)
	switch {
	case u.Page > 0:
		s += "#page=" + strconv.Itoa(u.Page)
	case u.Section != "":
		s += "#section=" + escape(u.Section, false)
	case u.Region != "":
		s += "#region=" + escape(u.Region, false)
	case u.Item != "":
		kind, num, _ := strings.Cut(u.Item, "-")
		s += "#" + escape(kind, false) + "=" + escape(num, false)
	}
	return s
}

// Item returns the URI of a figure, table or algorithm of a vault file by
// its id, kind and number ("figure-3": #figure=3).
func Item(path, id string) string { return URI{Path: path, Item: id}.String() }

// File returns the URI of a vault file with no fragment.
func File(path string) string { return URI{Path: path}.String() }

// Page returns the URI of a 1-based physical page of a vault file.
func Page(path string, page int) string { return URI{Path: path, Page: page}.String() }

// Section returns the URI of a labelled section of a vault file.
func Section(path, label string) string { return URI{Path: path, Section: label}.String() }

// Region returns the URI of a layout region of a vault file.
func Region(path, id string) string { return URI{Path: path, Region: id}.String() }

// CFI returns the URI of a location in an EPUB of a Zotero path by its EPUB
// CFI; a CFI Parse would refuse (not "epubcfi(…)", over 1,024 bytes, control
// characters) gives the attachment's URI.
func CFI(path, cfi string) string { return URI{Path: path, CFI: cfi}.String() }

// DOI returns the https://doi.org/ link of a DOI, or "" for an empty one.
func DOI(doi string) string { return URI{DOI: doi}.String() }

// ArXiv returns the https://arxiv.org/abs/ link of an arXiv id, or "".
func ArXiv(id string) string { return URI{ArXiv: id}.String() }

// Parse decodes a citation URI, rejecting every form but the vault
// fragments (page, section, region, and figure, table or algorithm), the
// two external links and Zotero's select and open-pdf URIs of an item
// (decoded to its Zotero path). Decoded vault paths are checked
// segment by segment: no empty, "." or ".." segment, no encoded '/', no
// backslash, no NUL and no leading '/'.
func Parse(s string) (URI, error) {
	bad := func(why string) (URI, error) {
		return URI{}, fmt.Errorf("%w: %s", ErrInvalid, why)
	}
	if s == "" {
		return bad("empty")
	}
	if strings.ContainsAny(s, "\x00\\") {
		return bad("NUL or backslash")
	}
	if rest, ok := strings.CutPrefix(s, doiPrefix); ok {
		doi, err := unescape(rest)
		if err != nil || !strings.HasPrefix(doi, "10.") || strings.ContainsAny(doi, "#?") {
			return bad("not a DOI link")
		}
		return URI{DOI: doi}, nil
	}
	if rest, ok := strings.CutPrefix(s, arxivPrefix); ok {
		id, err := unescape(rest)
		if err != nil || id == "" || strings.ContainsAny(id, "#? ") {
			return bad("not an arXiv link")
		}
		return URI{ArXiv: id}, nil
	}
	if rest, ok := strings.CutPrefix(s, zoteroScheme); ok {
		u, err := parseZotero(rest)
		if err != nil {
			return bad(err.Error())
		}
		return u, nil
	}
	if strings.Contains(s, "://") || strings.HasPrefix(s, "/") {
		return bad("not a vault path or an accepted link")
	}
	raw, frag, hasFrag := strings.Cut(s, "#")
	var u URI
	segs := strings.Split(raw, "/")
	for i, seg := range segs {
		d, err := unescape(seg)
		if err != nil {
			return bad("bad percent-encoding")
		}
		switch {
		case d == "..":
			return bad(`".." is not allowed in a path: name the file without it`)
		case d == "" || d == ".":
			return bad(`an empty or "." path segment is not allowed`)
		case strings.Contains(d, "/"):
			return bad(`an encoded "/" (%2F) is not allowed in a path segment`)
		case strings.ContainsAny(d, "\\\x00") || !utf8.ValidString(d):
			return bad("an encoded backslash or NUL, or bytes that are not UTF-8, in a path segment")
		}
		segs[i] = d
	}
	u.Path = strings.Join(segs, "/")
	if !hasFrag {
		return u, nil
	}
	key, val, ok := strings.Cut(frag, "=")
	if !ok || val == "" {
		return bad(hashInName)
	}
	switch key {
	case "page":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || strconv.Itoa(n) != val {
			return bad("bad page")
		}
		u.Page = n
	case "section", "region":
		d, err := unescape(val)
		if err != nil || d == "" || strings.ContainsRune(d, 0) || !utf8.ValidString(d) ||
			key == "region" && strings.ContainsAny(d, "/\\") || looksLikeTraversal(d) {
			return bad("bad " + key)
		}
		if key == "section" {
			u.Section = d
		} else {
			u.Region = d
		}
	case "figure", "table", "algorithm":
		d, err := unescape(val)
		if err != nil || d == "" || len(d) > 16 || !itemNumber(d) {
			return bad("bad " + key)
		}
		u.Item = key + "-" + d
	default:
		return bad("unknown fragment " + strconv.Quote(key) + "; " + hashInName)
	}
	return u, nil
}

// hashInName is why a fragment that is none of the accepted ones is
// refused: most often a '#' in a file name, taken for a fragment's start.
const hashInName = `"#" starts a fragment (#page=N, #section=…, #region=…): a "#" in a file name must be percent-encoded as %23`

// itemNumber reports a number a caption gives: letters, digits and dots
// ("3", "S1", "A.2", "1.1"), starting with a letter or digit.
func itemNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' && i > 0) {
			return false
		}
	}
	return true
}

// looksLikeTraversal reports a label that reads as a relative path out of a
// folder. Labels are matched by equality only, so such a label could never
// reach another file; it is still refused, so that no locator a host shows
// looks like one that leaves the Vault.
func looksLikeTraversal(label string) bool {
	return strings.Contains(label, "../") || strings.Contains(label, "..\\") || strings.HasSuffix(label, "/..") || label == ".."
}

// escape percent-encodes everything but unreserved characters and, in paths,
// the '/' separator. Keeping the set small makes the encoding canonical.
func escape(s string, path bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || (path && c == '/') {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// unescape decodes %XX sequences strictly; '+' stays '+'.
func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", ErrInvalid
		}
		h, ok1 := unhex(s[i+1])
		l, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", ErrInvalid
		}
		b.WriteByte(h<<4 | l)
		i += 2
	}
	return b.String(), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// zoteroScheme starts Zotero's URIs.
const zoteroScheme = "zotero://"

// Annotation returns the URI of an annotation on a 1-based page of a Zotero
// attachment (a Zotero path, see the package comment): the page's URI with
// &annotation=<key>. Another path gives the page's URI.
func Annotation(path string, page int, key string) string {
	return URI{Path: path, Page: page, Annotation: key}.String()
}

// IsZotero reports whether p is the path of a Zotero item, attachment or
// note, cited by Zotero's own URIs (see the package comment).
func IsZotero(p string) bool {
	_, _, ok := zoteroPath(p)
	return ok
}

// zoteroPath reports whether p is a Zotero path, "zotero:items/<KEY>" or
// "zotero:groups/<groupID>/items/<KEY>", and returns the library part of
// its URI ("library" or "groups/<groupID>") and the key.
func zoteroPath(p string) (lib, key string, ok bool) {
	rest, ok := strings.CutPrefix(p, "zotero:")
	if !ok {
		return "", "", false
	}
	lib = "library"
	if g, ok := strings.CutPrefix(rest, "groups/"); ok {
		id, r, ok := strings.Cut(g, "/")
		if !ok || !groupID(id) {
			return "", "", false
		}
		lib, rest = "groups/"+id, r
	}
	key, ok = strings.CutPrefix(rest, "items/")
	if !ok || !zoteroKey(key) {
		return "", "", false
	}
	return lib, key, true
}

// zoteroKey reports a Zotero object key: 8 characters from A–Z and 0–9.
func zoteroKey(s string) bool {
	if len(s) != 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// groupID reports a group library's id: 1 to 12 digits, no leading zero.
func groupID(s string) bool {
	if s == "" || len(s) > 12 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxCFI bounds an EPUB CFI: Zotero's are tens of bytes.
const maxCFI = 1024

// epubCFI reports an EPUB CFI as Zotero keeps one: "epubcfi(…)", at most
// maxCFI bytes of UTF-8 without control characters.
func epubCFI(s string) bool {
	if len(s) > maxCFI || len(s) <= len("epubcfi()") || !strings.HasPrefix(s, "epubcfi(") || !strings.HasSuffix(s, ")") || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// parseZotero decodes what follows "zotero://": select/<lib>/items/<KEY>,
// or open-pdf/<lib>/items/<KEY> with ?page=N and then &annotation=<KEY>, or
// with ?cfi=<CFI>.
func parseZotero(s string) (URI, error) {
	action, rest, _ := strings.Cut(s, "/")
	rest, query, hasQuery := strings.Cut(rest, "?")
	var p string
	if g, ok := strings.CutPrefix(rest, "groups/"); ok {
		p = "zotero:groups/" + g
	} else if k, ok := strings.CutPrefix(rest, "library/"); ok {
		p = "zotero:" + k
	} else {
		return URI{}, errors.New("not a Zotero library URI")
	}
	if _, _, ok := zoteroPath(p); !ok {
		return URI{}, errors.New("not a Zotero item URI")
	}
	u := URI{Path: p}
	switch action {
	case "select":
		if hasQuery {
			return URI{}, errors.New("a Zotero select URI takes no query")
		}
		return u, nil
	case "open-pdf":
	default:
		return URI{}, errors.New("not a Zotero select or open-pdf URI")
	}
	if !hasQuery {
		return u, nil
	}
	if v, ok := strings.CutPrefix(query, "cfi="); ok {
		d, err := unescape(v)
		if err != nil || !epubCFI(d) || escape(d, false) != v {
			return URI{}, errors.New("bad cfi")
		}
		u.CFI = d
		return u, nil
	}
	page, ann, hasAnn := strings.Cut(query, "&")
	n, ok := strings.CutPrefix(page, "page=")
	v, err := strconv.Atoi(n)
	if !ok || err != nil || v < 1 || strconv.Itoa(v) != n {
		return URI{}, errors.New("bad page")
	}
	u.Page = v
	if hasAnn {
		k, ok := strings.CutPrefix(ann, "annotation=")
		if !ok || !zoteroKey(k) {
			return URI{}, errors.New("bad annotation")
		}
		u.Annotation = k
	}
	return u, nil
}
