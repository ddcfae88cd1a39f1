package tools

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// maxQuery bounds a query; longer ones are an argument error.
const maxQuery = 2000

// Search answers context_search: a few ranked evidence cards from the granted
// sources (or the one named), each a short verbatim excerpt with its page or
// section and citation URI. It never returns full text.
func (t *Toolset) Search(ctx context.Context, in SearchInput) (out *SearchOutput, err error) {
	caller := ctx
	ctx, cancel := t.callContext(ctx)
	defer cancel()
	defer func() {
		if t.recovered(grant.ToolSearch, recover(), &err) {
			out = nil
		}
		if err = t.ctxErr(ctx, grant.ToolSearch, err); err != nil {
			out = nil
		}
	}()
	q := strings.TrimSpace(in.Query)
	switch {
	case q == "":
		return nil, fmt.Errorf("%w: query is empty", ErrInvalidArgument)
	case utf8.RuneCountInString(q) > maxQuery:
		return nil, fmt.Errorf("%w: query is longer than %d characters", ErrInvalidArgument, maxQuery)
	case in.Limit < 0:
		return nil, fmt.Errorf("%w: limit must be positive", ErrInvalidArgument)
	}
	cards := func(b grant.Budget) int {
		if in.Limit > 0 {
			return min(in.Limit, b.SearchCards)
		}
		return b.SearchCards
	}
	tn, err := t.begin(ctx, func(b grant.Budget) int { return cards(b) * (b.CardChars + cardOverhead) })
	if err != nil {
		return nil, err
	}
	defer tn.end()
	// A search past its own deadline still hands out, and logs, what the
	// sources that answered in time found (see searchAll): only the
	// caller's end stops the logging.
	tn.ctx = caller
	b := tn.grant.Budget
	limit := cards(b)
	srcs := t.sources
	if in.Source != "" {
		tg, err := t.resolve(ctx, in.Source)
		if err != nil {
			return nil, err
		}
		if tg.path != "" {
			return nil, fmt.Errorf("%w: source must be a granted source, not a path inside one", ErrInvalidArgument)
		}
		srcs = []sources.Source{tg.src}
	}
	// Every source scores with the statistics of the whole grant, also
	// when one is named: a card's score is the same either way, and
	// nothing outside the grant weighs on it.
	query := sources.Query{Text: q, Limit: limit, ScanFiles: b.ScanFiles, ExcerptChars: b.CardChars, Collection: t.coll}
	found, err := t.searchAll(ctx, srcs, query)
	if err != nil {
		return nil, err
	}
	hits, truncated := found.hits, found.more
	if len(hits) > limit {
		hits, truncated = hits[:limit], true
	}
	out = &SearchOutput{Cards: []Card{}, Truncated: truncated, Partial: found.partial, Indexing: found.indexing}
	var uris []string
	chars := 0
	for _, s := range found.skipped {
		// Said first: a failure is worth more than the last card.
		if n := runes(s.Path, s.Reason); len(out.Skipped) < MaxSkipped && chars+n <= tn.limit() {
			out.Skipped = append(out.Skipped, s)
			chars += n
			continue
		}
		out.SkippedMore++
	}
	for _, h := range hits {
		ex := h.hit.Excerpt
		if ex == "" {
			ex = fallbackExcerpt(h.hit.Text, q, b.CardChars)
		}
		ex, _ = textnorm.Truncate(strings.TrimSpace(ex), b.CardChars)
		c := Card{
			Source:      h.src.Path,
			Kind:        h.src.Kind,
			Path:        h.hit.Path,
			Title:       h.hit.Title,
			Page:        h.hit.Page,
			PageLabel:   h.hit.Label,
			Section:     h.hit.Section,
			Excerpt:     ex,
			Score:       roundScore(h.hit.Score),
			CitationURI: locationURI(h.hit.Location),
			Mark:        cardMark(h.hit, b.CardChars),
		}
		if h.hit.OCR != nil {
			c.OCR, c.Confidence = true, h.hit.OCR.Confidence
		}
		c.cite(h.hit)
		if h.hit.Mark != nil {
			m := *h.hit.Mark
			m.Location = h.hit.Location
			c.CitationURI = markURI(m)
		} else if u, cut := t.captionURI(ctx, h.hit, c.Excerpt); u != "" && len(c.CitationURIs) == 0 {
			c.CitationURI = u
			if cut > 0 {
				// The next item's caption is its own card's.
				c.Excerpt = strings.TrimSpace(c.Excerpt[:cut])
			}
		}
		// The whole card counts, not just its excerpt.
		n := c.chars()
		if chars+n > tn.limit() {
			// The last card that fits in part keeps a shorter excerpt.
			room := tn.limit() - chars - (n - runes(c.Excerpt))
			out.Truncated = true
			if room < minExcerpt {
				break
			}
			c.Excerpt, _ = textnorm.Truncate(c.Excerpt, room)
			c.cite(h.hit)
			n = c.chars()
		}
		chars += n
		out.Cards = append(out.Cards, c)
		if len(c.CitationURIs) > 0 {
			uris = append(uris, c.CitationURIs...)
		} else {
			uris = append(uris, c.CitationURI)
		}
		if out.Truncated && chars >= tn.limit() {
			break
		}
	}
	if len(out.Cards) == 0 && len(hits) > 0 {
		return nil, tn.spent(firstCardChars(hits, b.CardChars))
	}
	out.Budget, err = t.finish(tn, grant.ToolSearch, uris, out.Chars())
	if err != nil {
		return nil, err
	}
	return out, nil
}

