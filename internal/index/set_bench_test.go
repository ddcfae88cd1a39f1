package index

import (
	"strings"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/procstat"
)

// BenchmarkSetSearch runs the SciFact training claims against the
// abstracts in four segments, admitting every document, half of them or a
// tenth (the statistics are the admitted documents'); ns/op is per claim.
func BenchmarkSetSearch(b *testing.B) {
	docs, claims := sciFactDocs(b)
	var segs []*Index
	var allow [][]bool
	var half, tenth [][]bool
	step := (len(docs) + 3) / 4
	for lo := 0; lo < len(docs); lo += step {
		hi := min(lo+step, len(docs))
		segs = append(segs, Build(docs[lo:hi]))
		h, t := make([]bool, hi-lo), make([]bool, hi-lo)
		for d := range h {
			h[d], t[d] = (lo+d)%2 == 0, (lo+d)%10 == 0
		}
		half, tenth = append(half, h), append(tenth, t)
	}
	set := NewSet(segs...)
	for _, bc := range []struct {
		name  string
		allow [][]bool
	}{{"all", allow}, {"half", half}, {"tenth", tenth}} {
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			cpu := procstat.CPUTime()
			for b.Loop() {
				set.Search(claims[i%len(claims)], 10, bc.allow)
				i++
			}
			// On a shared machine the process's CPU time tells more
			// than the wall time.
			b.ReportMetric(float64((procstat.CPUTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// sciFactDocs returns the SciFact abstracts as documents, and the claims.
func sciFactDocs(b *testing.B) ([]Doc, []string) {
	_, abstracts, cs := sciFactIndex(b)
	docs := make([]Doc, len(abstracts))
	for i, d := range abstracts {
		title, body, _ := strings.Cut(d.FileText(), "\n")
		docs[i] = Doc{Key: d.ID + ".txt", Title: title, Body: body}
	}
	claims := make([]string, len(cs))
	for i, c := range cs {
		claims[i] = c.Claim
	}
	return docs, claims
}
