package index

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// generatedDocs returns n documents of words drawn from a small
// vocabulary, so that terms repeat across documents.
func generatedDocs(n int, seed uint64) []Doc {
	r := rand.New(rand.NewPCG(seed, 1))
	vocab := []string{"protein", "binding", "cell", "growth", "neural", "network", "graph", "kernel",
		"variance", "estimator", "lattice", "entropy", "sampling", "gradient", "receptor", "tumour",
		"chromatin", "transformer", "attention", "sparse", "convex", "bound", "spectral", "dynamics"}
	words := func(k int) string {
		var b bytes.Buffer
		for i := range k {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[r.IntN(len(vocab))])
		}
		return b.String()
	}
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{Key: fmt.Sprintf("d%04d", i), Title: words(1 + r.IntN(5)), Body: words(5 + r.IntN(80))}
	}
	return docs
}

var setQueries = []string{"protein binding", "neural network attention", "sparse convex bound", "kernel", "entropy sampling gradient dynamics", "absent words only"}

// TestSetSameAsOneIndex checks that a Set of segments ranks and scores as
// one index of all their documents.
func TestSetSameAsOneIndex(t *testing.T) {
	docs := generatedDocs(300, 7)
	whole := Build(docs)
	var segs []*Index
	for lo := 0; lo < len(docs); lo += 70 {
		segs = append(segs, Build(docs[lo:min(lo+70, len(docs))]))
	}
	set := NewSet(segs...)
	if set.Len() != len(docs) {
		t.Fatalf("Len = %d, want %d", set.Len(), len(docs))
	}
	for _, q := range setQueries {
		want, wantTotal := whole.Search(q, 20)
		got, gotTotal := set.Search(q, 20, nil)
		if gotTotal != wantTotal || len(got) != len(want) {
			t.Fatalf("%q: %d hits of %d, want %d of %d", q, len(got), gotTotal, len(want), wantTotal)
		}
		for i := range want {
			if got[i].Key != want[i].Key || math.Abs(got[i].Score-want[i].Score) > 1e-9 || math.Abs(got[i].Norm-want[i].Norm) > 1e-9 {
				t.Errorf("%q hit %d: got %s %.6f, want %s %.6f", q, i, got[i].Key, got[i].Score, want[i].Key, want[i].Score)
			}
		}
	}
}

// TestSetAllow checks that a search returns only admitted documents and
// that admitting a subset leaves their scores unchanged.
func TestSetAllow(t *testing.T) {
	docs := generatedDocs(200, 3)
	segs := []*Index{Build(docs[:90]), Build(docs[90:])}
	set := NewSet(segs...)
	r := rand.New(rand.NewPCG(11, 12))
	full := map[string]float64{}
	for _, q := range setQueries {
		hits, _ := set.Search(q, 1000, nil)
		for _, h := range hits {
			full[q+"\x00"+h.Key] = h.Score
		}
	}
	for range 50 {
		allow := [][]bool{make([]bool, 90), make([]bool, 110)}
		admitted := map[string]bool{}
		for si := range allow {
			for d := range allow[si] {
				if r.IntN(4) == 0 {
					allow[si][d] = true
					admitted[segs[si].Key(d)] = true
				}
			}
		}
		for _, q := range setQueries {
			hits, total := set.Search(q, 1000, allow)
			if total != len(hits) {
				t.Fatalf("%q: total %d, %d hits", q, total, len(hits))
			}
			for _, h := range hits {
				if !admitted[h.Key] {
					t.Fatalf("%q: hit %s was not admitted", q, h.Key)
				}
				if s := full[q+"\x00"+h.Key]; math.Abs(s-h.Score) > 1e-9 {
					t.Fatalf("%q: %s scored %.6f in a subset, %.6f in all", q, h.Key, h.Score, s)
				}
			}
		}
	}
	if hits, _ := set.Search("protein", 10, [][]bool{}); len(hits) != 0 {
		t.Errorf("an empty allow admitted %d hits", len(hits))
	}
}

// TestMergeSameAsBuild checks that merging segments, dropping some
// documents, gives the very index a build of the kept documents gives.
func TestMergeSameAsBuild(t *testing.T) {
	docs := generatedDocs(240, 5)
	segs := []*Index{Build(docs[:100]), Build(docs[100:180]), Build(docs[180:])}
	keep := [][]bool{make([]bool, 100), nil, make([]bool, 60)}
	var kept []Doc
	for d := range docs {
		switch {
		case d < 100:
			keep[0][d] = d%3 != 0
			if keep[0][d] {
				kept = append(kept, docs[d])
			}
		case d < 180:
			kept = append(kept, docs[d])
		default:
			keep[2][d-180] = d%2 == 0
			if keep[2][d-180] {
				kept = append(kept, docs[d])
			}
		}
	}
	got := Merge(segs, keep)
	want := Build(kept)
	if diff := cmp.Diff(encode(t, want), encode(t, got)); diff != "" {
		t.Fatalf("merged index differs from a build of the kept documents (-want +got):\n%s", diff)
	}
	if _, err := Load(encode(t, got)); err != nil {
		t.Fatalf("Load of a merged index: %v", err)
	}
	if empty := Merge(segs, [][]bool{}); empty.Len() != 0 {
		t.Errorf("merging nothing gave %d documents", empty.Len())
	}
	if _, err := Load(encode(t, Merge(segs, [][]bool{}))); err != nil {
		t.Errorf("Load of an empty merge: %v", err)
	}
}

// TestSetBestPassage checks that a Set picks the passage one index of all
// its documents picks.
func TestSetBestPassage(t *testing.T) {
	docs := generatedDocs(200, 9)
	whole := Build(docs)
	set := NewSet(Build(docs[:50]), Build(docs[50:120]), Build(docs[120:]))
	for _, d := range docs[:40] {
		for _, q := range setQueries {
			ws, we := whole.BestPassage(d.Body, q, 80)
			ss, se := set.BestPassage(d.Body, q, 80)
			if ws != ss || we != se {
				t.Fatalf("%s %q: set passage [%d,%d), whole [%d,%d)", d.Key, q, ss, se, ws, we)
			}
		}
	}
}
