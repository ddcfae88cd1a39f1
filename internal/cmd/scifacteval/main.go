// Command scifacteval measures the index on the SciFact training claims:
// ranking quality (nDCG@10, Recall@10) next to a plain BM25 baseline built
// in the same run, whether BestPassage quotes a rationale sentence, search
// latency, build and load times, index size and peak memory.
//
// Usage:
//
//	go run ./internal/cmd/scifacteval [-dir corpus/scifact] [-k 10]
//
// Without -dir it looks for ../shared/corpus/scifact beside the module.
// Each abstract is indexed as the text file <doc_id>.txt would be: the
// title line as the title, the sentences (one per line) as the body.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
)

func main() {
	log.SetFlags(0)
	dir := flag.String("dir", "", "SciFact folder (corpus.jsonl, claims_train.jsonl)")
	k := flag.Int("k", 10, "results per claim")
	load := flag.String("load", "", "internal: load this index file, run one search and report the time")
	query := flag.String("query", "", "internal: the query for -load")
	flag.Parse()
	if *load != "" {
		loadOnce(*load, *query)
		return
	}
	if *dir == "" {
		root, err := corpus.Root()
		if err != nil {
			log.Fatal(err)
		}
		*dir = filepath.Join(root, "scifact")
	}
	docs, claims, err := scifact.Load(*dir)
	if err != nil {
		log.Fatal(err)
	}
	byID := map[string]scifact.Abstract{}
	for _, d := range docs {
		byID[d.ID] = d
	}

	t0 := time.Now()
	var b index.Builder
	for _, d := range docs {
		title, body, _ := strings.Cut(d.FileText(), "\n")
		if err := b.Add(index.Doc{Key: d.ID + ".txt", Title: title, Body: body}); err != nil {
			log.Fatal(err)
		}
	}
	ix := b.Index()
	build := time.Since(t0)

	tmp, err := os.MkdirTemp("", "scifacteval")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "index.bin")
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		log.Fatal(err)
	}

	bm := scifact.NewBM25(docs)
	var nd, rc, bnd, brc float64
	var lat []time.Duration
	type passage struct{ n, hit int }
	caps := []int{300, 400, 500}
	pass := make([]passage, len(caps))
	for _, c := range claims {
		rel := c.Relevant()
		st := time.Now()
		hits, _ := ix.Search(c.Claim, *k)
		lat = append(lat, time.Since(st))
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = strings.TrimSuffix(h.Key, ".txt")
		}
		nd += scifact.NDCG(ids, rel, 10)
		rc += scifact.Recall(ids, rel, 10)
		bids := bm.Search(c.Claim, *k)
		bnd += scifact.NDCG(bids, rel, 10)
		brc += scifact.Recall(bids, rel, 10)
		for id, rationale := range c.Docs {
			a, ok := byID[id]
			if !ok || len(rationale) == 0 {
				continue
			}
			text := a.FileText()
			for i, cp := range caps {
				s, e := ix.BestPassage(text, c.Claim, cp)
				pass[i].n++
				if scifact.Covers(a, rationale, s, e) {
					pass[i].hit++
				}
			}
		}
	}
	n := float64(len(claims))
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }

	// Time the first search of a fresh process with the index on disk.
	child := exec.Command(os.Args[0], "-load", path, "-query", claims[0].Claim)
	child.Stderr = os.Stderr
	st := time.Now()
	out, err := child.Output()
	if err != nil {
		log.Fatalf("load run: %v", err)
	}
	wall := time.Since(st)

	fmt.Printf("SciFact train: %d abstracts, %d claims, k=%d\n", len(docs), len(claims), *k)
	fmt.Printf("  index   nDCG@10 %.4f  Recall@10 %.4f\n", nd/n, rc/n)
	fmt.Printf("  BM25    nDCG@10 %.4f  Recall@10 %.4f  (k1 0.9, b 0.4, one field, lower-case alnum tokens)\n", bnd/n, brc/n)
	for i, cp := range caps {
		fmt.Printf("  BestPassage cap %d: %d of %d (claim, evidence document) pairs quote a rationale sentence: %.3f\n",
			cp, pass[i].hit, pass[i].n, float64(pass[i].hit)/float64(pass[i].n))
	}
	fmt.Printf("  search latency (warm): p50 %v  p95 %v  max %v\n", pct(0.5), pct(0.95), lat[len(lat)-1])
	fmt.Printf("  build %v  on-disk size %.1f MB\n", build.Round(time.Millisecond), float64(buf.Len())/1e6)
	fmt.Printf("  fresh process: %s  (wall incl. exec %v)\n", strings.TrimSpace(string(out)), wall.Round(time.Millisecond))
	runtime.GC()
	fmt.Printf("  peak RSS of this run: %s\n", peakRSS())
}

// loadOnce reads the index file, runs one search and prints the times.
func loadOnce(path, query string) {
	t0 := time.Now()
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	ix, err := index.Read(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	loaded := time.Since(t0)
	ix.Search(query, 10)
	all := time.Since(t0)
	fmt.Printf("load %v, load+first search %v, peak RSS %s",
		loaded.Round(100*time.Microsecond), all.Round(100*time.Microsecond), peakRSS())
}
