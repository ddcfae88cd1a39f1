package object

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
)

// TestInflateAsPdfcpu checks that inflate decodes as pdfcpu's Flate filter
// does, which it replaces for streams without parameters: the same bytes,
// the same failures, the same limit.
func TestInflateAsPdfcpu(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	text := []byte(strings.Repeat("BT /F1 12 Tf 72 700 Td (Hello, world) Tj ET\n", 400))
	noise := make([]byte, 20000)
	for i := range noise {
		noise[i] = byte(r.UintN(256))
	}
	deflate := func(b []byte) []byte {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(b)
		w.Close()
		return z.Bytes()
	}
	good := deflate(text)
	badSum := bytes.Clone(good)
	badSum[len(badSum)-1] ^= 0xFF
	corrupt := bytes.Clone(good)
	for i := 20; i < 40; i++ {
		corrupt[i] = 0xFF
	}
	tests := []struct {
		name  string
		raw   []byte
		limit int64
	}{
		{"text", good, MaxStreamBytes},
		{"incompressible", deflate(noise), MaxStreamBytes},
		{"empty data", deflate(nil), MaxStreamBytes},
		{"no data", nil, MaxStreamBytes},
		{"cut short", good[:len(good)/2], MaxStreamBytes},
		{"checksum wrong", badSum, MaxStreamBytes},
		{"corrupt", corrupt, MaxStreamBytes},
		{"not zlib", []byte("plain text, not compressed"), MaxStreamBytes},
		{"at the limit", good, int64(len(text))},
		{"one over the limit", good, int64(len(text)) - 1},
		{"far over the limit", good, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []byte
			var wantErr error
			f, err := filter.NewFilter(filter.Flate, nil, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			rd, wantErr := f.Decode(bytes.NewReader(tt.raw))
			if wantErr == nil {
				want, _ = io.ReadAll(rd)
			}
			// Twice: the second time with a reused decompressor.
			for range 2 {
				got, err := inflate(tt.raw, tt.limit)
				if (err == nil) != (wantErr == nil) || errors.Is(wantErr, filter.ErrDecodeLimitExceeded) != errors.Is(err, filter.ErrDecodeLimitExceeded) {
					t.Fatalf("err %v, pdfcpu's %v", err, wantErr)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%d bytes, pdfcpu's %d", len(got), len(want))
				}
			}
			// Prefixes, as a stream's prefix is used: the first n bytes
			// as pdfcpu's filter gives them when asked for a length, or
			// none when it gives fewer or fails.
			for _, n := range []int64{1, 100, int64(len(text)), int64(len(text)) + 1} {
				rd, wantErr := f.DecodeLength(bytes.NewReader(tt.raw), n)
				var want []byte
				if wantErr == nil {
					if want, _ = io.ReadAll(rd); int64(len(want)) != n {
						want = nil
					}
				}
				got, err := InflatePrefix(tt.raw, n)
				if (err == nil) != (want != nil) || !bytes.Equal(got, want) {
					t.Errorf("prefix %d: %d bytes, err %v; pdfcpu's %d bytes, err %v", n, len(got), err, len(want), wantErr)
				}
			}
		})
	}
}
