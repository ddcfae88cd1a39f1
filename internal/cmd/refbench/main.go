// Command refbench measures references parsed from PDFs on the shared
// corpus: its PDFs are laid out as one library (a paper folder per PDF, its
// metadata.json from the paper's first page, no reference sidecars), and the
// citation graph reads each paper's reference section from the text our
// extractor gives, as paper_relations does.
//
// The labelled set (testdata/reflabels.json) holds the titles of the
// reference entries of sixteen papers, labelled by hand from the pdftotext
// reference text, and which corpus papers each corpus paper cites. It is
// scored in five groups: "tune" (the papers the parser was developed on),
// "heldout" (scored during development too, so not blind), "fresh"
// (labelled after the parser was tuned; docs/benchmarks.md says what it
// scored first), "columns" (two-column reference lists that were read
// across the page before the layout read them column by column) and
// "blind" (two more two-column lists, labelled after that work).
//
// Scores: entry split (a labelled entry comes out as an entry of its own,
// not merged with another or cut), title exact match (the parsed title
// equals the label once case, accents and punctuation are folded away),
// edge recall and precision (reported links to library papers against the
// labelled ones), cited-by recall (the cited paper lists the citing one with
// its own path) and the share of reference cards with a title and a year.
//
// Usage:
//
//	go run ./internal/cmd/refbench [-v] [-dump file.pdf [-entries]]
//	go run ./internal/cmd/refbench -cites internal/cmd/refbench/testdata/cites
//
// The second form scores the citing sentences (the contexts of reference
// cards) found in the citing-sentence fixtures, per fixture.
//
// It reads ../shared/corpus beside the module unless -corpus is given.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/researchctx/researchctx/internal/relations"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/sources/vault"
)

func main() {
	log.SetFlags(0)
	dir := flag.String("corpus", "", "corpus folder (pdfs/)")
	labels := flag.String("labels", "internal/cmd/refbench/testdata/reflabels.json", "labelled set")
	dump := flag.String("dump", "", "print the PDF text of this corpus file as the graph reads it")
	entries := flag.Bool("entries", false, "with -dump: print the parsed entries instead")
	verbose := flag.Bool("v", false, "list what went wrong")
	cites := flag.String("cites", "", "score the citing-sentence fixtures of this folder (testdata/cites) against its refs.bib, else ../styles/refs.bib, and stop")
	flag.Parse()
	if *cites != "" {
		scores, err := EvaluateCites(context.Background(), *cites, citesBib(*cites))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(citeTable(scores))
		return
	}
	root := *dir
	if root == "" {
		var err error
		if root, err = corpus.Root(); err != nil {
			log.Fatal(err)
		}
	}
	l, err := ReadLabels(*labels)
	if err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "refbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := BuildVault(filepath.Join(root, "pdfs"), tmp, l); err != nil {
		log.Fatal(err)
	}
	v, lib, rel, err := Open(tmp)
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	if *dump != "" {
		for _, p := range l.Papers {
			if p.File == *dump {
				text, err := paperText(ctx, v, lib, p.Ref())
				if err != nil {
					log.Fatal(err)
				}
				if *entries {
					for i, e := range relations.Entries(text) {
						fmt.Printf("%d\t%q\t%d\t%q\t%q\t%s %s\n\t%s\n", i+1, e.Title, e.Year, e.Authors, e.Venue, e.DOI, e.ArXivID, e.Raw)
					}
					return
				}
				fmt.Print(text)
				return
			}
		}
		log.Fatalf("%s: not in the labels", *dump)
	}
	// The first lookup builds the graph: every PDF's text is extracted
	// (no cache yet) and its reference section parsed.
	t0 := time.Now()
	if _, err := rel.Relations(ctx, l.Papers[0].Ref()); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("graph of %d papers built in %v (PDF text extracted, no cache)\n", len(l.Papers), time.Since(t0).Round(time.Millisecond))
	for _, split := range []string{"tune", "heldout", "fresh", "columns", "blind"} {
		r, err := Evaluate(ctx, v, lib, rel, l, split)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %v\n", split, r)
		if *verbose {
			for _, m := range r.Misses {
				fmt.Println("  ", m)
			}
		}
	}
	// Through the library's paper sources, as paper_relations reads them,
	// with full metadata and with less of it.
	for _, b := range []struct {
		name  string
		build func(pdfs, dir string, l *Labels) error
	}{{"full metadata", BuildVault}, {"titles and arXiv ids", BuildTitlesVault}, {"titles only", BuildTitleOnlyVault}} {
		dir, err := os.MkdirTemp("", "refbench")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		if err := b.build(filepath.Join(root, "pdfs"), dir, l); err != nil {
			log.Fatal(err)
		}
		lib, err := vault.OpenLibrary(dir, nil)
		if err != nil {
			log.Fatal(err)
		}
		for _, split := range []string{"tune", "heldout", "fresh", "columns", "blind"} {
			r, err := EvaluateLinks(ctx, lib, l, split)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%s, %s: %v\n", b.name, split, r)
			if *verbose {
				for _, m := range r.Misses {
					fmt.Println("  ", m)
				}
			}
		}
		lib.Close()
	}
}
