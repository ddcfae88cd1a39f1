package vault_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	ocrengine "github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/vault"
)

// TestRelationsCacheFolder checks that the references parsed from a PDF are
// kept in the library's cache folder: the Vault's own by default, the
// folder the host chose, or nowhere when the host turned caching off.
func TestRelationsCacheFolder(t *testing.T) {
	tests := []struct {
		name     string
		cacheDir string
		inVault  bool
		inHost   bool
	}{
		{"default", "", true, false},
		{"host folder", "host", false, true},
		{"off", "-", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			host := filepath.Join(t.TempDir(), "host-cache")
			cacheDir := tt.cacheDir
			if cacheDir == "host" {
				cacheDir = host
			}
			files := map[string][]byte{
				"papers/a/metadata.json": []byte(`{"title": "Alpha", "arxiv_id": "2001.00001"}`),
				"papers/b/metadata.json": []byte(`{"title": "Beta"}`),
				"papers/b/b.pdf":         hostilepdf.Plain("Beta", "References", "[1] A. Writer. Alpha. arXiv:2001.00001."),
			}
			for name, body := range files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			lib, err := vault.OpenLibrary(dir, &vault.LibraryOptions{CacheDir: cacheDir})
			if err != nil {
				t.Fatal(err)
			}
			defer lib.Close()
			src, err := lib.Open(context.Background(), grant.KindPaper, "papers/b")
			if err != nil {
				t.Fatal(err)
			}
			r, err := src.(sources.Relater).Relations(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(r.References) != 1 || r.References[0].Paper != "papers/a" {
				t.Fatalf("references = %+v, want papers/a", r.References)
			}
			for _, c := range []struct {
				where string
				want  bool
			}{
				{filepath.Join(dir, ".agentero", "cache", "refs"), tt.inVault},
				{filepath.Join(host, "refs"), tt.inHost},
			} {
				_, err := os.Stat(c.where)
				if got := !errors.Is(err, fs.ErrNotExist); got != c.want {
					t.Errorf("parsed references under %s: %v, want %v", filepath.Base(filepath.Dir(c.where)), got, c.want)
				}
			}
		})
	}
}

// TestHostilePDFsInLibrary builds relations through the paper sources over
// a library holding hostile PDFs (one whose content nests arrays 30 million
// deep, which used to overflow the stack and end the process; one whose
// objects nest a million deep): the good paper's references are found, the
// hostile paper's relations carry its reason as a problem, and a second
// library on the same vault (a new process) gets the PDF failure from the
// cache instead of extracting again.
func TestHostilePDFsInLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts hostile PDFs")
	}
	dir := t.TempDir()
	vaultfix.Write(t, dir, map[string]string{
		"papers/a/metadata.json":    `{"title": "Alpha", "arxiv_id": "2001.00001"}`,
		"papers/good/metadata.json": `{"title": "Good"}`,
		"papers/good/good.pdf":      string(hostilepdf.Plain("Good paper", "References", "[1] Alpha. arXiv:2001.00001.")),
		"papers/deep/metadata.json": `{"title": "deep"}`,
		"papers/deep/deep.pdf":      string(hostilepdf.DeepContentFlate(30 << 20)),
		"papers/obj/metadata.json":  `{"title": "obj"}`,
		"papers/obj/obj.pdf":        string(hostilepdf.DeepObject("[", 1<<20)),
	})
	ctx := context.Background()
	relationsOf := func(lib *vault.Library, ref string) *sources.Relations {
		t.Helper()
		src, err := lib.Open(ctx, grant.KindPaper, ref)
		if err != nil {
			t.Fatal(err)
		}
		r, err := src.(sources.Relater).Relations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lib := openLibrary(t, dir, "")
	good := relationsOf(lib, "papers/good")
	if len(good.References) != 1 || good.References[0].Paper != "papers/a" {
		t.Errorf("good references = %+v, want papers/a", good.References)
	}
	obj := relationsOf(lib, "papers/obj")
	if len(obj.Problems) == 0 || !strings.Contains(strings.Join(obj.Problems, "\n"), "malformed") {
		t.Errorf("obj problems = %q, want a skipped paper with a malformed PDF", obj.Problems)
	}
	deep := relationsOf(lib, "papers/deep")
	t.Logf("deep: %d references, problems %q", len(deep.References), deep.Problems)

	again := relationsOf(openLibrary(t, dir, ""), "papers/obj")
	if !strings.Contains(strings.Join(again.Problems, "\n"), "remembered") {
		t.Errorf("second library: obj problems = %q, want the remembered failure", again.Problems)
	}
}

