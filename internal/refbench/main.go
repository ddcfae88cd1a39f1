package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/researchctx/researchctx/internal/corpus"
	"github.com/researchctx/researchctx/internal/relations"
)

func main() {
	log.SetFlags(0)
	dir := flag.String("corpus", "", "corpus folder (pdfs/)")
	labels := flag.String("labels", "internal/relations/testdata/reflabels.json", "labelled set")
	dump := flag.String("dump", "", "print the PDF text of this corpus file as the graph reads it")
	entries := flag.Bool("entries", false, "with -dump: print the parsed entries instead")
	verbose := flag.Bool("v", false, "list what went wrong")
	flag.Parse()
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
	v, lib, _, err := Open(tmp)
	if err != nil {
		log.Fatal(err)
	}
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
	_, _, rel, err := Open(tmp)
	if err != nil {
		log.Fatal(err)
	}
	for _, split := range []string{"tune", "heldout", "fresh"} {
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
}
