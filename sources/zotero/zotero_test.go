package zotero

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/zoterofix"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
)

// variants are its data directories.
var variants = []string{"Zotero", "Zotero7", "Zotero-wal"}

// truth is the part of truth.json the tests check.
type truth struct {
	Items []struct {
		Key, Library, ItemType, Title, Date, URL, Extra, Abstract string
		DOI                                                       *string
		Year                                                      int
		Creators                                                  []struct{ FirstName, LastName, Name string }
		Collections                                               []string
		Tags                                                      []struct{ Tag string }
		Related                                                   []string
		Trashed                                                   bool
		WalOnly                                                   bool `json:"wal_only"`
		Notes                                                     []struct{ Key, Title, Text string }
		Attachments                                               []struct {
			Key         string
			LinkMode    int
			ContentType string
			RelativeTo  string `json:"relative_to"`
			Exists      bool
			Pages       int
			Annotations []struct {
				Key, Type, Text, PageLabel, AuthorName, Color string
				Comment                                       *string
				Tags                                          []string
				PageIndex                                     int
				URI                                           string
				URIWithAnnotation                             string `json:"uri_with_annotation"`
			}
		}
	}
	StandaloneNotes []struct{ Key, Title, Text string } `json:"standalone_notes"`
	WalOnlyKeys     []string                            `json:"wal_only_keys"`
}

func readTruth(t testing.TB, dir string) *truth {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	return &tr
}

// treeHash hashes every file of a folder tree (path, mode, bytes), so a
// test can assert that nothing in it changed and nothing was added.
func treeHash(t testing.TB, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		io.WriteString(h, rel+"\x00"+info.Mode().String()+"\x00"+info.ModTime().UTC().Format(time.RFC3339Nano)+"\x00")
		if d.Type().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fullWait is the index wait of the tests that check complete answers.
const fullWait = 10 * time.Minute

// testCache is the cache folder the tests' drivers share, so that each
// PDF of the fixture is extracted once per run of the package's tests.
var testCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zotero-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// open returns a driver for one layout of the fixture, its snapshots,
// PDF text and index kept in the tests' cache. Its searches wait for the
// index however busy the machine is: they check complete answers
// (TestSearchWhileIndexing checks partial ones).
func open(t testing.TB, dataDir, baseDir string) *Driver {
	t.Helper()
	return New(Options{DataDir: dataDir, BaseDir: baseDir, CacheDir: testCache, IndexWait: fullWait})
}

// source resolves a name and opens it as the server would.
func source(t testing.TB, d *Driver, name string) sources.Source {
	t.Helper()
	ctx := context.Background()
	n, err := d.Ref(ctx, name, &sources.Env{})
	if err != nil {
		t.Fatalf("Ref(%q): %v", name, err)
	}
	src, err := d.Open(ctx, n.Ref, &sources.Env{})
	if err != nil {
		t.Fatalf("Open(%q): %v", name, err)
	}
	return src
}

// TestItemsAgainstTruth checks every item of truth.json in every layout:
// its metadata as read, the trash left out, the WAL's items seen, and
// Zotero's folders byte-identical afterwards with no file added.
func TestItemsAgainstTruth(t *testing.T) {
	dir := zoterofix.Dev(t)
	tr := readTruth(t, dir)
	before := treeHash(t, dir)
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			d := open(t, filepath.Join(dir, v), filepath.Join(dir, "Attachments"))
			l, err := d.library(&sources.Env{})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := l.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tr.Items {
				if want.WalOnly && v != "Zotero-wal" {
					continue
				}
				prefix := "zotero:"
				if g, ok := strings.CutPrefix(want.Library, "group:"); ok {
					prefix = "zotero:groups/" + g + "/"
				}
				it := snap.byKey[prefix+want.Key]
				if want.Trashed {
					if it != nil {
						t.Errorf("%s: the trashed item is served", want.Key)
					}
					if _, err := snap.scope(strings.TrimPrefix(prefix, "zotero:") + "items/" + want.Key); !errors.Is(err, sources.ErrNotFound) {
						t.Errorf("%s: naming the trashed item: %v, want not found", want.Key, err)
					}
					continue
				}
				if it == nil {
					t.Errorf("%s (%q) not found", want.Key, want.Title)
					continue
				}
				md := snap.describe(ctx, it)
				if md.Title != want.Title || it.Type != want.ItemType || md.Year != want.Year {
					t.Errorf("%s: title %q type %q year %d, want %q %q %d", want.Key, md.Title, it.Type, md.Year, want.Title, want.ItemType, want.Year)
				}
				if want.DOI != nil && md.DOI != *want.DOI {
					t.Errorf("%s: DOI %q, want %q", want.Key, md.DOI, *want.DOI)
				}
				if md.Abstract != strings.TrimSpace(want.Abstract) {
					t.Errorf("%s: abstract %q, want %q", want.Key, md.Abstract, want.Abstract)
				}
				var names []string
				for _, c := range want.Creators {
					names = append(names, strings.TrimSpace(c.FirstName+" "+c.LastName+c.Name))
				}
				if !slices.Equal(md.Authors, names) {
					t.Errorf("%s: creators %q, want %q", want.Key, md.Authors, names)
				}
				var tags []string
				for _, tg := range want.Tags {
					tags = append(tags, tg.Tag)
				}
				slices.Sort(tags)
				if got := slices.Sorted(slices.Values(it.Tags)); !slices.Equal(got, tags) {
					t.Errorf("%s: tags %q, want %q", want.Key, got, tags)
				}
				wantColls := slices.Sorted(slices.Values(want.Collections))
				if got := snap.collNames(it); !slices.Equal(got, wantColls) {
					t.Errorf("%s: collections %q, want %q", want.Key, got, wantColls)
				}
				if ck := citationKeyOf(want.Extra); ck != "" && it.citationKey() != ck {
					t.Errorf("%s: citation key %q, want %q", want.Key, it.citationKey(), ck)
				}
				rec := snap.record(ctx, it)
				if want.URL != "" && !strings.Contains(rec, want.URL) {
					t.Errorf("%s: the record lacks the URL %q", want.Key, want.URL)
				}
				rels, err := snap.relations(ctx, it)
				if err != nil {
					t.Fatalf("%s: relations: %v", want.Key, err)
				}
				var rel []string
				for _, w := range rels.Related {
					_, key, _ := splitItemPath(w.Paper)
					rel = append(rel, key)
				}
				if !slices.Equal(slices.Sorted(slices.Values(rel)), slices.Sorted(slices.Values(want.Related))) {
					t.Errorf("%s: related %q, want %q", want.Key, rel, want.Related)
				}
				for _, n := range want.Notes {
					doc, err := snap.read(ctx, snap.byKey[prefix+n.Key])
					if err != nil {
						t.Errorf("note %s: %v", n.Key, err)
						continue
					}
					if got := strings.Join(strings.Fields(doc.Parts[0].Text), " "); got != strings.Join(strings.Fields(n.Text), " ") {
						t.Errorf("note %s text:\n%q\nwant\n%q", n.Key, got, n.Text)
					}
				}
			}
			for _, n := range tr.StandaloneNotes {
				doc, err := snap.read(ctx, snap.byKey["zotero:"+n.Key])
				if err != nil {
					t.Fatalf("standalone note %s: %v", n.Key, err)
				}
				if doc.Title != n.Title || strings.Join(strings.Fields(doc.Parts[0].Text), " ") != strings.Join(strings.Fields(n.Text), " ") {
					t.Errorf("standalone note %s: %q %q, want %q %q", n.Key, doc.Title, doc.Parts[0].Text, n.Title, n.Text)
				}
			}
			if v == "Zotero-wal" {
				for _, k := range tr.WalOnlyKeys {
					if snap.byKey["zotero:"+k] == nil {
						t.Errorf("%s, only in the WAL, not seen", k)
					}
				}
			}
		})
	}
	if after := treeHash(t, dir); after != before {
		t.Fatal("Zotero's folders changed while they were read")
	}
}

