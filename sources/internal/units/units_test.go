package units

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/sources"
)

// TestMarkUnits: a mark is a unit found by its marked text or comment, its
// hit carrying the mark; one that holds fewer than half the query's words
// is left out, and a mark with neither text nor comment is no unit.
func TestMarkUnits(t *testing.T) {
	loc := sources.Location{Path: "a.pdf", Page: 2}
	marks := []sources.Mark{
		{Location: loc, Kind: sources.MarkHighlight, Text: "gated residual summary", Comment: "check the wombat initialisation"},
		{Location: loc, Kind: sources.MarkNote, Comment: "ask about the numbat split"},
		{Location: loc, Kind: sources.MarkInk},
	}
	us := OfMarks(marks, "A Paper")
	if len(us) != 2 {
		t.Fatalf("%d mark units, want 2", len(us))
	}
	page := Unit{Loc: loc, Title: "A Paper", Text: "The summary of each block goes through a gated residual; the split is the usual one for every corpus we train on."}
	ix := Build(append([]Unit{page}, us...))
	for _, tc := range []struct {
		query string
		want  *sources.Mark
		text  string
	}{
		{"wombat initialisation", &sources.Mark{Location: loc, Kind: sources.MarkHighlight, Text: "gated residual summary", Comment: "check the wombat initialisation"}, "gated residual summary"},
		{"numbat split", &sources.Mark{Location: loc, Kind: sources.MarkNote, Comment: "ask about the numbat split"}, "ask about the numbat split"},
	} {
		res := ix.Search(sources.Query{Text: tc.query, Limit: 3, ExcerptChars: 100})
		if len(res.Hits) == 0 {
			t.Fatalf("%q: no hits", tc.query)
		}
		h := res.Hits[0]
		if diff := cmp.Diff(tc.want, h.Mark); diff != "" || h.Text != tc.text || h.Excerpt != tc.text {
			t.Errorf("%q: first hit %+v (-want +got):\n%s", tc.query, h, diff)
		}
	}
	res := ix.Search(sources.Query{Text: "split corpus train block", Limit: 3})
	if len(res.Hits) != 1 || res.Hits[0].Mark != nil || res.Total != 1 {
		t.Errorf("a query one mark shares a word with: %+v", res)
	}
}

func TestMarkAnswers(t *testing.T) {
	for _, tc := range []struct {
		text, comment, query string
		want                 bool
	}{
		{"gated residual", "", "gated residual design", true},
		{"", "rerun the split", "split", true},
		{"", "rerun the split", "split corpus train block", false},
		{"x", "", "the of", false},
		{"the of", "", "the of", true},
		{"anything", "", "", false},
	} {
		if got := MarkAnswers(tc.text, tc.comment, tc.query); got != tc.want {
			t.Errorf("MarkAnswers(%q, %q, %q) = %v", tc.text, tc.comment, tc.query, got)
		}
	}
}
