package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/procstat"
	"github.com/researchctx/researchctx/tools"
)

// Shape of the generated library for paper_relations.
const (
	libPapers   = 2000
	libRefs     = 15   // references to other library papers per sidecar
	libExtRefs  = 15   // external references per sidecar
	libExtPool  = 5000 // distinct external works, so some are cited by several papers
	libSeeds    = 1000 // papers with an entry in the cited-by cache
	libCitingN  = 20   // citing works per cache entry
	libGranted  = 20   // papers granted in the timed turn
	relWarmRuns = 50   // warm rounds over the granted papers
)

type obj = map[string]any

func paperRef(i int) string { return fmt.Sprintf("papers/p%04d", i) }
func paperDOI(i int) string { return fmt.Sprintf("10.7000/p.%d", i) }
func paperArX(i int) string { return fmt.Sprintf("2401.%05d", i) }

// extWork is an external (non-library) work, by DOI or by arXiv id.
func extWork(i int) obj {
	if i%2 == 0 {
		return obj{"title": fmt.Sprintf("External work %d", i), "doi": fmt.Sprintf("10.8000/x.%d", i)}
	}
	return obj{"title": fmt.Sprintf("External work %d", i), "arxivId": fmt.Sprintf("2301.%05dv2", i)}
}

// writeLibrary writes a libPapers-paper library under root in the formats of
// the Vault: metadata.json with DOI and arXiv id, a stub PDF, a reference
// sidecar citing random library papers (by localMatch, DOI, versioned arXiv
// id or the arXiv DOI alias) and external works, and a cited-by cache.
func writeLibrary(root string) error {
	rng := rand.New(rand.NewPCG(7, 11))
	write := func(rel string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	for i := range libPapers {
		ref := paperRef(i)
		err := write(ref+"/metadata.json", obj{
			"title":   fmt.Sprintf("Paper %d on a generated topic", i),
			"authors": []string{"A. Author", "B. Author", "C. Author", "D. Author"},
			"year":    2000 + i%25, "doi": paperDOI(i), "arxiv_id": paperArX(i),
		})
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(root, ref, "paper.pdf"), []byte("%PDF-1.4\n"), 0o644); err != nil {
			return err
		}
		var cits []any
		for n := range libRefs {
			j := rng.IntN(libPapers)
			m := obj{"title": fmt.Sprintf("Paper %d on a generated topic", j), "authors": []string{"A. Author"}}
			c := obj{"id": fmt.Sprintf("l%d", n), "metadata": m, "source": "crossref", "status": "resolved"}
			switch n % 4 {
			case 0:
				c["localMatch"] = obj{"paperPath": paperRef(j), "matchBy": "title"}
			case 1:
				m["doi"] = "https://doi.org/" + paperDOI(j)
			case 2:
				m["arxivId"] = paperArX(j) + "v3"
			case 3:
				m["doi"] = "10.48550/arXiv." + paperArX(j)
			}
			cits = append(cits, c)
		}
		for n := range libExtRefs {
			cits = append(cits, obj{"id": fmt.Sprintf("e%d", n), "metadata": extWork(rng.IntN(libExtPool)),
				"source": "crossref", "status": "resolved"})
		}
		err = write(ref+"/source/agentero-cite.json", obj{
			"schemaVersion": 1,
			"source":        obj{"mode": "pdf-text", "generatedAt": "2024-01-01T00:00:00Z", "fingerprint": "sha256:00"},
			"citations":     cits,
		})
		if err != nil {
			return err
		}
	}
	seeds := obj{}
	for s := range libSeeds {
		var citing []any
		for n := range libCitingN {
			var c obj
			if n%3 == 0 {
				j := rng.IntN(libPapers)
				c = obj{"s2Id": fmt.Sprintf("s2-p%d", j), "title": fmt.Sprintf("Paper %d on a generated topic", j), "doi": paperDOI(j)}
			} else {
				x := rng.IntN(libExtPool)
				c = extWork(x)
				c["s2Id"] = fmt.Sprintf("s2-x%d", x)
			}
			c["citationCount"] = rng.IntN(100)
			c["date"] = "2024-05-01"
			citing = append(citing, c)
		}
		seeds[paperRef(s*2)] = obj{"s2Id": fmt.Sprintf("seed-%d", s), "citationCount": len(citing),
			"fetchedAt": "2024-11-02T09:00:00Z", "citing": citing}
	}
	return write(".agentero/citing-scan.json", obj{"schemaVersion": 1, "generatedAt": "2024-11-02T10:00:00Z", "seeds": seeds})
}

// relTiming is what the paper_relations benchmark measured.
type relTiming struct {
	Open    time.Duration   // tools.Open of the grant
	Cold    time.Duration   // the first call: builds the citation graph
	ColdCPU time.Duration   // the process's CPU time during it
	First   []time.Duration // the other granted papers' first calls, sorted
	Warm    []time.Duration // repeated calls, sorted
	Cards   int             // cards of the cold call, a sanity check
}

// benchRelations grants libGranted papers spread over the library and times
// paper_relations (kind all, default limit): the first call of the process,
// each other paper's first call, then relWarmRuns rounds over all of them.
func benchRelations(ctx context.Context, root string) (*relTiming, error) {
	var mentions []string
	for i := range libGranted {
		mentions = append(mentions, paperRef(i*(libPapers/libGranted)+1))
	}
	var res researchctx.Resolver
	defer res.Close()
	turnChars := grant.MaxBudget().TurnChars
	plan, err := res.Resolve(ctx, researchctx.Request{
		Vault: root, RuntimeID: runtimeID, TurnID: "turn-0", Mentions: mentions,
		Budget: &grant.BudgetOverrides{TurnChars: &turnChars},
	})
	if err != nil {
		return nil, err
	}
	if len(plan.Sources) != libGranted {
		return nil, fmt.Errorf("the plan grants %d papers, want %d (dropped %v)", len(plan.Sources), libGranted, plan.Dropped)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		return nil, err
	}
	rt := &relTiming{}
	st := time.Now()
	ts, err := tools.Open(ctx, gr, nil)
	if err != nil {
		return nil, err
	}
	defer ts.Close()
	rt.Open = time.Since(st)

	turn := 0
	call := func(ref string) (time.Duration, int, error) {
		// A new turn every few calls keeps the budget out of the way, as
		// a host's turns would; the grant write is not timed.
		if turn++; turn%10 == 0 {
			plan.TurnID = fmt.Sprintf("turn-%d", turn)
			if _, err := plan.WriteGrant(); err != nil {
				return 0, 0, err
			}
		}
		st := time.Now()
		out, err := ts.Relations(ctx, tools.RelationsInput{Paper: ref})
		d := time.Since(st)
		if err != nil {
			return d, 0, fmt.Errorf("%s: %w", ref, err)
		}
		return d, len(out.References) + len(out.CitedBy) + len(out.Related), nil
	}
	cpu0 := procstat.CPUTime()
	if rt.Cold, rt.Cards, err = call(mentions[0]); err != nil {
		return nil, err
	}
	rt.ColdCPU = procstat.CPUTime() - cpu0
	for _, ref := range mentions[1:] {
		d, _, err := call(ref)
		if err != nil {
			return nil, err
		}
		rt.First = append(rt.First, d)
	}
	for range relWarmRuns {
		for _, ref := range mentions {
			d, _, err := call(ref)
			if err != nil {
				return nil, err
			}
			rt.Warm = append(rt.Warm, d)
		}
	}
	slices.Sort(rt.First)
	slices.Sort(rt.Warm)
	return rt, nil
}
