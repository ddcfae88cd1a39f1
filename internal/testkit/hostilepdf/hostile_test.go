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

// TestZlibRun checks that a compressed run decodes to the run, and is
// compressed once.
func TestZlibRun(t *testing.T) {
	const n = 3<<20 + 7
	z := zlibRun('q', n)
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || bytes.Count(got, []byte{'q'}) != n {
		t.Errorf("decodes to %d bytes, want %d bytes 'q'", len(got), n)
	}
	if again := zlibRun('q', n); &again[0] != &z[0] {
		t.Error("the run was compressed again")
	}
}
