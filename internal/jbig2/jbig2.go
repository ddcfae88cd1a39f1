// Package jbig2 decodes JBIG2 images (ITU-T T.88) as PDF's JBIG2Decode
// filter holds them: the embedded stream organisation of T.88 Annex D.3,
// the segments of one page, with the optional global segments of the
// stream's /JBIG2Globals.
//
// It decodes the page information, end of stripe (a page of unknown
// height included), generic regions coded arithmetically (templates 0–3,
// adaptive pixels, typical prediction; of unknown length too) or in MMR,
// generic refinement regions (of an intermediate region or of the page),
// symbol dictionaries and text regions coded arithmetically (refined and
// aggregated symbols, refined instances) or with Huffman codes (the
// standard tables B.1–B.15 and tables segments; collective bitmaps
// uncompressed or in MMR; refined instances), pattern dictionaries and
// halftone regions coded arithmetically in templates 0 and 1, and the
// page combination operators. It refuses, with an error wrapping
// ErrUnsupported, what it does not decode: refined or aggregated symbols
// in Huffman-coded dictionaries, halftones coded in MMR or in templates 2
// and 3, the extended template, colour extensions, and segments of
// unknown length other than generic regions coded arithmetically.
//
// The input is taken to be hostile: the page, every region and every
// symbol are bounded by the caller's pixel limit before they are
// allocated, and everything the decoder allocates (bitmaps, contexts,
// the lists of symbols a dictionary or region inherits through the
// segments it refers to, Huffman tables) is charged to the caller's byte
// budget before it is allocated; the counts of segments, referred
// segments, symbols (new or inherited) and symbol instances are bounded,
// so is the total work, and truncated data is an error.
package jbig2

import (
	"errors"
	"fmt"
)

// Errors of Decode, wrapped with detail.
var (
	// ErrUnsupported: the image uses a part of JBIG2 this package does
	// not decode.
	ErrUnsupported = errors.New("jbig2: not decoded")
	// ErrMalformed: the data is not a well-formed JBIG2 page.
	ErrMalformed = errors.New("jbig2: malformed")
	// ErrLimit: the image exceeds a limit of the decoder.
	ErrLimit = errors.New("jbig2: over a limit")
	// ErrMemory, which wraps ErrLimit: decoding the image would allocate
	// more than the caller's byte budget.
	ErrMemory = fmt.Errorf("%w: more memory than allowed", ErrLimit)
)

// Limits of the decoder besides the caller's pixel limit.
const (
	// MaxSegments bounds the segments of a page and its globals.
	MaxSegments = 1 << 16
	// MaxSymbols bounds the symbols of all dictionaries, the symbols
	// each dictionary or text region inherits from those it refers to
	// (counted at each reference), and the symbol instances of all text
	// regions, together.
	MaxSymbols = 1 << 18
	// maxReferred bounds the segments one segment refers to.
	maxReferred = 1 << 12
	// workFactor times the pixel limit bounds the pixels decoded in all
	// (regions, symbols and symbol instances).
	workFactor = 4
	// bitmapCost is what a bitmap costs besides its rows: its header and
	// the slice's.
	bitmapCost = 64
	// pointerCost is what one symbol costs in a list of symbols.
	pointerCost = 8
	// segmentCost is what a segment's header costs, its list of
	// referred segments aside.
	segmentCost = 96
	// contextCost is the bytes of one arithmetic coding context.
	contextCost = 2
	// huffLineCost is what one line of a Huffman table costs, its code
	// included.
	huffLineCost = 48
)

// decoder is the state of one page's decoding.
type decoder struct {
	maxPixels int
	maxBytes  int64
	work      int64 // pixels that may still be decoded
	mem       int64 // bytes that may still be allocated
	symbols   int   // symbols and instances still allowed
	page      *Bitmap
	unknownH  bool // the page's height is given by its stripes
	stripeEnd int  // rows the end-of-stripe segments have ended
	defPixel  int
	results   map[uint32]any // what segments left to be referred to
}

