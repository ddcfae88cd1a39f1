package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// LinkResult is what one group of the labelled set scores through the
// library's own paper sources, as paper_relations reads them (the PDF's
// authors, year and identifiers standing in for what metadata.json lacks).
type LinkResult struct {
	Papers                          int
	EdgesWant, EdgesGot, EdgesRight int
	CitedByRight                    int
	// Contexted counts the right edges whose card carries a context;
	// ContextRight those whose every context is on the page it names and
	// cites the work by its label or its first author's surname.
	Contexted, ContextRight int
	Misses                  []string
}

// String formats r as one line of scores.
func (r *LinkResult) String() string {
	return fmt.Sprintf("papers %d | edges %d labelled, %d reported: recall %.3f, precision %.3f, cited-by recall %.3f | found edges with a context %.3f, context on its page citing by label or author %.3f",
		r.Papers, r.EdgesWant, r.EdgesGot, Rate(r.EdgesRight, r.EdgesWant), Rate(r.EdgesRight, r.EdgesGot), Rate(r.CitedByRight, r.EdgesWant),
		Rate(r.Contexted, r.EdgesRight), Rate(r.ContextRight, r.EdgesRight))
}

// BuildTitlesVault is BuildVault with metadata.json holding the title and
// the arXiv id only, as in a library built by hand.
func BuildTitlesVault(pdfs, dir string, l *Labels) error {
	return buildTitles(pdfs, dir, l, true)
}

// BuildTitleOnlyVault is BuildVault with metadata.json holding the title
// only, as in a folder of downloads titled by hand.
func BuildTitleOnlyVault(pdfs, dir string, l *Labels) error {
	return buildTitles(pdfs, dir, l, false)
}

func buildTitles(pdfs, dir string, l *Labels, ids bool) error {
	if err := BuildVault(pdfs, dir, l); err != nil {
		return err
	}
	for _, p := range l.Papers {
		meta := map[string]any{"title": p.Title}
		if p.ArXiv != "" && ids {
			meta["arxiv_id"] = p.ArXiv
		}
		m, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p.Ref()), "metadata.json"), m, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// EvaluateLinks scores the in-library edges of one split through lib's
// paper sources.
func EvaluateLinks(ctx context.Context, lib *vault.Library, l *Labels, split string) (*LinkResult, error) {
	r := &LinkResult{}
	byFile := map[string]*LabelledPaper{}
	for i := range l.Papers {
		byFile[l.Papers[i].File] = &l.Papers[i]
	}
	relationsOf := func(ref string) (*sources.Relations, error) {
		src, err := lib.Open(ctx, grant.KindPaper, ref)
		if err != nil {
			return nil, err
		}
		rel, ok := src.(sources.Relater)
		if !ok {
			return nil, fmt.Errorf("%s: no relations", ref)
		}
		return rel.Relations(ctx)
	}
	for i := range l.Papers {
		p := &l.Papers[i]
		if p.Split != split {
			continue
		}
		r.Papers++
		rels, err := relationsOf(p.Ref())
		if err != nil {
			return nil, err
		}
		want := map[string]*LabelledPaper{}
		for _, c := range p.Cites {
			if q := byFile[c]; q != nil {
				want[q.Ref()] = q
			}
		}
		r.EdgesWant += len(want)
		var pages []string
		for _, w := range rels.References {
			if w.Paper == "" {
				continue
			}
			r.EdgesGot++
			q := want[w.Paper]
			if q == nil {
				r.Misses = append(r.Misses, fmt.Sprintf("%s: wrong edge to %s", p.File, w.Paper))
				continue
			}
			r.EdgesRight++
			if len(w.Contexts) == 0 {
				r.Misses = append(r.Misses, fmt.Sprintf("%s: edge to %s (label %q) without a context", p.File, w.Paper, w.Label))
				continue
			}
			r.Contexted++
			if pages == nil {
				text, err := libText(ctx, lib, p.Ref())
				if err != nil {
					return nil, err
				}
				pages = strings.Split(text, "\f")
			}
			if ok, why := contextRight(w, q, pages); ok {
				r.ContextRight++
			} else {
				r.Misses = append(r.Misses, fmt.Sprintf("%s: edge to %s: %s", p.File, w.Paper, why))
			}
		}
		for q := range want {
			back, err := relationsOf(q)
			if err != nil {
				return nil, err
			}
			found := false
			for _, w := range back.CitedBy {
				found = found || w.Paper == p.Ref()
			}
			if found {
				r.CitedByRight++
			} else {
				r.Misses = append(r.Misses, fmt.Sprintf("%s: %s does not list it as cited-by", p.File, q))
			}
		}
	}
	return r, nil
}

var numeric = regexp.MustCompile(`^[0-9]+$`)

// contextRight reports whether every context of w lies on the page it
// names and cites w by its label or its first author's surname.
func contextRight(w sources.Work, q *LabelledPaper, pages []string) (bool, string) {
	author := ""
	if len(q.Authors) > 0 {
		f := strings.Fields(q.Authors[0])
		author = squash(f[len(f)-1])
	}
	for _, c := range w.Contexts {
		if c.Page < 1 || c.Page > len(pages) {
			return false, fmt.Sprintf("context on page %d of %d", c.Page, len(pages))
		}
		text := strings.TrimPrefix(c.Text, "…")
		if !strings.Contains(squash(pages[c.Page-1]), squash(text)) {
			return false, fmt.Sprintf("context %q not on page %d", c.Text, c.Page)
		}
		cites := author != "" && strings.Contains(squash(c.Text), author)
		if numeric.MatchString(w.Label) {
			// A number cites only inside brackets: "[12]", "[3, 12]".
			// A number cites inside brackets ("[12]", "[3, 12]") or as a
			// superscript glued to a word ("learning55").
			cites = cites || regexp.MustCompile(`\[[^\]]*\b`+w.Label+`\b[^\]]*\]|\p{Ll}[.,]?`+w.Label+`\b`).MatchString(c.Text)
		} else if w.Label != "" {
			label := w.Label
			if i := strings.IndexByte(label, ' '); i > 0 {
				label = label[:i] // "Vaswani et al., 2017": the surname
			}
			cites = cites || strings.Contains(squash(c.Text), squash(label))
		}
		if !cites {
			return false, fmt.Sprintf("context %q cites neither %q nor %q", c.Text, w.Label, author)
		}
	}
	return true, ""
}
