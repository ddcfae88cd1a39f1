package pageimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/image/ccitt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/lowprio"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/pdf/object"
)

// Limits on page images (see Read). A scan of a letter page at 600
// dpi is 34 million pixels; what a page image takes to decode is also
// bounded by pdf.MaxStreamBytes.
const (
	// MaxPixels bounds the pixels of a page's image, declared or
	// rendered.
	MaxPixels = 64 << 20
	// MaxBytes bounds what decoding one page image may allocate
	// (its samples, its decoder's bitmaps, symbols, tiles and
	// code-blocks, and the image handed on), four bytes a pixel of the
	// largest grey page; what is left of pdf.MaxDocumentBytes bounds
	// it further.
	MaxBytes = 4 * MaxPixels
	// MaxImages bounds the images one page draws that are counted
	// before the page is given up as not a scan.
	MaxImages = 256
	// RenderPixels is the long side, in pixels, of a page that pdftoppm
	// renders: 200 dpi for an 11-inch page.
	RenderPixels = 2200
	// DefaultRenderTimeout bounds one rendered page.
	DefaultRenderTimeout = 60 * time.Second
)

// Errors of Read, wrapped with detail.
var (
	// ErrNoImage: the page draws no image, so there is nothing to read.
	ErrNoImage = errors.New("pdf: the page has no image")
	// ErrUndecodable: the page's image is not one this package
	// decodes (a JPX image using what internal/jpx does not decode, a
	// JBIG2 image using what internal/jbig2 does not decode, CCITT of
	// mixed coding, several images, an inline image) and no renderer is
	// configured, or the renderer failed.
	ErrUndecodable = errors.New("pdf: the page image cannot be decoded")
)

// The limits of page images, reported as *pdf.LimitError.
const (
	LimitPixels pdf.Limit = "pixels per page image" // MaxPixels
	LimitBytes  pdf.Limit = "bytes per page image"  // MaxBytes
	// LimitWork: a page image whose decoding would take more work
	// (pixels decoded, symbols, segments, tiles, coding passes) than its
	// size warrants.
	LimitWork       pdf.Limit = "work per page image"
	LimitImages     pdf.Limit = "images per page" // MaxImages
	LimitRenderTime pdf.Limit = "time per rendered page"
)

// Image formats of an Image.
const (
	JPEG = "jpeg" // the page's DCT stream, passed through
	PNM  = "pnm"  // binary PBM or PGM, decoded or rendered
)

// Image is the picture of one page, for an OCR engine.
type Image struct {
	Data          []byte
	Format        string // JPEG or PNM
	Width, Height int
	// Rendered is set when the renderer drew the page rather than this
	// package decoding its one image.
	Rendered bool
}

// Result is one page's image, or why it has none.
type Result struct {
	Page  int // 1-based
	Image *Image
	Err   error
}

// Options configure Read. The zero value decodes what this
// package can and renders nothing.
type Options struct {
	// Renderer is the pdftoppm program, used for a page whose image this
	// package cannot decode; "" means none.
	Renderer string
	// RenderTimeout bounds one rendered page; 0 means
	// DefaultRenderTimeout.
	RenderTimeout time.Duration
	// Options bounds the parse of the file.
	Options *pdf.Options
}

// Renderer returns the pdftoppm program on PATH, or "".
func Renderer() string {
	p, err := exec.LookPath("pdftoppm")
	if err != nil {
		return ""
	}
	return p
}

