// Command zoteroeval measures the Zotero source against a library's
// truth.json, as written by the script that builds Zotero data directories
// for tests, through the SDK's public API only: the zotero driver
// registered in a registry, a resolved and written grant of the whole
// library (and of each group library), and the three tools on it, as a
// host serves them.
//
// Per data directory it reports: the metadata of every item (title,
// creators, date, DOI, collections, tags, counted per field); the
// annotations served as marks (kind, page, text at word F1 ≥ 0.9, comment
// verbatim and the annotation's own URI) as recall against the truth and
// as the rate of marks served that are in no truth; whether every page of
// every PDF read is cited zotero://open-pdf/…?page=N; how often a search
// for an annotation's comment puts its page in the first three cards; that
// the trashed items and the linked files outside the data and base
// directories are refused; that the items only in the write-ahead log are
// seen; and that Zotero's folders are byte-identical afterwards, with no
// file added.
//
// Usage (from the module root):
//
//	go run ./internal/cmd/zoteroeval -root DIR
//	go run ./internal/cmd/zoteroeval -data DIR/Zotero7 -base DIR/Attachments -truth DIR/truth.json
//
// -root measures the three layouts DIR/Zotero, DIR/Zotero7 and
// DIR/Zotero-wal with DIR/Attachments and DIR/truth.json. It exits 1 when
// a target is missed: annotation recall ≥ 0.95 with at most 2 % of the
// marks served false, comment search in the first three cards ≥ 90 %,
// everything else exact. -v prints each miss.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// layouts are the data directories -root measures.
var layouts = []string{"Zotero", "Zotero7", "Zotero-wal"}

func main() {
	root := flag.String("root", "", "folder holding truth.json, Attachments/ and the Zotero, Zotero7 and Zotero-wal data directories")
	data := flag.String("data", "", "one Zotero data directory (the folder holding zotero.sqlite)")
	base := flag.String("base", "", "the base directory of linked files (default: Attachments beside the data directory)")
	truthPath := flag.String("truth", "", "truth.json (default: beside the data directory)")
	verbose := flag.Bool("v", false, "print each miss")
	flag.Parse()
	log.SetFlags(0)

	var runs []config
	switch {
	case *root != "" && *data == "":
		for _, l := range layouts {
			runs = append(runs, config{Data: filepath.Join(*root, l), Base: filepath.Join(*root, "Attachments"), Truth: filepath.Join(*root, "truth.json")})
		}
	case *data != "" && *root == "":
		c := config{Data: *data, Base: *base, Truth: *truthPath}
		if c.Base == "" {
			c.Base = filepath.Join(filepath.Dir(*data), "Attachments")
		}
		if c.Truth == "" {
			c.Truth = filepath.Join(filepath.Dir(*data), "truth.json")
		}
		runs = append(runs, c)
	default:
		log.Print("zoteroeval: give -root, or -data (with -base and -truth when they are not beside it)")
		flag.Usage()
		os.Exit(2)
	}
	ok := true
	for _, c := range runs {
		c.Verbose = *verbose
		rep, err := evaluate(context.Background(), c)
		if err != nil {
			log.Printf("zoteroeval: %s: %v", filepath.Base(c.Data), err)
			os.Exit(2)
		}
		rep.print(os.Stdout)
		if missed := rep.missed(); len(missed) > 0 {
			ok = false
			fmt.Printf("%s: targets missed: %s\n\n", rep.Layout, strings.Join(missed, "; "))
		} else {
			fmt.Printf("%s: all targets met\n\n", rep.Layout)
		}
	}
	if !ok {
		os.Exit(1)
	}
}

// config names what one run measures.
type config struct {
	Data, Base, Truth string
	Verbose           bool
	// Log receives the misses when Verbose; nil is standard error.
	Log io.Writer
}

// truth is the part of truth.json the evaluation reads.
type truth struct {
	DataDirs map[string]struct {
		WalPending bool `json:"wal_pending"`
	} `json:"data_dirs"`
	Libraries []struct {
		Library string
		GroupID int `json:"groupID"`
	}
	Collections []struct{ Library, Path string }
	Items       []truthItem
	WalOnlyKeys []string `json:"wal_only_keys"`
}

// truthItem is one regular item of the truth.
type truthItem struct {
	Key, Library, Title, Date string
	DOI                       *string
	Year                      int
	Creators                  []struct{ FirstName, LastName, Name string }
	Collections               []string
	Tags                      []struct{ Tag string }
	Related                   []string // keys
	Notes                     []struct{ Key, Text string }
	Trashed                   bool
	WalOnly                   bool `json:"wal_only"`
	Attachments               []truthAttachment
}

// truthAttachment is one attachment of a truth item.
type truthAttachment struct {
	Key, ContentType string
	File             string // as truth.json gives it: absolute for a file outside the data and base directories
	RelativeTo       string `json:"relative_to"`
	Exists           bool
	Pages            int
	Outside          bool `json:"outside_allowed_roots"`
	Annotations      []truthAnnotation
}

// truthAnnotation is one annotation of the truth.
type truthAnnotation struct {
	Key, Type, Text   string
	Comment           *string
	PageIndex         *int   // none on an EPUB
	WalOnly           bool   `json:"wal_only"`
	URI               string `json:"uri"`
	URIWithAnnotation string `json:"uri_with_annotation"`
}

// readTruth reads and checks a truth.json.
func readTruth(path string) (*truth, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tr truth
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if len(tr.Items) == 0 {
		return nil, errors.New(filepath.Base(path) + " lists no item")
	}
	return &tr, nil
}

// creatorNames are an item's creators as the SDK names them: "First Last",
// or the single field.
func (it *truthItem) creatorNames() []string {
	var names []string
	for _, c := range it.Creators {
		names = append(names, strings.TrimSpace(strings.TrimSpace(c.FirstName+" "+c.LastName)+c.Name))
	}
	return names
}

// libraryPrefix is the part of an SDK name before "items/", "tags/" or
// "collections/" for a truth library: "" for "user", "groups/<id>/" for
// "group:<id>".
func libraryPrefix(library string) string {
	if g, ok := strings.CutPrefix(library, "group:"); ok {
		return "groups/" + g + "/"
	}
	return ""
}

// prefix is the part of an item's SDK name before "items/": "" for the
// user's library, "groups/<id>/" for a group's.
func (it *truthItem) prefix() string { return libraryPrefix(it.Library) }

// markKinds are the SDK's mark kinds of Zotero's annotation types (see
// docs/contract.md).
var markKinds = map[string]string{
	"highlight": "highlight",
	"underline": "underline",
	"note":      "note",
	"text":      "freetext",
	"image":     "image",
	"ink":       "ink",
}
