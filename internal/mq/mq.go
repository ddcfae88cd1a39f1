// Package mq is the MQ arithmetic decoder of JPEG 2000 (ITU-T T.800 Annex
// C) and JBIG2 (ITU-T T.88 Annex E), the same adaptive binary decoder in
// both: it reads one coded segment and decodes binary decisions, each in
// a context whose probability estimate adapts as it is used.
package mq

// Context is one adaptive probability state: an index into the Qe table
// (0–46) and the more probable symbol.
type Context struct {
	Index uint8
	MPS   uint8
}

// state is one row of the probability estimation table (T.800 Table
// C.2): the LPS probability estimate and the next states.
type state struct {
	qe         uint32
	nmps, nlps uint8
	swap       bool
}

var states = [47]state{
	{0x5601, 1, 1, true}, {0x3401, 2, 6, false}, {0x1801, 3, 9, false}, {0x0AC1, 4, 12, false},
	{0x0521, 5, 29, false}, {0x0221, 38, 33, false}, {0x5601, 7, 6, true}, {0x5401, 8, 14, false},
	{0x4801, 9, 14, false}, {0x3801, 10, 14, false}, {0x3001, 11, 17, false}, {0x2401, 12, 18, false},
	{0x1C01, 13, 20, false}, {0x1601, 29, 21, false}, {0x5601, 15, 14, true}, {0x5401, 16, 14, false},
	{0x5101, 17, 15, false}, {0x4801, 18, 16, false}, {0x3801, 19, 17, false}, {0x3401, 20, 18, false},
	{0x3001, 21, 19, false}, {0x2801, 22, 19, false}, {0x2401, 23, 20, false}, {0x2201, 24, 21, false},
	{0x1C01, 25, 22, false}, {0x1801, 26, 23, false}, {0x1601, 27, 24, false}, {0x1401, 28, 25, false},
	{0x1201, 29, 26, false}, {0x1101, 30, 27, false}, {0x0AC1, 31, 28, false}, {0x09C1, 32, 29, false},
	{0x08A1, 33, 30, false}, {0x0521, 34, 31, false}, {0x0441, 35, 32, false}, {0x02A1, 36, 33, false},
	{0x0221, 37, 34, false}, {0x0141, 38, 35, false}, {0x0111, 39, 36, false}, {0x0085, 40, 37, false},
	{0x0049, 41, 38, false}, {0x0025, 42, 39, false}, {0x0015, 43, 40, false}, {0x0009, 44, 41, false},
	{0x0005, 45, 42, false}, {0x0001, 45, 43, false}, {0x5601, 46, 46, false},
}

// Decoder decodes one MQ-coded segment.
type Decoder struct {
	data []byte
	pos  int // the byte last put into c
	a, c uint32
	ct   int
}

// NewDecoder starts decoding data (INITDEC); reading past its end feeds
// 0xFF bytes, as the decoder is defined to.
func NewDecoder(data []byte) *Decoder {
	d := &Decoder{data: data}
	d.c = uint32(d.at(0)) << 16
	d.byteIn()
	d.c <<= 7
	d.ct -= 7
	d.a = 0x8000
	return d
}

// at is the byte at i, 0xFF past the end.
func (d *Decoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0xFF
}

// byteIn is BYTEIN: the next byte into c, a stuffed bit skipped after
// 0xFF, a marker (0xFF then more than 0x8F) read as 1 bits.
func (d *Decoder) byteIn() {
	if d.at(d.pos) == 0xFF {
		if d.at(d.pos+1) > 0x8F {
			d.c += 0xFF00
			d.ct = 8
			return
		}
		d.pos++
		d.c += uint32(d.at(d.pos)) << 9
		d.ct = 7
		return
	}
	d.pos++
	d.c += uint32(d.at(d.pos)) << 8
	d.ct = 8
}

// Decode decodes one decision in context cx (DECODE): 0 or 1.
func (d *Decoder) Decode(cx *Context) int {
	s := &states[cx.Index]
	qe := s.qe
	d.a -= qe
	var bit int
	if d.c>>16 < qe {
		// LPS_EXCHANGE
		if d.a < qe {
			bit = int(cx.MPS)
			cx.Index = s.nmps
		} else {
			bit = int(1 - cx.MPS)
			if s.swap {
				cx.MPS = 1 - cx.MPS
			}
			cx.Index = s.nlps
		}
		d.a = qe
	} else {
		d.c -= qe << 16
		if d.a&0x8000 != 0 {
			return int(cx.MPS)
		}
		// MPS_EXCHANGE
		if d.a < qe {
			bit = int(1 - cx.MPS)
			if s.swap {
				cx.MPS = 1 - cx.MPS
			}
			cx.Index = s.nlps
		} else {
			bit = int(cx.MPS)
			cx.Index = s.nmps
		}
	}
	// RENORMD
	for {
		if d.ct == 0 {
			d.byteIn()
		}
		d.a <<= 1
		d.c <<= 1
		d.ct--
		if d.a&0x8000 != 0 {
			break
		}
	}
	return bit
}