// Read hands fn the image of each given page (1-based) of the PDF
// in r, one at a time and in order, so that no more than one page image is
// held here: a page drawn by one image gets that image (DCT passed
// through; uncompressed, Flate, LZW or run-length samples in DeviceGray,
// DeviceRGB, DeviceCMYK, ICCBased, Separation or Indexed colour decoded to
// grey; CCITT Group 4 and Group 3 fax images, and JBIG2 images, decoded
// to black and white; JPEG 2000 (JPX) images decoded to grey),
// any other page with images is rendered by o.Renderer when there
// is one. Every image is bounded by MaxPixels, declared or rendered,
// and by pdf.MaxStreamBytes decoded, and what decoding it allocates by
// MaxBytes (and what is left of pdf.MaxDocumentBytes), checked before it
// is allocated; a page's content is read within the page's budgets
// (pdf.MaxOperators, pdf.MaxPageBytes, MaxImages); a page over a limit,
// without an image or whose image cannot be had gets its Err.
//
// The document's time limit (o.Options.Timeout) bounds this package's own
// work on the file: its parse and every page's content and image. What fn
// and the renderer take is not counted (fn may wait for an OCR engine,
// and a rendered page has RenderTimeout). Once the limit is spent, each
// later page's Err is its *pdf.LimitError (pdf.LimitTime), as a document-wide
// budget fails every later page.
//
// The error is fn's, the caller's context's, or the file's when it cannot
// be parsed and no renderer is configured.
func Read(ctx context.Context, r io.ReaderAt, size int64, pages []int, o *Options, fn func(Result) error) error {
	if o == nil {
		o = &Options{}
	}
	opts := o.Options.WithDefaults()
	if size > opts.MaxBytes {
		return &pdf.LimitError{Limit: pdf.LimitFileBytes, Max: opts.MaxBytes}
	}
	timeLimit := &pdf.LimitError{Limit: pdf.LimitTime, Max: int64(opts.Timeout)}
	left := opts.Timeout // what is left of the time limit
	// within runs work on the file under what is left of the time limit
	// and the caller's context, and counts the time it took.
	within := func(work func(ctx context.Context)) {
		wctx, cancel := context.WithTimeoutCause(ctx, left, timeLimit)
		start := time.Now()
		work(wctx)
		left -= time.Since(start)
		cancel()
	}
	var d *doc
	var err error
	within(func(wctx context.Context) {
		var objs *pdf.Objects
		if objs, err = pdf.OpenObjects(wctx, r, size, &opts); err == nil {
			d = &doc{objs}
		}
	})
	if err != nil && (o.Renderer == "" || ctx.Err() != nil) {
		return err
	}
	for _, n := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := Result{Page: n}
		switch {
		case d == nil:
			// A file this package does not parse may still render.
			res.Image, res.Err = render(ctx, o, r, size, n)
		case n < 1 || n > d.objs.Pages():
			res.Err = fmt.Errorf("%w: no page %d", ErrNoImage, n)
		case left <= 0:
			res.Err = pdf.PageError(timeLimit, n)
		default:
			within(func(wctx context.Context) {
				res.Image, res.Err = d.pageImage(wctx, n)
			})
			if err := ctx.Err(); err != nil {
				return err
			}
			if errors.Is(res.Err, ErrUndecodable) && o.Renderer != "" {
				res.Image, res.Err = render(ctx, o, r, size, n)
			}
		}
		if err := fn(res); err != nil {
			return err
		}
	}
	return nil
}

// doc is a file's objects as page images read them, with lenient
// accessors: a missing or mistyped object reads as nil or zero rather
// than failing.
type doc struct{ objs *pdf.Objects }

func (d *doc) resolve(o types.Object) types.Object             { return d.objs.Resolve(o) }
func (d *doc) dict(o types.Object) types.Dict                  { return object.DictOf(d.resolve(o)) }
func (d *doc) array(o types.Object) types.Array                { return object.ArrayOf(d.resolve(o)) }
func (d *doc) name(o types.Object) string                      { return object.NameOf(d.resolve(o)) }
func (d *doc) num(o types.Object) (float64, bool)              { return object.NumOf(d.resolve(o)) }
func (d *doc) rawString(o types.Object) []byte                 { return d.objs.String(o) }
func (d *doc) streamBytes(sd types.StreamDict) ([]byte, error) { return d.objs.Stream(sd) }

