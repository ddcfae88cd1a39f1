package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/tools"
)

func ptr[T any](v T) *T { return &v }

// item is a truth item of the library the scoring tests use.
func item() *truthItem {
	it := &truthItem{Key: "K1", Title: "Deep Residual Learning", Year: 2016, DOI: ptr("10.1109/CVPR.2016.90"),
		Collections: []string{"Vision/Architectures", "Survey"}}
	it.Creators = append(it.Creators, struct{ FirstName, LastName, Name string }{"Kaiming", "He", ""},
		struct{ FirstName, LastName, Name string }{"", "", "Corporation for Digital Scholarship"})
	it.Tags = append(it.Tags, struct{ Tag string }{"core"}, struct{ Tag string }{"Residual networks"})
	it.Related = []string{"K2", "K3"}
	it.Notes = append(it.Notes, struct{ Key, Text string }{"N1", "ResNet -- notes\n- Identity shortcuts add no parameters."})
	return it
}

// TestScoreItem scores each metadata field: a collection lists its
// subcollections' items, so the item must be listed by its collections and
// their ancestors and by no other; a tag's listing by exactly its tags.
func TestScoreItem(t *testing.T) {
	right := func() itemView {
		return itemView{Title: "Deep Residual Learning", Creators: []string{"Kaiming He", "Corporation for Digital Scholarship"}, Year: 2016,
			DOI:          "10.1109/CVPR.2016.90",
			InCollection: map[string]bool{"Vision": true, "Vision/Architectures": true, "Survey": true, "Vision/Detection": false},
			InTag:        map[string]bool{"core": true, "Residual networks": true, "detection": false},
			Related:      []string{"K2"},
			Notes:        map[string]string{"N1": "ResNet -- notes\n- Identity shortcuts  add no parameters.\n"}}
	}
	all := map[string]bool{"title": true, "creators": true, "date": true, "DOI": true, "collections": true, "tags": true, "related": true, "notes": true}
	trashed := map[string]bool{"K3": true}
	with := func(f string) map[string]bool {
		m := map[string]bool{}
		for k, v := range all {
			m[k] = v
		}
		m[f] = false
		return m
	}
	tests := []struct {
		name string
		edit func(*itemView)
		want map[string]bool
	}{
		{"right", func(*itemView) {}, all},
		{"title", func(v *itemView) { v.Title = "Deep residual learning" }, with("title")},
		{"creators order", func(v *itemView) { v.Creators[0], v.Creators[1] = v.Creators[1], v.Creators[0] }, with("creators")},
		{"creator missing", func(v *itemView) { v.Creators = v.Creators[:1] }, with("creators")},
		{"year", func(v *itemView) { v.Year = 2015 }, with("date")},
		{"DOI", func(v *itemView) { v.DOI = "" }, with("DOI")},
		{"ancestor not listing", func(v *itemView) { v.InCollection["Vision"] = false }, with("collections")},
		{"other collection listing", func(v *itemView) { v.InCollection["Vision/Detection"] = true }, with("collections")},
		{"collection not asked", func(v *itemView) { delete(v.InCollection, "Survey") }, with("collections")},
		{"tag missing", func(v *itemView) { v.InTag["core"] = false }, with("tags")},
		{"other tag", func(v *itemView) { v.InTag["detection"] = true }, with("tags")},
		{"related missing", func(v *itemView) { v.Related = nil }, with("related")},
		{"related in the trash", func(v *itemView) { v.Related = append(v.Related, "K3") }, with("related")},
		{"note text", func(v *itemView) { v.Notes["N1"] = "ResNet -- notes" }, with("notes")},
		{"note missing", func(v *itemView) { delete(v.Notes, "N1") }, with("notes")},
		{"other note", func(v *itemView) { v.Notes["N2"] = "x" }, with("notes")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := right()
			tt.edit(&v)
			if diff := cmp.Diff(tt.want, scoreItem(item(), v, trashed)); diff != "" {
				t.Errorf("scoreItem (-want +got):\n%s", diff)
			}
		})
	}
	// No DOI in the truth: none must be served.
	it := item()
	it.DOI = nil
	v := right()
	if scoreItem(it, v, trashed)["DOI"] {
		t.Error("a DOI served for an item with none scored right")
	}
	v.DOI = ""
	if !scoreItem(it, v, trashed)["DOI"] {
		t.Error("no DOI for an item with none scored wrong")
	}
}

