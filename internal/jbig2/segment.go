package jbig2

import (
	"encoding/binary"
	"fmt"
)

// Segment types (T.88 7.3).
const (
	typeSymbolDict            = 0
	typeIntermediateText      = 4
	typeImmediateText         = 6
	typeImmediateLosslessText = 7
	typePatternDict           = 16
	typeIntermediateHalftone  = 20
	typeImmediateHalftone     = 22
	typeLosslessHalftone      = 23
	typeIntermediateGeneric   = 36
	typeImmediateGeneric      = 38
	typeLosslessGeneric       = 39
	typeIntermediateRefine    = 40
	typeImmediateRefine       = 42
	typeLosslessRefine        = 43
	typePageInfo              = 48
	typeEndOfPage             = 49
	typeEndOfStripe           = 50
	typeEndOfFile             = 51
	typeProfiles              = 52
	typeTables                = 53
	typeColourPalette         = 54
	typeExtension             = 62
)

// segment is one segment's header and data (T.88 7.2).
type segment struct {
	number   uint32
	typ      int
	retain   bool // deferred non-retain flag clear
	referred []uint32
	page     uint32
	data     []byte
	// rows: the data was of unknown length, and ends with the region's
	// row count (7.2.7).
	rows bool
}

// unknownLength finds the end of the data of an immediate generic region
// of unknown length (7.2.7), coded arithmetically: after the marker
// 0xFF 0xAC, the 4-byte row count.
func unknownLength(s *segment, data []byte) (int, error) {
	if s.typ != typeImmediateGeneric && s.typ != typeLosslessGeneric {
		return 0, fmt.Errorf("%w: segment %d of type %d of unknown length", ErrMalformed, s.number, s.typ)
	}
	const info = 17 + 1 // the region information and the flags
	if len(data) < info {
		return 0, fmt.Errorf("%w: truncated", ErrMalformed)
	}
	flags := data[info-1]
	if flags&1 != 0 {
		return 0, fmt.Errorf("%w: an MMR generic region of unknown length", ErrUnsupported)
	}
	start := info + 2*atCount[flags>>1&3]
	for i := start; i+1 < len(data); i++ {
		if data[i] == 0xFF && data[i+1] == 0xAC {
			if i+6 > len(data) {
				break
			}
			return i + 6, nil
		}
	}
	return 0, fmt.Errorf("%w: no end of a generic region of unknown length", ErrMalformed)
}

// reader reads big-endian fields of a segment, failing once it runs out.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = fmt.Errorf("%w: truncated at byte %d", ErrMalformed, r.off)
		return false
	}
	return true
}

func (r *reader) u8() int {
	if !r.need(1) {
		return 0
	}
	r.off++
	return int(r.b[r.off-1])
}

func (r *reader) u16() int {
	if !r.need(2) {
		return 0
	}
	r.off += 2
	return int(binary.BigEndian.Uint16(r.b[r.off-2:]))
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	r.off += 4
	return binary.BigEndian.Uint32(r.b[r.off-4:])
}

func (r *reader) i8() int { return int(int8(r.u8())) }

func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off]
}

// parseSegments splits data, a sequence of segments in the embedded
// organisation (T.88 D.3: headers each followed by their data), into
// segments, at most max of them.
func parseSegments(data []byte, max int) ([]*segment, error) {
	r := &reader{b: data}
	var segs []*segment
	for r.off < len(data) {
		if trailing(data[r.off:]) {
			break
		}
		if len(segs) == max {
			return nil, fmt.Errorf("%w: more than %d segments", ErrLimit, max)
		}
		s := &segment{number: r.u32()}
		flags := r.u8()
		s.typ = flags & 0x3F
		s.retain = flags&0x80 == 0
		b := r.u8()
		n := b >> 5
		switch {
		case n == 7:
			r.off--
			n = int(r.u32() & 0x1FFFFFFF)
			if n > maxReferred {
				return nil, fmt.Errorf("%w: segment %d refers to %d segments", ErrLimit, s.number, n)
			}
			r.bytes((n + 8) / 8) // the retention flags
		case n > 4:
			return nil, fmt.Errorf("%w: segment %d refers to %d segments in the short form", ErrMalformed, s.number, n)
		}
		size := 4
		switch {
		case s.number <= 256:
			size = 1
		case s.number <= 65536:
			size = 2
		}
		// The list, at most four bytes a referred segment of one byte or
		// more of the data, is made once the data is known to hold it.
		if !r.need(n * size) {
			return nil, r.err
		}
		s.referred = make([]uint32, 0, n)
		for range n {
			var ref uint32
			switch size {
			case 1:
				ref = uint32(r.u8())
			case 2:
				ref = uint32(r.u16())
			default:
				ref = r.u32()
			}
			if r.err == nil && ref >= s.number {
				return nil, fmt.Errorf("%w: segment %d refers to a later segment %d", ErrMalformed, s.number, ref)
			}
			s.referred = append(s.referred, ref)
		}
		if flags&0x40 != 0 {
			s.page = r.u32()
		} else {
			s.page = uint32(r.u8())
		}
		length := r.u32()
		if r.err != nil {
			return nil, r.err
		}
		if length == 0xFFFFFFFF {
			n, err := unknownLength(s, data[r.off:])
			if err != nil {
				return nil, err
			}
			length = uint32(n)
			s.rows = true
		}
		if uint64(length) > uint64(len(data)-r.off) {
			return nil, fmt.Errorf("%w: segment %d of %d bytes with %d left", ErrMalformed, s.number, length, len(data)-r.off)
		}
		s.data = r.bytes(int(length))
		segs = append(segs, s)
		if s.typ == typeEndOfFile {
			break
		}
	}
	return segs, nil
}

// trailing reports whether b is the end of a stream past its last
// segment: fewer bytes than a segment header, all white space or zero
// (a PDF stream whose length counts its end of line).
func trailing(b []byte) bool {
	if len(b) >= 11 {
		return false
	}
	for _, c := range b {
		if c != 0 && c != '\r' && c != '\n' && c != ' ' {
			return false
		}
	}
	return true
}

// region is the region segment information field (T.88 7.4.1).
type region struct {
	w, h, x, y int
	op         int
}

// regionInfo reads a region segment information field, the region
// bounded by maxPixels.
func regionInfo(r *reader, maxPixels int) (region, error) {
	w, h, x, y := r.u32(), r.u32(), r.u32(), r.u32()
	flags := r.u8()
	if r.err != nil {
		return region{}, r.err
	}
	if uint64(w)*uint64(h) > uint64(maxPixels) {
		return region{}, fmt.Errorf("%w: a region of %d×%d pixels", ErrLimit, w, h)
	}
	if x > 1<<30 || y > 1<<30 {
		return region{}, fmt.Errorf("%w: a region at %d, %d", ErrMalformed, x, y)
	}
	if flags&7 > opREPLACE {
		return region{}, fmt.Errorf("%w: combination operator %d", ErrMalformed, flags&7)
	}
	if flags&8 != 0 {
		return region{}, fmt.Errorf("%w: a coloured region", ErrUnsupported)
	}
	return region{w: int(w), h: int(h), x: int(x), y: int(y), op: flags & 7}, nil
}