// pageImage returns the one image page n draws, decoded, its content read
// within ctx.
func (d *doc) pageImage(ctx context.Context, n int) (img *Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, fmt.Errorf("%w: page %d: %v", pdf.ErrMalformed, n, p)
		}
	}()
	dr, err := d.objs.Drawn(ctx, n, MaxImages)
	if err != nil {
		return nil, pdf.PageError(err, n)
	}
	if len(dr.Images) > MaxImages {
		return nil, pdf.PageError(&pdf.LimitError{Limit: LimitImages, Max: MaxImages}, n)
	}
	for _, sd := range dr.Images {
		w, _ := d.num(sd.Dict["Width"])
		h, _ := d.num(sd.Dict["Height"])
		if w*h > MaxPixels {
			return nil, pdf.PageError(&pdf.LimitError{Limit: LimitPixels, Max: MaxPixels}, n)
		}
	}
	switch {
	case len(dr.Images) == 0 && !dr.Inline:
		return nil, fmt.Errorf("%w: page %d", ErrNoImage, n)
	case len(dr.Images) != 1 || dr.Inline:
		return nil, fmt.Errorf("%w: page %d draws %d images", ErrUndecodable, n, len(dr.Images))
	}
	img, err = d.decodeImage(dr.Images[0])
	if errors.Is(err, ErrUndecodable) {
		return nil, fmt.Errorf("page %d: %w", n, err)
	}
	if err != nil {
		return nil, pdf.PageError(err, n)
	}
	return img, nil
}

// decodeImage decodes an image XObject to a JPEG (its own DCT data) or a
// PNM.
func (d *doc) decodeImage(sd types.StreamDict) (*Image, error) {
	fw, _ := d.num(sd.Dict["Width"])
	fh, _ := d.num(sd.Dict["Height"])
	w, h := int(fw), int(fh)
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("%w: an image without a size", pdf.ErrMalformed)
	}
	var filters []string
	switch f := d.resolve(sd.Dict["Filter"]).(type) {
	case types.Name:
		filters = []string{string(f)}
	case types.Array:
		for _, e := range f {
			filters = append(filters, d.name(e))
		}
	}
	last := ""
	if len(filters) > 0 {
		last = filters[len(filters)-1]
	}
	switch last {
	case "", "FlateDecode", "Fl", "LZWDecode", "LZW", "RunLengthDecode", "RL", "ASCII85Decode", "A85", "ASCIIHexDecode", "AHx":
	case "DCTDecode", "DCT":
		if comps := d.components(sd.Dict["ColorSpace"]); comps == 4 {
			return nil, fmt.Errorf("%w: a CMYK JPEG", ErrUndecodable)
		}
		data, err := d.streamBytes(sd)
		if err != nil {
			return nil, err
		}
		if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
			return nil, fmt.Errorf("%w: a DCT image that is not a JPEG", ErrUndecodable)
		}
		// The OCR engine decodes the JPEG by its own frame header, not by
		// the dictionary: that size is the one bounded.
		if fw, fh, fc, ok := jpegFrame(data); ok {
			if int64(fw)*int64(fh) > MaxPixels {
				return nil, &pdf.LimitError{Limit: LimitPixels, Max: MaxPixels}
			}
			if b := d.imageBudget(); int64(fw)*int64(fh)*int64(fc)+int64(len(data)) > b {
				return nil, d.overBudget(b)
			}
		}
		return &Image{Data: data, Format: JPEG, Width: w, Height: h}, nil
	case "JPXDecode":
		return d.jpxImage(sd, w, h)
	case "CCITTFaxDecode", "CCF":
		if len(filters) != 1 {
			return nil, fmt.Errorf("%w: a CCITT image behind another filter", ErrUndecodable)
		}
	case "JBIG2Decode":
	default:
		return nil, fmt.Errorf("%w: a %s image", ErrUndecodable, last)
	}
	bpc := 1
	mask := d.boolean(sd.Dict["ImageMask"])
	if !mask {
		b, ok := d.num(sd.Dict["BitsPerComponent"])
		if !ok {
			return nil, fmt.Errorf("%w: an image without BitsPerComponent", pdf.ErrMalformed)
		}
		bpc = int(b)
	}
	if bpc != 1 && bpc != 2 && bpc != 4 && bpc != 8 && bpc != 16 {
		return nil, fmt.Errorf("%w: an image of %d bits per component", ErrUndecodable, bpc)
	}
	gray, comps, err := d.grayMap(sd.Dict["ColorSpace"], mask, bpc)
	if err != nil {
		return nil, err
	}
	invert := false
	if dec := d.array(sd.Dict["Decode"]); len(dec) >= 2 {
		a, _ := d.num(dec[0])
		b, _ := d.num(dec[1])
		invert = a > b
	}
	// The samples and the image made of them, bounded by the declared
	// size before any is decoded (a JBIG2 decoder is given the budget).
	if b := d.imageBudget(); last != "JBIG2Decode" && imageBytes(w, h, comps, bpc, gray == nil) > b {
		return nil, d.overBudget(b)
	}
	var data []byte
	if last == "CCITTFaxDecode" || last == "CCF" {
		if bpc != 1 || comps != 1 {
			return nil, fmt.Errorf("%w: a CCITT image of %d components of %d bits", pdf.ErrMalformed, comps, bpc)
		}
		data, err = d.faxData(sd, w, h)
	} else if last == "JBIG2Decode" {
		data, err = d.jbig2Data(sd, w, h, bpc, comps)
	} else {
		data, err = d.streamBytes(sd)
	}
	if err != nil {
		return nil, err
	}
	rowBits := w * comps * bpc
	row := (rowBits + 7) / 8
	if len(data) < row*h {
		return nil, fmt.Errorf("%w: image data shorter than its size", pdf.ErrMalformed)
	}
	if bpc == 1 && comps == 1 && gray == nil {
		// Bitonal: PBM's 1 is black, the PDF's 0 (a mask's 0 paints).
		var b bytes.Buffer
		b.Grow(row*h + 32)
		fmt.Fprintf(&b, "P4\n%d %d\n", w, h)
		for y := range h {
			for _, c := range data[y*row : (y+1)*row] {
				if !invert {
					c = ^c
				}
				b.WriteByte(c)
			}
		}
		return &Image{Data: b.Bytes(), Format: PNM, Width: w, Height: h}, nil
	}
	var b bytes.Buffer
	b.Grow(w*h + 32)
	fmt.Fprintf(&b, "P5\n%d %d\n255\n", w, h)
	samples := make([]int, comps)
	maxv := (1 << bpc) - 1
	for y := range h {
		line := data[y*row : (y+1)*row]
		bit := 0
		for range w {
			for c := range comps {
				samples[c] = sample(line, bit, bpc)
				if invert {
					samples[c] = maxv - samples[c]
				}
				bit += bpc
			}
			b.WriteByte(gray(samples, maxv))
		}
	}
	return &Image{Data: b.Bytes(), Format: PNM, Width: w, Height: h}, nil
}

