package jbig2

// Bitmap is a bi-level image: rows of packed bits, the first pixel of a
// row in the high bit of its first byte, 1 black; each row is padded to a
// whole byte.
type Bitmap struct {
	Width, Height int
	Stride        int // bytes per row
	Data          []byte
}

// newBitmap allocates a w×h bitmap, all 0; the caller has bounded w×h.
func newBitmap(w, h int) *Bitmap {
	s := (w + 7) / 8
	return &Bitmap{Width: w, Height: h, Stride: s, Data: make([]byte, s*h)}
}

// at returns the pixel at x, y, 0 outside the bitmap.
func (b *Bitmap) at(x, y int) uint32 {
	if uint(x) >= uint(b.Width) || uint(y) >= uint(b.Height) {
		return 0
	}
	return uint32(b.Data[y*b.Stride+x>>3]>>(7-uint(x&7))) & 1
}

// set sets the pixel at x, y inside the bitmap to 1.
func (b *Bitmap) set(x, y int) {
	b.Data[y*b.Stride+x>>3] |= 0x80 >> uint(x&7)
}

// fill sets every pixel to v (0 or 1), the padding bits too.
func (b *Bitmap) fill(v int) {
	c := byte(0)
	if v != 0 {
		c = 0xFF
	}
	for i := range b.Data {
		b.Data[i] = c
	}
}

// The combination operators of regions onto a page and of symbols onto a
// text region (T.88 7.4.1.5, 7.4.3.1.1).
const (
	opOR = iota
	opAND
	opXOR
	opXNOR
	opREPLACE
)

// compose combines src onto b with its top left pixel at x, y, clipped to
// b, by operator op.
func (b *Bitmap) compose(src *Bitmap, x, y int, op int) {
	x0, y0 := max(x, 0), max(y, 0)
	x1, y1 := min(x+src.Width, b.Width), min(y+src.Height, b.Height)
	if x0 >= x1 || y0 >= y1 {
		return
	}
	if x0 == x && x&7 == 0 && (op == opOR || op == opREPLACE) {
		// Byte-aligned: whole bytes, the last one masked.
		n := (x1 - x0 + 7) / 8
		last := byte(0xFF) << uint(n*8-(x1-x0))
		for yy := y0; yy < y1; yy++ {
			s := src.Data[(yy-y)*src.Stride:][:n]
			d := b.Data[yy*b.Stride+x0>>3:][:n]
			for i, c := range s {
				m := byte(0xFF)
				if i == n-1 {
					m = last
				}
				if op == opOR {
					d[i] |= c & m
				} else {
					d[i] = d[i]&^m | c&m
				}
			}
		}
		return
	}
	for yy := y0; yy < y1; yy++ {
		for xx := x0; xx < x1; xx++ {
			s := src.at(xx-x, yy-y)
			i := yy*b.Stride + xx>>3
			sh := 7 - uint(xx&7)
			d := uint32(b.Data[i]>>sh) & 1
			var v uint32
			switch op {
			case opOR:
				v = d | s
			case opAND:
				v = d & s
			case opXOR:
				v = d ^ s
			case opXNOR:
				v = ^(d ^ s) & 1
			default:
				v = s
			}
			if v != 0 {
				b.Data[i] |= 1 << sh
			} else {
				b.Data[i] &^= 1 << sh
			}
		}
	}
}

// sub returns a copy of the w×h part of b at x, y.
func (b *Bitmap) sub(x, y, w, h int) *Bitmap {
	n := newBitmap(w, h)
	n.compose(b, -x, -y, opREPLACE)
	return n
}