// spend charges the decoding of w×h pixels to the work budget, each row
// and each column counted as a pixel more: a region of no width and 2³¹
// rows costs the decoder its rows, not nothing.
func (dc *decoder) spend(w, h int) error {
	if w < 0 || h < 0 || w > 1<<31 || h > 1<<31 {
		return fmt.Errorf("%w: a region of %d×%d pixels", ErrLimit, w, h)
	}
	n := (int64(w) + 1) * (int64(h) + 1)
	if n > dc.work {
		return fmt.Errorf("%w: more than %d pixels decoded", ErrLimit, int64(workFactor)*int64(dc.maxPixels))
	}
	dc.work -= n
	return dc.bitmap(w, h)
}

// alloc charges n bytes, about to be allocated, to the byte budget.
func (dc *decoder) alloc(n int64) error {
	if n < 0 || n > dc.mem {
		return fmt.Errorf("%w: over %d bytes", ErrMemory, dc.maxBytes)
	}
	dc.mem -= n
	return nil
}

// bitmap charges a w×h bitmap to the byte budget. Every bitmap the
// decoder makes is charged as its pixels are charged to the work (by
// spend), so that neither can grow past its budget.
func (dc *decoder) bitmap(w, h int) error {
	return dc.alloc(int64((w+7)/8)*int64(h) + bitmapCost)
}

// transient checks that n bytes, allocated for one segment's decoding
// and garbage after it, fit in what is left of the byte budget; they are
// not charged, as a page of many regions each using its own contexts
// holds one region's at a time.
func (dc *decoder) transient(n int64) error {
	if n < 0 || n > dc.mem {
		return fmt.Errorf("%w: over %d bytes", ErrMemory, dc.maxBytes)
	}
	return nil
}

// contexts checks n arithmetic coding contexts, for one segment's
// decoding, against the byte budget (see transient).
func (dc *decoder) contexts(n int) error { return dc.transient(int64(n) * contextCost) }

// Decode decodes the JBIG2 page in data, with the global segments in
// globals (nil if none), to its bitmap: the page of the first page
// information segment, of at most maxPixels pixels, allocating at most
// maxBytes bytes for it and for what its decoding keeps. An image over
// maxBytes fails with ErrMemory before the allocation that would pass it.
func Decode(data, globals []byte, maxPixels int, maxBytes int64) (*Bitmap, error) {
	if maxPixels <= 0 {
		return nil, fmt.Errorf("%w: no pixels allowed", ErrLimit)
	}
	gsegs, err := parseSegments(globals, MaxSegments)
	if err != nil {
		return nil, fmt.Errorf("globals: %w", err)
	}
	segs, err := parseSegments(data, MaxSegments-len(gsegs))
	if err != nil {
		return nil, err
	}
	dc := &decoder{
		maxPixels: maxPixels,
		maxBytes:  maxBytes,
		work:      int64(workFactor) * int64(maxPixels),
		mem:       maxBytes,
		symbols:   MaxSymbols,
		results:   map[uint32]any{},
	}
	// The segments' headers, each in proportion to its bytes of the data.
	for _, s := range append(gsegs[:len(gsegs):len(gsegs)], segs...) {
		if err := dc.alloc(segmentCost + 4*int64(len(s.referred))); err != nil {
			return nil, err
		}
	}
	for _, s := range gsegs {
		if s.page != 0 {
			return nil, fmt.Errorf("%w: global segment %d is associated with page %d", ErrMalformed, s.number, s.page)
		}
		if err := dc.segment(s); err != nil {
			return nil, fmt.Errorf("global segment %d: %w", s.number, err)
		}
	}
	for _, s := range segs {
		done, err := dc.pageSegment(s)
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", s.number, err)
		}
		if done {
			break
		}
	}
	if dc.page == nil {
		return nil, fmt.Errorf("%w: no page information", ErrMalformed)
	}
	if dc.unknownH {
		dc.page.Height = len(dc.page.Data) / dc.page.Stride
	}
	return dc.page, nil
}