// faxData decodes a CCITT fax image of w×h pixels to rows of packed bits,
// 0 black unless /BlackIs1, as the filter's output is defined. Group 4
// (K < 0), the coding of most scanned pages, and Group 3 one-dimensional
// coding whose rows start with an end-of-line code are decoded here; mixed
// coding (K > 0), or data that does not decode to the image's size, is
// left to the renderer. The output is bounded by the pixels already
// checked against MaxPixels and charged to the document's budget.
func (d *doc) faxData(sd types.StreamDict, w, h int) ([]byte, error) {
	parms := d.dict(sd.Dict["DecodeParms"])
	if arr := d.array(sd.Dict["DecodeParms"]); len(arr) == 1 {
		parms = d.dict(arr[0])
	}
	param := func(key string, def int) int {
		if v, ok := d.num(parms[key]); ok {
			return int(v)
		}
		return def
	}
	k := param("K", 0)
	if k > 0 {
		return nil, fmt.Errorf("%w: a CCITT image of mixed coding (K %d)", ErrUndecodable, k)
	}
	if cols, rows := param("Columns", 1728), param("Rows", h); cols != w || rows != h && rows > 0 {
		return nil, fmt.Errorf("%w: a CCITT image of %d×%d pixels coded as %d×%d", ErrUndecodable, w, h, cols, rows)
	}
	row := (w + 7) / 8
	if int64(row*h) > d.objs.Budget() {
		return nil, d.objs.SpendAll()
	}
	mode := ccitt.Group3
	if k < 0 {
		mode = ccitt.Group4
	}
	opts := &ccitt.Options{Invert: d.boolean(parms["BlackIs1"]), Align: d.boolean(parms["EncodedByteAlign"])}
	out := make([]byte, row*h)
	if _, err := io.ReadFull(ccitt.NewReader(bytes.NewReader(sd.Raw), ccitt.MSB, mode, w, h, opts), out); err != nil {
		return nil, fmt.Errorf("%w: a CCITT image: %v", ErrUndecodable, err)
	}
	d.objs.Spend(int64(len(out)))
	return out, nil
}

