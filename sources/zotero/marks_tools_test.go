package zotero_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/tools"
)

// TestMarksLabelColourTags: context_read's marks of Zotero items carry each
// annotation's printed page label (when it is not the page's number: the
// pre-training paper's pages 3–5 are printed 627–629), its colour and its
// tags, as truth.json records them.
func TestMarksLabelColourTags(t *testing.T) {
	dir := zoterofix.Dev(t)
	data, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Items []struct {
			Key         string
			Attachments []struct {
				Annotations []struct {
					PageLabel string
					PageIndex *int
					Color     string
					Tags      []string
					URI       string `json:"uri_with_annotation"`
				}
			}
		}
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	ts, _, _ := toolset(t, "Zotero-wal", "zotero:") // the layout with every annotation
	ctx := context.Background()
	labelled, tagged := 0, 0
	for _, it := range tr.Items {
		if !slices.Contains([]string{"ACFJNP3J", "XUNTP8T4", "A3TZQHPM", "6LR556BM"}, it.Key) {
			continue
		}
		got := map[string]tools.MarkInfo{}
		in := tools.ReadInput{Target: "zotero:items/" + it.Key, Mode: tools.ReadMarks}
		for {
			out, err := ts.Read(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range out.Marks {
				got[m.CitationURI] = m
			}
			if out.NextCursor == "" {
				break
			}
			in.Cursor = out.NextCursor
		}
		for _, a := range it.Attachments {
			for _, an := range a.Annotations {
				m, ok := got[an.URI]
				if !ok || an.PageIndex == nil {
					t.Errorf("%s: no mark %s", it.Key, an.URI)
					continue
				}
				want := an.PageLabel
				if want == strconv.Itoa(*an.PageIndex+1) {
					want = ""
				}
				if want != "" {
					labelled++
				}
				if len(an.Tags) > 0 {
					tagged++
				}
				if m.PageLabel != want || m.Color != an.Color || !slices.Equal(m.Tags, an.Tags) {
					t.Errorf("%s: label %q colour %q tags %q, want %q %q %q", an.URI, m.PageLabel, m.Color, m.Tags, want, an.Color, an.Tags)
				}
			}
		}
	}
	if labelled != 3 || tagged != 1 {
		t.Errorf("%d labelled and %d tagged marks checked, want 3 and 1", labelled, tagged)
	}
}