// TestScoreMarks matches served marks to the truth's annotations by their
// URI, kind, page, text and comment.
func TestScoreMarks(t *testing.T) {
	const pdf = "zotero://open-pdf/library/items/ATT1?page=3"
	const epub = "zotero://open-pdf/library/items/EP1?cfi=epubcfi%28%2F6%2F14%21%2F4%2F2%2F4%2C%2F1%3A0%2C%2F1%3A16%29"
	hl := truthAnnotation{Key: "A1", Type: "highlight", Text: "Deeper neural networks are more difficult to train.",
		Comment: ptr("Ablation missing."), PageIndex: ptr(2), URI: pdf, URIWithAnnotation: pdf + "&annotation=A1"}
	note := truthAnnotation{Key: "A2", Type: "note", Comment: ptr("Compare."), PageIndex: ptr(2), URI: pdf, URIWithAnnotation: pdf + "&annotation=A2"}
	box := truthAnnotation{Key: "A3", Type: "text", Comment: ptr("read this twice"), PageIndex: ptr(2), URI: pdf, URIWithAnnotation: pdf + "&annotation=A3"}
	onEPUB := truthAnnotation{Key: "A4", Type: "underline", Text: "Call me Ishmael.", URI: epub}
	hlMark := tools.MarkInfo{Kind: "highlight", Page: 3, Text: "Deeper neural networks are more difficult to train", Comment: "Ablation missing.", CitationURI: pdf + "&annotation=A1"}
	noteMark := tools.MarkInfo{Kind: "note", Page: 3, Comment: "Compare.", CitationURI: pdf + "&annotation=A2"}
	boxMark := tools.MarkInfo{Kind: "freetext", Page: 3, Comment: "read this twice", CitationURI: pdf + "&annotation=A3"}
	epubMark := tools.MarkInfo{Kind: "underline", Text: "Call me Ishmael.", CitationURI: epub}
	edit := func(m tools.MarkInfo, f func(*tools.MarkInfo)) tools.MarkInfo { f(&m); return m }
	type counts struct{ Truths, Found, Served, False int }
	tests := []struct {
		name string
		want []truthAnnotation
		got  []tools.MarkInfo
		out  counts
	}{
		{"all right", []truthAnnotation{hl, note, box, onEPUB}, []tools.MarkInfo{epubMark, boxMark, noteMark, hlMark}, counts{4, 4, 4, 0}},
		{"not served", []truthAnnotation{hl, note}, []tools.MarkInfo{noteMark}, counts{2, 1, 1, 0}},
		{"extra mark is false", []truthAnnotation{note}, []tools.MarkInfo{noteMark, hlMark}, counts{1, 1, 2, 1}},
		{"wrong page", []truthAnnotation{hl}, []tools.MarkInfo{edit(hlMark, func(m *tools.MarkInfo) { m.Page = 4 })}, counts{1, 0, 1, 1}},
		{"wrong kind", []truthAnnotation{box}, []tools.MarkInfo{edit(boxMark, func(m *tools.MarkInfo) { m.Kind = "note" })}, counts{1, 0, 1, 1}},
		{"comment not verbatim", []truthAnnotation{hl}, []tools.MarkInfo{edit(hlMark, func(m *tools.MarkInfo) { m.Comment = "Ablation missing" })}, counts{1, 0, 1, 1}},
		{"text below F1", []truthAnnotation{hl}, []tools.MarkInfo{edit(hlMark, func(m *tools.MarkInfo) { m.Text = "Deeper neural networks" })}, counts{1, 0, 1, 1}},
		{"text on a note", []truthAnnotation{note}, []tools.MarkInfo{edit(noteMark, func(m *tools.MarkInfo) { m.Text = "Compare." })}, counts{1, 0, 1, 1}},
		{"page URI without the annotation", []truthAnnotation{hl}, []tools.MarkInfo{edit(hlMark, func(m *tools.MarkInfo) { m.CitationURI = pdf })}, counts{1, 0, 1, 1}},
		{"page on an EPUB", []truthAnnotation{onEPUB}, []tools.MarkInfo{edit(epubMark, func(m *tools.MarkInfo) { m.Page = 1 })}, counts{1, 0, 1, 1}},
		{"one mark for two", []truthAnnotation{hl, hl}, []tools.MarkInfo{hlMark}, counts{2, 1, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scoreMarks(tt.want, tt.got)
			got := counts{s.Truths, s.Found, s.Served, s.False}
			if diff := cmp.Diff(tt.out, got); diff != "" {
				t.Errorf("scoreMarks (-want +got):\n%s\nmisses %q, false %q", diff, s.Misses, s.Falsies)
			}
			if len(s.Misses) != s.Truths-s.Found || len(s.Falsies) != s.False {
				t.Errorf("misses %q and false %q do not match the counts %+v", s.Misses, s.Falsies, got)
			}
		})
	}
}

