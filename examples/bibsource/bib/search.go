package bib

import (
	"context"
	"sort"
	"sync"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
)

// search finds q in the records of items and in their PDFs. Records are
// searched in memory; PDFs through the sources the Vault's library opens
// for them, so through its one search index: kept on disk between
// processes, built in the background, and waited for at most the
// library's IndexWait (a search while it builds answers from what is
// indexed, saying so in Results.Indexing). A hit in a PDF is cited in the
// entry's document (its first PDF) or in the further PDF's.
func (s *Source) search(ctx context.Context, items []*item, q sources.Query) (*sources.Results, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	out := &sources.Results{}
	var hits []sources.Hit
	for _, it := range items {
		r, err := s.record(it).Search(ctx, sources.Query{Text: q.Text, Limit: limit, ExcerptChars: q.ExcerptChars})
		if err != nil {
			return nil, err
		}
		hits = append(hits, r.Hits...)
		out.Total += r.Total
	}
	type job struct {
		file, doc, title string
	}
	var jobs []job
	for _, it := range items {
		for i, f := range it.files {
			doc := it.path
			if i > 0 {
				doc = it.extras[i-1]
			}
			jobs = append(jobs, job{f, doc, it.title})
		}
	}
	srcs := make([]sources.Source, len(jobs))
	var open []sources.Source
	for i, j := range jobs {
		if src, err := s.fileSource(ctx, j.file); err == nil {
			srcs[i] = src
			open = append(open, src)
		} // else the entry's record says the file is not readable
	}
	// The PDFs' hits are scored with the statistics of all of them, so
	// that they compare across files.
	coll := s.lib.Collection(open)
	results := make([]*sources.Results, len(jobs))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, src := range srcs {
		if src == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			// A paper's search covers its notes too: ask for more, keep
			// the PDF's.
			results[i], _ = src.Search(ctx, sources.Query{Text: q.Text, Limit: 2*limit + 5, ScanFiles: q.ScanFiles, ExcerptChars: q.ExcerptChars, Collection: coll})
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, r := range results {
		if r == nil {
			continue
		}
		n := 0
		for _, h := range r.Hits {
			if h.Path != jobs[i].file {
				continue
			}
			h.Path, h.Title = jobs[i].doc, jobs[i].title
			hits = append(hits, h)
			n++
		}
		out.Total += n
		out.Truncated = out.Truncated || r.Truncated
		if ix := r.Indexing; ix != nil && (out.Indexing == nil || ix.Total > out.Indexing.Total) {
			out.Indexing = &sources.Indexing{Done: ix.Done, Total: ix.Total}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Page < b.Page
	})
	if len(hits) > limit {
		hits, out.Truncated = hits[:limit], true
	}
	out.Hits = hits
	return out, nil
}

// record returns the in-memory source of an entry's record, the first part
// of its document.
func (s *Source) record(it *item) *sources.Memory {
	s.recOnce.Do(func() {
		s.records = map[*item]*sources.Memory{}
		for _, it := range s.items {
			doc := &sources.Document{Path: it.path, Title: it.title,
				Parts: []sources.Part{{Location: sources.Location{Path: it.path}, Text: it.record(it.unread)}}}
			s.records[it] = sources.NewMemory(sources.Info{Ref: it.path, Kind: Kind, Title: it.title}, doc)
		}
	})
	return s.records[it]
}

// fileSource returns the Vault source a PDF is searched through: its
// paper's, when it is a paper's PDF, else the file's own.
func (s *Source) fileSource(ctx context.Context, f string) (sources.Source, error) {
	it, err := s.lib.Stat(ctx, f)
	if err != nil {
		return nil, err
	}
	if it.Paper != nil && it.Paper.PDF == it.Path {
		return s.lib.Open(ctx, grant.KindPaper, it.Paper.Ref)
	}
	return s.lib.Open(ctx, grant.KindFile, it.Path)
}
