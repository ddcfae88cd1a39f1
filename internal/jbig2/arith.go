package jbig2

import "github.com/researchctx/researchctx/internal/mq"

// intDecoder is an arithmetic integer decoder, IAx of T.88 Annex A.2: a
// context of 512 states per kind of integer.
type intDecoder struct {
	cx [512]mq.Context
}

// decode decodes one integer; ok is false for the out-of-band value.
func (c *intDecoder) decode(d *mq.Decoder) (v int64, ok bool) {
	prev := 1
	bit := func() int {
		b := d.Decode(&c.cx[prev])
		if prev < 256 {
			prev = prev<<1 | b
		} else {
			prev = (prev<<1|b)&511 | 256
		}
		return b
	}
	s := bit()
	var n, off int
	switch {
	case bit() == 0:
		n, off = 2, 0
	case bit() == 0:
		n, off = 4, 4
	case bit() == 0:
		n, off = 6, 20
	case bit() == 0:
		n, off = 8, 84
	case bit() == 0:
		n, off = 12, 340
	default:
		n, off = 32, 4436
	}
	for range n {
		v = v<<1 | int64(bit())
	}
	v += int64(off)
	if s == 1 {
		if v == 0 {
			return 0, false
		}
		v = -v
	}
	return v, true
}

// idDecoder is the symbol ID decoder, IAID of T.88 Annex A.3, of codes
// of n bits.
type idDecoder struct {
	n  int
	cx []mq.Context
}

func newIDDecoder(n int) *idDecoder {
	return &idDecoder{n: n, cx: make([]mq.Context, 1<<n)}
}

func (c *idDecoder) decode(d *mq.Decoder) int {
	prev := 1
	for range c.n {
		prev = prev<<1 | d.Decode(&c.cx[prev])
	}
	return prev - 1<<c.n
}
