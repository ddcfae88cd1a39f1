package mq

import (
	"math/rand/v2"
	"testing"
)

// encoder is the MQ encoder (T.800 C.2), to make data for the decoder.
type encoder struct {
	out  []byte
	a, c uint32
	ct   int
	b    int // the last byte out, -1 before any
}

func newEncoder() *encoder { return &encoder{a: 0x8000, ct: 12, b: -1} }

func (e *encoder) byteOut() {
	emit := func(shift uint, mask uint32, ct int) {
		if e.b >= 0 {
			e.out = append(e.out, byte(e.b))
		}
		e.b = int(e.c >> shift)
		e.c &= mask
		e.ct = ct
	}
	switch {
	case e.b == 0xFF:
		emit(20, 0xFFFFF, 7)
	case e.c < 0x8000000:
		emit(19, 0x7FFFF, 8)
	default:
		e.b++
		if e.b == 0xFF {
			e.c &= 0x7FFFFFF
			emit(20, 0xFFFFF, 7)
		} else {
			emit(19, 0x7FFFF, 8)
		}
	}
}

func (e *encoder) renorm() {
	for {
		e.a <<= 1
		e.c <<= 1
		e.ct--
		if e.ct == 0 {
			e.byteOut()
		}
		if e.a&0x8000 != 0 {
			return
		}
	}
}

func (e *encoder) encode(cx *Context, bit int) {
	s := &states[cx.Index]
	qe := s.qe
	e.a -= qe
	if bit == int(cx.MPS) {
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
		if e.a < qe {
			e.c += qe
		} else {
			e.a = qe
		}
		if s.swap {
			cx.MPS = 1 - cx.MPS
		}
		cx.Index = s.nlps
	}
	e.renorm()
}

func (e *encoder) flush() []byte {
	t := e.c + e.a
	e.c |= 0xFFFF
	if e.c >= t {
		e.c -= 0x8000
	}
	e.c <<= e.ct
	e.byteOut()
	e.c <<= e.ct
	e.byteOut()
	if e.b != 0xFF {
		e.out = append(e.out, byte(e.b))
	}
	return e.out
}

// TestRoundTrip decodes what the encoder codes: decisions of several
// skews in several contexts, some started in other states.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 100, 5000, 100000} {
		start := []Context{{}, {Index: 3}, {Index: 4}, {Index: 46}, {Index: 0, MPS: 1}}
		bits := make([]int, n)
		ctxOf := make([]int, n)
		for i := range bits {
			ctxOf[i] = rng.IntN(len(start))
			p := []float64{0.5, 0.1, 0.02, 0.5, 0.9}[ctxOf[i]]
			if rng.Float64() < p {
				bits[i] = 1
			}
		}
		ec := append([]Context(nil), start...)
		e := newEncoder()
		for i, b := range bits {
			e.encode(&ec[ctxOf[i]], b)
		}
		data := e.flush()
		dc := append([]Context(nil), start...)
		d := NewDecoder(data)
		for i, want := range bits {
			if got := d.Decode(&dc[ctxOf[i]]); got != want {
				t.Fatalf("%d decisions: decision %d decoded %d, want %d", n, i, got, want)
			}
		}
		if n > 1000 && len(data) > n/4 {
			t.Errorf("%d skewed decisions coded in %d bytes", n, len(data))
		}
	}
}

// TestPastTheEnd: decoding past the data reads 0xFF bytes, without a
// panic, for as long as it is asked.
func TestPastTheEnd(t *testing.T) {
	for _, data := range [][]byte{nil, {0xFF}, {0x12, 0xFF, 0x90}} {
		d := NewDecoder(data)
		cx := Context{}
		for range 10000 {
			d.Decode(&cx)
		}
	}
}