// relationsOf returns the relations of the library paper or loose PDF ref.
func relationsOf(t *testing.T, lib *vault.Library, kind grant.Kind, ref string) *sources.Relations {
	t.Helper()
	src, err := lib.Open(context.Background(), kind, ref)
	if err != nil {
		t.Fatal(err)
	}
	r, err := src.(sources.Relater).Relations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// citesPath reports whether one of ws is the library work at path.
func citesPath(ws []sources.Work, path string) bool {
	for _, w := range ws {
		if w.Paper == path {
			return true
		}
	}
	return false
}

// TestRelationsLooseAdded: a loose PDF added to (or removed from) a folder
// of the library after the graph is built is seen at the next freshness
// check, without a new library: a paper citing it links it, and unlinks
// it once it is gone.
func TestRelationsLooseAdded(t *testing.T) {
	// It mostly waits out the graph's freshness checks, a folder of its
	// own and no time bound: it waits beside the other tests that wait.
	t.Parallel()
	dir := t.TempDir()
	vaultfix.Write(t, dir, map[string]string{
		"papers/citer/metadata.json": `{"title": "Citer"}`,
		"papers/citer/citer.pdf":     string(hostilepdf.Plain("Citer paper", "References", "[1] A. Alpha. Alpha nets. arXiv:2001.00001.")),
		"downloads/todo.txt":         "read alpha\n",
	})
	lib := openLibrary(t, dir, t.TempDir())
	if r := relationsOf(t, lib, grant.KindPaper, "papers/citer"); len(r.References) != 1 || r.References[0].Paper != "" {
		t.Fatalf("before: references %+v, want one outside the library", r.References)
	}
	// The loose PDF shows its arXiv id in the stamp arXiv prints on a
	// first page.
	vaultfix.Write(t, dir, map[string]string{
		"downloads/alpha.pdf": string(hostilepdf.Plain("arXiv:2001.00001v1 [cs.LG] 3 Jan 2020", "Alpha nets", "We study alpha.")),
	})
	const alpha = "downloads/alpha.pdf"
	linked := func(want bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second) // the graph trusts itself 2 s between checks
		for {
			r := relationsOf(t, lib, grant.KindPaper, "papers/citer")
			if citesPath(r.References, alpha) == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("references %+v: linked to %s is not %v", r.References, alpha, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	linked(true)
	if r := relationsOf(t, lib, grant.KindFile, alpha); !citesPath(r.CitedBy, "papers/citer") {
		t.Errorf("%s cited by %+v, want papers/citer", alpha, r.CitedBy)
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(alpha))); err != nil {
		t.Fatal(err)
	}
	linked(false)
}

// gatedEngine is an OCR engine that recognises nothing until open is
// closed.
type gatedEngine struct {
	ocr.Engine
	open chan struct{}
}

func (e *gatedEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	select {
	case <-e.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return e.Engine.Recognize(ctx, img)
}

// TestRelationsScannedPaper: the citation graph reads a scanned paper's
// text as far as the OCR cache holds it and never waits for the engine; once
// the engine has recognised the pages (in the background), the paper's
// references appear, without a change to its PDF. The scan is of the
// reference pages of a real paper, recognised by tesseract.
func TestRelationsScannedPaper(t *testing.T) {
	// It mostly waits on tesseract: it runs beside the other tests that
	// do (see TestOCRScanTitleAndSections).
	t.Parallel()
	for _, p := range []string{"tesseract", "pdftoppm", "img2pdf"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI installs it)", p)
			}
			t.Skipf("%s is not installed", p)
		}
	}
	tess, err := ocrengine.NewTesseract(context.Background(), "tesseract", []string{"eng"}, pageDeadline, 0)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	src := filepath.Join(corpus.Dir(t, "pdfs"), "arxiv-1406.2661.pdf")
	// Pages 8 and 9 hold the reference list.
	if b, err := exec.Command("pdftoppm", "-f", "8", "-l", "9", "-r", "200", "-gray", "-jpeg", src, filepath.Join(tmp, "p")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, b)
	}
	pages, err := filepath.Glob(filepath.Join(tmp, "p-*.jpg"))
	if err != nil || len(pages) != 2 {
		t.Fatalf("pages %q: %v", pages, err)
	}
	scan, err := exec.Command("img2pdf", pages...).Output()
	if err != nil {
		t.Fatalf("img2pdf: %v", err)
	}
	dir := t.TempDir()
	vaultfix.Write(t, dir, map[string]string{
		"papers/gan/metadata.json":    `{"title": "Generative Adversarial Nets", "year": 2014}`,
		"papers/gan/gan.pdf":          string(scan),
		"papers/maxout/metadata.json": `{"title": "Maxout Networks", "year": 2013, "authors": ["Ian J. Goodfellow"]}`,
	})
	eng := &gatedEngine{Engine: tess, open: make(chan struct{})}
	lib := openLibraryOCR(t, dir, t.TempDir(), eng)

	first := make(chan *sources.Relations, 1)
	go func() { first <- relationsOf(t, lib, grant.KindPaper, "papers/gan") }()
	select {
	case r := <-first:
		if len(r.References) != 0 || len(r.Problems) != 0 {
			t.Errorf("before OCR: references %+v, problems %q; want none", r.References, r.Problems)
		}
	case <-time.After(time.Minute):
		close(eng.open)
		t.Fatal("the first relations call waits for OCR")
	}
	close(eng.open)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r := relationsOf(t, lib, grant.KindPaper, "papers/gan")
		if citesPath(r.References, "papers/maxout") {
			if len(r.References) < 15 {
				t.Errorf("after OCR: %d references, want the list's (19)", len(r.References))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after OCR: references %+v, want papers/maxout among them", r.References)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