// TestInFirst looks for a page's URI (or an annotation on it) in the first
// k cards only, never taking page 12 for page 1.
func TestInFirst(t *testing.T) {
	const p1 = "zotero://open-pdf/library/items/ATT1?page=1"
	cards := []tools.Card{
		{CitationURI: "zotero://select/library/items/NOTE1"},
		{CitationURI: "zotero://open-pdf/library/items/ATT1?page=12"},
		{CitationURI: "zotero://open-pdf/library/items/ATT2?page=1", CitationURIs: []string{p1 + "&annotation=A1"}},
		{CitationURI: p1},
	}
	tests := []struct {
		uri  string
		k    int
		want bool
	}{
		{p1, 2, false},
		{p1, 3, true},
		{p1, 4, true},
		{"zotero://open-pdf/library/items/ATT1?page=12", 2, true},
		{"zotero://open-pdf/library/items/ATT1?page=2", 4, false},
	}
	for _, tt := range tests {
		if got := inFirst(cards, tt.uri, tt.k); got != tt.want {
			t.Errorf("inFirst(%s, %d) = %v, want %v", tt.uri, tt.k, got, tt.want)
		}
	}
}

// TestRecordParts reads the key of a listing's entry and the date of an
// item's record, and nothing from a text that is not a record.
func TestRecordParts(t *testing.T) {
	for name, want := range map[string]string{
		"Fast R-CNN [3ZLZ2VMA]":              "3ZLZ2VMA",
		"Notes on [brackets] in titles [K2]": "K2",
		"Talk outline":                       "",
		"Unclosed [K3":                       "",
	} {
		if got := entryKey(name); got != want {
			t.Errorf("entryKey(%q) = %q, want %q", name, got, want)
		}
	}
	type dated struct {
		Date string
		OK   bool
	}
	for text, want := range map[string]dated{
		"Fast R-CNN\nCreators: Ross Girshick\nItem type: conferencePaper\nDate: 2015-12\nDOI: 10.1109/ICCV.2015.169\nAttachment EJQRGWJL: Full Text PDF — file missing": {"2015-12", true},
		"Deep Learning\nItem type: book\nTags: textbook\n\nAbstract\nDate: not this one":                                                                                {"", true},
		"[page 1]\nDate: 2015\nItem type: a line of a PDF's page":                                                                                                       {"", false},
	} {
		d, ok := recordDate(text)
		if diff := cmp.Diff(want, dated{d, ok}); diff != "" {
			t.Errorf("recordDate(%.40q) (-want +got):\n%s", text, diff)
		}
	}
}

