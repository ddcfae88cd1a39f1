package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// TestExtractWaitDeadline checks that a caller waiting for another's
// extraction of the same PDF gives up when its own context ends, while
// the extraction goes on for the one who started it, and that the callers
// who wait share its result: the file is extracted once.
func TestExtractWaitDeadline(t *testing.T) {
	lib := paperLibrary(t, paperSampleRoot(t))
	ctx := context.Background()
	src, err := lib.paperSource(ctx, "papers/2401.01234")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	release := make(chan struct{})
	var runs atomic.Int32
	testHookExtract = func(context.Context) {
		if runs.Add(1) == 1 {
			close(started)
			<-release // a slow extraction, until the test lets it end
		}
	}
	t.Cleanup(func() { testHookExtract = nil })

	first := make(chan error, 1)
	go func() {
		_, err := src.pdf.document(ctx)
		first <- err
	}()
	<-started
	// A patient caller shares the first extraction.
	shared := make(chan error, 1)
	go func() {
		_, err := src.pdf.document(ctx)
		shared <- err
	}()

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	waited := make(chan error, 1)
	go func() {
		_, err := src.pdf.document(short)
		waited <- err
	}()
	select {
	case err := <-waited:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a caller past its deadline got %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("a caller past its deadline still waits for another's extraction")
	}
	close(release)
	for _, c := range []chan error{first, shared} {
		if err := <-c; err != nil {
			t.Errorf("document: %v", err)
		}
	}
	if _, err := src.pdf.document(ctx); err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the PDF was extracted %d times, want once", n)
	}
}

// TestInfoReadsNoPDF checks that the source of a paper whose metadata has
// no title never reads its PDF in Info, which has no context: while
// another caller extracts the PDF, Info answers at once with the folder's
// name, and Library.Open, which looks for the PDF's title, gives up at its
// context's deadline; once the PDF is read, Info gives the PDF's title.
func TestInfoReadsNoPDF(t *testing.T) {
	root := paperSampleRoot(t)
	body, err := os.ReadFile(filepath.Join(root, "papers", "2401.01234", "2401.01234.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	writeVaultFile(t, root, "papers/untitled/untitled.pdf", body)
	lib := paperLibrary(t, root)
	ctx := context.Background()
	const ref = "papers/untitled"
	src, err := lib.paperSource(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	release := make(chan struct{})
	var runs atomic.Int32
	testHookExtract = func(context.Context) {
		if runs.Add(1) == 1 {
			close(started)
			<-release
		}
	}
	t.Cleanup(func() { testHookExtract = nil })
	first := make(chan error, 1)
	go func() {
		_, err := src.pdf.document(ctx)
		first <- err
	}()
	<-started

	info := make(chan sources.Info, 1)
	go func() { info <- src.Info() }()
	select {
	case got := <-info:
		if got.Title != "untitled" {
			t.Errorf("Info().Title while the PDF is extracted = %q, want the folder's name", got.Title)
		}
	case <-time.After(20 * time.Second):
		t.Error("Info waits for the PDF's extraction")
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	opened := make(chan error, 1)
	go func() {
		_, err := lib.Open(short, grant.KindPaper, ref)
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Errorf("Open past its deadline while the PDF is extracted: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("Open waits for the PDF's extraction past its deadline")
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	doc, err := src.pdf.document(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := textnorm.Line(doc.Title)
	if want == "" {
		t.Fatal("the PDF has no title of its own")
	}
	opened2, err := lib.Open(ctx, grant.KindPaper, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := opened2.Info().Title; got != want {
		t.Errorf("Info().Title once the PDF is read = %q, want the PDF's %q", got, want)
	}
}
