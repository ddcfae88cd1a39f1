package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/ocr"
	"github.com/researchctx/researchctx/sources/vault"
)

// corpusCache is a library whose PDF cache holds the corpus PDFs'
// extracted text, filled once per test binary. Every vault the tests lay
// out holds the same PDFs, and that cache keys its entries by a PDF's
// content, so a vault that starts with a copy of it reads the very text it
// would extract itself, without extracting the corpus again. The citation
// graph and its caches are each vault's own: what the tests score is
// built from scratch.
var corpusCache struct {
	once sync.Once
	dir  string
	err  error
}

// noOCR opens the tests' libraries without an OCR engine. The one corpus
// paper without a text layer, pwl-impossibility-scan, has no labelled
// entries or edges; with an engine, a graph reading through Read waited
// for it until relations.DefaultPaperTimeout (45 s) and then left its
// references out, and a library's background worker recognised it while
// the test ran, only to be stopped at Close. Without one, the paper reads
// as its text layer gives it, at once, with no references either: the
// same scores, without the wait or the work.
var noOCR = &vault.LibraryOptions{OCR: ocr.Off()}

// TestMain removes the shared cache's library once the tests have run.
func TestMain(m *testing.M) {
	code := m.Run()
	if corpusCache.dir != "" {
		os.RemoveAll(corpusCache.dir)
	}
	os.Exit(code)
}

// buildVault lays the corpus PDFs out under a new temporary folder with
// build and copies the shared content caches into it.
func buildVault(t *testing.T, build func(pdfs, dir string, l *Labels) error, pdfs string, l *Labels) string {
	t.Helper()
	corpusCache.once.Do(func() { corpusCache.dir, corpusCache.err = fillCorpusCache(pdfs, l) })
	if corpusCache.err != nil {
		t.Fatal(corpusCache.err)
	}
	dir := t.TempDir()
	if err := build(pdfs, dir, l); err != nil {
		t.Fatal(err)
	}
	pdfCache := filepath.Join(filepath.FromSlash(agentero.Cache), "pdf")
	if err := os.CopyFS(filepath.Join(dir, pdfCache), os.DirFS(filepath.Join(corpusCache.dir, pdfCache))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fillCorpusCache lays the corpus out as BuildVault does in a new folder
// and reads every paper's text through a library, as the tests do, so that
// its PDF cache holds every PDF's text.
func fillCorpusCache(pdfs string, l *Labels) (string, error) {
	dir, err := os.MkdirTemp("", "refbench-corpus")
	if err != nil {
		return "", err
	}
	if err := BuildVault(pdfs, dir, l); err != nil {
		return dir, err
	}
	lib, err := vault.OpenLibrary(dir, noOCR)
	if err != nil {
		return dir, err
	}
	defer lib.Close()
	for _, p := range l.Papers {
		if _, err := libText(context.Background(), lib, p.Ref()); err != nil {
			return dir, err
		}
	}
	return dir, nil
}
