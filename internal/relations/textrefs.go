package relations

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
)

// maxRefText bounds how much of a reference section is scanned.
const maxRefText = 4 << 20

// refHeading matches a line that is only a reference-section heading,
// optionally numbered ("7 References", "VII. REFERENCES", "References:").
var refHeading = lazyRegexp(`(?i)^(?:[0-9]{1,2}\.?|[ivxlc]{1,6}\.|[a-z]\.)?\s*(?:references(?:\s+and\s+notes)?|bibliography|literature\s+cited|works\s+cited|参\s*考\s*文\s*献|参考資料)\s*:?$`)

// Identifier patterns in reference text. arXiv ids keep their version for
// the record; matching drops it.
var (
	doiRe = lazyRegexp(`10\.[0-9]{4,9}/[^\s"<>]+`)
	// arXiv:2401.01234v2, arXiv 2401.01234, arXiv: hep-th/9901001.
	arxivNewRe = lazyRegexp(`(?i)\barxiv\s*:?\s*([0-9]{4}\.[0-9]{4,5})(v[0-9]+)?\b`)
	arxivOldRe = lazyRegexp(`(?i)\barxiv\s*:\s*([a-z][a-z-]*(?:\.[a-z]{2})?/[0-9]{7})(v[0-9]+)?\b`)
	// arxiv.org/abs/… or /pdf/… links, and CoRR's abs/… notation.
	arxivURLRe  = lazyRegexp(`(?i)arxiv\.org/(?:abs|pdf)/([0-9]{4}\.[0-9]{4,5}|[a-z][a-z-]*(?:\.[a-z]{2})?/[0-9]{7})(v[0-9]+)?`)
	arxivCoRRRe = lazyRegexp(`(?i)\bcorr\b[,:]?\s*(?:vol\.\s*)?abs/([0-9]{4}\.[0-9]{4,5})(v[0-9]+)?\b`)
)

// referenceSection returns the part of a paper's text after its last
// reference-section heading, or its last third when no heading is found.
func referenceSection(text string) string {
	start := -1
	off := 0
	for line := range strings.SplitAfterSeq(text, "\n") {
		t := strings.TrimSpace(strings.Trim(line, "\f\r\n"))
		if len(t) <= 40 && refHeading().MatchString(t) {
			start = off + len(line)
		}
		off += len(line)
	}
	if start < 0 {
		start = len(text) - len(text)/3
		// Start on a line boundary so a DOI is not cut in half.
		if i := strings.LastIndexByte(text[:start], '\n'); i >= 0 {
			start = i + 1
		}
	}
	sec := text[start:]
	if len(sec) > maxRefText {
		sec = sec[:maxRefText]
	}
	return sec
}

// textIDs returns the references of a paper's text: one per entry of its
// reference section (see Entries), with its parsed title, authors, year and
// identifiers, then a reference for each DOI or arXiv id of the section
// that no entry holds (a list the splitter could not read), in order of
// appearance, without repeating an identifier.
func textIDs(text string) []ref {
	return textRefs(text, false)
}

