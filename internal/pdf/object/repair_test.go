package object

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHeaders checks the one scan the repairs find a file's objects with:
// an "obj" keyword ending at a space, a delimiter or the end, after an
// object number and a generation, and nothing else.
func TestHeaders(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []header
	}{
		{"plain", "1 0 obj\n<< >>\nendobj\n", []header{{nr: 1, gen: 0, start: 0, body: 7}}},
		{"after a delimiter", ">>12 3 obj<<", []header{{nr: 12, gen: 3, start: 2, body: 10}}},
		{"at the end", "x 7 0 obj", []header{{nr: 7, gen: 0, start: 2, body: 9}}},
		{"two", "1 0 obj 2 0 obj", []header{{nr: 1, start: 0, body: 7}, {nr: 2, start: 8, body: 15}}},
		{"objstm is no keyword", "9 0 objstm 10 0 objx", nil},
		{"endobj is no header", "endobj endobj", nil},
		{"no generation", "5 obj", nil},
		{"number glued to a word", "a5 0 obj", nil},
		{"generation too large", "1 65536 obj", nil},
		{"number of more than ten digits", "12345678901 0 obj", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Collect(headers([]byte(tt.data)))
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(header{})); diff != "" {
				t.Errorf("headers(%q) (-want +got):\n%s", tt.data, diff)
			}
		})
	}
	// A caller that stops early stops the scan.
	n := 0
	for range headers([]byte("1 0 obj 2 0 obj 3 0 obj")) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("stopped after %d headers, want 2", n)
	}
}
