package pageimage

import (
	"errors"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/jpx"
	"github.com/researchctx/researchctx/internal/pdf"
)

// jpxImage decodes a JPXDecode (JPEG 2000) image to grey, within
// MaxPixels. The colour space is the image's own (its JP2 header,
// else its number of components) unless the dictionary gives one;
// /Decode and /SMaskInData, which do not change what a page says, are
// not applied. What the decoder does not decode is ErrUndecodable,
// for the renderer, as is one over the decoder's other bounds (tiles,
// layers, work), which the renderer may bound otherwise; an image over
// the page image's budget (see imageBudget), with its grey page, is a
// *pdf.LimitError.
func (d *doc) jpxImage(sd types.StreamDict, w, h int) (*Image, error) {
	b := d.imageBudget()
	// The grey page is made beside the decoded image.
	grey := int64(w) * int64(h)
	if grey > b {
		return nil, d.overBudget(b)
	}
	data, err := d.streamBytes(sd)
	if err != nil {
		return nil, err
	}
	img, err := jpx.Decode(data, MaxPixels, b-grey-int64(len(data)))
	switch {
	case errors.Is(err, jpx.ErrTooManyPixels):
		return nil, &pdf.LimitError{Limit: LimitPixels, Max: MaxPixels}
	case errors.Is(err, jpx.ErrMemory):
		return nil, d.overBudget(b)
	case err != nil:
		return nil, fmt.Errorf("%w: a JPX image: %v", ErrUndecodable, err)
	}
	gray, comps, err := d.jpxGray(sd, img)
	if err != nil {
		return nil, err
	}
	if area := int64(img.Width) * int64(img.Height); area > grey {
		// A codestream larger than its dictionary says: its grey page
		// beside its samples.
		samples := int64(0)
		for _, c := range img.Components {
			samples += 2 * int64(len(c.Pix))
		}
		if samples+area > b {
			return nil, d.overBudget(b)
		}
	}
	w, h = img.Width, img.Height
	hdr := fmt.Sprintf("P5\n%d %d\n255\n", w, h)
	out := make([]byte, len(hdr)+w*h)
	copy(out, hdr)
	px := out[len(hdr):]
	samples := make([]int, comps)
	maxv := make([]int, comps)
	for c := range comps {
		maxv[c] = 1<<img.Components[c].Depth - 1
	}
	same := true
	for _, c := range img.Components[:comps] {
		same = same && c.Dx == 1 && c.Dy == 1 && c.Width == w && c.Height == h && c.Depth == img.Components[0].Depth
	}
	for y := range h {
		for x := range w {
			for c := range comps {
				if same {
					samples[c] = int(img.Components[c].Pix[y*w+x])
				} else {
					// Sub-sampled or of mixed depths: each scaled to the
					// first's range.
					samples[c] = int(img.At(c, x, y)) * maxv[0] / maxv[c]
				}
			}
			px[y*w+x] = gray(samples, maxv[0])
		}
	}
	d.objs.Spend(int64(w * h))
	return &Image{Data: out, Format: PNM, Width: w, Height: h}, nil
}

// jpxGray returns how a decoded JPX image's samples become grey levels
// (as grayMap does for other images) and how many components are read.
func (d *doc) jpxGray(sd types.StreamDict, img *jpx.Image) (func([]int, int) byte, int, error) {
	n := len(img.Components)
	if cs := sd.Dict["ColorSpace"]; cs != nil {
		gray, comps, err := d.grayMap(cs, false, 8)
		if err != nil {
			return nil, 0, err
		}
		if comps > n {
			return nil, 0, fmt.Errorf("%w: a JPX image of %d components in a colour space of %d", ErrUndecodable, n, comps)
		}
		return gray, comps, nil
	}
	scale := func(v, maxv int) byte { return byte(v * 255 / maxv) }
	luma := func(s []int, maxv int) byte { return scale(s[0], maxv) }
	colour := func(k int) func([]int, int) byte {
		return func(s []int, maxv int) byte {
			var b [4]byte
			for i := range k {
				b[i] = scale(s[i], maxv)
			}
			return grayOf(b[:k], 255)
		}
	}
	switch {
	case img.Space == jpx.SpaceGray, img.Space == jpx.SpaceYCC, img.Space == jpx.SpaceUnknown && n < 3:
		// Grey, or luma and chroma: the first component is the grey.
		return luma, 1, nil
	case (img.Space == jpx.SpaceRGB || img.Space == jpx.SpaceUnknown) && n >= 3:
		if img.Space == jpx.SpaceUnknown && n == 4 {
			return colour(4), 4, nil
		}
		return colour(3), 3, nil
	case img.Space == jpx.SpaceCMYK && n >= 4:
		return colour(4), 4, nil
	}
	return nil, 0, fmt.Errorf("%w: a JPX image of %d components in colour space %d", ErrUndecodable, n, img.Space)
}
