//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/tools"
)

// runBackground is -background: warm searches of the papers folder and a
// new server's first answer, with the library's background idle and then
// while it indexes a second folder (more/, loose copies of the corpus
// PDFs) and recognises a folder of scans (scans/, pages of corpus papers
// rendered to grey JPEG and put back into image-only PDFs), side by side
// in one run.
func runBackground(ctx context.Context, dir string, copies, more, scanPages, runs, warm int) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "libbench-bg-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	root, err := corpus.Root()
	if err != nil {
		return err
	}
	pdfDir := filepath.Join(root, "pdfs")
	// The copied folders hold the corpus PDFs whose every page has text:
	// a page without would be recognised in the background of the idle
	// round, once per copy.
	textDir, err := textOnly(pdfDir)
	if err != nil {
		return err
	}
	defer os.RemoveAll(textDir)
	if _, err := os.Stat(filepath.Join(dir, "papers")); err != nil {
		if _, err := writeReal(dir, textDir, copies); err != nil {
			return err
		}
	}
	// Fresh each run: the background's work must be left to do.
	for _, f := range []string{"more", "scans"} {
		os.RemoveAll(filepath.Join(dir, f))
	}
	nmore, err := writeLoose(filepath.Join(dir, "more"), textDir, more)
	if err != nil {
		return err
	}
	npages, err := writeScans(filepath.Join(dir, "scans"), pdfDir, scanPages)
	if err != nil {
		return err
	}
	papers, _ := filepath.Glob(filepath.Join(dir, "papers", "*", "paper.pdf"))
	fmt.Printf("library: papers/ %d papers; more/ %d PDFs; scans/ %d scanned pages\n", len(papers), nmore, npages)
	fmt.Printf("machine: %d cores, load average %s\n", numCPU(), loadAvg())

	gr, next, err := writeMentionsGrant(ctx, dir, "libbench-bg", "papers", "more", "scans")
	if err != nil {
		return err
	}
	ts, err := tools.Open(ctx, gr, nil)
	if err != nil {
		return err
	}
	defer ts.Close()
	search := func(source, q string) (*tools.SearchOutput, error) {
		return ts.Search(ctx, tools.SearchInput{Query: q, Limit: 10, Source: source})
	}
	// The papers' index first (kept from an earlier run with -dir).
	st := time.Now()
	for {
		out, err := search("papers", realQueries[0])
		if err != nil {
			return err
		}
		if out.Indexing.Total == 0 {
			break
		}
		time.Sleep(500 * time.Millisecond)
		if err := next(); err != nil {
			return err
		}
	}
	fmt.Printf("papers/ indexed after %v\n", time.Since(st).Round(time.Millisecond))
	time.Sleep(2 * time.Second) // a merge's end

	calls := 0
	warmRound := func(until <-chan struct{}) ([]time.Duration, error) {
		var lat []time.Duration
		for i := 0; ; i++ {
			if until == nil && i == warm {
				break
			}
			if until != nil {
				select {
				case <-until:
					if i >= 20 {
						return lat, nil
					}
				default:
				}
			}
			if calls++; calls%50 == 0 {
				if err := next(); err != nil {
					return nil, err
				}
			}
			q := realQueries[i%len(realQueries)]
			st := time.Now()
			out, err := search("papers", q)
			lat = append(lat, time.Since(st))
			if err != nil {
				return nil, err
			}
			if len(out.Cards) == 0 || out.Indexing.Total > 0 {
				return nil, fmt.Errorf("%q: %d cards, indexing %+v", q, len(out.Cards), out.Indexing)
			}
			// An agent's pace: a call now and then, not back to back.
			time.Sleep(20 * time.Millisecond)
		}
		return lat, nil
	}

	fmt.Printf("idle background (load average %s):\n", loadAvg())
	lat, err := warmRound(nil)
	if err != nil {
		return err
	}
	fmt.Printf("  warm context_search (%d): p50 %v  p95 %v  max %v\n", len(lat), pct(lat, 0.5), pct(lat, 0.95), pct(lat, 1))
	fmt.Print("  ")
	if err := spawnAll(ctx, dir, runs, 20, realQueries); err != nil {
		return err
	}

	fmt.Printf("busy background: more/ indexed and scans/ recognised (load average %s):\n", loadAvg())
	bgStart := time.Now()
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(done)
		// A host's other turn: each folder's first search starts its
		// work, then a look now and then until both are whole.
		left := map[string]bool{"scans": true, "more": true}
		for len(left) > 0 {
			for _, f := range []string{"scans", "more"} {
				if !left[f] {
					continue
				}
				out, err := search(f, "the")
				if err != nil {
					errc <- err
					return
				}
				if out.Indexing.Total == 0 {
					delete(left, f)
					fmt.Printf("  %s/ whole after %v\n", f, time.Since(bgStart).Round(time.Millisecond))
				}
			}
			time.Sleep(time.Second)
		}
	}()
	time.Sleep(time.Second) // the work under way
	fmt.Print("  ")
	if err := spawnAll(ctx, dir, runs, 20, realQueries); err != nil {
		return err
	}
	lat, err = warmRound(done)
	if err != nil {
		return err
	}
	<-done
	select {
	case err := <-errc:
		return err
	default:
	}
	fmt.Printf("  warm context_search (%d, while the background ran): p50 %v  p95 %v  max %v\n", len(lat), pct(lat, 0.5), pct(lat, 0.95), pct(lat, 1))
	fmt.Printf("  background work took %v (load average %s)\n", time.Since(bgStart).Round(time.Millisecond), loadAvg())
	return nil
}

