package samplevault_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/samplevault"
)

// wantFiles is the whole vault. A change here is a change to what demos and
// other packages' tests may rely on: update README.md with it.
var wantFiles = []string{
	".agentero/citing-scan.json",
	"notes/.secret",
	"notes/archive/2023-q4.md",
	"notes/archive/whiteboard.png",
	"notes/ideas.txt",
	"notes/meeting 2024-03-12.md",
	"notes/reading-plan.md",
	"papers/2401.01234/2401.01234.pdf",
	"papers/2401.01234/NOTES.md",
	"papers/2401.01234/PAPER.md",
	"papers/2401.01234/assets/figure-1.png",
	"papers/2401.01234/attachments/supplement/NOTES.md",
	"papers/2401.01234/marks/annotations.json",
	"papers/2401.01234/metadata.json",
	"papers/2401.01234/source/agentero-cite.json",
	"papers/2401.01234/source/layout-index.json",
	"papers/2401.01234/source/layout.json",
	"papers/2403.05678/2403.05678.pdf",
	"papers/2403.05678/NOTES.md",
	"papers/2403.05678/metadata.json",
	"papers/2403.05678/source/agentero-cite.json",
	"papers/2406.09876/2406.09876.pdf",
	"papers/2406.09876/NOTES.md",
	"papers/2406.09876/metadata.json",
	"papers/2406.09876/source/agentero-cite.json",
	"papers/local-window-eval/NOTES.md",
	"papers/local-window-eval/local-window-eval.PDF",
	"papers/vision/NOTES.md",
	"papers/vision/patch-tokens/PAPER.md",
	"papers/vision/patch-tokens/metadata.json",
	"papers/vision/resnet-like/NOTES.md",
	"papers/vision/resnet-like/metadata.json",
	"papers/vision/resnet-like/paper.pdf",
	"reading-list",
}

// paperRefs are the paper units (folders under papers/ holding NOTES.md,
// PAPER.md or metadata.json, outside source/assets/marks/attachments).
var paperRefs = []string{
	"papers/2401.01234",
	"papers/2403.05678",
	"papers/2406.09876",
	"papers/local-window-eval",
	"papers/vision/patch-tokens",
	"papers/vision/resnet-like",
}

