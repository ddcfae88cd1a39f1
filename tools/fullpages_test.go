package tools_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
	"github.com/researchctx/researchctx/tools"
)

// longScans is a test connector of one scanned book of 12 pages whose
// source is a sources.PageReader that recognises a page only when asked
// for it, keeping it recognised, as a source with an OCR cache does.
type longScans struct{ src *longScan }

func (longScans) Ref(_ context.Context, name string, _ *sources.Env) (*sources.Named, error) {
	return &sources.Named{Ref: grant.Ref{Path: "longscans/" + name, Title: "Scan: " + name}}, nil
}

func (s longScans) Open(_ context.Context, ref grant.Ref, _ *sources.Env) (sources.Source, error) {
	s.src.info = sources.Info{Path: ref.Path, Kind: ref.Kind, Title: ref.Title}
	return s.src, nil
}

type longScan struct {
	info  sources.Info
	mu    sync.Mutex
	done  map[int]bool // pages recognised
	asked [][]int      // the pages each ReadPages asked for
	reads int          // calls of Read, which recognises every page
}

const longScanPages = 12

func (s *longScan) Info() sources.Info { return s.info }

func (s *longScan) Search(context.Context, sources.Query) (*sources.Results, error) {
	return &sources.Results{}, nil
}

func (s *longScan) Read(ctx context.Context, p string) (*sources.Document, error) {
	s.mu.Lock()
	s.reads++
	s.mu.Unlock()
	all := make([]int, longScanPages)
	for i := range all {
		all[i] = i + 1
	}
	return s.doc(all), nil
}

func (s *longScan) ReadPages(_ context.Context, _ string, pages []int) (*sources.Document, error) {
	s.mu.Lock()
	s.asked = append(s.asked, slices.Clone(pages))
	s.mu.Unlock()
	return s.doc(pages), nil
}

func (s *longScan) doc(pages []int) *sources.Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		s.done = map[int]bool{}
	}
	for _, n := range pages {
		s.done[n] = true
	}
	d := &sources.Document{Path: s.info.Path, Title: s.info.Title, Pages: longScanPages}
	for n := 1; n <= longScanPages; n++ {
		part := sources.Part{Location: sources.Location{Path: s.info.Path, Page: n}}
		if s.done[n] {
			part.Text = strings.Repeat(fmt.Sprintf("Numbats eat termites on page %d. ", n), 12)
			part.OCR = &sources.OCR{Confidence: 0.9}
		} else {
			part.NoTextLayer, part.Note = true, "not recognised yet"
		}
		d.Parts = append(d.Parts, part)
	}
	return d
}

// TestFullReadRecognisesItsPieceOnly: a full read of a scan asks the
// source to recognise only the pages its piece shows, within the read
// cap, never the whole document; the cursor's next piece asks for its own
// pages, and every page a piece shows is recognised text.
func TestFullReadRecognisesItsPieceOnly(t *testing.T) {
	vaultDir := t.TempDir()
	if err := samplevault.Extract(vaultDir); err != nil {
		t.Fatal(err)
	}
	src := &longScan{}
	reg := vault.RegisterLibrary(sources.NewRegistry())
	reg.Register("longscans", longScans{src})
	r := researchctx.Resolver{Registry: reg}
	t.Cleanup(func() { r.Close() })
	ctx := context.Background()
	plan, err := r.Resolve(ctx, researchctx.Request{Vault: vaultDir, RuntimeID: "longscans", TurnID: "t1", Mentions: []string{"longscans:book"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := plan.WriteGrant()
	if err != nil {
		t.Fatal(err)
	}
	// A cap of about three of the book's pages a call.
	ts, err := tools.Open(ctx, gr, &tools.Options{Registry: reg, MaxResultChars: 1500})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	marker := regexp.MustCompile(`\[page (\d+)\]`)
	in := tools.ReadInput{Target: "longscans/book", Mode: tools.ReadFull}
	seen := 0
	for piece := 1; ; piece++ {
		src.mu.Lock()
		src.asked = nil
		src.mu.Unlock()
		out, err := ts.Read(ctx, in)
		if err != nil {
			t.Fatalf("piece %d: %v", piece, err)
		}
		var shown []int
		for _, m := range marker.FindAllStringSubmatch(out.Text, -1) {
			n, _ := strconv.Atoi(m[1])
			shown = append(shown, n)
		}
		if strings.Contains(out.Text, "not recognised yet") {
			t.Errorf("piece %d shows a page not recognised:\n%s", piece, out.Text)
		}
		src.mu.Lock()
		asked := src.asked
		src.mu.Unlock()
		var recognise []int
		for _, a := range asked {
			for _, n := range a {
				if !slices.Contains(recognise, n) {
					recognise = append(recognise, n)
				}
			}
		}
		last := 0
		if len(shown) > 0 {
			last = shown[len(shown)-1]
		}
		for _, n := range recognise {
			// The piece may end in the page's text before its marker
			// of the next shows: that page was asked for, no other.
			if n > last+1 {
				t.Errorf("piece %d (pages %v) asked to recognise page %d", piece, shown, n)
			}
		}
		if len(shown) == 0 || len(shown) >= longScanPages/2 {
			t.Fatalf("piece %d shows pages %v: the cap does not cut the book into pieces", piece, shown)
		}
		seen = max(seen, last)
		if out.NextCursor == "" {
			break
		}
		if piece > longScanPages*4 {
			t.Fatal("no end to the pieces")
		}
		in = tools.ReadInput{Cursor: out.NextCursor}
	}
	if seen != longScanPages {
		t.Errorf("the pieces reached page %d of %d", seen, longScanPages)
	}
	if src.reads != 0 {
		t.Errorf("a full read called Read (every page recognised) %d times", src.reads)
	}
}