type rankedHit struct {
	src sources.Info
	hit sources.Hit
}

// cardOverhead is what a search reserves per card beyond its excerpt: the
// source, path, title, section and citation URI, which are charged too. A
// card with longer ones is left out when the reservation runs out.
const cardOverhead = grant.CardOverhead

// minExcerpt is the shortest excerpt worth a card when the reservation
// runs out mid-card.
const minExcerpt = 40

// firstCardChars is a rough size of the first card, for the message of a
// search whose first card does not fit what remains.
func firstCardChars(hits []rankedHit, cardChars int) int {
	h := hits[0].hit
	return runes(h.Path, h.Title, h.Section) + min(cardChars, runes(h.Excerpt))
}

// found is what searchAll found.
type found struct {
	hits     []rankedHit // by score, best first
	more     bool        // a source matched more than it returned
	partial  bool        // a source did not look at everything, or failed
	indexing sources.Indexing
	skipped  []Skipped // documents that could not be read, and failed sources, by path
}

// searchAll queries every source concurrently and merges the hits by score;
// ties break by path and page so the order is deterministic. A source that
// panics fails like one that errs: the others' hits still count, and the
// failure is listed with the documents that could not be read. So does a
// source still searching when the call's own deadline passes (see
// Options.CallTimeout): the search is partial, not lost, unless no source
// answered in time.
func (t *Toolset) searchAll(ctx context.Context, srcs []sources.Source, q sources.Query) (*found, error) {
	type result struct {
		res *sources.Results
		err error
	}
	results := make([]result, len(srcs))
	conn := make([]bool, len(srcs)) // which sources are a connector's, worked out once
	for i, s := range srcs {
		conn[i] = t.connector(s)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, s := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			defer func() {
				// A goroutine's panic would end the process: the
				// call's own recover cannot see it.
				if v := recover(); v != nil {
					t.log.Error("source search failed with a panic", "source", s.Info().Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
					results[i] = result{err: fmt.Errorf("%w: searching %s", ErrInternal, quoteArg(s.Info().Path))}
				}
			}()
			r, err := s.Search(ctx, q)
			results[i] = result{res: r, err: t.sourceErr(conn[i], s.Info().Path, err)}
		}()
	}
	wg.Wait()
	late := ctx.Err() != nil && errors.Is(context.Cause(ctx), errCallDeadline)
	f := &found{}
	failed := 0
	var firstErr error
	for i, r := range results {
		info := srcs[i].Info()
		if r.err != nil && late && (errors.Is(r.err, context.DeadlineExceeded) || errors.Is(r.err, context.Canceled)) {
			r.err = fmt.Errorf("%w: not searched within the call's %v", ErrCallTimeout, t.callTimeout)
		}
		if r.err != nil {
			// One unreadable source must not hide the others' evidence.
			failed++
			if firstErr == nil {
				firstErr = r.err
			}
			f.skipped = append(f.skipped, Skipped{Path: info.Path, Reason: skipLine(strings.TrimPrefix(r.err.Error(), info.Path+": "))})
			continue
		}
		if r.res == nil {
			continue
		}
		f.more = f.more || r.res.Total > len(r.res.Hits)
		f.partial = f.partial || r.res.Truncated || r.res.Indexing != nil || len(r.res.Skipped) > 0
		if ix := r.res.Indexing; ix != nil && ix.Total >= f.indexing.Total {
			f.indexing = *ix
		}
		for _, s := range r.res.Skipped {
			if conn[i] && !covers(srcs[i], s.Path) {
				continue // a path the grant does not cover is not named
			}
			if conn[i] {
				s.Reason = strings.Join(problemLines(true, []string{s.Reason}), "")
			}
			f.skipped = append(f.skipped, Skipped{Path: s.Path, Reason: skipLine(s.Reason)})
		}
		for _, h := range r.res.Hits {
			if conn[i] && !covers(srcs[i], h.Path) {
				// A citation must name what the grant covers.
				t.log.Warn("connector hit outside its source left out", "source", info.Path, "path", h.Path)
				continue
			}
			f.hits = append(f.hits, rankedHit{src: info, hit: h})
		}
	}
	if err := ctx.Err(); err != nil && !late {
		return nil, err
	}
	if failed == len(srcs) && firstErr != nil {
		return nil, fmt.Errorf("search failed: %w", firstErr)
	}
	f.partial = f.partial || failed > 0
	slices.SortFunc(f.skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	f.skipped = slices.CompactFunc(f.skipped, func(a, b Skipped) bool { return a.Path == b.Path })
	hits := f.hits
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.hit.Score != b.hit.Score {
			return a.hit.Score > b.hit.Score
		}
		if a.hit.Path != b.hit.Path {
			return a.hit.Path < b.hit.Path
		}
		return a.hit.Page < b.hit.Page
	})
	f.hits = samePassageOnce(hits)
	return f, nil
}