// pageSegment decodes a segment of the page stream; done is set at the
// end of the page or of the file.
func (dc *decoder) pageSegment(s *segment) (done bool, err error) {
	switch s.typ {
	case typeEndOfPage, typeEndOfFile:
		return true, nil
	}
	return false, dc.segment(s)
}

func (dc *decoder) segment(s *segment) error {
	switch s.typ {
	case typePageInfo:
		return dc.pageInformation(s)
	case typeEndOfStripe:
		return dc.endOfStripe(s)
	case typeImmediateGeneric, typeLosslessGeneric, typeIntermediateGeneric:
		reg, b, err := dc.genericRegion(s)
		if err != nil {
			return err
		}
		return dc.place(s, reg, b)
	case typeSymbolDict:
		sd, err := dc.symbolDict(s)
		if err != nil {
			return err
		}
		dc.results[s.number] = sd
		return nil
	case typeImmediateText, typeImmediateLosslessText, typeIntermediateText:
		reg, b, err := dc.textRegion(s)
		if err != nil {
			return err
		}
		return dc.place(s, reg, b)
	case typeImmediateRefine, typeLosslessRefine, typeIntermediateRefine:
		reg, b, err := dc.refinementRegion(s)
		if err != nil {
			return err
		}
		return dc.place(s, reg, b)
	case typePatternDict:
		pd, err := dc.patternDictionary(s)
		if err != nil {
			return err
		}
		dc.results[s.number] = pd
		return nil
	case typeIntermediateHalftone, typeImmediateHalftone, typeLosslessHalftone:
		reg, b, err := dc.halftoneRegion(s)
		if err != nil {
			return err
		}
		return dc.place(s, reg, b)
	case typeTables:
		// A table's lines, each of a few bits of its data, charged
		// before they are read.
		if err := dc.alloc(min(int64(maxHuffLines), 8*int64(len(s.data))) * huffLineCost); err != nil {
			return err
		}
		t, err := userTable(s.data)
		if err != nil {
			return err
		}
		dc.results[s.number] = t
		return nil
	case typeProfiles, typeExtension, typeColourPalette:
		// Nothing a page's pixels depend on; an extension that is
		// necessary to decode would be a coloured region, refused there.
		if s.typ == typeExtension && len(s.data) >= 4 && s.data[0]&0x80 != 0 {
			return fmt.Errorf("%w: a necessary extension", ErrUnsupported)
		}
		return nil
	default:
		return fmt.Errorf("%w: segment type %d", ErrMalformed, s.typ)
	}
}

// place composes a region onto the page, or keeps an intermediate one
// for a refinement to refer to.
func (dc *decoder) place(s *segment, reg region, b *Bitmap) error {
	switch s.typ {
	case typeIntermediateGeneric, typeIntermediateText, typeIntermediateRefine, typeIntermediateHalftone:
		dc.results[s.number] = &intermediate{reg, b}
		return nil
	}
	if dc.page == nil {
		return fmt.Errorf("%w: a region before the page information", ErrMalformed)
	}
	if dc.unknownH && reg.y+reg.h > dc.page.Height {
		return fmt.Errorf("%w: a region below the page's largest height", ErrMalformed)
	}
	if dc.unknownH {
		if err := dc.grow(reg.y + reg.h); err != nil {
			return err
		}
	}
	dc.page.compose(b, reg.x, reg.y, reg.op)
	return nil
}

