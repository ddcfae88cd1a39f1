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
// scores them with the statistics of the admitted documents alone: as one
// index of just those documents does, so that nothing a search cannot
// return weighs on its scores.
func TestSetAllow(t *testing.T) {
	docs := generatedDocs(200, 3)
	segs := []*Index{Build(docs[:90]), Build(docs[90:])}
	set := NewSet(segs...)
	r := rand.New(rand.NewPCG(11, 12))
	for range 50 {
		allow := [][]bool{make([]bool, 90), make([]bool, 110)}
		var admitted []Doc
		for si := range allow {
			for d := range allow[si] {
				if r.IntN(4) == 0 {
					allow[si][d] = true
					admitted = append(admitted, docs[90*si+d])
				}
			}
		}
		alone := Build(admitted)
		for _, q := range setQueries {
			want, wantTotal := alone.Search(q, 1000)
			got, total := set.Search(q, 1000, allow)
			if total != wantTotal {
				t.Fatalf("%q: total %d, want %d", q, total, wantTotal)
			}
			if diff := cmp.Diff(scored(want), scoredSet(got)); diff != "" {
				t.Fatalf("%q: a subset's search differs from an index of the subset alone (-want +got):\n%s", q, diff)
			}
		}
	}
	if hits, _ := set.Search("protein", 10, [][]bool{}); len(hits) != 0 {
		t.Errorf("an empty allow admitted %d hits", len(hits))
	}
}

// TestScopeOutsideDocuments checks, over random changes, that documents
// outside a search's scope weigh on nothing it returns: a Set whose other
// segments and unadmitted documents are added, changed or taken away
// returns the same hits (keys, scores, norms, match count) and passages as
// one index of the scope's documents, of which allow admits a part.
func TestScopeOutsideDocuments(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	pool := generatedDocs(400, 13)
	scope := pool[:60]
	alone := Build(scope)
	admitted := map[string]bool{}
	for _, d := range scope {
		if r.IntN(2) == 0 {
			admitted[d.Key] = true
		}
	}
	for round := range 40 {
		// The scope's documents, shuffled among outside ones across a
		// random number of segments.
		var all []Doc
		all = append(all, scope...)
		for _, d := range pool[60:] {
			if r.IntN(3) == 0 {
				d.Key = fmt.Sprintf("x%d-%s", round, d.Key)
				all = append(all, d)
			}
		}
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		var segs []*Index
		var mask, allow [][]bool
		for lo := 0; lo < len(all); {
			hi := min(len(all), lo+1+r.IntN(80))
			segs = append(segs, Build(all[lo:hi]))
			m, a := make([]bool, hi-lo), make([]bool, hi-lo)
			for d := range m {
				key := all[lo+d].Key
				m[d] = key[0] == 'd'
				a[d] = admitted[key]
			}
			mask, allow = append(mask, m), append(allow, a)
			lo = hi
		}
		sc := NewSet(segs...).Scope(mask)
		if sc.Len() != len(scope) {
			t.Fatalf("scope of %d documents, want %d", sc.Len(), len(scope))
		}
		for _, q := range setQueries {
			full, _ := alone.Search(q, 1000)
			var want []Hit
			for _, h := range full {
				if admitted[h.Key] {
					want = append(want, h)
				}
			}
			got, total := sc.Search(q, 1000, allow)
			if total != len(want) {
				t.Fatalf("round %d %q: total %d, want %d", round, q, total, len(want))
			}
			if diff := cmp.Diff(scored(want), scoredSet(got)); diff != "" {
				t.Fatalf("round %d %q: outside documents changed the hits (-want +got):\n%s", round, q, diff)
			}
			w := sc.Weights(q)
			for _, d := range scope[:10] {
				ws, we := alone.BestPassage(d.Body, q, 80)
				if s, e := Passage(d.Body, w, 80); s != ws || e != we {
					t.Fatalf("round %d %s %q: passage [%d,%d), alone [%d,%d)", round, d.Key, q, s, e, ws, we)
				}
			}
		}
	}
}

// A scoredHit is what a search tells of a hit beyond its document number.
type scoredHit struct {
	Key         string
	Score, Norm float64
}

func scored(hits []Hit) []scoredHit {
	out := []scoredHit{}
	for _, h := range hits {
		out = append(out, scoredHit{h.Key, h.Score, h.Norm})
	}
	return out
}

func scoredSet(hits []SetHit) []scoredHit {
	out := []scoredHit{}
	for _, h := range hits {
		out = append(out, scoredHit{h.Key, h.Score, h.Norm})
	}
	return out
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