func files(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var got []string
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			got = append(got, name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestFSFiles(t *testing.T) {
	if diff := cmp.Diff(wantFiles, files(t, samplevault.FS)); diff != "" {
		t.Errorf("vault files (-want +got):\n%s", diff)
	}
	for _, name := range []string{"notes/.secret", ".agentero/citing-scan.json"} {
		if _, err := fs.Stat(samplevault.FS, name); err != nil {
			t.Errorf("hidden file %s missing from FS: %v", name, err)
		}
	}
}

func TestSize(t *testing.T) {
	var total int64
	for _, name := range wantFiles {
		st, err := fs.Stat(samplevault.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}
	if total > 300_000 {
		t.Errorf("vault is %d bytes, want under 300 KB", total)
	}
}

func TestExtract(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(dir); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantFiles, files(t, os.DirFS(dir))); diff != "" {
		t.Errorf("extracted files (-want +got):\n%s", diff)
	}
	for _, name := range wantFiles {
		want, err := fs.ReadFile(samplevault.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: extracted content differs", name)
		}
	}
	// A second extraction into the same folder must refuse, not merge.
	if err := samplevault.Extract(dir); !errors.Is(err, samplevault.ErrNotEmpty) {
		t.Errorf("Extract into a non-empty folder: err = %v, want ErrNotEmpty", err)
	}
	// An existing empty folder is fine.
	if err := samplevault.Extract(t.TempDir()); err != nil {
		t.Errorf("Extract into an empty folder: %v", err)
	}
}

type metadata struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Authors     []string `json:"authors"`
	Year        int      `json:"year"`
	Date        string   `json:"date"`
	Abstract    string   `json:"abstract"`
	DOI         string   `json:"doi"`
	ArxivID     string   `json:"arxiv_id"`
	Tags        []string `json:"tags"`
	Publication string   `json:"publication"`
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := fs.ReadFile(samplevault.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestMetadata(t *testing.T) {
	// Which paper carries which identifiers is part of the demo design:
	// matching by DOI only, by arXiv id with a version suffix, and no
	// metadata at all (title from the PDF).
	tests := []struct {
		ref          string
		doi, arxivID string
	}{
		{"papers/2401.01234", "10.5555/sba.2024.0001", "2401.01234"},
		{"papers/2403.05678", "10.5555/rtm.2024.0017", "2403.05678"},
		{"papers/2406.09876", "", "2406.09876"},
		{"papers/vision/patch-tokens", "", "2312.04321v1"},
		{"papers/vision/resnet-like", "10.5555/RPC.2023.0042", ""},
	}
	var seen []string
	for _, name := range wantFiles {
		if path.Base(name) == "metadata.json" {
			seen = append(seen, path.Dir(name))
		}
	}
	var want []string
	for _, tt := range tests {
		want = append(want, tt.ref)
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("papers with metadata.json (-want +got):\n%s", diff)
	}
	for _, tt := range tests {
		var m metadata
		readJSON(t, tt.ref+"/metadata.json", &m)
		if m.Title == "" || len(m.Authors) == 0 || m.Year == 0 {
			t.Errorf("%s: title, authors and year must be set: %+v", tt.ref, m)
		}
		if m.DOI != tt.doi || m.ArxivID != tt.arxivID {
			t.Errorf("%s: doi, arxiv_id = %q, %q; want %q, %q", tt.ref, m.DOI, m.ArxivID, tt.doi, tt.arxivID)
		}
	}
}

type sidecar struct {
	SchemaVersion int `json:"schemaVersion"`
	Source        struct {
		Mode        string `json:"mode"`
		GeneratedAt string `json:"generatedAt"`
		Fingerprint string `json:"fingerprint"`
	} `json:"source"`
	Citations []struct {
		ID       string `json:"id"`
		Raw      string `json:"raw"`
		Metadata struct {
			Title   string   `json:"title"`
			Authors []string `json:"authors"`
			Year    int      `json:"year"`
			DOI     string   `json:"doi"`
			ArxivID string   `json:"arxivId"`
		} `json:"metadata"`
		LocalMatch *struct {
			PaperPath string `json:"paperPath"`
			MatchBy   string `json:"matchBy"`
		} `json:"localMatch"`
		Source string `json:"source"`
		Status string `json:"status"`
	} `json:"citations"`
}

// libraryIDs maps normalised identifiers ("doi:…", "arxiv:…") to paper refs,
// following the identifier rules of docs/contract.md §1.
func libraryIDs(t *testing.T) map[string]string {
	ids := map[string]string{}
	for _, ref := range paperRefs {
		if _, err := fs.Stat(samplevault.FS, ref+"/metadata.json"); err != nil {
			continue
		}
		var m metadata
		readJSON(t, ref+"/metadata.json", &m)
		for _, id := range normIDs(m.DOI, m.ArxivID) {
			ids[id] = ref
		}
	}
	return ids
}

func normIDs(doi, arxivID string) []string {
	var out []string
	doi = strings.ToLower(strings.TrimSpace(doi))
	doi = strings.TrimPrefix(doi, "https://doi.org/")
	if a, ok := strings.CutPrefix(doi, "10.48550/arxiv."); ok {
		arxivID = a
	} else if doi != "" {
		out = append(out, "doi:"+doi)
	}
	arxivID = strings.ToLower(strings.TrimSpace(arxivID))
	if i := strings.LastIndex(arxivID, "v"); i > 0 && strings.Trim(arxivID[i+1:], "0123456789") == "" && i+1 < len(arxivID) {
		arxivID = arxivID[:i]
	}
	if arxivID != "" {
		out = append(out, "arxiv:"+arxivID)
	}
	return out
}

func match(ids map[string]string, doi, arxivID string) string {
	for _, id := range normIDs(doi, arxivID) {
		if ref, ok := ids[id]; ok {
			return ref
		}
	}
	return ""
}

func TestSidecars(t *testing.T) {
	ids := libraryIDs(t)
	type ref struct{ Paper, Cite, LocalMatch, MatchBy, Fresh string }
	var got []ref
	for _, name := range wantFiles {
		if path.Base(name) != "agentero-cite.json" {
			continue
		}
		var s sidecar
		readJSON(t, name, &s)
		if s.SchemaVersion != 1 || s.Source.Mode == "" || s.Source.GeneratedAt == "" || !strings.HasPrefix(s.Source.Fingerprint, "sha256:") {
			t.Errorf("%s: bad header: %+v", name, s)
		}
		paper := strings.TrimSuffix(name, "/source/agentero-cite.json")
		// The fingerprint is the SHA-256 of the PDF the sidecar was made from,
		// so a reader can tell a stale sidecar; keep it current.
		pdf, err := fs.ReadFile(samplevault.FS, paper+"/"+path.Base(paper)+".pdf")
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("sha256:%x", sha256.Sum256(pdf)); s.Source.Fingerprint != want {
			t.Errorf("%s: fingerprint %s, want %s (the PDF's SHA-256)", name, s.Source.Fingerprint, want)
		}
		for _, c := range s.Citations {
			r := ref{Paper: paper, Cite: c.ID, Fresh: match(ids, c.Metadata.DOI, c.Metadata.ArxivID)}
			if c.LocalMatch != nil {
				r.LocalMatch, r.MatchBy = c.LocalMatch.PaperPath, c.LocalMatch.MatchBy
				if !slices.Contains(paperRefs, r.LocalMatch) {
					t.Errorf("%s %s: localMatch %q is not a paper of the vault", name, c.ID, r.LocalMatch)
				}
			}
			if c.Raw == "" || c.Metadata.Title == "" {
				t.Errorf("%s %s: raw and title must be set", name, c.ID)
			}
			if r.LocalMatch != "" || r.Fresh != "" {
				got = append(got, r)
			}
		}
	}
	// Every reference that points into the library, and how it gets there.
	want := []ref{
		{"papers/2401.01234", "c4", "papers/vision/resnet-like", "doi", "papers/vision/resnet-like"},
		{"papers/2403.05678", "c1", "papers/2401.01234", "arxiv", "papers/2401.01234"}, // arXiv id with v2
		{"papers/2406.09876", "c2", "", "", "papers/2401.01234"},                       // DOI alias, no localMatch
		{"papers/2406.09876", "c3", "papers/local-window-eval", "title", ""},           // title only
		{"papers/2406.09876", "c5", "", "", "papers/2403.05678"},                       // https://doi.org/ upper case, no localMatch
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("library references (-want +got):\n%s", diff)
	}
}

func TestCitingScan(t *testing.T) {
	var scan struct {
		SchemaVersion int    `json:"schemaVersion"`
		GeneratedAt   string `json:"generatedAt"`
		Seeds         map[string]struct {
			S2ID          string `json:"s2Id"`
			CitationCount int    `json:"citationCount"`
			FetchedAt     string `json:"fetchedAt"`
			Citing        []struct {
				S2ID          string `json:"s2Id"`
				Title         string `json:"title"`
				Date          string `json:"date"`
				ArxivID       string `json:"arxivId"`
				DOI           string `json:"doi"`
				CitationCount int    `json:"citationCount"`
			} `json:"citing"`
		} `json:"seeds"`
	}
	readJSON(t, ".agentero/citing-scan.json", &scan)
	if scan.SchemaVersion != 1 || scan.GeneratedAt == "" {
		t.Errorf("bad header: version %d, generatedAt %q", scan.SchemaVersion, scan.GeneratedAt)
	}
	ids := libraryIDs(t)
	got := map[string][]string{} // seed → library matches ("" for external)
	for seed, s := range scan.Seeds {
		if !slices.Contains(paperRefs, seed) {
			t.Errorf("seed %q is not a paper of the vault", seed)
		}
		if s.S2ID == "" || s.FetchedAt == "" || len(s.Citing) == 0 {
			t.Errorf("seed %q: incomplete", seed)
		}
		for _, c := range s.Citing {
			m := match(ids, c.DOI, c.ArxivID)
			if m == seed {
				t.Errorf("seed %q: citing entry %q matches the seed itself", seed, c.Title)
			}
			got[seed] = append(got[seed], m)
		}
	}
	want := map[string][]string{
		"papers/2401.01234":         {"papers/2403.05678", "papers/2406.09876", "", "", ""},
		"papers/2403.05678":         {"papers/2406.09876", ""},
		"papers/vision/resnet-like": {"papers/2401.01234", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cited-by matches (-want +got):\n%s", diff)
	}
}

type box struct{ X, Y, W, H float64 }

func (b box) valid() bool {
	return b.X >= 0 && b.Y >= 0 && b.W > 0 && b.H > 0 && b.X+b.W <= 1 && b.Y+b.H <= 1
}

func TestLayout(t *testing.T) {
	var layout struct {
		SchemaVersion int `json:"schemaVersion"`
		Regions       []struct {
			ID        string `json:"id"`
			PageIndex int    `json:"pageIndex"`
			Kind      string `json:"kind"`
			Title     string `json:"title"`
			Text      string `json:"text"`
			BBox      box    `json:"bbox"`
		} `json:"regions"`
	}
	var index struct {
		SchemaVersion int `json:"schemaVersion"`
		Items         []struct {
			ID             string `json:"id"`
			Kind           string `json:"kind"`
			Section        string `json:"section"`
			Page           int    `json:"page"`
			PageIndex      int    `json:"pageIndex"`
			BBox           box    `json:"bbox"`
			Title          string `json:"title"`
			LayoutRegionID string `json:"layoutRegionId"`
		} `json:"items"`
	}
	readJSON(t, "papers/2401.01234/source/layout.json", &layout)
	readJSON(t, "papers/2401.01234/source/layout-index.json", &index)
	if layout.SchemaVersion != 3 || index.SchemaVersion != 1 {
		t.Fatalf("schema versions %d, %d; want 3, 1", layout.SchemaVersion, index.SchemaVersion)
	}
	regions := map[string]int{} // id → pageIndex
	var headers []string
	for _, r := range layout.Regions {
		if _, dup := regions[r.ID]; dup {
			t.Errorf("duplicate region id %s", r.ID)
		}
		regions[r.ID] = r.PageIndex
		if !r.BBox.valid() || r.PageIndex < 0 || r.PageIndex > 2 {
			t.Errorf("region %s: bad bbox %+v or pageIndex %d", r.ID, r.BBox, r.PageIndex)
		}
		if r.Kind != "figure" && r.Text == "" {
			t.Errorf("region %s (%s) has no text", r.ID, r.Kind)
		}
		if r.Kind == "header" {
			headers = append(headers, r.Title)
		}
	}
	wantHeaders := []string{"Abstract", "1 Introduction", "2 Related Work", "3 Method", "3.1 Block partition",
		"3.2 Strided global tokens", "4 Experiments", "5 Limitations", "References"}
	if diff := cmp.Diff(wantHeaders, headers); diff != "" {
		t.Errorf("header regions (-want +got):\n%s", diff)
	}
	var items []string
	for _, it := range index.Items {
		items = append(items, it.ID)
		pi, ok := regions[it.LayoutRegionID]
		if !ok || pi != it.PageIndex || it.Page != it.PageIndex+1 || !it.BBox.valid() || it.Section != it.Kind {
			t.Errorf("index item %s: region %q (page index %d, found %v), page %d, pageIndex %d, bbox %+v",
				it.ID, it.LayoutRegionID, pi, ok, it.Page, it.PageIndex, it.BBox)
		}
	}
	if diff := cmp.Diff([]string{"figure-1", "table-1"}, items); diff != "" {
		t.Errorf("index items (-want +got):\n%s", diff)
	}
}

func TestPDFs(t *testing.T) {
	tests := []struct {
		name      string
		pages     int
		infoTitle string
		// strings that must appear in the decoded content stream of a page
		// (1-based), as PDF string literals
		onPage    map[int][]string
		labels    bool
		bookmarks []string
	}{
		{
			name: "papers/2401.01234/2401.01234.pdf", pages: 3,
			infoTitle: "Strided Block Attention for Long Document Encoding",
			onPage: map[int][]string{
				1: {"(Strided Block Attention for Long Document Encoding)", "(1 Introduction)", "(3.1 Block partition)"},
				2: {"(3.2 Strided global tokens)", "(Dense encoder)", "(Table 1: Results at 4,096 tokens.", "(Figure 1: Peak attention memory"},
				3: {"Notes on block-sparse kernels. Unpublished manuscript, 2023.)"},
			},
		},
		{
			name: "papers/2403.05678/2403.05678.pdf", pages: 2,
			infoTitle: "Routing Tokens to Memory Slots for Long-Document Question Answering",
			onPage: map[int][]string{
				1: {"(1 Introduction)", "(3 Slot Routing)", "docu-)"},
				2: {"(Slot routing \\(ours\\))", "(6 Conclusion)", "(arXiv:2401.01234v2.)"},
			},
		},
		{
			name: "papers/2406.09876/2406.09876.pdf", pages: 4,
			infoTitle: "Sparse Attention for Long Documents: A Short Survey",
			onPage: map[int][]string{
				1: {"(Sparse Attention for Long Documents: A Short Survey)", "(i)"},
				2: {"(1 Scope)", "(2.1 Local windows)", "(3 Learned Patterns)", "(1)"},
				3: {"(Table 1: Representative methods", "(5 Open Problems)", "(2)"},
				4: {"(References)", "(doi:10.48550/arXiv.2401.01234.)"},
			},
			labels: true,
			bookmarks: []string{"1 Scope", "2 Fixed Patterns", "2.1 Local windows", "2.2 Global and random links",
				"3 Learned Patterns", "4 Evaluation Practice", "5 Open Problems", "References"},
		},
		{
			name: "papers/local-window-eval/local-window-eval.PDF", pages: 2,
			infoTitle: "draft-v3-final",
			onPage: map[int][]string{
				// The title wraps onto two lines.
				1: {"(How Wide Should a Local Window Be? Evidence from Legal)", "(and Scientific Documents)", "(Table 1: Accuracy"},
			},
		},
		{
			name: "papers/vision/resnet-like/paper.pdf", pages: 2,
			infoTitle: "Residual Pathways for Shallow Image Classifiers",
			onPage: map[int][]string{
				1: {"(Residual Pathways for Shallow Image Classifiers)", "(Luc\\355a Aldana, Bruno Ferreira)"},
			},
		},
	}
	var pdfs []string
	for _, name := range wantFiles {
		if strings.EqualFold(path.Ext(name), ".pdf") {
			pdfs = append(pdfs, name)
		}
	}
	if len(pdfs) != len(tests) {
		t.Errorf("vault has %d PDFs, the test covers %d", len(pdfs), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := fs.ReadFile(samplevault.FS, tt.name)
			if err != nil {
				t.Fatal(err)
			}
			conf := model.NewDefaultConfiguration()
			conf.ValidationMode = model.ValidationStrict
			ctx, err := api.ReadContext(bytes.NewReader(data), conf)
			if err != nil {
				t.Fatal(err)
			}
			if err := api.ValidateContext(ctx); err != nil {
				t.Fatalf("strict validation: %v", err)
			}
			if ctx.PageCount != tt.pages {
				t.Errorf("pages = %d, want %d", ctx.PageCount, tt.pages)
			}
			if v := ctx.HeaderVersion; v == nil || *v != model.V17 {
				t.Errorf("header version %v, want 1.7", v)
			}
			if ctx.Title != tt.infoTitle {
				t.Errorf("Info Title = %q, want %q", ctx.Title, tt.infoTitle)
			}
			for page, want := range tt.onPage {
				d, _, _, err := ctx.PageDict(page, false)
				if err != nil {
					t.Fatal(err)
				}
				content, err := ctx.PageContent(d, page)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range want {
					if !bytes.Contains(content, []byte(s)) {
						t.Errorf("page %d content lacks %s", page, s)
					}
				}
			}
			cat, err := ctx.Catalog()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := cat.Find("PageLabels"); ok != tt.labels {
				t.Errorf("has /PageLabels = %v, want %v", ok, tt.labels)
			}
			bms, err := pdfcpu.Bookmarks(ctx)
			if err != nil && len(tt.bookmarks) > 0 {
				t.Fatal(err)
			}
			var titles []string
			var walk func([]pdfcpu.Bookmark)
			walk = func(bs []pdfcpu.Bookmark) {
				for _, b := range bs {
					titles = append(titles, b.Title)
					walk(b.Kids)
				}
			}
			walk(bms)
			if diff := cmp.Diff(tt.bookmarks, titles); diff != "" {
				t.Errorf("bookmarks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPageLabels checks the survey's printed labels: a roman front page,
// then 1, 2, 3, so physical page 3 is printed page 2.
func TestPageLabels(t *testing.T) {
	data, err := fs.ReadFile(samplevault.FS, "papers/2406.09876/2406.09876.pdf")
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := api.ReadContext(bytes.NewReader(data), model.NewDefaultConfiguration())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := ctx.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	obj, _ := cat.Find("PageLabels")
	tree, err := ctx.DereferenceDict(obj)
	if err != nil {
		t.Fatal(err)
	}
	nums, err := ctx.DereferenceArray(tree["Nums"])
	if err != nil {
		t.Fatal(err)
	}
	type label struct {
		Page  int
		Style string
		Start int
	}
	var got []label
	for i := 0; i+1 < len(nums); i += 2 {
		d, err := ctx.DereferenceDict(nums[i+1])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, label{int(nums[i].(types.Integer)), *d.NameEntry("S"), *d.IntEntry("St")})
	}
	want := []label{{0, "r", 1}, {1, "D", 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("page labels (-want +got):\n%s", diff)
	}
}

// TestGenerated regenerates the PDFs, layout files and PNGs and checks that
// the committed vault matches: edit src/ and run go generate, never the
// outputs.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out := t.TempDir()
	cmd := exec.Command(gobin, "run", "../internal/cmd/samplevaultgen", "-src", "src", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, b)
	}
	for _, name := range files(t, os.DirFS(out)) {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := fs.ReadFile(samplevault.FS, name)
		if err != nil {
			t.Errorf("generated %s is not in the vault", name)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./samplevault", name)
		}
	}
}