// samePassageOnce keeps the first (best) of the hits that are the same
// passage — the same text at the same place — as two granted sources that
// overlap (a folder and a paper inside it, in a grant written by hand)
// both find it: a search never returns a passage twice.
func samePassageOnce(hits []rankedHit) []rankedHit {
	type passage struct {
		loc        sources.Location
		text, mark string
	}
	seen := make(map[passage]bool, len(hits))
	out := hits[:0]
	for _, h := range hits {
		k := passage{loc: h.hit.Location, text: h.hit.Text}
		if m := h.hit.Mark; m != nil {
			k.mark = string(m.Kind) + "\x00" + m.Comment
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, h)
	}
	return out
}

// skipLine is a skipped document's reason as a result carries it: one
// line of at most 200 characters.
func skipLine(s string) string {
	s, _ = textnorm.Truncate(textnorm.Line(s), 200)
	if s == "" {
		s = "cannot be read"
	}
	return s
}

// roundScore keeps scores readable and stable in JSON.
func roundScore(s float64) float64 {
	return float64(int(s*1000+0.5)) / 1000
}

// locationURI is the citation URI of a location: a PDF by page, else a
// region, else a section; at most one fragment.
func locationURI(l sources.Location) string {
	if l.Path == "" {
		return ""
	}
	switch {
	case l.Page > 0:
		return cite.Page(l.Path, l.Page)
	case l.Region != "":
		return cite.Region(l.Path, l.Region)
	case l.Section != "":
		return cite.Section(l.Path, l.Section)
	}
	return cite.File(l.Path)
}

// cite sets the card's citation URIs from the locations of h whose text
// its excerpt holds, when h's text runs over more than one (see
// sources.Hit.Continues). The excerpt is verbatim text of h; one not found
// in it cites every location.
func (c *Card) cite(h sources.Hit) {
	c.CitationURIs = nil
	if len(h.Continues) == 0 {
		return
	}
	from, to := 0, len(h.Text)
	if i := strings.Index(h.Text, c.Excerpt); i >= 0 && c.Excerpt != "" {
		from, to = i, i+len(c.Excerpt)
	}
	var uris []string
	add := func(start, end int, l sources.Location) {
		start, end = max(start, from), min(end, to)
		if l.Path == "" {
			l.Path = h.Path
		}
		if u := locationURI(l); start < end && strings.TrimSpace(h.Text[start:end]) != "" && u != "" && !slices.Contains(uris, u) {
			uris = append(uris, u)
		}
	}
	start, loc := 0, h.Location
	for _, next := range h.Continues {
		end := min(max(next.Offset, start), len(h.Text))
		add(start, end, loc)
		start, loc = end, next.Location
	}
	add(start, len(h.Text), loc)
	switch {
	case len(uris) > 1:
		c.CitationURIs = uris
		fallthrough
	case len(uris) == 1:
		c.CitationURI = uris[0]
	}
}

// fallbackExcerpt picks a window of text around the first query word found,
// for sources that do not choose their own excerpt.
func fallbackExcerpt(text, query string, max int) string {
	start := 0
	for _, tok := range textnorm.Tokens(query) {
		if ms := textnorm.Locate(text, query[tok.Start:tok.End]); len(ms) > 0 {
			start = ms[0].Start
			break
		}
	}
	// Back up to the start of the line or sentence, at most a third of the card.
	back := start
	for n := 0; back > 0 && n < max/3; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:back])
		if c := text[back-size]; c == '\n' || (c == ' ' && back-size > 0 && text[back-size-1] == '.') {
			break
		}
		back -= size
	}
	ex, _ := textnorm.Truncate(text[back:], max)
	return ex
}
