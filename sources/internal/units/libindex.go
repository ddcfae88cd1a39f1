package units

import (
	"github.com/researchctx/researchctx/internal/libindex"
	"github.com/researchctx/researchctx/sources"
)

// IndexUnits returns us as units of the library index (package
// internal/libindex), each indexed from its body after its title line (a
// mark's text is all body), a mark's own URI kept with it: what the
// Vault's and Zotero's extraction give the index.
func IndexUnits(us []Unit) []libindex.Unit {
	out := make([]libindex.Unit, len(us))
	for i, u := range us {
		body := BodyAfterTitle(u.Text, u.Title)
		if u.Mark != "" {
			body = u.Text // a mark's text is all body
		}
		out[i] = libindex.Unit{Path: u.Loc.Path, Label: u.Loc.Label, Section: u.Loc.Section, Page: u.Loc.Page,
			Title: u.Title, Text: u.Text, Mark: string(u.Mark), Comment: u.Comment, URI: u.URI, BodyStart: len(u.Text) - len(body)}
	}
	return out
}

// Results returns a library index search's hits, best first, as the
// results of the query q: at most limit hits, of total matches. A mark
// that does not answer q (MarkAnswers) is left out, and out of the
// total; a mark's hit carries the mark (HitMark) and its excerpt, any
// other's excerpt is its best passage of at most q.ExcerptChars.
func Results(hits []libindex.Hit, total, limit int, q sources.Query) *sources.Results {
	res := &sources.Results{Total: total, Hits: make([]sources.Hit, 0, min(limit, len(hits)))}
	for _, h := range hits {
		u := h.Unit
		if u.Mark != "" && !MarkAnswers(u.Text, u.Comment, q.Text) {
			res.Total--
			continue
		}
		if len(res.Hits) == limit {
			break
		}
		hit := sources.Hit{Location: sources.Location{Path: u.Path, Page: u.Page, Label: u.Label, Section: u.Section}, Title: u.Title, Text: u.Text, Score: h.Norm}
		if u.Mark != "" {
			hit.Mark, hit.Text = HitMark(hit.Location, sources.MarkKind(u.Mark), u.Text, u.Comment)
			hit.Mark.URI = u.URI
			hit.Excerpt = MarkExcerpt(hit.Text, q.ExcerptChars)
		} else if q.ExcerptChars > 0 {
			s, e := h.Passage(q.Text, q.ExcerptChars)
			hit.Excerpt = u.Text[s:e]
		}
		res.Hits = append(res.Hits, hit)
	}
	return res
}