// imageBudget is what decoding one page image may allocate:
// MaxBytes, or what is left of the document's decoded bytes when
// that is less.
func (d *doc) imageBudget() int64 { return max(0, min(MaxBytes, d.objs.Budget())) }

// overBudget is the error of a page image over budget b: MaxBytes,
// or the document's bytes, which are then spent.
func (d *doc) overBudget(b int64) error {
	if b < MaxBytes {
		return d.objs.SpendAll()
	}
	return &pdf.LimitError{Limit: LimitBytes, Max: MaxBytes}
}

// imageBytes is what a w×h image of comps components of bpc bits takes
// to decode: its samples, and the PBM (bitonal) or PGM made of them.
func imageBytes(w, h, comps, bpc int, bitonal bool) int64 {
	row := (int64(w)*int64(comps)*int64(bpc) + 7) / 8
	out := int64(w) * int64(h)
	if bitonal {
		out = (int64(w) + 7) / 8 * int64(h)
	}
	return row*int64(h) + out
}

// jpegFrame reads the size and components of a JPEG's frame header.
func jpegFrame(b []byte) (w, h, comps int, ok bool) {
	for i := 2; i+9 < len(b); {
		if b[i] != 0xFF {
			return 0, 0, 0, false
		}
		m := b[i+1]
		switch {
		case m == 0xFF:
			i++ // fill
			continue
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			return int(b[i+7])<<8 | int(b[i+8]), int(b[i+5])<<8 | int(b[i+6]), int(b[i+9]), true
		case m == 0xD8 || m == 0x01 || m >= 0xD0 && m <= 0xD7:
			i += 2
			continue
		}
		i += 2 + (int(b[i+2])<<8 | int(b[i+3]))
	}
	return 0, 0, 0, false
}

// sample reads the bpc-bit sample at bit offset bit of line.
func sample(line []byte, bit, bpc int) int {
	if bpc == 16 {
		return int(line[bit/8])<<8 | int(line[bit/8+1])
	}
	if bpc == 8 {
		return int(line[bit/8])
	}
	by := line[bit/8]
	shift := 8 - bpc - bit%8
	return int(by>>shift) & (1<<bpc - 1)
}

// boolean reads a boolean object.
func (d *doc) boolean(o types.Object) bool {
	b, ok := d.resolve(o).(types.Boolean)
	return ok && bool(b)
}

// components returns the colour components of a colour space, 0 when
// unknown.
func (d *doc) components(o types.Object) int {
	switch v := d.resolve(o).(type) {
	case types.Name:
		switch v {
		case "DeviceGray", "G", "CalGray":
			return 1
		case "DeviceRGB", "RGB", "CalRGB", "Lab":
			return 3
		case "DeviceCMYK", "CMYK":
			return 4
		}
	case types.Array:
		if len(v) == 0 {
			return 0
		}
		switch d.name(v[0]) {
		case "Indexed", "I", "Separation":
			return 1
		case "ICCBased":
			if len(v) > 1 {
				if sd, ok := d.resolve(v[1]).(types.StreamDict); ok {
					if n, ok := d.num(sd.Dict["N"]); ok {
						return int(n)
					}
				}
			}
		case "CalGray":
			return 1
		case "CalRGB", "Lab":
			return 3
		case "DeviceN":
			if len(v) > 1 {
				return len(d.array(v[1]))
			}
		}
		return d.components(v[0])
	}
	return 0
}