// textRefs is textIDs; with cites, each entry's reference also carries
// its label and the sentences of the body that cite it (see
// citeContexts), text being the paper's pages separated by form feeds.
func textRefs(text string, cites bool) []ref {
	seen := map[string]bool{}
	var out []ref
	es, style := entries(text)
	var ctxs [][]Context
	if cites {
		ctxs = citeContexts(text, es, style)
	}
	for i, e := range es {
		r := ref{title: e.Title, authors: e.Authors, year: e.Year, doi: e.DOI, arxiv: e.ArXivID, parsed: e.Title != ""}
		if cites {
			r.label = e.Label
			if ctxs != nil {
				r.contexts = ctxs[i]
			}
		}
		if r.title == "" && hasWord(arxivIDRe().ReplaceAllString(urlRe().ReplaceAllString(e.Raw, " "), " "), 3) {
			// No title could be read: the entry's own text says more than
			// nothing, unless it is only identifiers.
			r.title = shorten(e.Raw, maxRawTitle)
		}
		for _, k := range []string{idKey(r.doi, ""), idKey("", r.arxiv)} {
			if k != "" {
				seen[k] = true
			}
		}
		if r.title == "" && r.doi == "" && r.arxiv == "" {
			continue
		}
		out = append(out, r)
	}
	for _, r := range sectionIDs(text) {
		if k := idKey(r.doi, r.arxiv); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// sectionIDs returns the DOIs and arXiv ids cited in the reference section
// of text, normalised, in order of first appearance, without duplicates.
func sectionIDs(text string) []ref {
	sec := referenceSection(text)
	type hit struct {
		at  int
		ref ref
	}
	var hits []hit
	for _, m := range doiRe().FindAllStringIndex(sec, -1) {
		if d := doiAt(sec, m[0], m[1]); d != "" {
			doi, arxiv := identifiers(d, "")
			hits = append(hits, hit{m[0], ref{doi: doi, arxiv: arxiv}})
		}
	}
	for _, re := range []func() *regexp.Regexp{arxivNewRe, arxivOldRe, arxivURLRe, arxivCoRRRe} {
		for _, m := range re().FindAllStringSubmatchIndex(sec, -1) {
			id := sec[m[2]:m[3]]
			if !plausibleArXiv(id) {
				continue
			}
			hits = append(hits, hit{m[0], ref{arxiv: cite.NormalizeArXiv(id)}})
		}
	}
	// Order by position; for one position keep the first pattern's hit.
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.at, b.at) })
	seen := map[string]bool{}
	var out []ref
	for _, h := range hits {
		k := idKey(h.ref.doi, h.ref.arxiv)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, h.ref)
	}
	return out
}

// doiAt returns the DOI matched at sec[i:j], trimmed of trailing punctuation
// and unbalanced closing brackets. A DOI broken at the end of a line after a
// dot, hyphen, underscore or slash is joined with the next line when that
// line starts with a digit (the usual ACM and Springer break); when it
// cannot be joined and what is left has no digit after the prefix (as in
// "10.1109/CVPR." followed by words), it is dropped as cut short.
func doiAt(sec string, i, j int) string {
	d := sec[i:j]
	atEOL := j == len(sec) || sec[j] == '\n' || sec[j] == '\r' || sec[j] == '\f'
	cut := false
	if atEOL && strings.ContainsAny(d[len(d)-1:], ".-_/") {
		rest := strings.TrimLeft(sec[j:], "\r\n\f")
		if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			end := strings.IndexFunc(rest, func(r rune) bool {
				return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '"' || r == '<' || r == '>'
			})
			if end < 0 {
				end = len(rest)
			}
			d += rest[:end]
		} else {
			cut = true
		}
	}
	for d != "" {
		last, n := utf8.DecodeLastRuneInString(d)
		switch {
		case strings.ContainsRune(".,;:'`’”\"", last),
			last == ')' && strings.Count(d, "(") < strings.Count(d, ")"),
			last == ']' && strings.Count(d, "[") < strings.Count(d, "]"),
			last == '}' && strings.Count(d, "{") < strings.Count(d, "}"):
			d = d[:len(d)-n]
			continue
		}
		break
	}
	slash := strings.IndexByte(d, '/')
	if slash < 0 || slash == len(d)-1 {
		return ""
	}
	if cut && !strings.ContainsAny(d[slash:], "0123456789") {
		return ""
	}
	return d
}

// plausibleArXiv rejects new-style ids whose month is not 01–12.
func plausibleArXiv(id string) bool {
	if len(id) < 5 || id[4] != '.' {
		return true // old style: archive/YYMMNNN
	}
	m, err := strconv.Atoi(id[2:4])
	return err == nil && m >= 1 && m <= 12
}