// citationKeyOf returns the "Citation Key:" line of an Extra field.
func citationKeyOf(extra string) string {
	for _, line := range strings.Split(extra, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "citation key") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// TestGrantRecordsLibrary: a grant made for one data directory is refused
// by a driver configured with another.
func TestGrantRecordsLibrary(t *testing.T) {
	dir := zoterofix.Dev(t)
	ctx := context.Background()
	d := open(t, filepath.Join(dir, "Zotero"), filepath.Join(dir, "Attachments"))
	n, err := d.Ref(ctx, "", &sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Ref.Kind != Kind || n.Ref.Path != "zotero:library" || strings.Contains(string(n.Ref.Config), dir) {
		t.Fatalf("Ref = %+v (the config must not spell out the data directory)", n.Ref)
	}
	other := open(t, filepath.Join(dir, "Zotero7"), filepath.Join(dir, "Attachments"))
	if _, err := other.Open(ctx, n.Ref, &sources.Env{}); !errors.Is(err, ErrOtherLibrary) {
		t.Fatalf("Open by a server configured with another library: %v, want ErrOtherLibrary", err)
	}
	if _, err := New(Options{}).Open(ctx, n.Ref, &sources.Env{}); !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("Open with no library configured: %v, want ErrNotConfigured", err)
	}
	bad := n.Ref
	bad.Config = json.RawMessage(`{"library":""}`)
	if _, err := d.Open(ctx, bad, &sources.Env{}); !errors.Is(err, grant.ErrInvalid) {
		t.Fatalf("Open with a malformed config: %v, want grant.ErrInvalid", err)
	}
}

// TestConformance runs the conformance kit on the library, a collection, a
// tag, an item and a group library.
func TestConformance(t *testing.T) {
	dir := zoterofix.Dev(t)
	d := open(t, filepath.Join(dir, "Zotero"), filepath.Join(dir, "Attachments"))
	for _, tt := range []struct{ name, probe string }{
		{"", "MapReduce"},
		{"collections/Thesis", "attention"},
		{"collections/Thesis/Chapter%202/Attention", "align"},
		{"tags/important", "reduce"},
		{"items/ACFJNP3J", "reduce"},
		{"items/BSIYEMI7", "rabbit"},
		{"items/Q5MQZFFE", "reading plan"},
		{"groups/5550123", "normalization"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := source(t, d, tt.name)
			if err := sourcetest.Test(context.Background(), src, tt.probe); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAnnotationsAgainstTruth: every annotation of truth.json on a PDF is
// a mark of its attachment, in every layout, with its kind, page, page
// label, text, comment (verbatim), colour, author and its own URI; the
// EPUB's are marks without a page.
func TestAnnotationsAgainstTruth(t *testing.T) {
	dir := zoterofix.Dev(t)
	tr := readTruth(t, dir)
	kinds := map[string]sources.MarkKind{"highlight": sources.MarkHighlight, "underline": sources.MarkUnderline,
		"note": sources.MarkNote, "text": sources.MarkFreeText, "image": "image", "ink": sources.MarkInk}
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			d := open(t, filepath.Join(dir, v), filepath.Join(dir, "Attachments"))
			l, err := d.library(&sources.Env{})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := l.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			total, found := 0, 0
			for _, it := range tr.Items {
				if it.Trashed || it.WalOnly && v != "Zotero-wal" {
					continue
				}
				prefix := "zotero:"
				if g, ok := strings.CutPrefix(it.Library, "group:"); ok {
					prefix = "zotero:groups/" + g + "/"
				}
				for _, a := range it.Attachments {
					att := snap.byKey[prefix+a.Key]
					if len(a.Annotations) == 0 {
						continue
					}
					if att == nil {
						t.Errorf("attachment %s missing", a.Key)
						continue
					}
					ms := snap.marks(ctx, att)
					for _, want := range a.Annotations {
						if strings.HasPrefix(want.Key, "GDRWVKMD") && v != "Zotero-wal" {
							continue // only in the WAL
						}
						total++
						var got *sources.Mark
						for i, m := range ms.Marks {
							if att.isPDF() && m.URI == want.URIWithAnnotation || !att.isPDF() && m.URI == want.URI {
								got = &ms.Marks[i]
								break
							}
						}
						if got == nil {
							if att.isPDF() || want.Text != "" {
								t.Errorf("%s (%s on %s) not found", want.Key, want.Type, a.Key)
							}
							continue
						}
						found++
						comment := ""
						if want.Comment != nil {
							comment = *want.Comment
						}
						wantPage, label := 0, ""
						if att.isPDF() {
							wantPage = want.PageIndex + 1
							if want.PageLabel != fmt.Sprint(wantPage) {
								label = want.PageLabel
							}
						}
						if got.Kind != kinds[want.Type] || got.Page != wantPage || got.Label != label || got.Comment != comment ||
							!strings.EqualFold(got.Color, want.Color) || got.Author != want.AuthorName ||
							strings.Join(strings.Fields(got.Text), " ") != strings.Join(strings.Fields(want.Text), " ") ||
							!slices.Equal(slices.Sorted(slices.Values(got.Tags)), slices.Sorted(slices.Values(want.Tags))) {
							t.Errorf("%s: got %+v\nwant %+v", want.Key, *got, want)
						}
					}
				}
			}
			if total == 0 || found < total*95/100 {
				t.Fatalf("%d of %d annotations found", found, total)
			}
			t.Logf("%d of %d annotations found", found, total)
		})
	}
}

// TestAttachmentsRefusedOnce: the linked file outside the data and base
// directories is refused for where it is, the missing file is said
// missing, each once in a search's Skipped and in its item's record; the
// file linked under the base directory and the group library's PDF are
// read page by page.
func TestAttachmentsRefusedOnce(t *testing.T) {
	dir := zoterofix.Dev(t)
	ctx := context.Background()
	d := open(t, filepath.Join(dir, "Zotero"), filepath.Join(dir, "Attachments"))
	lib := source(t, d, "")
	res, err := lib.Search(ctx, sources.Query{Text: "peer-to-peer electronic cash", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, s := range res.Skipped {
		if _, dup := reasons[s.Path]; dup {
			t.Errorf("%s skipped twice", s.Path)
		}
		reasons[s.Path] = s.Reason
	}
	if r := reasons["zotero:items/2RWBKLPW"]; !strings.Contains(r, "outside the Zotero data and base directories") {
		t.Errorf("the outside linked file's reason: %q", r)
	}
	if r := reasons["zotero:items/UJQIHUFI"]; !strings.Contains(r, "missing") {
		t.Errorf("the missing file's reason: %q", r)
	}
	if _, err := lib.Read(ctx, "zotero:items/2RWBKLPW"); !errors.Is(err, ErrLinkedOutside) || !errors.Is(err, sources.ErrOutside) {
		t.Errorf("read of the outside linked file: %v", err)
	}
	if _, err := lib.Read(ctx, "zotero:items/UJQIHUFI"); !errors.Is(err, ErrMissingFile) || !errors.Is(err, sources.ErrNotFound) {
		t.Errorf("read of the missing file: %v", err)
	}
	rec, err := lib.Read(ctx, "zotero:items/YBRAS9NS")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(rec.Parts[0].Text, "outside the Zotero data and base directories"); n != 1 {
		t.Errorf("the Bitcoin record says the refusal %d times:\n%s", n, rec.Parts[0].Text)
	}
	jin, err := lib.Read(ctx, "zotero:items/6J6EQFFB")
	if err != nil || jin.Pages != 8 {
		t.Fatalf("the file linked under the base directory: %v", err)
	}
	// Without a base directory the same file is refused, not read.
	nobase := open(t, filepath.Join(dir, "Zotero"), "")
	if _, err := source(t, nobase, "").Read(ctx, "zotero:items/6J6EQFFB"); !errors.Is(err, sources.ErrOutside) {
		t.Errorf("a base-directory file with no base directory configured: %v", err)
	}
	grp := source(t, d, "groups/5550123")
	doc, err := grp.Read(ctx, "zotero:groups/5550123/items/2E8KAQTC")
	if err != nil || doc.Pages != 11 {
		t.Fatalf("the group's PDF: %v", err)
	}
	// The trash is not there: its item, its PDF, its annotations.
	for _, p := range []string{"zotero:items/I35GDBCR", "zotero:items/7X9UCS43"} {
		if _, err := lib.Read(ctx, p); err == nil {
			t.Errorf("%s, in the trash, was read", p)
		}
	}
	res, err = lib.Search(ctx, sources.Query{Text: "quenched lattices fermion action", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Path == "zotero:items/7X9UCS43" || h.Path == "zotero:items/I35GDBCR" {
			t.Errorf("a search found the trash: %s", h.Path)
		}
	}
}

// TestEPUB: the EPUB attachment is read by chapter, each a part with its
// heading as a section, and the EPUB's highlights are in its text.
func TestEPUB(t *testing.T) {
	dir := zoterofix.Dev(t)
	tr := readTruth(t, dir)
	ctx := context.Background()
	d := open(t, filepath.Join(dir, "Zotero7"), filepath.Join(dir, "Attachments"))
	src := source(t, d, "items/NNXSEDKG")
	doc, err := src.Read(ctx, "zotero:items/E77HNKG7")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Parts) < 2 || len(doc.Sections) != len(doc.Parts) {
		t.Fatalf("%d parts, %d sections", len(doc.Parts), len(doc.Sections))
	}
	var all strings.Builder
	for _, p := range doc.Parts {
		all.WriteString(strings.Join(strings.Fields(p.Text), " ") + "\n")
	}
	n := 0
	for _, it := range tr.Items {
		for _, a := range it.Attachments {
			if a.Key != "E77HNKG7" {
				continue
			}
			for _, an := range a.Annotations {
				n++
				if !strings.Contains(all.String(), strings.Join(strings.Fields(an.Text), " ")) {
					t.Errorf("the EPUB's text lacks its highlight %q", an.Text)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("truth.json has no EPUB annotation")
	}
	if err := sourcetest.Test(ctx, src, "whale"); err != nil {
		t.Fatal(err)
	}
}

// TestShownDate: a date is shown as Zotero shows it, the user's own form
// after the stored sortable one, and a date Zotero could not parse as it
// was typed.
func TestShownDate(t *testing.T) {
	for stored, want := range map[string]string{
		"2015-12-00 2015-12":          "2015-12",
		"2016-02-27 2016-02-27":       "2016-02-27",
		"2015-00-00 2015":             "2015",
		"1997-11-15 November 15 1997": "November 15 1997",
		"2015":                        "2015",
		"Spring term":                 "Spring term",
		"2015-12-00":                  "2015-12-00",
		"2015-1x-00 2015":             "2015-1x-00 2015",
		"":                            "",
	} {
		if got := shownDate(stored); got != want {
			t.Errorf("shownDate(%q) = %q, want %q", stored, got, want)
		}
	}
}
