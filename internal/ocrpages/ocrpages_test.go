package ocrpages

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/ocr"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdf/pageimage"
)

// TestSlotsShared: every store of the process draws on the same slots, so
// that two libraries recognising pages at once stay within Memory.
func TestSlotsShared(t *testing.T) {
	var a, b Store
	for _, bg := range []bool{true, false} {
		if a.Slots(bg) != b.Slots(bg) {
			t.Errorf("background %v: two stores have slots of their own", bg)
		}
	}
	if n := cap(a.Slots(true)) + cap(a.Slots(false)); n*PageBudget > Memory {
		t.Errorf("%d slots of %d MiB, over the %d MiB cap", n, PageBudget>>20, Memory>>20)
	}
}

// TestMerge: a scanned page takes the text its recognition holds; one
// without text keeps its reason; one not recognised yet says so and the
// document is not done; without an engine every scanned page says why; a
// document with no scanned page is returned as it is.
func TestMerge(t *testing.T) {
	doc := &pdf.Document{Pages: []pdf.Page{{Text: "born digital"}, {NoTextLayer: true}, {NoTextLayer: true}, {NoTextLayer: true}}}
	rec := map[int]*Page{2: {Text: "recognised", Confidence: 0.9}, 3: {Reason: "OCR found no text on the page"}}
	tests := []struct {
		name      string
		engine    bool
		wantText  []string
		wantNotes map[int]string
		wantDone  bool
	}{
		{"with engine", true, []string{"born digital", "recognised", "", ""}, map[int]string{2: "", 3: "OCR found no text on the page", 4: "not yet"}, false},
		{"without engine", false, []string{"born digital", "", "", ""}, map[int]string{2: "not yet", 3: "not yet", 4: "not yet"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rec
			if !tt.engine {
				r = nil
			}
			out, notes, done := Merge(doc, r, tt.engine, "not yet")
			var text []string
			for _, p := range out.Pages {
				text = append(text, p.Text)
			}
			got := map[int]string{}
			for n, p := range notes {
				got[n] = p.Reason
			}
			if diff := cmp.Diff(tt.wantText, text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNotes, got); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if done != tt.wantDone {
				t.Errorf("done %v, want %v", done, tt.wantDone)
			}
			if doc.Pages[1].Text != "" || !doc.Pages[1].NoTextLayer {
				t.Error("Merge changed the document it was given")
			}
		})
	}
	plain := &pdf.Document{Pages: []pdf.Page{{Text: "x"}}}
	if out, _, done := Merge(plain, nil, true, ""); out != plain || !done {
		t.Error("a document without scanned pages was copied or not done")
	}
}

// timeoutEngine is an engine whose every page passes its deadline.
type timeoutEngine struct{}

func (timeoutEngine) ID() string { return "timeout 1" }
func (timeoutEngine) Recognize(context.Context, ocr.Image) (*ocr.Result, error) {
	return nil, ocr.ErrTimeout
}

// TestTimedOutPageNotCached: a page whose recognition passed the engine's
// deadline (a loaded machine) says why in this process but is not written
// to the cache, so that the next process reads it; a page with a reason of
// its own (blank) is written.
func TestTimedOutPageNotCached(t *testing.T) {
	dir := t.TempDir()
	ref := Ref{Key: "paper", Sum: "0123", Engine: timeoutEngine{}.ID()}
	img := &pageimage.Image{Data: []byte("P5\n1 1\n255\n\x00"), Width: 1, Height: 1}
	timedOut := RecognisePage(context.Background(), timeoutEngine{}, pageimage.Result{Page: 1, Image: img}, 612, 792)
	if timedOut == nil || !timedOut.Transient || timedOut.Reason == "" {
		t.Fatalf("a timed-out page: %+v", timedOut)
	}
	blank := RecognisePage(context.Background(), timeoutEngine{}, pageimage.Result{Page: 2, Err: pageimage.ErrNoImage}, 612, 792)
	if blank == nil || blank.Transient {
		t.Fatalf("a blank page: %+v", blank)
	}

	s := &Store{Dir: dir}
	s.Keep(ref, 1, timedOut)
	s.Keep(ref, 2, blank)
	s.Save(ref)
	if diff := cmp.Diff(map[int]*Page{1: timedOut, 2: blank}, s.Load(ref)); diff != "" {
		t.Errorf("this process's pages after the save (-want +got):\n%s", diff)
	}
	next := &Store{Dir: dir}
	if diff := cmp.Diff(map[int]*Page{2: {Reason: blank.Reason}}, next.Load(ref)); diff != "" {
		t.Errorf("the next process's pages (-want +got):\n%s", diff)
	}
}