// pageInformation reads the page information segment (7.4.8) and
// allocates the page.
func (dc *decoder) pageInformation(s *segment) error {
	if dc.page != nil {
		return fmt.Errorf("%w: a second page information segment", ErrUnsupported)
	}
	r := &reader{b: s.data}
	w, h := r.u32(), r.u32()
	r.u32() // resolution
	r.u32()
	flags := r.u8()
	striping := r.u16()
	if r.err != nil {
		return r.err
	}
	dc.defPixel = flags >> 2 & 1
	if h == 0xFFFFFFFF {
		if striping&0x8000 == 0 {
			return fmt.Errorf("%w: a page of unknown height that is not striped", ErrMalformed)
		}
		dc.unknownH = true
		// The page may grow to as many rows as the limit allows.
		if w == 0 {
			return fmt.Errorf("%w: a page of width 0", ErrMalformed)
		}
		h = uint32(min(uint64(dc.maxPixels)/uint64(w), 1<<31))
		if h == 0 {
			return fmt.Errorf("%w: a page %d pixels wide", ErrLimit, w)
		}
	} else if uint64(w)*uint64(h) > uint64(dc.maxPixels) {
		return fmt.Errorf("%w: a page of %d×%d pixels", ErrLimit, w, h)
	}
	if dc.unknownH {
		// Allocated as the stripes come, and charged as they grow.
		dc.page = &Bitmap{Width: int(w), Height: int(h), Stride: (int(w) + 7) / 8}
		return dc.alloc(bitmapCost)
	}
	if err := dc.bitmap(int(w), int(h)); err != nil {
		return err
	}
	dc.page = newBitmap(int(w), int(h))
	dc.page.fill(dc.defPixel)
	return nil
}

// grow makes the rows of a page of unknown height up to h exist.
func (dc *decoder) grow(h int) error {
	p := dc.page
	have := len(p.Data) / p.Stride
	if h <= have {
		return nil
	}
	// The slice may double as it grows: charged twice.
	if err := dc.alloc(2 * int64(h-have) * int64(p.Stride)); err != nil {
		return err
	}
	c := byte(0)
	if dc.defPixel != 0 {
		c = 0xFF
	}
	for range (h - have) * p.Stride {
		p.Data = append(p.Data, c)
	}
	return nil
}

// endOfStripe reads an end of stripe segment (7.4.10).
func (dc *decoder) endOfStripe(s *segment) error {
	r := &reader{b: s.data}
	y := r.u32()
	if r.err != nil {
		return r.err
	}
	if dc.page == nil {
		return fmt.Errorf("%w: an end of stripe before the page information", ErrMalformed)
	}
	if uint64(y) >= uint64(dc.page.Height) || int(y) < dc.stripeEnd-1 {
		return fmt.Errorf("%w: an end of stripe at row %d", ErrMalformed, y)
	}
	dc.stripeEnd = int(y) + 1
	if dc.unknownH {
		return dc.grow(dc.stripeEnd)
	}
	return nil
}

// referredSymbols returns the symbols of the symbol dictionaries s
// refers to, in order, and the last one's retained contexts. The
// symbols inherited count against MaxSymbols, and their list against the
// byte budget, before the list is made: dictionaries that re-export
// what they inherit, or a segment that refers to one dictionary many
// times, would otherwise double the list at each step.
func (dc *decoder) referredSymbols(s *segment) ([]*Bitmap, *symbolDict, error) {
	var last *symbolDict
	n := 0
	for _, r := range s.referred {
		if sd, ok := dc.results[r].(*symbolDict); ok {
			if len(sd.exported) > dc.symbols-n {
				return nil, nil, fmt.Errorf("%w: over %d symbols, inherited ones counted at each reference", ErrLimit, MaxSymbols)
			}
			n += len(sd.exported)
			last = sd
		}
	}
	if err := dc.alloc(int64(n) * pointerCost); err != nil {
		return nil, nil, err
	}
	dc.symbols -= n
	syms := make([]*Bitmap, 0, n)
	for _, r := range s.referred {
		if sd, ok := dc.results[r].(*symbolDict); ok {
			syms = append(syms, sd.exported...)
		}
	}
	return syms, last, nil
}
