package relations

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// TestCorpusTextReferences reads the reference sections of real papers
// (pdftotext output of the shared corpus) through the text fallback: each
// paper is a library paper with its own identifier in metadata.json, and its
// PDF text is the corpus file.
func TestCorpusTextReferences(t *testing.T) {
	dir := corpus.Dir(t, "ref-pdftotext")
	tests := []struct {
		file     string
		meta     obj
		wantDOI  []string
		wantArXv []string
	}{
		{
			// The arXiv stamp of page 1 (1706.03762v5) is the paper's own
			// id and lies before the references.
			file: "arxiv-1706.03762.txt",
			meta: obj{"title": "Attention Is All You Need", "arxiv_id": "1706.03762"},
			// CoRR's "abs/1409.0473" notation counts as an arXiv id.
			wantArXv: []string{"1607.06450", "1409.0473", "1703.03906", "1601.06733", "1406.1078",
				"1610.02357", "1412.3555", "1705.03122", "1308.0850", "1602.02410", "1610.10099",
				"1703.10722", "1703.03130", "1511.06114", "1508.04025", "1705.04304", "1608.05859",
				"1508.07909", "1701.06538", "1512.00567", "1609.08144", "1606.04199"},
		},
		{
			// ACM style breaks DOIs after a dot; both are joined.
			file: "acm-sample-sigconf.txt",
			meta: obj{"title": "ACM sample"},
			wantDOI: []string{"10.1145/1188913.1188915", "10.1145/567752.567774", "10.1145/1219092.1219093",
				"10.1007/3540-65193-4_29", "10.1007/3-54009237-4", "10.1007/3-540-09237-4",
				"10.1109/icws.2004.64", "10.1137/080734467", "10.1145/1057270.1057278", "10.1145/90417.90738"},
			wantArXv: []string{"1403.1349", "1905.12410"},
		},
		{
			// The only DOI after the heading is the paper's own, in the
			// page footers: not a reference. "arXiv: 1207.0580" has a space.
			file: "scirep-leibig.txt",
			meta: obj{"title": "Leibig", "doi": "10.1038/s41598-017-17876-z"},
			wantArXv: []string{"1511.02680", "1506.02142", "1506.02158", "1703.02914", "1506.02157",
				"1207.0580", "1612.01474", "1509.05909", "1605.02688"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			v, _ := openVault(t, map[string]string{
				"papers/p/metadata.json": js(t, tt.meta),
				"papers/p/p.pdf":         "%PDF-1.4\n",
			})
			l := New(v, &Options{Text: func(context.Context, *catalog.Paper) (string, error) { return string(text), nil }})
			r := mustRelations(t, l, "papers/p")
			var dois, arxivs []string
			for _, w := range r.References {
				if w.DOI != "" {
					dois = append(dois, w.DOI)
				}
				if w.ArXivID != "" {
					arxivs = append(arxivs, w.ArXivID)
				}
			}
			if diff := cmp.Diff(tt.wantDOI, dois); diff != "" {
				t.Errorf("DOIs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantArXv, arxivs); diff != "" {
				t.Errorf("arXiv ids (-want +got):\n%s", diff)
			}
		})
	}
}
