//go:build linux

// Command blevebench measures bleve v2 (scorch segments, BM25 scoring, the
// English analyzer) next to internal/index on the SciFact training claims:
// ranking quality, build time, index size on disk, search latency and peak
// memory. It is a module of its own, so bleve never enters the SDK's
// go.mod nor the repository's workspace (hence GOWORK=off); run one engine
// per process so that each reports its own peak RSS:
//
//	cd internal/cmd/blevebench
//	GOWORK=off go run . -engine ours
//	GOWORK=off go run . -engine bleve
//
// Each abstract is a document with a title and a body (its sentences), as
// the SDK indexes the text file <doc_id>.txt. Bleve has no BM25F: the query
// is a disjunction of a match on the title (boost 2, the SDK's title
// weight) and one on the body.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/researchctx/researchctx/internal/index"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/internal/testkit/scifact"
)

const k = 10

func main() {
	log.SetFlags(0)
	engine := flag.String("engine", "ours", "ours or bleve")
	one := flag.Bool("onefield", false, "bleve: index title and body as one field and match on it")
	// This module's root is not the SDK's: the corpus lies four folders up.
	dir := flag.String("corpus", filepath.Join("..", "..", "..", "..", "shared", "corpus"), "the shared corpus folder")
	flag.Parse()
	docs, claims, err := scifact.Load(filepath.Join(*dir, "scifact"))
	if err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "blevebench-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	var search func(q string) []string
	var build time.Duration
	var size int64
	switch *engine {
	case "ours":
		st := time.Now()
		var b index.Builder
		for _, d := range docs {
			title, body, _ := strings.Cut(d.FileText(), "\n")
			if err := b.Add(index.Doc{Key: d.ID, Title: title, Body: body}); err != nil {
				log.Fatal(err)
			}
		}
		ix := b.Index()
		var buf bytes.Buffer
		if _, err := ix.WriteTo(&buf); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, "index"), buf.Bytes(), 0o600); err != nil {
			log.Fatal(err)
		}
		build = time.Since(st)
		size = int64(buf.Len())
		search = func(q string) []string {
			hits, _ := ix.Search(q, k)
			out := make([]string, len(hits))
			for i, h := range hits {
				out[i] = h.Key
			}
			return out
		}
	case "bleve":
		m := bleve.NewIndexMapping()
		m.ScoringModel = bindex.BM25Scoring
		m.DefaultAnalyzer = en.AnalyzerName
		dm := bleve.NewDocumentMapping()
		for _, f := range []string{"title", "body", "text"} {
			fm := mapping.NewTextFieldMapping()
			fm.Analyzer = en.AnalyzerName
			fm.Store = false
			fm.IncludeInAll = false
			dm.AddFieldMappingsAt(f, fm)
		}
		m.DefaultMapping = dm
		st := time.Now()
		bx, err := bleve.New(filepath.Join(tmp, "bleve"), m)
		if err != nil {
			log.Fatal(err)
		}
		batch := bx.NewBatch()
		for i, d := range docs {
			title, body, _ := strings.Cut(d.FileText(), "\n")
			doc := map[string]string{"title": title, "body": body}
			if *one {
				doc = map[string]string{"text": title + "\n" + body}
			}
			if err := batch.Index(d.ID, doc); err != nil {
				log.Fatal(err)
			}
			if i%1000 == 999 {
				if err := bx.Batch(batch); err != nil {
					log.Fatal(err)
				}
				batch = bx.NewBatch()
			}
		}
		if err := bx.Batch(batch); err != nil {
			log.Fatal(err)
		}
		if err := bx.Close(); err != nil {
			log.Fatal(err)
		}
		if bx, err = bleve.Open(filepath.Join(tmp, "bleve")); err != nil {
			log.Fatal(err)
		}
		defer bx.Close()
		build = time.Since(st)
		size = dirSize(filepath.Join(tmp, "bleve"))
		search = func(q string) []string {
			t := bleve.NewMatchQuery(q)
			t.SetField("title")
			t.SetBoost(2)
			b := bleve.NewMatchQuery(q)
			b.SetField("body")
			var qq query.Query = query.NewDisjunctionQuery([]query.Query{t, b})
			if *one {
				m := bleve.NewMatchQuery(q)
				m.SetField("text")
				qq = m
			}
			req := bleve.NewSearchRequestOptions(qq, k, 0, false)
			res, err := bx.Search(req)
			if err != nil {
				log.Fatal(err)
			}
			out := make([]string, len(res.Hits))
			for i, h := range res.Hits {
				out[i] = h.ID
			}
			return out
		}
	default:
		log.Fatalf("unknown engine %q", *engine)
	}

	var ndcg, recall float64
	var lat []time.Duration
	n := 0
	for round := range 3 {
		for _, c := range claims {
			rel := c.Relevant()
			if len(rel) == 0 {
				continue
			}
			st := time.Now()
			ranked := search(c.Claim)
			lat = append(lat, time.Since(st))
			if round == 0 {
				ndcg += scifact.NDCG(ranked, rel, k)
				recall += scifact.Recall(ranked, rel, k)
				n++
			}
		}
	}
	slices.Sort(lat)
	if *one {
		*engine += " (one field)"
	}
	fmt.Printf("%s: %d abstracts, %d claims: nDCG@10 %.4f  Recall@10 %.4f  build %v  index %.1f MB  search p50 %v p95 %v  peak RSS %.1f MB\n",
		*engine, len(docs), n, ndcg/float64(n), recall/float64(n), build.Round(time.Millisecond), float64(size)/(1<<20),
		lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*95/100].Round(time.Microsecond), float64(procstat.PeakRSS())/(1<<20))
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
