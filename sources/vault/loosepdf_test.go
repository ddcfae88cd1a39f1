package vault_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/corpus"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/samplevault"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
	"github.com/researchctx/researchctx/sources/vault"
)

// looseVault is the sample vault with a downloads/ folder that has no
// paper layout: a copy of the SBA paper's PDF (three pages, a title block,
// numbered headings), a one-page PDF, a text file, and PDFs that cannot be
// read — damaged, encrypted.
func looseVault(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "vault")
	if err := samplevault.Extract(root); err != nil {
		t.Fatal(err)
	}
	sba, err := os.ReadFile(filepath.Join(root, "papers", "2401.01234", "2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	plain := hostilepdf.Plain("Quokkas sleep in hollow logs by day.", "They feed on grasses at night.")
	vaultfix.Write(t, root, map[string]string{
		"downloads/sba.pdf":          string(sba),
		"downloads/field/quokka.pdf": string(plain),
		"downloads/todo.txt":         "compare the strided tokens with slot routing\n",
		"downloads/broken.pdf":       "%PDF-1.7\nthis is not a PDF body\n",
		"downloads/locked.pdf":       string(encryptedPDF(t, plain)),
	})
	return root
}

// encryptedPDF encrypts a PDF with a user password, so that it does not
// open with the empty one.
func encryptedPDF(t *testing.T, plain []byte) []byte {
	t.Helper()
	model.ConfigPath = "disable" // keep pdfcpu off the user's configuration folder
	var out bytes.Buffer
	if err := api.Encrypt(bytes.NewReader(plain), &out, model.NewAESConfiguration("user-secret", "owner-secret", 256)); err != nil {
		t.Fatalf("encrypting: %v", err)
	}
	return out.Bytes()
}

func TestLoosePDFConformance(t *testing.T) {
	l := openLibrary(t, looseVault(t), t.TempDir())
	ctx := context.Background()
	for _, tt := range []struct {
		kind       grant.Kind
		ref, probe string
	}{
		{grant.KindFile, "downloads/sba.pdf", "strided global tokens"},
		{grant.KindFile, "downloads/field/quokka.pdf", "quokkas hollow logs"},
		{grant.KindDirectory, "downloads", "strided global tokens"},
		{grant.KindDirectory, "downloads/field", "quokkas"},
	} {
		t.Run(tt.ref, func(t *testing.T) {
			src, err := l.Open(ctx, tt.kind, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if err := sourcetest.Test(ctx, src, tt.probe); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestLoosePDFRead(t *testing.T) {
	l := openLibrary(t, looseVault(t), t.TempDir())
	ctx := context.Background()
	src, err := l.Open(ctx, grant.KindFile, "downloads/sba.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(*vault.PDF); !ok {
		t.Fatalf("a PDF opened as a file is a %T, want *vault.PDF", src)
	}
	if got, want := src.Info(), (sources.Info{Path: "downloads/sba.pdf", Kind: grant.KindFile, Title: "sba.pdf"}); got != want {
		t.Errorf("Info = %+v, want %+v", got, want)
	}
	doc, err := src.Read(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	const title = "Strided Block Attention for Long Document Encoding"
	if doc.Path != "downloads/sba.pdf" || doc.Title != title || doc.Pages != 3 || len(doc.Parts) != 3 {
		t.Fatalf("Read = {Path %q, Title %q, Pages %d, %d parts}", doc.Path, doc.Title, doc.Pages, len(doc.Parts))
	}
	for i, p := range doc.Parts {
		if p.Path != "downloads/sba.pdf" || p.Page != i+1 || p.Text == "" {
			t.Errorf("part %d at %+v with %d bytes", i, p.Location, len(p.Text))
		}
	}
	var secs []string
	for _, s := range doc.Sections {
		secs = append(secs, s.Title)
		if s.Title == "3.2 Strided global tokens" && (s.Page != 2 || s.Level != 2) {
			t.Errorf("section %+v, want page 2, level 2", s)
		}
	}
	want := []string{"Abstract", "1 Introduction", "2 Related Work", "3 Method", "3.1 Block partition", "3.2 Strided global tokens", "4 Experiments", "5 Limitations", "References"}
	if diff := cmp.Diff(want, secs); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	md, err := src.(sources.Describer).Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if md.Title != title || md.Pages != 3 || !cmp.Equal(md.Documents, []string{"downloads/sba.pdf"}) ||
		!cmp.Equal(md.Authors, []string{"Mira Okafor", "Tomas Lindqvist", "Hana Sato"}) ||
		!strings.HasPrefix(md.Abstract, "Transformer encoders spend most of their compute") {
		t.Errorf("Describe = %+v", md)
	}
	// The PDF is read through its folder too, the same document.
	dir, err := l.Open(ctx, grant.KindDirectory, "downloads")
	if err != nil {
		t.Fatal(err)
	}
	viaDir, err := dir.Read(ctx, "downloads/sba.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(doc, viaDir); diff != "" {
		t.Errorf("read through the folder (-file +folder):\n%s", diff)
	}
	inner, rel, err := dir.(sources.Container).Inner(ctx, "downloads/sba.pdf")
	if err != nil || inner != src || rel != "" {
		t.Errorf("Inner = %v, %q, %v; want the PDF source itself", inner, rel, err)
	}
}

func TestLoosePDFSearch(t *testing.T) {
	cache := t.TempDir()
	l := openLibrary(t, looseVault(t), cache)
	ctx := context.Background()
	src, err := l.Open(ctx, grant.KindFile, "downloads/sba.pdf")
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Search(ctx, sources.Query{Text: "block partition", Limit: 3, ExcerptChars: 120})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Path != "downloads/sba.pdf" || res.Hits[0].Page != 1 {
		t.Fatalf("hits %+v, want page 1 of downloads/sba.pdf first", res.Hits)
	}
	if _, err := os.Stat(filepath.Join(cache, "pdf")); err != nil {
		t.Errorf("the PDF text cache was not used: %v", err)
	}

	// A folder of PDFs without the paper layout: its PDFs' pages are
	// searched beside its text files, one card per page.
	dir, err := l.Open(ctx, grant.KindDirectory, "downloads")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		query string
		path  string
		page  int
	}{
		{"quokkas sleep in hollow logs", "downloads/field/quokka.pdf", 1},
		{"strided tokens slot routing", "downloads/todo.txt", 0},
		{"experiments benchmarks memory", "downloads/sba.pdf", 2},
	} {
		res, err := dir.Search(ctx, sources.Query{Text: tt.query, Limit: 5, ExcerptChars: 120})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Path != tt.path || res.Hits[0].Page != tt.page {
			t.Errorf("Search(%q) = %+v, want %s page %d first", tt.query, res.Hits, tt.path, tt.page)
		}
	}
	// The scan cap counts PDFs like any other file.
	capped, err := dir.Search(ctx, sources.Query{Text: "quokkas", Limit: 5, ScanFiles: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !capped.Truncated {
		t.Error("a scan capped at one file of five was not truncated")
	}

	// A second process finds the pages in the library index on disk.
	l2 := openLibrary(t, l.Root(), cache)
	src2, err := l2.Open(ctx, grant.KindFile, "downloads/sba.pdf")
	if err != nil {
		t.Fatal(err)
	}
	res2, err := src2.Search(ctx, sources.Query{Text: "block partition", Limit: 3, ExcerptChars: 120})
	if err != nil {
		t.Fatal(err)
	}
	// Scores move with what else the index holds (the folder's files
	// since): the cards must not.
	if diff := cmp.Diff(res, res2, cmpopts.IgnoreFields(sources.Hit{}, "Score")); diff != "" {
		t.Errorf("search from the index on disk differs (-first +second):\n%s", diff)
	}
}

// TestLoosePDFUnreadable: a damaged, an encrypted and an over-limit PDF are
// typed errors that name the vault path, whether read, described or
// searched alone, and a folder holding them is still searched.
func TestLoosePDFUnreadable(t *testing.T) {
	root := looseVault(t)
	vaultfix.Write(t, root, map[string]string{"downloads/huge.pdf": string(hostilepdf.ManyPages(pdf.DefaultMaxPages + 1))})
	l := openLibrary(t, root, t.TempDir())
	ctx := context.Background()
	for _, tt := range []struct {
		file string
		is   error
	}{
		{"downloads/broken.pdf", pdf.ErrMalformed},
		{"downloads/locked.pdf", pdf.ErrEncrypted},
		{"downloads/huge.pdf", pdf.ErrTooLarge},
	} {
		t.Run(tt.file, func(t *testing.T) {
			src, err := l.Open(ctx, grant.KindFile, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, sources.ErrUnreadable) || !errors.Is(err, tt.is) {
					t.Errorf("%s: %v, want ErrUnreadable and %v", what, err, tt.is)
				}
				if err != nil && (!strings.HasPrefix(err.Error(), tt.file+": ") || strings.Contains(err.Error(), root)) {
					t.Errorf("%s: %q does not name the vault path alone", what, err)
				}
			}
			_, err = src.Read(ctx, "")
			check("Read", err)
			_, err = src.(sources.Describer).Describe(ctx)
			check("Describe", err)
			_, err = src.Search(ctx, sources.Query{Text: "quokkas", Limit: 3})
			check("Search", err)
		})
	}
	dir, err := l.Open(ctx, grant.KindDirectory, "downloads")
	if err != nil {
		t.Fatal(err)
	}
	res, err := dir.Search(ctx, sources.Query{Text: "quokkas hollow logs", Limit: 5})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "downloads/field/quokka.pdf" {
		t.Errorf("folder search beside unreadable PDFs = %+v, %v", res, err)
	}
}

// TestLoosePDFCorpus reads and searches real PDFs of the corpus as loose
// PDFs in a folder without the paper layout.
func TestLoosePDFCorpus(t *testing.T) {
	dir := corpus.Dir(t, "pdfs")
	root := t.TempDir()
	for _, name := range []string{"pwl-mapreduce", "pwl-impossibility-scan"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".pdf"))
		if err != nil {
			t.Fatal(err)
		}
		vaultfix.Write(t, root, map[string]string{"inbox/" + name + ".pdf": string(data)})
	}
	// The scan as its text layer reads, without OCR (ocr_test.go's).
	l := openLibraryOCR(t, root, t.TempDir(), ocr.Off())
	ctx := context.Background()
	src, err := l.Open(ctx, grant.KindFile, "inbox/pwl-mapreduce.pdf")
	if err != nil {
		t.Fatal(err)
	}
	md, err := src.(sources.Describer).Describe(ctx)
	if err != nil || md.Pages != 13 || !strings.Contains(md.Title, "MapReduce") {
		t.Fatalf("Describe = %+v, %v", md, err)
	}
	if err := sourcetest.Test(ctx, src, "Master Data Structures"); err != nil {
		t.Error(err)
	}
	inbox, err := l.Open(ctx, grant.KindDirectory, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	res, err := inbox.Search(ctx, sources.Query{Text: "Master Data Structures", Limit: 3, ExcerptChars: 160})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "inbox/pwl-mapreduce.pdf" || res.Hits[0].Page != 4 {
		t.Fatalf("folder search = %+v, %v; want page 4 of the MapReduce paper", res, err)
	}
	scan, err := l.Open(ctx, grant.KindFile, "inbox/pwl-impossibility-scan.pdf")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := scan.Read(ctx, "")
	if err != nil || doc.Pages != 30 || !doc.Parts[0].NoTextLayer {
		t.Errorf("a scan reads as %d pages without text layers: %+v, %v", 30, doc != nil && len(doc.Parts) > 0 && doc.Parts[0].NoTextLayer, err)
	}
}
