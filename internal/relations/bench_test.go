package relations

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
)

// Shape of the generated library.
const (
	benchPapers   = 2000
	benchLibRefs  = 15   // references to other library papers per sidecar
	benchExtRefs  = 15   // external references per sidecar
	benchExtPool  = 5000 // distinct external works, so that some are shared
	benchSeeds    = 1000 // papers with a cited-by cache entry
	benchCitingsN = 20   // citing entries per seed
)

// benchLibrary writes a library of benchPapers papers with sidecars citing
// random library papers (by localMatch, DOI, arXiv id or arXiv DOI alias)
// and external works, and a cited-by cache, and opens it.
func benchLibrary(b *testing.B) *catalog.Vault {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	files := map[string]string{}
	ref := func(i int) string { return fmt.Sprintf("papers/p%04d", i) }
	doi := func(i int) string { return fmt.Sprintf("10.7000/p.%d", i) }
	arx := func(i int) string { return fmt.Sprintf("2401.%05d", i) }
	ext := func(i int) obj {
		if i%2 == 0 {
			return obj{"title": fmt.Sprintf("External work %d", i), "doi": fmt.Sprintf("10.8000/x.%d", i)}
		}
		return obj{"title": fmt.Sprintf("External work %d", i), "arxivId": fmt.Sprintf("2301.%05dv2", i)}
	}
	for i := range benchPapers {
		files[ref(i)+"/metadata.json"] = js(b, obj{"title": fmt.Sprintf("Paper %d", i),
			"authors": []string{"A. Author", "B. Author", "C. Author", "D. Author"}, "year": 2000 + i%25,
			"doi": doi(i), "arxiv_id": arx(i)})
		files[ref(i)+"/paper.pdf"] = "%PDF-1.4\n"
		var cits []any
		for k := range benchLibRefs {
			j := rng.IntN(benchPapers)
			m := obj{"title": fmt.Sprintf("Paper %d", j), "authors": []string{"A. Author"}}
			c := obj{"id": fmt.Sprintf("l%d", k), "metadata": m, "source": "crossref", "status": "resolved"}
			switch k % 4 {
			case 0:
				c["localMatch"] = obj{"paperPath": ref(j), "matchBy": "title"}
			case 1:
				m["doi"] = "https://doi.org/" + doi(j)
			case 2:
				m["arxivId"] = arx(j) + "v3"
			case 3:
				m["doi"] = "10.48550/arXiv." + arx(j)
			}
			cits = append(cits, c)
		}
		for k := range benchExtRefs {
			cits = append(cits, obj{"id": fmt.Sprintf("e%d", k), "metadata": ext(rng.IntN(benchExtPool)), "status": "resolved"})
		}
		files[ref(i)+"/"+SidecarFile] = sidecarDoc(b, cits...)
	}
	seeds := obj{}
	for s := range benchSeeds {
		var citing []any
		for k := range benchCitingsN {
			var c obj
			if k%3 == 0 {
				j := rng.IntN(benchPapers)
				c = obj{"s2Id": fmt.Sprintf("s2-p%d", j), "title": fmt.Sprintf("Paper %d", j), "doi": doi(j)}
			} else {
				x := rng.IntN(benchExtPool)
				c = ext(x)
				c["s2Id"] = fmt.Sprintf("s2-x%d", x)
			}
			c["citationCount"] = rng.IntN(100)
			c["date"] = "2024-05-01"
			citing = append(citing, c)
		}
		seeds[ref(s*2)] = seed(citing...)
	}
	files[ScanFile] = scanDoc(b, seeds)
	v, _ := openVault(b, files)
	return v
}

// BenchmarkRelations is one paper_relations lookup (references, cited-by
// and related) on a warm 2,000-paper library, cycling through every paper.
// Every paper was asked about once before, so related lists are memoised;
// BenchmarkRelated measures a paper's first lookup.
func BenchmarkRelations(b *testing.B) {
	v := benchLibrary(b)
	l := New(v, &Options{Revalidate: time.Hour})
	ctx := context.Background()
	for i := range benchPapers {
		if _, err := l.Relations(ctx, fmt.Sprintf("papers/p%04d", i)); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	start := procstat.CPUTime()
	for b.Loop() {
		r, err := l.Relations(ctx, fmt.Sprintf("papers/p%04d", i%benchPapers))
		if err != nil || len(r.References) == 0 {
			b.Fatal(err, r)
		}
		i++
	}
	reportCPU(b, start)
}

// BenchmarkRelated is a paper's first lookup on a built graph: its related
// list computed without the memo.
func BenchmarkRelated(b *testing.B) {
	v := benchLibrary(b)
	l := New(v, &Options{Revalidate: time.Hour})
	g, err := l.graph(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	start := procstat.CPUTime()
	for b.Loop() {
		g.relMu.Lock()
		clear(g.rel)
		g.relMu.Unlock()
		if len(g.related(fmt.Sprintf("papers/p%04d", i%benchPapers))) == 0 {
			b.Fatal("no related papers")
		}
		i++
	}
	reportCPU(b, start)
}

// BenchmarkRevalidate is the periodic freshness check: one stat per
// sidecar plus the cache (and the catalogue's own check).
func BenchmarkRevalidate(b *testing.B) {
	v := benchLibrary(b)
	l := New(v, &Options{Revalidate: time.Nanosecond})
	ctx := context.Background()
	if _, err := l.Relations(ctx, "papers/p0000"); err != nil {
		b.Fatal(err)
	}
	g := l.g
	start := procstat.CPUTime()
	for b.Loop() {
		if _, err := l.Relations(ctx, "papers/p0001"); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	if l.g != g {
		b.Fatal("graph rebuilt although nothing changed")
	}
}

// BenchmarkBuild is the first lookup of a process: every sidecar and the
// cache read, parsed and indexed.
func BenchmarkBuild(b *testing.B) {
	v := benchLibrary(b)
	ctx := context.Background()
	if _, err := v.Catalogue(ctx); err != nil {
		b.Fatal(err)
	}
	start := procstat.CPUTime()
	for b.Loop() {
		if _, err := New(v, nil).Relations(ctx, "papers/p0000"); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkRebuild is the lookup after one sidecar changed: every file is
// stat-ed, the changed sidecar re-read, and the graph re-indexed (other
// sidecars and the cache come from the memo).
func BenchmarkRebuild(b *testing.B) {
	v := benchLibrary(b)
	l := New(v, &Options{Revalidate: time.Nanosecond})
	ctx := context.Background()
	if _, err := l.Relations(ctx, "papers/p0000"); err != nil {
		b.Fatal(err)
	}
	sc := filepath.Join(v.Root(), "papers", "p0007", filepath.FromSlash(SidecarFile))
	t0 := time.Now()
	i := 0
	start := procstat.CPUTime()
	for b.Loop() {
		i++
		b.StopTimer()
		if err := os.Chtimes(sc, t0, t0.Add(time.Duration(i)*time.Second)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		g := l.g
		if _, err := l.Relations(ctx, "papers/p0001"); err != nil {
			b.Fatal(err)
		}
		if l.g == g {
			b.Fatal("graph not rebuilt")
		}
	}
	reportCPU(b, start)
}

// reportCPU reports the CPU time per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	if d := procstat.CPUTime() - start; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d)/float64(b.N), "cpu-ns/op")
	}
}
