package relations

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
)

// libraryFiles is a small library exercising every matching rule:
//
//	a cites d (localMatch by title), c (stale localMatch, fresh DOI match),
//	  b (arXiv DOI alias, then again by arXiv id with a version), itself
//	  (dropped), and external works;
//	b cites a (arXiv id with a version) and two external DOIs;
//	c cites a (localMatch by DOI) and one external DOI shared with a and b;
//	the cache says c, e, an external reproduction, the seed itself and an
//	  external preprint cite a, and that preprint also cites c.
func libraryFiles(tb testing.TB) map[string]string {
	return map[string]string{
		"papers/a/metadata.json": js(tb, obj{"title": "Alpha", "authors": []string{"A. One", "A. Two", "A. Three", "A. Four"},
			"year": 2020, "doi": "10.1000/A", "arxiv_id": "2001.00001"}),
		"papers/a/a.pdf": "%PDF-1.4\n",
		"papers/a/source/agentero-cite.json": sidecarDoc(tb,
			obj{"id": "c1", "metadata": obj{"title": "Delta (as cited)"}, "localMatch": obj{"paperPath": "papers/d", "matchBy": "title"}, "source": "pdf-text", "status": "resolved"},
			obj{"id": "c2", "metadata": obj{"title": "Gamma as cited", "doi": "10.1000/c"}, "localMatch": obj{"paperPath": "papers/gone", "matchBy": "doi"}},
			obj{"id": "c3", "metadata": obj{"title": "Bravo as cited", "doi": "https://doi.org/10.48550/arXiv.2002.00002v3"}},
			obj{"id": "c4", "metadata": obj{"arxivId": "2002.00002v1"}},
			obj{"id": "c5", "metadata": obj{"title": "External", "authors": []string{"E. X."}, "year": "2019", "doi": "10.9999/EXT", "venue": "J"}, "unknown": true},
			obj{"id": "c6", "raw": "K. Someone.\n A note without ids."},
			obj{"id": "c7", "metadata": obj{"title": "Self"}, "localMatch": obj{"paperPath": "papers/a", "matchBy": "doi"}},
			42,
			obj{"id": "c9", "metadata": obj{"title": "Fuzzy"}, "localMatch": obj{"paperPath": "papers/c", "matchBy": "fuzzy"}},
			obj{"id": "c10", "metadata": obj{"title": "Ghost"}, "localMatch": obj{"paperPath": "papers/gone", "matchBy": "title"}},
			obj{"id": "c11", "metadata": obj{"arxivId": "hep-th/9901001", "authors": "Solo Author"}},
			obj{"id": "c12"},
		),
		"papers/b/metadata.json": js(tb, obj{"title": "Bravo", "arxiv_id": "2002.00002"}),
		"papers/b/b.pdf":         "%PDF-1.4\n",
		"papers/b/source/agentero-cite.json": sidecarDoc(tb,
			obj{"id": "c1", "metadata": obj{"title": "alpha", "arxivId": "arXiv:2001.00001v2"}},
			obj{"id": "c2", "metadata": obj{"title": "External", "doi": "10.9999/ext"}},
			obj{"id": "c3", "metadata": obj{"title": "Other", "doi": "10.9999/other"}},
		),
		"papers/c/metadata.json": js(tb, obj{"title": "Gamma", "doi": "10.1000/C"}),
		"papers/c/c.pdf":         "%PDF-1.4\n",
		"papers/c/source/agentero-cite.json": sidecarDoc(tb,
			obj{"id": "c1", "metadata": obj{"title": "Alpha"}, "localMatch": obj{"paperPath": "papers/a", "matchBy": "doi"}},
			obj{"id": "c2", "metadata": obj{"title": "External", "url": "https://doi.org/10.9999/ext"}},
		),
		"papers/d/NOTES.md":      "notes only\n",
		"papers/e/metadata.json": js(tb, obj{"title": "Echo", "doi": "10.1000/e"}),
		".agentero/citing-scan.json": scanDoc(tb, obj{
			"papers/a": seed(
				obj{"s2Id": "s-c", "title": "Gamma (S2)", "doi": "10.1000/c", "citationCount": 7},
				obj{"s2Id": "s-repro", "title": "Alpha: A Reproduction", "doi": "10.5555/repro", "date": "2022"},
				obj{"s2Id": "s-self", "title": "Alpha", "arxivId": "2001.00001v3"},
				obj{"s2Id": "s-ext", "title": "Outside", "arxivId": "2105.00005v2", "date": "2021-05-01", "citationCount": 3},
				obj{"s2Id": "s-ext", "title": "Outside", "arxivId": "2105.00005"},
				"junk",
				obj{"s2Id": "s-e", "title": "Echo", "doi": "10.1000/E", "oaPdfUrl": "https://example.org/e.pdf"},
			),
			"papers/c/c.pdf": seed(obj{"s2Id": "s-ext", "title": "Outside", "arxivId": "2105.00005"}),
			"papers/zzz":     seed(obj{"s2Id": "s-z", "title": "Nowhere", "doi": "10.1/z"}),
			"papers/b":       5,
		}),
	}
}

