package ocrmemo

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/researchctx/researchctx/ocr"
)

// countEngine reads every page as its ID, counting its calls, and fails
// while fail is set.
type countEngine struct {
	id    string
	calls atomic.Int32
	fail  atomic.Bool
}

func (e *countEngine) ID() string { return e.id }

func (e *countEngine) Recognize(ctx context.Context, img ocr.Image) (*ocr.Result, error) {
	e.calls.Add(1)
	if e.fail.Load() {
		return nil, ocr.ErrFailed
	}
	return &ocr.Result{Text: e.id, Words: []ocr.Word{{Text: e.id}}, Confidence: 0.9}, nil
}

// TestReadOnce: a page image is read once per engine ID, by callers at
// once or one after another; another image or another ID is read again;
// a failed reading is not kept; Fresh always reads.
func TestReadOnce(t *testing.T) {
	ctx := context.Background()
	page := ocr.Image{Data: []byte("page one"), Format: ocr.JPEG, Width: 2, Height: 2}
	eng := &countEngine{id: "count 1 eng"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res, err := Engine{Engine: eng}.Recognize(ctx, page)
			if err != nil || res.Text != eng.id {
				t.Errorf("Recognize = %+v, %v", res, err)
			}
		})
	}
	wg.Wait()
	if n := eng.calls.Load(); n != 1 {
		t.Fatalf("8 callers of one page: %d readings, want 1", n)
	}
	res, _ := Engine{Engine: eng}.Recognize(ctx, page)
	res.Words[0].Text = "changed"
	if again, _ := (Engine{Engine: eng}).Recognize(ctx, page); again.Words[0].Text != eng.id {
		t.Errorf("a caller's change reached the next caller: %+v", again)
	}

	other := page
	other.Data = []byte("page two")
	eng.fail.Store(true)
	if _, err := (Engine{Engine: eng}).Recognize(ctx, other); !errors.Is(err, ocr.ErrFailed) {
		t.Errorf("failed reading: %v", err)
	}
	eng.fail.Store(false)
	if res, err := (Engine{Engine: eng}).Recognize(ctx, other); err != nil || res.Text != eng.id {
		t.Errorf("a page whose reading failed is not read again: %+v, %v", res, err)
	}
	if n := eng.calls.Load(); n != 3 {
		t.Errorf("%d readings, want 3 (the first page, the second twice)", n)
	}

	another := &countEngine{id: "count 2 eng"}
	if res, _ := (Engine{Engine: another}).Recognize(ctx, page); res.Text != another.id || another.calls.Load() != 1 {
		t.Errorf("another engine's ID was given the first's reading: %+v", res)
	}
	for range 2 {
		(Engine{Engine: eng, Fresh: true}).Recognize(ctx, page)
	}
	if n := eng.calls.Load(); n != 5 {
		t.Errorf("Fresh: %d readings, want 5", n)
	}
}
