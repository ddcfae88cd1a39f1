package grant

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
)

// fingerprintVersion names the canonical encoding below. It changes only if
// the encoding does, which would change every fingerprint: never lightly.
const fingerprintVersion = "researchctx-scope/1"

// Fingerprint returns "sha256:" + the hex SHA-256 of a canonical encoding of
// the scope: the tool list (sorted), the allowed sources (sorted by kind,
// then path; titles left out; a connector's config in canonical JSON), the
// budget and the mode. Quotes,
// evidence, turn ids and times are not part of it, so the same scope gives
// the same fingerprint in any process, on any day.
//
// The encoding is one line per item, fields separated by a tab, paths quoted
// with strconv.Quote so no value can forge a line:
//
//	researchctx-scope/1
//	mode "mcp"
//	tool "context_read"
//	source "directory" "notes"
//	source "bibtex" "refs.bib" "{\"file\":\"refs.bib\"}"
//	budget searchCards 8
//
// A source without a config has no third field, so the Vault's sources
// fingerprint as they did before connectors existed. A config that is not
// valid JSON is encoded as written (Grant validation refuses it anyway).
func (sc Scope) Fingerprint() string {
	tools, sources, b, mode := sc.Tools, sc.Sources, sc.Budget, sc.Mode
	var s strings.Builder
	s.WriteString(fingerprintVersion + "\n")
	s.WriteString("mode\t" + strconv.Quote(string(mode)) + "\n")
	ts := append([]string(nil), tools...)
	sort.Strings(ts)
	for _, t := range ts {
		s.WriteString("tool\t" + strconv.Quote(t) + "\n")
	}
	for _, src := range sortedRefs(sources) {
		s.WriteString("source\t" + strconv.Quote(string(src.Kind)) + "\t" + strconv.Quote(src.Path))
		if len(src.Config) > 0 {
			c, err := canonicalConfig(src.Config)
			if err != nil {
				c = string(src.Config)
			}
			s.WriteString("\t" + strconv.Quote(c))
		}
		s.WriteString("\n")
	}
	for _, f := range b.fields() {
		s.WriteString("budget\t" + f.name + "\t" + strconv.Itoa(*f.v) + "\n")
	}
	sum := sha256.Sum256([]byte(s.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}
