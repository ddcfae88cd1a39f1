package mcp

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLineReader: lines above the cap are skipped in bounded memory and
// the reader goes on; a torn last line is reported, not counted.
func TestLineReader(t *testing.T) {
	in := "one\n" + strings.Repeat("x", 100) + "\ntwo\n" + strings.Repeat("y", 50) + "\nthree\ntorn"
	lr := newLineReader(strings.NewReader(in), 32)
	var got []string
	for {
		line, err := lr.Next()
		if err == io.EOF {
			break
		}
		switch {
		case errors.Is(err, errLineTooLong):
			got = append(got, "(too long)")
		case err == io.ErrUnexpectedEOF:
			got = append(got, "(torn) "+string(line))
		case err != nil:
			t.Fatal(err)
		default:
			got = append(got, string(line))
		}
	}
	want := []string{"one\n", "(too long)", "two\n", "(too long)", "three\n", "(torn) torn"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if lr.Offset() != int64(len(in)-len("torn")) {
		t.Errorf("offset %d, want %d", lr.Offset(), len(in)-len("torn"))
	}
}

// BenchmarkLineReaderNoNewline reads 64 MiB without a newline: the memory
// it allocates is the reader's buffer, not the input.
func BenchmarkLineReaderNoNewline(b *testing.B) {
	const size = 64 << 20
	b.ReportAllocs()
	b.SetBytes(size)
	for b.Loop() {
		lr := newLineReader(io.LimitReader(zeros{}, size), 1<<20)
		for {
			if _, err := lr.Next(); err == io.EOF {
				break
			}
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
