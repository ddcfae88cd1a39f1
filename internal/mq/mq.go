// Package mq is the MQ adaptive binary arithmetic coder of JPEG 2000
// (ITU-T T.800 Annex C) and JBIG2 (ITU-T T.88 Annex E), the same coder in
// both: a Decoder, which reads one coded segment and decodes binary
// decisions, each in a context whose probability estimate adapts as it
// is used, for the image decoders; and an Encoder, after the standard's
// encoding procedures, that makes their test data.
package mq

// Context is one adaptive probability state: an index into the Qe table
// (0–46) and the more probable symbol.
type Context struct {
	Index uint8
	MPS   uint8
}

// state is one row of the probability estimation table (T.88 Table E.1).
type state struct {
	qe         uint32
	nmps, nlps uint8
	switchMPS  bool
}

var table = [47]state{
	{0x5601, 1, 1, true}, {0x3401, 2, 6, false}, {0x1801, 3, 9, false},
	{0x0AC1, 4, 12, false}, {0x0521, 5, 29, false}, {0x0221, 38, 33, false},
	{0x5601, 7, 6, true}, {0x5401, 8, 14, false}, {0x4801, 9, 14, false},
	{0x3801, 10, 14, false}, {0x3001, 11, 17, false}, {0x2401, 12, 18, false},
	{0x1C01, 13, 20, false}, {0x1601, 29, 21, false}, {0x5601, 15, 14, true},
	{0x5401, 16, 14, false}, {0x5101, 17, 15, false}, {0x4801, 18, 16, false},
	{0x3801, 19, 17, false}, {0x3401, 20, 18, false}, {0x3001, 21, 19, false},
	{0x2801, 22, 19, false}, {0x2401, 23, 20, false}, {0x2201, 24, 21, false},
	{0x1C01, 25, 22, false}, {0x1801, 26, 23, false}, {0x1601, 27, 24, false},
	{0x1401, 28, 25, false}, {0x1201, 29, 26, false}, {0x1101, 30, 27, false},
	{0x0AC1, 31, 28, false}, {0x09C1, 32, 29, false}, {0x08A1, 33, 30, false},
	{0x0521, 34, 31, false}, {0x0441, 35, 32, false}, {0x02A1, 36, 33, false},
	{0x0221, 37, 34, false}, {0x0141, 38, 35, false}, {0x0111, 39, 36, false},
	{0x0085, 40, 37, false}, {0x0049, 41, 38, false}, {0x0025, 42, 39, false},
	{0x0015, 43, 40, false}, {0x0009, 44, 41, false}, {0x0005, 45, 42, false},
	{0x0001, 45, 43, false}, {0x5601, 46, 46, false},
}

// Decoder decodes one arithmetically coded segment (T.88 E.3).
type Decoder struct {
	data []byte
	bp   int    // the index of the byte B in data
	c    uint32 // the code register
	a    uint32 // the interval
	ct   int    // bits left before the next byte is read
}

// NewDecoder starts decoding data (INITDEC). Reading past its end feeds
// 0xFF bytes, as the standard says a decoder does.
func NewDecoder(data []byte) *Decoder {
	d := &Decoder{data: data}
	d.c = uint32(d.byteAt(0)) << 16
	d.byteIn()
	d.c <<= 7
	d.ct -= 7
	d.a = 0x8000
	return d
}

func (d *Decoder) byteAt(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0xFF
}

// byteIn is BYTEIN: it reads the next byte into C, or feeds 1 bits at a
// marker (0xFF followed by a byte above 0x8F) or past the end.
func (d *Decoder) byteIn() {
	if d.byteAt(d.bp) == 0xFF {
		if d.byteAt(d.bp+1) > 0x8F {
			d.c += 0xFF00
			d.ct = 8
			return
		}
		d.bp++
		d.c += uint32(d.byteAt(d.bp)) << 9
		d.ct = 7
		return
	}
	d.bp++
	d.c += uint32(d.byteAt(d.bp)) << 8
	d.ct = 8
}

// Decode decodes one binary decision in context cx (DECODE): 0 or 1.
func (d *Decoder) Decode(cx *Context) int {
	s := &table[cx.Index%47]
	qe := s.qe
	d.a -= qe
	var bit int
	if d.c>>16 >= qe {
		// The MPS's interval is the upper one, above Qe.
		d.c -= qe << 16
		if d.a&0x8000 != 0 {
			return int(cx.MPS)
		}
		// MPS_EXCHANGE
		if d.a < qe {
			bit = 1 - int(cx.MPS)
			if s.switchMPS {
				cx.MPS = 1 - cx.MPS
			}
			cx.Index = s.nlps
		} else {
			bit = int(cx.MPS)
			cx.Index = s.nmps
		}
	} else {
		// LPS_EXCHANGE
		if d.a < qe {
			bit = int(cx.MPS)
			cx.Index = s.nmps
		} else {
			bit = 1 - int(cx.MPS)
			if s.switchMPS {
				cx.MPS = 1 - cx.MPS
			}
			cx.Index = s.nlps
		}
		d.a = qe
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

// Encoder codes binary decisions (T.88 E.2), for making test data.
type Encoder struct {
	out []byte // out[0] is the byte before the coded data
	c   uint32
	a   uint32
	ct  int
}

// NewEncoder starts an encoder (INITENC).
func NewEncoder() *Encoder {
	return &Encoder{out: []byte{0}, a: 0x8000, ct: 12}
}

// Encode codes bit (0 or 1) in context cx (ENCODE).
func (e *Encoder) Encode(cx *Context, bit int) {
	s := &table[cx.Index%47]
	qe := s.qe
	e.a -= qe
	if bit&1 == int(cx.MPS) {
		// CODEMPS
		if e.a&0x8000 != 0 {
			e.c += qe
			return
		}
		if e.a < qe {
			e.a = qe
		} else {
			e.c += qe
		}
		cx.Index = s.nmps
	} else {
		// CODELPS
		if e.a < qe {
			e.c += qe
		} else {
			e.a = qe
		}
		if s.switchMPS {
			cx.MPS = 1 - cx.MPS
		}
		cx.Index = s.nlps
	}
	// RENORME
	for {
		e.a <<= 1
		e.c <<= 1
		e.ct--
		if e.ct == 0 {
			e.byteOut()
		}
		if e.a&0x8000 != 0 {
			break
		}
	}
}

func (e *Encoder) byteOut() {
	b := &e.out[len(e.out)-1]
	if *b != 0xFF {
		if e.c < 0x8000000 {
			e.out = append(e.out, byte(e.c>>19))
			e.c &= 0x7FFFF
			e.ct = 8
			return
		}
		*b++
		if *b != 0xFF {
			e.c &= 0x7FFFFFF
			e.out = append(e.out, byte(e.c>>19))
			e.c &= 0x7FFFF
			e.ct = 8
			return
		}
		e.c &= 0x7FFFFFF
	}
	e.out = append(e.out, byte(e.c>>20))
	e.c &= 0xFFFFF
	e.ct = 7
}

// Flush ends the coded data (FLUSH), with the 0xFF 0xAC marker JBIG2
// ends it with, and returns it.
func (e *Encoder) Flush() []byte {
	// SETBITS
	t := e.c + e.a
	e.c |= 0xFFFF
	if e.c >= t {
		e.c -= 0x8000
	}
	e.c <<= uint(e.ct)
	e.byteOut()
	e.c <<= uint(e.ct)
	e.byteOut()
	out := e.out[1:]
	if out[len(out)-1] != 0xFF {
		out = append(out, 0xFF)
	}
	return append(out, 0xAC)
}
