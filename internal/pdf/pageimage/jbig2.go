package pageimage

import (
	"errors"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/jbig2"
	"github.com/researchctx/researchctx/internal/pdf"
)

// jbig2Data decodes a JBIG2 image of w×h pixels, the stream's last
// filter, with the global segments of its /JBIG2Globals, to rows of
// packed bits, 0 black, as the filter's output is defined (JBIG2's own
// 1 is black). What internal/jbig2 does not decode, or cannot, is left to
// the renderer. The page is bounded by the pixels already checked against
// MaxPixels, its decoding by the page image's budget (see
// imageBudget), and the page is charged to the document's budget.
func (d *doc) jbig2Data(sd types.StreamDict, w, h, bpc, comps int) ([]byte, error) {
	if bpc != 1 || comps != 1 {
		return nil, fmt.Errorf("%w: a JBIG2 image of %d components of %d bits", pdf.ErrMalformed, comps, bpc)
	}
	parms := d.dict(sd.Dict["DecodeParms"])
	if arr := d.array(sd.Dict["DecodeParms"]); len(arr) > 0 {
		parms = d.dict(arr[len(arr)-1]) // the last filter's
	}
	raw := sd.Raw
	if n := len(sd.FilterPipeline); n > 1 {
		// Behind other filters (Flate, most often): those decoded first.
		pre := sd
		pre.FilterPipeline, pre.Content = sd.FilterPipeline[:n-1], nil
		var err error
		if raw, err = d.streamBytes(pre); err != nil {
			return nil, err
		}
	}
	var globals []byte
	if o := parms["JBIG2Globals"]; o != nil {
		gs, ok := d.resolve(o).(types.StreamDict)
		if !ok {
			return nil, fmt.Errorf("%w: JBIG2 globals that are not a stream", ErrUndecodable)
		}
		var err error
		if globals, err = d.streamBytes(gs); err != nil {
			return nil, err
		}
	}
	row := (w + 7) / 8
	b := d.imageBudget()
	if int64(row)*int64(h) > b {
		return nil, d.overBudget(b)
	}
	page, err := jbig2.Decode(raw, globals, w*h, b)
	switch {
	case errors.Is(err, jbig2.ErrMemory):
		return nil, d.overBudget(b)
	case errors.Is(err, jbig2.ErrLimit):
		// More work, symbols or segments than the image's size warrants:
		// a hostile stream, not one to hand the renderer.
		return nil, &pdf.LimitError{Limit: LimitWork, Max: int64(w) * int64(h)}
	case err != nil:
		return nil, fmt.Errorf("%w: a JBIG2 image: %v", ErrUndecodable, err)
	}
	if page.Width != w || page.Height < h {
		return nil, fmt.Errorf("%w: a JBIG2 image of %d×%d pixels coded as %d×%d", ErrUndecodable, w, h, page.Width, page.Height)
	}
	out := page.Data[:row*h]
	for i := range out {
		out[i] = ^out[i]
	}
	d.objs.Spend(int64(len(out)))
	return out, nil
}