// textOnly returns a new folder of links to the PDFs of pdfDir whose
// every page has a text layer.
func textOnly(pdfDir string) (string, error) {
	pdfs, err := filepath.Glob(filepath.Join(pdfDir, "*.pdf"))
	if err != nil {
		return "", err
	}
	out, err := os.MkdirTemp("", "libbench-text-*")
	if err != nil {
		return "", err
	}
	kept := 0
	for _, p := range pdfs {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return "", err
		}
		doc, err := pdf.Extract(context.Background(), f, st.Size(), nil)
		f.Close()
		if err != nil || slices.ContainsFunc(doc.Pages, func(pg pdf.Page) bool { return pg.NoTextLayer }) {
			continue
		}
		if err := os.Symlink(p, filepath.Join(out, filepath.Base(p))); err != nil {
			return "", err
		}
		kept++
	}
	fmt.Printf("corpus PDFs with text on every page: %d of %d\n", kept, len(pdfs))
	return out, nil
}

// writeLoose copies each corpus PDF copies times into folder, loose
// (no paper folders), each copy's bytes distinct, and distinct from
// every earlier run's.
func writeLoose(folder, pdfDir string, copies int) (int, error) {
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return 0, err
	}
	pdfs, err := filepath.Glob(filepath.Join(pdfDir, "*.pdf"))
	if err != nil {
		return 0, err
	}
	n := 0
	// The run's own bytes: no copy is served from an earlier run's
	// extraction (the PDF cache is keyed by content).
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	for c := range copies {
		for _, p := range pdfs {
			data, err := os.ReadFile(p)
			if err != nil {
				return 0, err
			}
			data = append(slices.Clip(data), fmt.Sprintf("\n%% loose copy %d of run %s\n", c, run)...)
			name := fmt.Sprintf("%s-%d.pdf", strings.TrimSuffix(filepath.Base(p), ".pdf"), c)
			if err := os.WriteFile(filepath.Join(folder, name), data, 0o644); err != nil {
				return 0, err
			}
			n++
		}
	}
	return n, nil
}

// writeScans makes image-only PDFs of the first two pages of corpus
// arXiv papers in folder, pages in all, with pdftoppm (200 dpi, grey
// JPEG) and img2pdf.
func writeScans(folder, pdfDir string, pages int) (int, error) {
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return 0, err
	}
	pdfs, err := filepath.Glob(filepath.Join(pdfDir, "arxiv-*.pdf"))
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "libbench-scans-*")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	n := 0
	for _, p := range pdfs {
		if n >= pages {
			break
		}
		k := min(2, pages-n)
		prefix := filepath.Join(tmp, strconv.Itoa(n))
		if out, err := exec.Command("pdftoppm", "-f", "1", "-l", strconv.Itoa(k), "-r", "200", "-gray", "-jpeg", p, prefix).CombinedOutput(); err != nil {
			return 0, fmt.Errorf("pdftoppm: %v: %s", err, out)
		}
		imgs, _ := filepath.Glob(prefix + "-*.jpg")
		slices.Sort(imgs)
		dst := filepath.Join(folder, "scan-"+filepath.Base(p))
		if out, err := exec.Command("img2pdf", append(imgs, "-o", dst)...).CombinedOutput(); err != nil {
			return 0, fmt.Errorf("img2pdf: %v: %s", err, out)
		}
		n += len(imgs)
	}
	return n, nil
}

// writeMentionsGrant is writeSessionGrant over several mentions, one
// source each.
func writeMentionsGrant(ctx context.Context, root, runtime string, mentions ...string) (string, func() error, error) {
	var res researchctx.Resolver
	defer res.Close()
	turnChars := grant.MaxBudget().TurnChars
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	plan, err := res.Resolve(ctx, researchctx.Request{
		Vault: root, RuntimeID: runtime, TurnID: run + "-0", Mentions: mentions,
		Budget: &grant.BudgetOverrides{TurnChars: &turnChars},
	})
	if err != nil {
		return "", nil, err
	}
	if len(plan.Sources) != len(mentions) {
		return "", nil, fmt.Errorf("the plan grants %v (dropped %v)", plan.Sources, plan.Dropped)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		return "", nil, err
	}
	turn := 0
	next := func() error {
		turn++
		plan.TurnID = fmt.Sprintf("%s-%d", run, turn)
		_, err := plan.WriteGrant()
		return err
	}
	return gr, next, nil
}