// grayMap returns how samples of colour space cs become grey levels, and
// the components per pixel; nil (for a bitonal image) means the samples
// are written as they are.
func (d *doc) grayMap(cs types.Object, mask bool, bpc int) (func([]int, int) byte, int, error) {
	scale := func(v, maxv int) byte { return byte(v * 255 / maxv) }
	if mask {
		return nil, 1, nil
	}
	if a, ok := d.resolve(cs).(types.Array); ok && len(a) >= 4 && (d.name(a[0]) == "Indexed" || d.name(a[0]) == "I") {
		base := d.components(a[1])
		if base != 1 && base != 3 && base != 4 {
			return nil, 0, fmt.Errorf("%w: an indexed image over an unknown colour space", ErrUndecodable)
		}
		var lut []byte
		switch v := d.resolve(a[3]).(type) {
		case types.StringLiteral, types.HexLiteral:
			lut = d.rawString(v)
		case types.StreamDict:
			b, err := d.streamBytes(v)
			if err != nil {
				return nil, 0, err
			}
			lut = b
		}
		levels := make([]byte, len(lut)/base)
		for i := range levels {
			levels[i] = grayOf(lut[i*base:(i+1)*base], 255)
		}
		return func(s []int, _ int) byte {
			if s[0] < len(levels) {
				return levels[s[0]]
			}
			return 255
		}, 1, nil
	}
	if a, ok := d.resolve(cs).(types.Array); ok && len(a) > 0 && d.name(a[0]) == "Separation" {
		// A tint of 1 is full ink: dark.
		return func(s []int, maxv int) byte { return 255 - scale(s[0], maxv) }, 1, nil
	}
	switch n := d.components(cs); n {
	case 1:
		if bpc == 1 {
			return nil, 1, nil
		}
		return func(s []int, maxv int) byte { return scale(s[0], maxv) }, 1, nil
	case 3, 4:
		return func(s []int, maxv int) byte {
			var b [4]byte
			for i := range n {
				b[i] = scale(s[i], maxv)
			}
			return grayOf(b[:n], 255)
		}, n, nil
	default:
		return nil, 0, fmt.Errorf("%w: an image in an unknown colour space", ErrUndecodable)
	}
}

// grayOf is the grey level of one grey, RGB or CMYK colour of 8-bit
// components.
func grayOf(c []byte, _ int) byte {
	switch len(c) {
	case 1:
		return c[0]
	case 3:
		return byte((299*int(c[0]) + 587*int(c[1]) + 114*int(c[2])) / 1000)
	case 4:
		k := float64(c[3])
		v := 255 - math.Min(255, (0.3*float64(c[0])+0.59*float64(c[1])+0.11*float64(c[2]))+k)
		return byte(v)
	}
	return 255
}

// render has the renderer draw page n of the PDF in grey, its long side
// RenderPixels, within the render timeout and MaxPixels.
func render(ctx context.Context, o *Options, r io.ReaderAt, size int64, n int) (*Image, error) {
	t := o.RenderTimeout
	if t <= 0 {
		t = DefaultRenderTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	p := strconv.Itoa(n)
	cmd := exec.CommandContext(rctx, o.Renderer, "-f", p, "-l", p, "-gray", "-scale-to", strconv.Itoa(RenderPixels), "-")
	cmd.Stdin = io.NewSectionReader(r, 0, size)
	out := &limitedBuffer{max: RenderPixels*RenderPixels + 64}
	cmd.Stdout = out
	cmd.WaitDelay = 2 * time.Second
	err := lowprio.Run(cmd) // below the calls an agent waits for
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%w: %v", pdf.ErrTimeout, ctx.Err())
	case rctx.Err() != nil:
		return nil, pdf.PageError(&pdf.LimitError{Limit: LimitRenderTime, Max: int64(t)}, n)
	case out.over:
		return nil, pdf.PageError(&pdf.LimitError{Limit: LimitPixels, Max: MaxPixels}, n)
	case err != nil:
		return nil, fmt.Errorf("%w: page %d: the renderer failed: %v", ErrUndecodable, n, err)
	}
	w, h, ok := pnmSize(out.b.Bytes())
	if !ok {
		return nil, fmt.Errorf("%w: page %d: the renderer gave no image", ErrUndecodable, n)
	}
	return &Image{Data: out.b.Bytes(), Format: PNM, Width: w, Height: h, Rendered: true}, nil
}

// pnmSize reads the width and height of a binary PNM's header.
func pnmSize(b []byte) (w, h int, ok bool) {
	if len(b) < 3 || b[0] != 'P' || b[1] < '4' || b[1] > '6' {
		return 0, 0, false
	}
	f := bytes.Fields(b[2:min(len(b), 64)])
	if len(f) < 2 {
		return 0, 0, false
	}
	w, err1 := strconv.Atoi(string(f[0]))
	h, err2 := strconv.Atoi(string(f[1]))
	return w, h, err1 == nil && err2 == nil && w > 0 && h > 0
}

// limitedBuffer keeps at most max bytes and remembers that more came.
type limitedBuffer struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if l.b.Len()+len(p) > l.max {
		l.over = true
		return 0, errors.New("over its limit")
	}
	return l.b.Write(p)
}
