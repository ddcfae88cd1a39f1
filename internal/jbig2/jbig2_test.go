package jbig2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

// TestDecodeFixtures decodes the committed streams, each of which
// jbig2dec decoded to testdata/crop.pbm, pixel for pixel.
func TestDecodeFixtures(t *testing.T) {
	want := readPBM(t, readFile(t, "testdata/crop.pbm"))
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			data := readFile(t, fixturePath(f.name, false))
			var globals []byte
			if _, err := os.Stat(fixturePath(f.name, true)); err == nil {
				globals = readFile(t, fixturePath(f.name, true))
			}
			got, err := Decode(data, globals, 1<<20, testBytes)
			if err != nil {
				t.Fatal(err)
			}
			got.clearPadding()
			if d := differ(got, want); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestRoundTrip decodes fresh encoder output of the fixtures' kinds, on
// the crop and on bitmaps of awkward sizes.
func TestRoundTrip(t *testing.T) {
	c := readPBM(t, readFile(t, "testdata/crop.pbm"))
	inputs := map[string]*Bitmap{
		"crop":           c,
		"1x1":            crop(c, 100, 60, 1, 1),
		"odd width":      crop(c, 3, 50, 37, 90),
		"one row":        crop(c, 0, 55, 640, 1),
		"noise":          noise(75, 40, 9),
		"white 9x9":      newBitmap(9, 9),
		"shifted border": crop(c, -5, -7, 200, 120),
	}
	for name, b := range inputs {
		for _, f := range fixtures {
			t.Run(name+"/"+f.name, func(t *testing.T) {
				data, globals := f.make(t, b)
				got, err := Decode(data, globals, 1<<20, testBytes)
				if err != nil {
					t.Fatal(err)
				}
				got.clearPadding()
				if d := differ(got, b); d != "" {
					t.Error(d)
				}
			})
		}
	}
}

// TestJbig2dec: jbig2dec (or poppler, for what jbig2dec does not decode)
// decodes fresh encoder output, of all the kinds, to the bitmap the
// encoder coded, so the encoder (and the fixtures it made) are checked
// apart from this package's decoder.
func TestJbig2dec(t *testing.T) {
	c := readPBM(t, readFile(t, "testdata/crop.pbm"))
	for _, b := range []*Bitmap{c, crop(c, 3, 50, 37, 90)} {
		for _, f := range fixtures {
			data, globals := f.make(t, b)
			if d := differ(f.oracle(t, data, globals), b); d != "" {
				t.Errorf("%s on %dx%d: %s", f.name, b.Width, b.Height, d)
			}
		}
	}
	for _, f := range fixtures {
		var globals []byte
		if _, err := os.Stat(fixturePath(f.name, true)); err == nil {
			globals = readFile(t, fixturePath(f.name, true))
		}
		if d := differ(f.oracle(t, readFile(t, fixturePath(f.name, false)), globals), c); d != "" {
			t.Errorf("testdata %s: %s", f.name, d)
		}
	}
}

// testBytes is the byte budget of the tests' decodes: internal/pdf/pageimage's for
// one page image.
const testBytes = 256 << 20

// header is a segment header of the short form for tests.
func header(n uint32, typ int, page byte, referred []byte, length uint32) []byte {
	h := binary.BigEndian.AppendUint32(nil, n)
	h = append(h, byte(typ), byte(len(referred)<<5))
	h = append(h, referred...)
	h = append(h, page)
	return binary.BigEndian.AppendUint32(h, length)
}

func seg(n uint32, typ int, page byte, referred []byte, data []byte) []byte {
	return append(header(n, typ, page, referred, uint32(len(data))), data...)
}

// TestDecodeErrors: hostile and unsupported streams fail fast, with the
// sentinel the caller branches on.
func TestDecodeErrors(t *testing.T) {
	page := seg(0, typePageInfo, 1, nil, pageInfoData(64, 64, 0, 0))
	generic := func(n uint32, w, h uint32, flags byte) []byte {
		d := append(u32s(w, h, 0, 0), 0, flags)
		if flags&1 == 0 {
			d = append(d, 3, 0xFF, 0xFD, 0xFF, 2, 0xFE, 0xFE, 0xFE)
		}
		return seg(n, typeImmediateGeneric, 1, nil, d)
	}
	symbolDict := func(n uint32, flags uint16, numNew uint32) []byte {
		d := binary.BigEndian.AppendUint16(nil, flags)
		d = append(d, 3, 0xFF, 0xFD, 0xFF, 2, 0xFE, 0xFE, 0xFE)
		d = append(d, u32s(numNew, numNew)...)
		return seg(n, typeSymbolDict, 1, nil, append(d, 0, 0, 0))
	}
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	text := func(n uint32, ref byte, numInst uint32) []byte {
		d := append(u32s(64, 64, 0, 0), 0, 0, 0)
		d = append(d, u32s(numInst)...)
		return seg(n, typeImmediateText, 1, []byte{ref}, d)
	}
	tests := []struct {
		name    string
		data    []byte
		globals []byte
		want    error
	}{
		{"empty", nil, nil, ErrMalformed},
		{"a huge page", seg(0, typePageInfo, 1, nil, pageInfoData(100000, 100000, 0, 0)), nil, ErrLimit},
		{"a huge region", cat(page, generic(1, 100000, 100000, 0)), nil, ErrLimit},
		{"a billion symbols", cat(page, symbolDict(1, 0, 1e9)), nil, ErrLimit},
		{"a billion instances", cat(page, symbolDict(1, 0, 0), text(2, 1, 1e9)), nil, ErrLimit},
		{"a text region without symbols", cat(page, text(1, 0, 1)), nil, ErrMalformed},
		{"a huge unknown-height page", seg(0, typePageInfo, 1, nil, pageInfoData(1<<30, 0xFFFFFFFF, 0, 8)), nil, ErrLimit},
		{"a truncated header", page[:10], nil, ErrMalformed},
		{"a truncated header after a segment", cat(page, page[:10]), nil, ErrMalformed},
		{"truncated data", page[:len(page)-3], nil, ErrMalformed},
		{"a region before the page", generic(0, 8, 8, 0), nil, ErrMalformed},
		{"unknown length, truncated", cat(page, header(1, typeImmediateGeneric, 1, nil, 0xFFFFFFFF)), nil, ErrMalformed},
		{"unknown length without an end", cat(page, header(1, typeImmediateGeneric, 1, nil, 0xFFFFFFFF), u32s(8, 0xFFFFFFFF, 0, 0), []byte{0, 0, 3, 0xFF, 0xFD, 0xFF, 2, 0xFE, 0xFE, 0xFE, 1, 2, 3}), nil, ErrMalformed},
		{"unknown length of MMR", cat(page, header(1, typeImmediateGeneric, 1, nil, 0xFFFFFFFF), u32s(8, 0xFFFFFFFF, 0, 0), []byte{0, 1, 0, 0, 0, 0, 0, 8}), nil, ErrUnsupported},
		{"unknown length of a text region", cat(page, header(1, typeImmediateText, 1, nil, 0xFFFFFFFF)), nil, ErrMalformed},
		{"unknown length and a huge row count", cat(page, header(1, typeImmediateGeneric, 1, nil, 0xFFFFFFFF), u32s(8, 0xFFFFFFFF, 0, 0), []byte{0, 2, 3, 0xFF, 0xFF, 0xAC}, u32s(1<<30)), nil, ErrLimit},
		{"a later segment referred to", cat(page, seg(1, typeImmediateText, 1, []byte{5}, nil)), nil, ErrMalformed},
		{"Huffman-coded refined symbols", cat(page, symbolDict(1, 3, 5)), nil, ErrUnsupported},
		{"refined symbols of no dictionary", cat(page, symbolDict(1, 2|1<<12, 5)), nil, ErrMalformed},
		{"a truncated halftone region", cat(page, seg(1, typeImmediateHalftone, 1, nil, nil)), nil, ErrMalformed},
		{"a halftone region without patterns", cat(page, seg(1, typeImmediateHalftone, 1, nil, append(u32s(8, 8, 0, 0, 0), make([]byte, 17)...))), nil, ErrMalformed},
		{"an MMR pattern dictionary", cat(page, seg(1, typePatternDict, 1, nil, []byte{1, 4, 4, 0, 0, 0, 1})), nil, ErrUnsupported},
		{"a pattern dictionary of template 2", cat(page, seg(1, typePatternDict, 1, nil, []byte{4, 4, 4, 0, 0, 0, 1})), nil, ErrUnsupported},
		{"a pattern dictionary of 65,537 patterns", cat(page, seg(1, typePatternDict, 1, nil, []byte{0, 4, 4, 0, 1, 0, 0})), nil, ErrMalformed},
		{"a huge halftone grid", cat(page, seg(1, typePatternDict, 1, nil, []byte{0, 1, 1, 0, 0, 0, 1}), seg(2, typeImmediateHalftone, 1, []byte{1}, append(append(u32s(8, 8, 0, 0), 0, 0), append(u32s(1e5, 1e5, 0, 0), 0, 1, 0, 0)...))), nil, ErrLimit},
		{"a truncated refinement region", cat(page, seg(1, typeImmediateRefine, 1, nil, nil)), nil, ErrMalformed},
		{"a refinement of no region", cat(page, seg(1, typeImmediateRefine, 1, []byte{0}, append(u32s(8, 8, 0, 0), 0, 1))), nil, ErrMalformed},
		{"a truncated Huffman table", cat(page, seg(1, typeTables, 1, nil, nil)), nil, ErrMalformed},
		{"a Huffman table of a billion lines", cat(page, seg(1, typeTables, 1, nil, append([]byte{0, 0, 0, 0, 0, 0x40, 0, 0, 0}, make([]byte, 2048)...))), nil, ErrLimit},
		{"a Huffman text region without its table", cat(page, symbolDict(1, 0, 0), seg(2, typeImmediateText, 1, []byte{1}, append(u32s(64, 64, 0, 0), 0, 0, 1, 0, 3, 0, 0, 0, 0))), nil, ErrMalformed},
		{"a Huffman text region refined with a bad adaptive pixel", cat(page, symbolDict(1, 0, 0), seg(2, typeImmediateText, 1, []byte{1}, append(u32s(64, 64, 0, 0), 0, 0, 3, 0, 0, 0, 0, 0, 0))), nil, ErrMalformed},
		{"an extended template", cat(page, generic(1, 8, 8, 0x10)), nil, ErrUnsupported},
		{"bad MMR", cat(page, generic(1, 8, 8, 1)), nil, ErrMalformed},
		{"an unknown segment type", cat(page, seg(1, 33, 1, nil, nil)), nil, ErrMalformed},
		{"a global on a page", page, page, ErrMalformed},
		{"a second page", cat(page, seg(1, typePageInfo, 1, nil, pageInfoData(8, 8, 0, 0))), nil, ErrUnsupported},
		{"no page", seg(0, typeEndOfPage, 1, nil, nil), nil, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Decode(tt.data, tt.globals, 64<<20, testBytes)
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestTrailingBytes: an end of line or zeros after the last segment, as
// a PDF stream's length may count, are not a segment.
func TestTrailingBytes(t *testing.T) {
	data := readFile(t, fixturePath("generic-t0", false))
	want, err := Decode(data, nil, 1<<20, testBytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, tail := range []string{"\n", "\r\n", "\x00\x00\x00", " \n"} {
		got, err := Decode(append(slices.Clone(data), tail...), nil, 1<<20, testBytes)
		if err != nil {
			t.Errorf("%q after the segments: %v", tail, err)
			continue
		}
		if d := differ(got, want); d != "" {
			t.Errorf("%q after the segments: %s", tail, d)
		}
	}
}

// TestWorkBound: a stream that declares many symbols, each small, of a
// dictionary whose data runs out, fails on the work bound or the data,
// in bounded time, and not by allocating them all.
func TestWorkBound(t *testing.T) {
	page := seg(0, typePageInfo, 1, nil, pageInfoData(64, 64, 0, 0))
	d := binary.BigEndian.AppendUint16(nil, 0)
	d = append(d, 3, 0xFF, 0xFD, 0xFF, 2, 0xFE, 0xFE, 0xFE)
	d = append(d, u32s(MaxSymbols, MaxSymbols)...)
	data := append(page, seg(1, typeSymbolDict, 1, nil, append(d, 0x12, 0x34))...)
	start := time.Now()
	_, err := Decode(data, nil, 1<<16, testBytes)
	if err == nil {
		t.Fatal("decoded")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v: %v", d, err)
	}
}

// The fuzz target's bounds: inputs of at most fuzzInput bytes, pages of
// at most fuzzPixels pixels decoded within fuzzBytes, so that every run
// is quick and the fuzzer explores rather than decodes. Its seeds, in
// testdata/fuzz/FuzzDecode, are small pages of every kind the package
// decodes and the hostile streams of TestHostileSymbolChain at the
// fuzzing size, written by TestWriteFuzzSeeds.
const (
	fuzzInput  = 8 << 10
	fuzzPixels = 1 << 14
	fuzzBytes  = 1 << 20
)

func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data, globals []byte) {
		if len(data)+len(globals) > fuzzInput {
			return
		}
		b, err := Decode(data, globals, fuzzPixels, fuzzBytes)
		if err == nil && (b.Width*b.Height > fuzzPixels || len(b.Data) != b.Stride*b.Height) {
			t.Fatalf("a %dx%d page of %d bytes", b.Width, b.Height, len(b.Data))
		}
	})
}

// TestWriteFuzzSeeds remakes FuzzDecode's seeds when JBIG2_FUZZ_SEEDS is
// set: each fixture's kind coded from the inkiest 48×32 of the crop, and
// the hostile symbol chains on a 64×64 page.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("JBIG2_FUZZ_SEEDS") == "" {
		t.Skip("JBIG2_FUZZ_SEEDS is not set")
	}
	c := readPBM(t, readFile(t, "testdata/crop.pbm"))
	var small *Bitmap
	ink := -1
	for y := 0; y+32 <= c.Height; y += 8 {
		for x := 0; x+48 <= c.Width; x += 8 {
			b := crop(c, x, y, 48, 32)
			n := 0
			for _, v := range b.Data {
				n += bits.OnesCount8(v)
			}
			if n > ink {
				small, ink = b, n
			}
		}
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data, globals []byte) {
		if len(data)+len(globals) > fuzzInput {
			t.Fatalf("%s: %d bytes, over the fuzzer's %d", name, len(data)+len(globals), fuzzInput)
		}
		seed := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n[]byte(%q)\n", data, globals)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(seed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, fx := range fixtures {
		data, globals := fx.make(t, small)
		if _, err := Decode(data, globals, fuzzPixels, fuzzBytes); err != nil && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("%s: %v", fx.name, err)
		}
		write(fx.name, data, globals)
	}
	write("hostile-chain-all", hostilepdf.JBIG2SymbolChain(64, 64, 40, 0), nil)
	write("hostile-chain-repeated", hostilepdf.JBIG2SymbolChain(64, 64, 20, 4), nil)
	write("hostile-chain-1000-refs", hostilepdf.JBIG2SymbolChain(64, 64, 3, 1000), nil)
	write("chain", hostilepdf.JBIG2SymbolChain(64, 64, 6, 2), nil)
}

