// Package jpx decodes JPEG 2000 images (ITU-T T.800 | ISO/IEC 15444-1,
// Part 1), as a PDF's JPXDecode filter holds them: a JP2 file or a bare
// codestream. It decodes what Part 1 encoders write: any number of tiles
// and tile-parts, the five progression orders and progression order
// changes, precincts, the code-block styles (selective arithmetic coding
// bypass, context resets, termination on each pass, vertically causal
// contexts, predictable termination, segmentation symbols), region of
// interest shifts, packet headers in PPM or PPT marker segments, the
// reversible 5/3 and irreversible 9/7 wavelets, scalar quantisation
// (derived and expounded) and the reversible and irreversible component
// transforms, of components that may be sub-sampled.
//
// It refuses, with an error wrapping ErrUnsupported, what it does not
// decode: more than MaxComponents components, components deeper than 16
// bits, palettes (a JP2 pclr box), and the extensions of the later parts
// (the markers of Part 2's transforms and wavelets, Part 15's
// high-throughput code-blocks). Malformed data is an error
// wrapping ErrMalformed, never a panic; an image larger than the caller's
// pixel limit, or one declaring more tiles, code-blocks or work than its
// size warrants, wraps ErrTooLarge before anything is allocated for it.
// Everything large the decoder allocates (the components' samples, each
// tile's coefficients and wavelet buffers, its precincts, code-blocks and
// tag trees) is charged to the caller's byte budget before it is
// allocated: an image over it wraps ErrMemory.
package jpx

import (
	"errors"
	"fmt"
)

// Errors of Decode, wrapped with detail.
var (
	// ErrUnsupported: the image uses a feature this package does not
	// decode.
	ErrUnsupported = errors.New("jpx: unsupported JPEG 2000 feature")
	// ErrMalformed: the data is not a JPEG 2000 image this package can
	// read.
	ErrMalformed = errors.New("jpx: malformed JPEG 2000 data")
	// ErrTooLarge: the image is over a limit.
	ErrTooLarge = errors.New("jpx: JPEG 2000 image over a limit")
	// ErrTooManyPixels, which wraps ErrTooLarge: the image has more
	// pixels than the caller allows.
	ErrTooManyPixels = fmt.Errorf("%w: more pixels than allowed", ErrTooLarge)
	// ErrMemory, which wraps ErrTooLarge: decoding the image would
	// allocate more than the caller allows.
	ErrMemory = fmt.Errorf("%w: more memory than allowed", ErrTooLarge)
)

// Limits of a decoded image besides the caller's pixel limit.
const (
	// MaxComponents bounds the components of an image.
	MaxComponents = 4
	// MaxTiles bounds the tiles of an image.
	MaxTiles = 16384
	// MaxLayers bounds the quality layers.
	MaxLayers = 1024
	// MaxLevels bounds the wavelet decomposition levels.
	MaxLevels = 20
	// MaxCodeBlocks bounds the code-blocks of one tile.
	MaxCodeBlocks = 1 << 20
	// MaxPrecincts bounds the precincts of one tile.
	MaxPrecincts = 1 << 20
	// WorkPerSample bounds the work of decoding an image: coefficient
	// visits of the coding passes, per sample.
	WorkPerSample = 64
)

// What the decoder's structures cost, charged to the byte budget: a
// sample of a component, a coefficient of a tile-component, the inverse
// wavelet's buffers (a row, and a strip of 64 columns) per row and column
// of a tile-component, a precinct of a band (its struct, its tag trees'
// headers and the layers read of it), a code-block (its struct and its
// leaves in the two tag trees, which have a third more nodes than
// leaves), a codeword segment of a code-block (besides its bytes, copied
// from the tile's data).
const (
	sampleCost      = 2
	coefficientCost = 4
	waveletCost     = 4 * 64
	precinctCost    = 56 + 2*(128+3*24*4) + 4
	codeBlockCost   = 96 + 2*2*4*2
	segmentCost     = 48
)

// budget is the bytes the decoder may still allocate.
type budget struct {
	left, max int64
}

// take charges n bytes about to be allocated.
func (b *budget) take(n int64) error {
	if err := b.check(n); err != nil {
		return err
	}
	b.left -= n
	return nil
}

// check reports whether n bytes are left.
func (b *budget) check(n int64) error {
	if n < 0 || n > b.left {
		return fmt.Errorf("%w: over %d bytes", ErrMemory, b.max)
	}
	return nil
}
