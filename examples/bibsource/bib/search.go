package bib

import (
	"context"
	"sort"

	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
)

// search finds q in the records of items and in their PDFs. Records are
// searched in memory; PDFs all at once through the Vault's library
// (sources.Documents.SearchDocuments), so through its one search index: kept on disk
// between processes, built in the background, and waited for at most the
// library's IndexWait. A search that answers before every PDF is indexed
// says so (Results.Indexing, Truncated), its hits come from one snapshot
// of the index, and two identical searches after indexing give the same
// hits. A hit in a PDF is cited in the entry's document (its first PDF) or
// in the further PDF's; a PDF that cannot be read is listed in
// Results.Skipped under that document.
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
	type cited struct{ doc, title string }
	docs := map[string][]cited{} // a Vault PDF → where its hits are cited
	var files []string
	for _, it := range items {
		for i, f := range it.files {
			doc := it.path
			if i > 0 {
				doc = it.extras[i-1]
			}
			if docs[f] == nil {
				files = append(files, f)
			}
			docs[f] = append(docs[f], cited{doc, it.title})
		}
	}
	if len(files) > 0 {
		r, err := s.lib.SearchDocuments(ctx, files, sources.Query{Text: q.Text, Limit: limit, ScanFiles: q.ScanFiles, ExcerptChars: q.ExcerptChars})
		if err != nil {
			return nil, err
		}
		for _, h := range r.Hits {
			for _, c := range docs[h.Path] {
				h.Path, h.Title = c.doc, c.title
				hits = append(hits, h)
			}
		}
		out.Total += r.Total
		out.Truncated, out.Indexing = r.Truncated, r.Indexing
		for _, sk := range r.Skipped {
			for _, c := range docs[sk.Path] {
				out.Skipped = append(out.Skipped, sources.Skip{Path: c.doc, Reason: sk.Reason})
			}
		}
		sort.Slice(out.Skipped, func(i, j int) bool { return out.Skipped[i].Path < out.Skipped[j].Path })
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
		hits = hits[:limit]
	}
	out.Hits = hits
	return out, nil
}

// record returns the in-memory source of an entry's record, the first part
// of its document.
func (s *Source) record(it *item) *sourcetest.Memory {
	s.recOnce.Do(func() {
		s.records = map[*item]*sourcetest.Memory{}
		for _, it := range s.items {
			doc := &sources.Document{Path: it.path, Title: it.title,
				Parts: []sources.Part{{Location: sources.Location{Path: it.path}, Text: it.record(it.unread)}}}
			s.records[it] = sourcetest.NewMemory(sources.Info{Path: it.path, Kind: Kind, Title: it.title}, doc)
		}
	})
	return s.records[it]
}