func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"generic-t0", "text"} {
		data := readFile(b, fixturePath(name, false))
		b.Run(name, func(b *testing.B) {
			for range b.N {
				if _, err := Decode(data, nil, 1<<20, testBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHostileSymbolChain: symbol dictionaries that re-export what they
// inherit, each referring to every dictionary before it or to the one
// before it many times over, fail with ErrLimit at once, allocating a few
// megabytes, where the lists of symbols they declare would take
// gigabytes; a short chain of the same kind decodes.
func TestHostileSymbolChain(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"each dictionary referring to all before it", hostilepdf.JBIG2SymbolChain(1000, 1000, 40, 0)},
		{"each dictionary referring to the one before 4 times", hostilepdf.JBIG2SymbolChain(1000, 1000, 20, 4)},
		{"each dictionary referring to the one before 4000 times", hostilepdf.JBIG2SymbolChain(1000, 1000, 4, 4000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Decode(tt.data, nil, 1000*1000, testBytes)
			if !errors.Is(err, ErrLimit) {
				t.Errorf("%d bytes: got %v, want ErrLimit", len(tt.data), err)
			}
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
				t.Errorf("allocated %d MB", n>>20)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	// A short chain is a well-formed stream, to jbig2dec too: a blank
	// page.
	short := hostilepdf.JBIG2SymbolChain(64, 64, 6, 2)
	got, err := Decode(short, nil, 64*64, testBytes)
	if err != nil {
		t.Fatalf("a chain of 6 dictionaries exporting 64 symbols: %v", err)
	}
	got.clearPadding()
	if d := differ(got, newBitmap(64, 64)); d != "" {
		t.Errorf("a chain of 6 dictionaries: %s", d)
	}
	if d := differ(jbig2dec(t, short, nil), newBitmap(64, 64)); d != "" {
		t.Errorf("a chain of 6 dictionaries, by jbig2dec: %s", d)
	}
	// The byte budget holds on its own: the same short chain in too few
	// bytes.
	if _, err := Decode(short, nil, 64*64, 4<<10); !errors.Is(err, ErrMemory) {
		t.Errorf("a chain of 6 dictionaries in 4 kB: got %v, want ErrMemory", err)
	}
}

// TestManyRegionsWithinBudget: a page of 4,096 generic regions, each
// decoded with its own 128 kB of contexts, decodes within a budget far
// below their sum: what one segment's decoding needs and drops after it
// is checked against what is left, not charged for good.
func TestManyRegionsWithinBudget(t *testing.T) {
	const n = 64
	want := newBitmap(n, n)
	st := &stream{}
	st.segment(typePageInfo, 1, nil, pageInfoData(n, n, 0, 0))
	dot := newBitmap(1, 1)
	dot.set(0, 0)
	for y := range n {
		for x := range n {
			if (x+y)%3 == 0 {
				want.set(x, y)
				st.segment(typeImmediateGeneric, 1, nil, genericData(dot, x, y, opOR, genericParams{template: 0, at: nominalAT[0]}, nil))
			} else {
				st.segment(typeImmediateGeneric, 1, nil, genericData(newBitmap(1, 1), x, y, opOR, genericParams{template: 0, at: nominalAT[0]}, nil))
			}
		}
	}
	got, err := Decode(st.Bytes(), nil, n*n, 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	got.clearPadding()
	if d := differ(got, want); d != "" {
		t.Error(d)
	}
}

// TestHostileEmptyRegions: a generic region of no width and 2³¹ rows, or
// of no height and 2³¹ columns, costs its rows and columns: it fails with
// ErrLimit before a row is decoded, where it was decoded row by row for
// free (a 100-byte stream that took half a minute).
func TestHostileEmptyRegions(t *testing.T) {
	for _, tt := range []struct {
		name string
		w, h uint32
	}{
		{"no width, 2^31 rows", 0, 1 << 31},
		{"no width, 2^32-1 rows", 0, 0xFFFFFFFF},
		{"no height, 2^31 columns", 1 << 31, 0},
		{"one column, 2^20 rows", 1, 1 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var st stream
			st.segment(typePageInfo, 1, nil, pageInfoData(64, 64, 0, 0))
			d := append(u32s(tt.w, tt.h, 0, 0), opOR)
			d = append(d, 8) // template 0 with TPGDON: a row costs one decode
			for _, a := range nominalAT[0][:atCount[0]] {
				d = append(d, byte(int8(a.dx)), byte(int8(a.dy)))
			}
			st.segment(typeImmediateGeneric, 1, nil, append(d, 0xFF, 0xAC))
			if _, err := Decode(st.Bytes(), nil, 64*64, testBytes); !errors.Is(err, ErrLimit) {
				t.Errorf("got %v, want ErrLimit", err)
			}
		})
	}
}
