package hostilepdf

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"
)

// TestKeptCaseIsACopy checks that a case made again returns what it
// returned the first time, in a copy the caller may change.
func TestKeptCaseIsACopy(t *testing.T) {
	for _, c := range Cases() {
		if c.Name != "form drawing itself" {
			continue
		}
		first := c.Make()
		want := bytes.Clone(first)
		first[0] = 'X'
		if again := c.Make(); !bytes.Equal(again, want) {
			t.Errorf("made again: %d bytes, changed with the first copy or made otherwise", len(again))
		}
		return
	}
	t.Fatal("no case \"form drawing itself\"")
}

// runChecker counts the bytes written to it that are not c.
type runChecker struct {
	c     byte
	n, no int64
}

func (w *runChecker) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.no += int64(len(p) - bytes.Count(p, []byte{w.c}))
	return len(p), nil
}

// TestZlibRun checks that a compressed run decodes, through the zlib
// reader and so its checksum, to the run, at lengths around a match's 258
// bytes and at tens of megabytes, in about a thousandth of its length;
// and that it is made once.
func TestZlibRun(t *testing.T) {
	for _, tt := range []struct {
		c byte
		n int64
	}{{0, 0}, {0, 1}, {'q', 2}, {0xFF, 258}, {' ', 259}, {0, 260}, {'q', 3<<20 + 7}, {0, 64<<20 + 5}} {
		z := zlibRun(tt.c, tt.n)
		r, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatalf("%d bytes %q: %v", tt.n, tt.c, err)
		}
		got := &runChecker{c: tt.c}
		if _, err := io.Copy(got, r); err != nil {
			t.Fatalf("%d bytes %q: %v", tt.n, tt.c, err)
		}
		if got.n != tt.n || got.no != 0 {
			t.Errorf("decodes to %d bytes, %d of them not %q; want %d bytes %[3]q", got.n, got.no, tt.c, tt.n)
		}
		// A header, and up to 257 literals of two bits besides the matches.
		if max := tt.n/1000 + 128; int64(len(z)) > max {
			t.Errorf("%d bytes %q: compressed to %d bytes, want at most %d", tt.n, tt.c, len(z), max)
		}
	}
	z := zlibRun('q', 3<<20+7)
	if again := zlibRun('q', 3<<20+7); &again[0] != &z[0] {
		t.Error("the run was compressed again")
	}
}