// Library works as the cards show them.
var (
	workA = Work{Title: "Alpha", Authors: []string{"A. One", "A. Two", "A. Three", "A. Four"}, Year: 2020,
		DOI: "10.1000/a", ArXivID: "2001.00001", Paper: "papers/a", PDF: "papers/a/a.pdf"}
	workB = Work{Title: "Bravo", ArXivID: "2002.00002", Paper: "papers/b", PDF: "papers/b/b.pdf"}
	workC = Work{Title: "Gamma", DOI: "10.1000/c", Paper: "papers/c", PDF: "papers/c/c.pdf"}
	workE = Work{Title: "Echo", DOI: "10.1000/e", Paper: "papers/e"}
	// d has no title of its own: its cards take the one a sidecar gives.
	workD = Work{Title: "Delta (as cited)", Paper: "papers/d"}
)

func overlap(w Work, n int) Work { w.Overlap = n; return w }
func count(w Work, n int) Work   { w.CitationCount = n; return w }

func TestRelations(t *testing.T) {
	v, _ := openVault(t, libraryFiles(t))
	l := New(v, nil)
	outside := Work{Title: "Outside", ArXivID: "2105.00005"}
	tests := []struct {
		name string
		ref  string
		want Relations
	}{
		{
			name: "references honour localMatch, rematch stale ones, drop self and duplicates; cited-by merges cache and library",
			ref:  "papers/a",
			want: Relations{
				Paper: "papers/a",
				References: []Work{
					{Title: "Delta (as cited)", Paper: "papers/d"}, // localMatch by title; the library knows no title
					workC, // localMatch to a missing folder ignored, DOI matched afresh
					workB, // arXiv DOI alias with a version
					{Title: "External", Authors: []string{"E. X."}, Year: 2019, DOI: "10.9999/ext"},
					{Title: "K. Someone. A note without ids."},
					{Title: "Fuzzy"}, // unknown matchBy: localMatch ignored
					{Title: "Ghost"},
					{Title: "", Authors: []string{"Solo Author"}, ArXivID: "hep-th/9901001"},
				},
				CitedBy: []Work{
					workB,
					count(workC, 7),
					workE,
					{Title: "Alpha: A Reproduction", Year: 2022, DOI: "10.5555/repro"},
					{Title: "Alpha", ArXivID: "2001.00001"}, // the seed's own id: never its path
					{Title: "Outside", Year: 2021, ArXivID: "2105.00005", CitationCount: 3},
				},
				// c: direct both ways 4 + shared reference + shared citer;
				// b: direct both ways 4 + shared reference; d, e: direct.
				Related: []Work{overlap(workC, 6), overlap(workB, 5), overlap(workD, 2), overlap(workE, 2)},
				Skipped: 3, // 42, {} in the sidecar; "junk" in the cache
			},
		},
		{
			name: "a bad seed entry is skipped and counted",
			ref:  "papers/b",
			want: Relations{
				Paper: "papers/b",
				References: []Work{
					workA,
					{Title: "External", DOI: "10.9999/ext"},
					{Title: "Other", DOI: "10.9999/other"},
				},
				CitedBy: []Work{workA},
				// a: direct both ways 4 + shared reference; c: shared
				// reference, and co-cited by a; d: co-cited by a.
				Related: []Work{overlap(workA, 5), overlap(workC, 3), overlap(workD, 1)},
				Skipped: 1,
			},
		},
		{
			name: "seed keyed by the paper's PDF; URL-only DOI",
			ref:  "papers/c",
			want: Relations{
				Paper:      "papers/c",
				References: []Work{workA, {Title: "External", DOI: "10.9999/ext"}},
				CitedBy:    []Work{workA, outside},
				Related:    []Work{overlap(workA, 6), overlap(workB, 3), overlap(workD, 1)},
			},
		},
		{
			name: "paper without sidecar or fallback has cited-by only",
			ref:  "papers/d",
			want: Relations{
				Paper:   "papers/d",
				CitedBy: []Work{workA},
				Related: []Work{overlap(workA, 2), overlap(workB, 1), overlap(workC, 1)},
			},
		},
		{
			name: "ref is cleaned; a citation known only from the cache is a direct link",
			ref:  "papers/e/",
			want: Relations{
				Paper:   "papers/e",
				Related: []Work{overlap(workA, 2)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustRelations(t, l, tt.ref)
			if got.Err != nil {
				t.Errorf("Err = %v, want nil", got.Err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("Relations(%q) mismatch (-want +got):\n%s", tt.ref, diff)
			}
		})
	}
}

func TestNotAPaper(t *testing.T) {
	v, _ := openVault(t, libraryFiles(t))
	l := New(v, nil)
	for _, ref := range []string{"papers", "papers/zzz", "notes/x.md", "../etc", "/abs", ".agentero"} {
		if _, err := l.Relations(context.Background(), ref); err == nil {
			t.Errorf("Relations(%q) succeeded, want an error", ref)
		} else if strings.Contains(err.Error(), v.Root()) {
			t.Errorf("Relations(%q) error names the absolute root: %v", ref, err)
		}
	}
	_, err := l.Relations(context.Background(), "papers/zzz")
	if !errors.Is(err, catalog.ErrNotPaper) {
		t.Errorf("Relations(papers/zzz) = %v, want ErrNotPaper", err)
	}
}

func TestResultsAreCopies(t *testing.T) {
	v, _ := openVault(t, libraryFiles(t))
	l := New(v, nil)
	r := mustRelations(t, l, "papers/a")
	r.References[0].Title = "changed"
	r.Related[0].Overlap = 99
	again := mustRelations(t, l, "papers/a")
	if again.References[0].Title == "changed" || again.Related[0].Overlap == 99 {
		t.Error("a caller's change to a result leaked into the graph")
	}
}

func TestConcurrent(t *testing.T) {
	v, _ := openVault(t, libraryFiles(t))
	l := New(v, &Options{Revalidate: 1}) // revalidate on every call
	want := mustRelations(t, New(v, nil), "papers/a")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ref := []string{"papers/a", "papers/b", "papers/c", "papers/d"}[i%4]
			for range 20 {
				r, err := l.Relations(context.Background(), ref)
				if err != nil {
					t.Error(err)
					return
				}
				if ref == "papers/a" && !cmp.Equal(want, r) {
					t.Error("concurrent result differs")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestWorkCard(t *testing.T) {
	tests := []struct {
		name    string
		w       Work
		authors []string
		uri     string
	}{
		{"library paper with PDF", Work{Authors: []string{"a", "b", "c", "d"}, DOI: "10.1/x", Paper: "papers/my paper", PDF: "papers/my paper/p.pdf"},
			[]string{"a", "b", "c", "et al."}, "papers/my%20paper/p.pdf"},
		{"library paper without PDF falls back to DOI", Work{Authors: []string{"a", "b", "c"}, DOI: "10.1/x", Paper: "papers/x"},
			[]string{"a", "b", "c"}, "https://doi.org/10.1/x"},
		{"arXiv only", Work{ArXivID: "2401.01234"}, nil, "https://arxiv.org/abs/2401.01234"},
		{"DOI before arXiv", Work{DOI: "10.1/x", ArXivID: "2401.01234"}, nil, "https://doi.org/10.1/x"},
		{"nothing: empty URI", Work{Title: "t"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.authors, tt.w.Authors3()); diff != "" {
				t.Errorf("Authors3 (-want +got):\n%s", diff)
			}
			if got := tt.w.CitationURI(); got != tt.uri {
				t.Errorf("CitationURI = %q, want %q", got, tt.uri)
			}
		})
	}
}
