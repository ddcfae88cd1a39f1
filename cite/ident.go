package cite

import (
	"regexp"
	"strings"
)

// NormalizeDOI returns the canonical form of a DOI used for matching: trimmed,
// lower-cased, with any https://doi.org/ (or doi:) prefix dropped. It returns
// "" for a string that is not a DOI.
func NormalizeDOI(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/", "doi:"} {
		s = strings.TrimPrefix(s, p)
	}
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "10.") || !strings.Contains(s, "/") {
		return ""
	}
	return s
}

var arxivVersion = regexp.MustCompile(`v[0-9]+$`)

// NormalizeArXiv returns the canonical form of an arXiv id used for matching:
// trimmed, lower-cased, without an arxiv: or https://arxiv.org/abs/ prefix and
// without its version suffix ("2401.01234v2" → "2401.01234").
func NormalizeArXiv(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv.org/abs/", "arxiv:"} {
		s = strings.TrimPrefix(s, p)
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), ".pdf")
	return arxivVersion.ReplaceAllString(s, "")
}

// arXivAliasPrefix is the DOI prefix arXiv registers for every preprint:
// 10.48550/arxiv.<id> names the same work as arXiv <id>.
const arXivAliasPrefix = "10.48550/arxiv."

// Identifiers returns the normalised DOI and arXiv id of a work, resolving
// the arXiv DOI alias in either direction: a DOI 10.48550/arxiv.<id> yields
// arXiv <id>, and an arXiv id with no DOI stays without one.
func Identifiers(doi, arxiv string) (normDOI, normArXiv string) {
	normDOI = NormalizeDOI(doi)
	normArXiv = NormalizeArXiv(arxiv)
	if id, ok := strings.CutPrefix(normDOI, arXivAliasPrefix); ok {
		if normArXiv == "" {
			normArXiv = NormalizeArXiv(id)
		}
		normDOI = ""
	}
	return normDOI, normArXiv
}
