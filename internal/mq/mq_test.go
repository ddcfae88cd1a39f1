package mq

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// The test sequence of T.88 Annex H.2 (the same data as T.800's MQ coder test): 256 bits,
// coded in one context from the initial state, and the bytes the
// standard's encoder makes of them.
var (
	h2Data = []byte{
		0x00, 0x02, 0x00, 0x51, 0x00, 0x00, 0x00, 0xC0, 0x03, 0x52, 0x87, 0x2A, 0xAA, 0xAA, 0xAA, 0xAA,
		0x82, 0xC0, 0x20, 0x00, 0xFC, 0xD7, 0x9E, 0xF6, 0xBF, 0x7F, 0xED, 0x90, 0x4F, 0x46, 0xA3, 0xBF,
	}
	h2Coded = []byte{
		0x84, 0xC7, 0x3B, 0xFC, 0xE1, 0xA1, 0x43, 0x04, 0x02, 0x20, 0x00, 0x00, 0x41, 0x0D, 0xBB, 0x86,
		0xF4, 0x31, 0x7F, 0xFF, 0x88, 0xFF, 0x37, 0x47, 0x1A, 0xDB, 0x6A, 0xDF, 0xFF, 0xAC,
	}
)

func TestStandardSequence(t *testing.T) {
	var cx Context
	e := NewEncoder()
	for _, b := range h2Data {
		for i := 7; i >= 0; i-- {
			e.Encode(&cx, int(b>>i)&1)
		}
	}
	if got := e.Flush(); !bytes.Equal(got, h2Coded) {
		t.Errorf("encoded\n% X\nwant\n% X", got, h2Coded)
	}
	cx = Context{}
	d := NewDecoder(h2Coded)
	got := make([]byte, len(h2Data))
	for i := range got {
		for range 8 {
			got[i] = got[i]<<1 | byte(d.Decode(&cx))
		}
	}
	if !bytes.Equal(got, h2Data) {
		t.Errorf("decoded\n% X\nwant\n% X", got, h2Data)
	}
}

// TestRoundTrip codes random decisions in several contexts, of several
// skews, and decodes them back, with the data cut before its marker or
// not (a decoder feeds 0xFF past the end either way).
func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		n, ctxs  int
		p1       float64 // probability of a 1
		trimMark bool
	}{
		{"one context, even", 10000, 1, 0.5, false},
		{"one context, skewed", 20000, 1, 0.02, false},
		{"many contexts, skewed", 50000, 64, 0.1, false},
		{"many contexts, ones", 50000, 16, 0.97, true},
		{"all zeros", 100000, 4, 0, true},
		{"all ones", 100000, 4, 1, false},
		{"short", 3, 2, 0.5, true},
		{"empty", 0, 1, 0.5, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			bits := make([]int, tt.n)
			cxOf := make([]int, tt.n)
			for j := range bits {
				cxOf[j] = rng.IntN(tt.ctxs)
				// Each context has its own skew, so the states move apart.
				p := tt.p1
				if tt.ctxs > 1 && p > 0 && p < 1 {
					p = p * float64(cxOf[j]+1) / float64(tt.ctxs)
				}
				if rng.Float64() < p {
					bits[j] = 1
				}
			}
			enc := make([]Context, tt.ctxs)
			e := NewEncoder()
			for j, b := range bits {
				e.Encode(&enc[cxOf[j]], b)
			}
			data := e.Flush()
			if tt.trimMark {
				data = data[:len(data)-2]
			}
			dec := make([]Context, tt.ctxs)
			d := NewDecoder(data)
			for j, b := range bits {
				if got := d.Decode(&dec[cxOf[j]]); got != b {
					t.Fatalf("decision %d: got %d, want %d", j, got, b)
				}
			}
			// The coder comes near the decisions' entropy, counted per
			// context from their frequencies.
			ones, all := make([]float64, tt.ctxs), make([]float64, tt.ctxs)
			for j, b := range bits {
				all[cxOf[j]]++
				ones[cxOf[j]] += float64(b)
			}
			entropy := 0.0
			for c := range all {
				for _, k := range []float64{ones[c], all[c] - ones[c]} {
					if k > 0 {
						entropy -= k * math.Log2(k/all[c])
					}
				}
			}
			if bound := 1.1*entropy + 64*float64(tt.ctxs) + 64; float64(len(data)*8) > bound {
				t.Errorf("%d decisions coded in %d bytes, entropy %.0f bits", tt.n, len(data), entropy)
			}
		})
	}
}

// TestDecodeGarbage: any data decodes to decisions, without a panic, and
// past its end.
func TestDecodeGarbage(t *testing.T) {
	for _, data := range [][]byte{nil, {0xFF}, {0xFF, 0xFF, 0xFF}, {0x00}, {0xFF, 0x7F, 0xFF, 0x90}} {
		cx := []Context{{}, {Index: 46}, {Index: 200, MPS: 1}}
		d := NewDecoder(data)
		for i := range 1000 {
			if b := d.Decode(&cx[i%3]); b != 0 && b != 1 {
				t.Fatalf("decision %d", b)
			}
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var cx Context
	e := NewEncoder()
	for range 1 << 16 {
		bit := 0
		if rng.IntN(10) == 0 {
			bit = 1
		}
		e.Encode(&cx, bit)
	}
	data := e.Flush()
	b.ResetTimer()
	for range b.N {
		cx = Context{}
		d := NewDecoder(data)
		for range 1 << 16 {
			d.Decode(&cx)
		}
	}
}

// TestRoundTripFromStates: contexts started in other states than the
// first, as JPEG 2000 starts some (states 3, 4 and 46), decode what the
// encoder codes from the same states.
func TestRoundTripFromStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	start := []Context{{}, {Index: 3}, {Index: 4}, {Index: 46}, {Index: 0, MPS: 1}}
	for _, n := range []int{1, 7, 100, 5000, 100000} {
		bits := make([]int, n)
		cxOf := make([]int, n)
		for i := range bits {
			cxOf[i] = rng.IntN(len(start))
			if rng.Float64() < []float64{0.5, 0.1, 0.02, 0.5, 0.9}[cxOf[i]] {
				bits[i] = 1
			}
		}
		enc := append([]Context(nil), start...)
		e := NewEncoder()
		for i, b := range bits {
			e.Encode(&enc[cxOf[i]], b)
		}
		dec := append([]Context(nil), start...)
		d := NewDecoder(e.Flush())
		for i, want := range bits {
			if got := d.Decode(&dec[cxOf[i]]); got != want {
				t.Fatalf("%d decisions: decision %d decoded %d, want %d", n, i, got, want)
			}
		}
	}
}
