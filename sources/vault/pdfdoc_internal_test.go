package vault

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
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
