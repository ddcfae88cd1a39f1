package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/sources/vault"
)

// bibEntry is one entry of refs.bib, as a library paper's metadata.
type bibEntry struct {
	key, title string
	authors    []string
	year       int
}

// readBibFile reads the entries of a refs.bib written one entry a line.
func readBibFile(name string) ([]bibEntry, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	field := func(line, name string) string {
		m := regexp.MustCompile(`\b` + name + `=\{([^}]*)\}`).FindStringSubmatch(line)
		if m == nil {
			return ""
		}
		return m[1]
	}
	var out []bibEntry
	for _, line := range strings.Split(string(b), "\n") {
		m := regexp.MustCompile(`^@\w+\{(\w+),`).FindStringSubmatch(line)
		if m == nil {
			continue
		}
		out = append(out, bibEntry{key: m[1], title: field(line, "title"),
			authors: strings.Split(field(line, "author"), " and "), year: atoi(field(line, "year"))})
	}
	return out, nil
}

// squashTitle folds a title to lower-case letters and digits separated by
// single spaces, so that case and punctuation do not count.
func squashTitle(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r > 0x7f && !strings.ContainsRune("“”‘’–—", r))
	}), " ")
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = 10*n + int(c-'0')
	}
	return n
}

// CiteScore is how well the citing sentences of one fixture of
// testdata/cites were found: Found contexts, Correct ones (the sentence
// cites the entry, per the fixture's truth), Expected sentences (up to
// the two a card keeps, per cited entry) and Hit of those found; Entries
// of the bibliography's Bib entries came out of the reference list tied to
// a key of their own.
type CiteScore struct {
	Name                          string
	Found, Correct, Expected, Hit int
	Entries, Bib                  int
}

// Precision is Correct / Found.
func (s CiteScore) Precision() float64 { return Rate(s.Correct, s.Found) }

// Recall is Hit / Expected.
func (s CiteScore) Recall() float64 { return Rate(s.Hit, s.Expected) }

// EvaluateCites scores the citing sentences found in every fixture of dir
// (testdata/cites): each PDF is read as a loose PDF of a library, as the
// tools read it, its entries are tied to refs.bib's by title, and each
// context is checked against truth-yes.json (natbib styles) or
// truth-no.json.
func EvaluateCites(ctx context.Context, dir, bib string) ([]CiteScore, error) {
	bibs, err := readBibFile(bib)
	if err != nil {
		return nil, err
	}
	// An entry is tied to the key whose title shares most of its words,
	// so that a title the parser read with a hyphen lost still counts
	// its contexts (the styles test scores titles).
	keyOf := func(title string) string {
		ws := strings.Fields(squashTitle(title))
		best, bestN := "", 0
		for _, b := range bibs {
			bw := strings.Fields(squashTitle(b.title))
			n := 0
			for _, w := range ws {
				if slices.Contains(bw, w) {
					n++
				}
			}
			if 10*n >= 6*max(len(ws), len(bw)) && n > bestN {
				best, bestN = b.key, n
			}
		}
		return best
	}
	pdfs, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(pdfs) == 0 {
		return nil, fmt.Errorf("%s: no fixtures", dir)
	}
	vaultDir, err := os.MkdirTemp("", "citebench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(vaultDir)
	for _, p := range pdfs {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(vaultDir, filepath.Base(p)), b, 0o644); err != nil {
			return nil, err
		}
	}
	lib, err := vault.OpenLibrary(vaultDir, &vault.LibraryOptions{})
	if err != nil {
		return nil, err
	}
	defer lib.Close()
	var out []CiteScore
	for _, p := range pdfs {
		name := strings.TrimSuffix(filepath.Base(p), ".pdf")
		truthFile := "truth-no.json"
		if strings.Contains(name, "nat-") {
			truthFile = "truth-yes.json"
		}
		raw, err := os.ReadFile(filepath.Join(dir, truthFile))
		if err != nil {
			return nil, err
		}
		var truth map[string][]string // animal → keys its sentence cites
		if err := json.Unmarshal(raw, &truth); err != nil {
			return nil, fmt.Errorf("%s: %w", truthFile, err)
		}
		sentences := map[string][]string{} // key → animals of its sentences
		for a, keys := range truth {
			for _, k := range keys {
				sentences[k] = append(sentences[k], a)
			}
		}
		src, err := lib.Open(ctx, grant.KindFile, filepath.Base(p))
		if err != nil {
			return nil, err
		}
		doc, err := src.Read(ctx, "")
		if err != nil {
			return nil, err
		}
		texts := make([]string, len(doc.Parts))
		for i, part := range doc.Parts {
			texts[i] = part.Text
		}
		s := CiteScore{Name: name, Bib: len(bibs)}
		tied := map[string]bool{}
		for _, as := range sentences {
			s.Expected += min(2, len(as))
		}
		for _, e := range relations.CitingSentences(strings.Join(texts, "\f")) {
			key := keyOf(e.Title)
			if key != "" && !tied[key] {
				tied[key] = true
				s.Entries++
			}
			var hit []string
			for _, c := range e.Contexts {
				s.Found++
				for _, a := range sentences[key] {
					if strings.Contains(c.Text, a) && !slices.Contains(hit, a) {
						s.Correct++
						hit = append(hit, a)
						break
					}
				}
			}
			s.Hit += min(len(hit), 2)
		}
		out = append(out, s)
	}
	return out, nil
}

// citesBib is the bibliography of a folder of citing-sentence fixtures:
// its own refs.bib (testdata/heldout-many), else the one of
// testdata/styles, beside it.
func citesBib(dir string) string {
	if name := filepath.Join(dir, "refs.bib"); fileExists(name) {
		return name
	}
	return filepath.Join(dir, "..", "styles", "refs.bib")
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// citeTable is the Markdown table of scores, one row per fixture, then
// each style's two fixtures together and the whole set.
func citeTable(scores []CiteScore) string {
	var b strings.Builder
	b.WriteString("| fixture | entries | contexts | precision | recall |\n|---|---:|---:|---:|---:|\n")
	var all CiteScore
	for _, s := range scores {
		fmt.Fprintf(&b, "| %s | %d / %d | %d | %.3f | %.3f |\n", s.Name, s.Entries, s.Bib, s.Found, s.Precision(), s.Recall())
		all.Entries += s.Entries
		all.Bib += s.Bib
		all.Found += s.Found
		all.Correct += s.Correct
		all.Expected += s.Expected
		all.Hit += s.Hit
	}
	fmt.Fprintf(&b, "| all | %d / %d | %d | %.3f | %.3f |\n", all.Entries, all.Bib, all.Found, all.Precision(), all.Recall())
	return b.String()
}
