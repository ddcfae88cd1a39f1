package jpx

import (
	"bytes"
	"strconv"
	"testing"
)

// pnm is a binary PGM or PPM of 8-bit samples, its components apart.
type pnm struct {
	w, h  int
	comps [][]uint16
}

// readPNM reads a binary PGM (P5) or PPM (P6) of 8 or 16 bits a sample.
func readPNM(t testing.TB, b []byte) pnm {
	t.Helper()
	var f [][]byte
	rest := b
	for len(f) < 4 {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if len(rest) > 0 && rest[0] == '#' {
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				rest = rest[i:]
				continue
			}
		}
		i := bytes.IndexAny(rest, " \t\r\n")
		if i < 0 {
			t.Fatalf("not a PNM")
		}
		f = append(f, rest[:i])
		rest = rest[i:]
	}
	rest = rest[1:]
	w, _ := strconv.Atoi(string(f[1]))
	h, _ := strconv.Atoi(string(f[2]))
	n := 1
	switch string(f[0]) {
	case "P5":
	case "P6":
		n = 3
	default:
		t.Fatalf("not a binary PGM or PPM: %q", f[0])
	}
	size := 1
	if string(f[3]) == "65535" {
		size = 2
	} else if string(f[3]) != "255" {
		t.Fatalf("a PNM of max %s", f[3])
	}
	if len(rest) < w*h*n*size {
		t.Fatalf("%d bytes for %dx%dx%d", len(rest), w, h, n)
	}
	p := pnm{w: w, h: h, comps: make([][]uint16, n)}
	for c := range n {
		p.comps[c] = make([]uint16, w*h)
		for i := range w * h {
			if size == 2 {
				p.comps[c][i] = uint16(rest[2*(i*n+c)])<<8 | uint16(rest[2*(i*n+c)+1])
			} else {
				p.comps[c][i] = uint16(rest[i*n+c])
			}
		}
	}
	return p
}