// TestDiffTrees names every file added, removed or changed.
func TestDiffTrees(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("zotero.sqlite", "db")
	write("storage/K1/a.pdf", "pdf")
	write("storage/K2/b.pdf", "pdf")
	before, err := hashTrees([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	same, err := hashTrees([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, same); len(d) != 0 {
		t.Fatalf("an unchanged tree differs: %q", d)
	}
	write("storage/K1/a.pdf", "PDF")
	write("zotero.sqlite-shm", "")
	if err := os.Remove(filepath.Join(dir, "storage/K2/b.pdf")); err != nil {
		t.Fatal(err)
	}
	after, err := hashTrees([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diffTrees(before, after) {
		verb, p, _ := strings.Cut(d, " ")
		rel, _ := filepath.Rel(dir, p)
		got = append(got, verb+" "+filepath.ToSlash(rel))
	}
	want := []string{"added zotero.sqlite-shm", "changed storage/K1/a.pdf", "changed storage/K2", "removed storage/K2/b.pdf"}
	// A folder's modification time changes with its entries; the root's too.
	got = slicesWithout(got, "changed .")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diffTrees (-want +got):\n%s", diff)
	}
}

// slicesWithout is s less the elements equal to x.
func slicesWithout(s []string, x string) []string {
	var out []string
	for _, v := range s {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// TestEvalDev runs the evaluation on the developers' library in its three
// layouts: it measures what the truth holds (its items, annotations, PDF
// pages, comments, trashed and outside files, WAL-only keys, counted here
// from truth.json apart from the command's own walk), and the SDK meets
// the targets on it.
func TestEvalDev(t *testing.T) {
	dir := zoterofix.Dev(t)
	tr, err := readTruth(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, layout := range layouts {
		t.Run(layout, func(t *testing.T) {
			wal := layout == "Zotero-wal"
			var want report
			want.WALSeen = 0
			for _, it := range tr.Items {
				if it.WalOnly && !wal {
					continue
				}
				if it.Trashed {
					want.Trashed++
					continue
				}
				want.Items++
				for _, a := range it.Attachments {
					switch {
					case a.RelativeTo == "absolute":
						want.Outside++
					case !a.Exists && a.RelativeTo != "":
						want.Missing++
					case a.ContentType == "application/pdf":
						want.Pages += a.Pages
					}
					for _, an := range a.Annotations {
						if an.WalOnly && !wal {
							continue
						}
						want.Marks.Truths++
						if an.Comment != nil && *an.Comment != "" {
							want.Searches++
						}
					}
				}
			}
			if wal {
				want.WAL = len(tr.WalOnlyKeys)
			}
			var misses strings.Builder
			r, err := evaluate(context.Background(), config{Data: filepath.Join(dir, layout), Base: filepath.Join(dir, "Attachments"),
				Truth: filepath.Join(dir, "truth.json"), Verbose: true, Log: &misses})
			if err != nil {
				t.Fatal(err)
			}
			type sizes struct{ Items, Truths, Pages, Searches, Trashed, Outside, Missing, WAL int }
			if diff := cmp.Diff(sizes{want.Items, want.Marks.Truths, want.Pages, want.Searches, want.Trashed, want.Outside, want.Missing, want.WAL},
				sizes{r.Items, r.Marks.Truths, r.Pages, r.Searches, r.Trashed, r.Outside, r.Missing, r.WAL}); diff != "" {
				t.Errorf("what was measured (-truth +measured):\n%s", diff)
			}
			if want.Items == 0 || want.Marks.Truths == 0 || want.Pages == 0 || want.Searches == 0 || want.Trashed == 0 || want.Outside == 0 {
				t.Errorf("the fixture lacks a kind of content: %+v", want)
			}
			if missed := r.missed(); len(missed) > 0 {
				var b strings.Builder
				r.print(&b)
				t.Errorf("targets missed: %q\n%s%s", missed, b.String(), misses.String())
			}
		})
	}
}
