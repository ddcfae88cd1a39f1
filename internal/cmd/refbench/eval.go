package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources/vault"
)

// Result is what one half of the labelled set scores.
type Result struct {
	Papers int // citing papers evaluated

	// Reference entries of the labelled papers.
	Entries    int // labelled entries
	Printed    int // entries the papers print (labelled or not)
	Parsed     int // entries parsed from the same papers
	SplitRight int // labelled entries parsed as exactly one entry of their own
	TitleRight int // labelled entries whose title was parsed exactly (normalised)

	// In-library edges: citing paper → cited library paper.
	EdgesWant    int
	EdgesGot     int // edges the graph reports
	EdgesRight   int // reported edges that are labelled
	CitedByRight int // labelled edges that the cited paper's cited-by shows with the citing paper's own path

	// Reference cards of every evaluated paper.
	Cards, Titled, Dated int

	Misses []string // what went wrong, one line each
}

// Rate returns n/d, or 1 when d is 0.
func Rate(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// String formats r as one line of scores.
func (r *Result) String() string {
	return fmt.Sprintf("papers %d | entries %d labelled (%d printed, %d parsed): split %.3f, title exact %.3f | edges %d labelled, %d reported: recall %.3f, precision %.3f, cited-by recall %.3f | cards %d: titled %.3f, with year %.3f",
		r.Papers, r.Entries, r.Printed, r.Parsed, Rate(r.SplitRight, r.Entries), Rate(r.TitleRight, r.Entries),
		r.EdgesWant, r.EdgesGot, Rate(r.EdgesRight, r.EdgesWant), Rate(r.EdgesRight, r.EdgesGot), Rate(r.CitedByRight, r.EdgesWant),
		r.Cards, Rate(r.Titled, r.Cards), Rate(r.Dated, r.Cards))
}

// squash is the form titles are compared in: folded letters and digits
// only, so that a hyphen lost at a line break or a changed quote mark does
// not count as a different title.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, textnorm.Fold(s))
}

// Evaluate scores the papers of one split (see LabelledPaper.Split) of l in
// the library v, whose citation graph is rel.
func Evaluate(ctx context.Context, v *catalog.Vault, lib *vault.Library, rel *relations.Graph, l *Labels, split string) (*Result, error) {
	r := &Result{}
	byFile := map[string]*LabelledPaper{}
	for i := range l.Papers {
		byFile[l.Papers[i].File] = &l.Papers[i]
	}
	for i := range l.Papers {
		p := &l.Papers[i]
		if p.Split != split {
			continue
		}
		r.Papers++
		if len(p.Entries) > 0 {
			text, err := paperText(ctx, v, lib, p.Ref())
			if err != nil {
				return nil, err
			}
			scoreEntries(r, p, relations.Entries(text))
		}
		rels, err := rel.Relations(ctx, p.Ref())
		if err != nil {
			return nil, err
		}
		want := map[string]bool{}
		for _, c := range p.Cites {
			q := byFile[c]
			if q == nil {
				return nil, fmt.Errorf("%s cites %s, which is not in the labels", p.File, c)
			}
			want[q.Ref()] = true
		}
		r.EdgesWant += len(want)
		for _, w := range rels.References {
			r.Cards++
			if w.Title != "" {
				r.Titled++
			} else {
				r.Misses = append(r.Misses, fmt.Sprintf("%s: untitled card %s %s", p.File, w.DOI, w.ArXivID))
			}
			if w.Year > 0 {
				r.Dated++
			}
			if w.Paper == "" {
				continue
			}
			r.EdgesGot++
			if want[w.Paper] {
				r.EdgesRight++
			} else {
				r.Misses = append(r.Misses, fmt.Sprintf("%s: wrong edge to %s (%q)", p.File, w.Paper, w.Title))
			}
		}
		for q := range want {
			found := slices.ContainsFunc(rels.References, func(w relations.Work) bool { return w.Paper == q })
			if !found {
				r.Misses = append(r.Misses, fmt.Sprintf("%s: missed edge to %s", p.File, q))
			}
			back, err := rel.Relations(ctx, q)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(back.CitedBy, func(w relations.Work) bool { return w.Paper == p.Ref() }) {
				r.CitedByRight++
			}
		}
	}
	return r, nil
}

// scoreEntries compares the parsed entries of p with its labels.
func scoreEntries(r *Result, p *LabelledPaper, got []relations.Entry) {
	r.Entries += len(p.Entries)
	r.Printed += max(p.EntryCount, len(p.Entries))
	r.Parsed += len(got)
	raws := make([]string, len(got))
	titles := map[string]bool{}
	for i, e := range got {
		raws[i] = squash(e.Raw)
		titles[squash(e.Title)] = true
	}
	labels := make([]string, len(p.Entries))
	for i, t := range p.Entries {
		labels[i] = squash(t)
	}
	for i, t := range labels {
		if titles[t] {
			r.TitleRight++
		} else {
			r.Misses = append(r.Misses, fmt.Sprintf("%s: title %q not parsed", p.File, p.Entries[i]))
		}
		// Split right: the parsed entries holding this title are as many
		// as the labelled titles holding it (a title can be part of
		// another, or be printed twice), and none of them also holds a
		// title unrelated to it (two entries run together).
		expect := 0
		for _, u := range labels {
			if strings.Contains(u, t) {
				expect++
			}
		}
		holders := 0
		clean := true
		for _, raw := range raws {
			if !strings.Contains(raw, t) {
				continue
			}
			holders++
			for _, u := range labels {
				if !strings.Contains(u, t) && !strings.Contains(t, u) && strings.Contains(raw, u) {
					clean = false
				}
			}
		}
		if holders == expect && clean {
			r.SplitRight++
		} else {
			r.Misses = append(r.Misses, fmt.Sprintf("%s: entry %q split wrong (%d holders)", p.File, p.Entries[i], holders))
		}
	}
}
