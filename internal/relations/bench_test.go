package relations

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/corpus"
	"github.com/researchctx/researchctx/internal/vault"
	"github.com/researchctx/researchctx/sources"
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
func benchLibrary(b *testing.B) *vault.Vault {
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
	start := cpuTime()
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
	start := cpuTime()
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
	start := cpuTime()
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
	start := cpuTime()
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
	start := cpuTime()
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
	if d := cpuTime() - start; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d)/float64(b.N), "cpu-ns/op")
	}
}

// pdfBenchCopies is how many times the corpus PDFs appear in the library of
// BenchmarkFirstLookupPDF: 34 PDFs × 10 = 340 papers.
const pdfBenchCopies = 10

// pdfBenchLibrary lays the shared corpus PDFs out as a library of
// pdfBenchCopies × 34 papers (papers/rK/NAME, hard links to one file where
// the file system allows; the first copy with the paper's title, year and
// identifiers from the reference benchmark's labels) and opens it.
func pdfBenchLibrary(b *testing.B) *vault.Vault {
	b.Helper()
	pdfs := corpus.Dir(b, "pdfs")
	data, err := os.ReadFile(filepath.Join("..", "refbench", "testdata", "reflabels.json"))
	if err != nil {
		b.Fatal(err)
	}
	var labels struct {
		Papers []struct {
			File  string `json:"file"`
			Title string `json:"title"`
			Year  int    `json:"year"`
			ArXiv string `json:"arxivId"`
			DOI   string `json:"doi"`
		} `json:"papers"`
	}
	if err := json.Unmarshal(data, &labels); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for k := range pdfBenchCopies {
		for _, p := range labels.Papers {
			unit := filepath.Join(dir, "papers", fmt.Sprintf("r%02d", k), strings.TrimSuffix(p.File, ".pdf"))
			meta := obj{"title": p.Title, "year": p.Year, "arxiv_id": p.ArXiv, "doi": p.DOI}
			if k > 0 {
				// A copy is another paper to the catalogue: its own title,
				// no identifiers, so that matches stay unambiguous.
				meta = obj{"title": fmt.Sprintf("Copy %d of %s", k, p.File)}
			}
			writeFiles(b, unit, map[string]string{"metadata.json": js(b, meta)})
			if err := os.Link(filepath.Join(pdfs, p.File), filepath.Join(unit, p.File)); err != nil {
				pdf, err := os.ReadFile(filepath.Join(pdfs, p.File))
				if err != nil {
					b.Fatal(err)
				}
				writeFiles(b, unit, map[string]string{p.File: string(pdf)})
			}
		}
	}
	v, err := vault.Open(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

// BenchmarkFirstLookupPDF is the first paper_relations of a new process on
// a library of 340 real PDFs without sidecars, as the tools build it (a new
// sources.Library reading text through the PDF text cache, a new graph),
// with the PDF text cache warm: "parse" reads every paper's text from the
// text cache and parses its reference section, as before the parsed
// references were cached; "parse-write" does the same and writes every
// paper's entry into an empty cache folder (a process's first build);
// "cached" reads them back from the disk cache.
// The catalogue is the Vault's, built once: only the graph is measured.
func BenchmarkFirstLookupPDF(b *testing.B) {
	v := pdfBenchLibrary(b)
	ctx := context.Background()
	first := func(cacheDir string) *Relations {
		lib := sources.NewLibrary(v, nil)
		r, err := New(v, &Options{CacheDir: cacheDir, Text: lib.PaperText}).Relations(ctx, "papers/r00/arxiv-1706.03762")
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	// Warm the PDF text cache and write the parsed references.
	want := first("")
	if len(want.References) == 0 {
		b.Fatal("no references parsed")
	}
	for _, bc := range []struct{ name, cacheDir string }{{"parse", "-"}, {"parse-write", "new"}, {"cached", ""}} {
		b.Run(bc.name, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				dir := bc.cacheDir
				if dir == "new" {
					dir = b.TempDir() // an empty cache folder each time
				}
				if r := first(dir); len(r.References) != len(want.References) {
					b.Fatalf("%d references, want %d", len(r.References), len(want.References))
				}
			}
			reportCPU(b, start)
		})
	}
}
