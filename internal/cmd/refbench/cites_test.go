package main

import (
	"context"
	"path/filepath"
	"testing"
)

// citeFloors gate the citing-sentence fixtures: precision and recall of
// the contexts found, per fixture, as measured (see docs/benchmarks.md),
// where below 1. Every fixture scores 1 since the natbib styles' two
// bibliography columns are read apart (see styleFloors).
var citeFloors = map[string][2]float64{}

// TestCitingSentences scores the contexts found in the citing-sentence
// fixtures (testdata/cites: refs.bib typeset with eleven BibTeX styles in
// one and two columns, after a body that cites every entry).
func TestCitingSentences(t *testing.T) {
	if pdfs, _ := filepath.Glob(filepath.Join("testdata", "cites", "*.pdf")); len(pdfs) != 22 {
		t.Fatalf("%d fixtures, want 22", len(pdfs))
	}
	scores, err := EvaluateCites(context.Background(), filepath.Join("testdata", "cites"), filepath.Join("testdata", "styles", "refs.bib"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", citeTable(scores))
	for _, s := range scores {
		f, ok := citeFloors[s.Name]
		if !ok {
			f = [2]float64{1, 1}
		}
		if s.Precision() < f[0] || s.Recall() < f[1] {
			t.Errorf("%s: precision %.3f, recall %.3f; want at least %.3f, %.3f", s.Name, s.Precision(), s.Recall(), f[0], f[1])
		}
	}
}
