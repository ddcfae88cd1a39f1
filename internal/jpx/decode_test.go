package jpx

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

// The fixtures in testdata are made by testdata/make.sh: crops of a page
// of the sample vault coded by opj_compress with a spread of its options.
// A lossless one decodes to its source exactly; a lossy one to what
// opj_decompress decodes within lossyTolerance.
var fixtures = []struct {
	name  string
	src   string // the source of a lossless fixture, the reference decoding of a lossy one
	space Space
}{
	{"lossless-default.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-jp2.jp2", "gray.pgm", SpaceGray},
	{"lossless-tiles.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-offset.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-lrcp.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-rlcp.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-rpcl.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-pcrl.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-cprl.j2k", "gray.pgm", SpaceUnknown},
	{"lossy-poc.j2k", "lossy-poc.ref.pgm", SpaceUnknown},
	{"lossless-tileparts.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-layerparts.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-cb16.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-cb4x64.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-levels0.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-levels7.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-bypass.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-reset.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-termall.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-vcausal.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-predterm.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-segsym.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-allmodes.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-bypass-layers.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-sop-eph.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-plt-tlm.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-roi.j2k", "gray.pgm", SpaceUnknown},
	{"lossless-rgb.j2k", "rgb.ppm", SpaceUnknown},
	{"lossless-rgb-jp2.jp2", "rgb.ppm", SpaceRGB},
	{"lossless-16bit.j2k", "gray16.pgm", SpaceUnknown},
	{"lossless-subsampled.j2k", "rgb.ppm", SpaceUnknown},
	{"lossy-97.j2k", "lossy-97.ref.pgm", SpaceUnknown},
	{"lossy-97-jp2.jp2", "lossy-97-jp2.ref.pgm", SpaceGray},
	{"lossy-53-rate.j2k", "lossy-53-rate.ref.pgm", SpaceUnknown},
	{"lossy-97-tiles.j2k", "lossy-97-tiles.ref.pgm", SpaceUnknown},
	{"lossy-97-cb32x8.j2k", "lossy-97-cb32x8.ref.pgm", SpaceUnknown},
	{"lossy-97-allmodes.j2k", "lossy-97-allmodes.ref.pgm", SpaceUnknown},
	{"lossy-97-layers.j2k", "lossy-97-layers.ref.pgm", SpaceUnknown},
	{"lossy-rgb-97.jp2", "lossy-rgb-97.ref.ppm", SpaceRGB},
	{"lossy-97-subsampled.j2k", "lossy-97-subsampled.ref.ppm", SpaceUnknown},
}

// lossyTolerance: a lossy image decodes to the reference decoder's
// samples within ±1 for at least this share of them. The 9/7 wavelet is
// computed in floating point, and the order of its operations (and so the
// rounding of a sample that falls near .5) differs between decoders; a
// difference of more than 1 in any sample is a decoding error.
const lossyTolerance = 0.999

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compare checks img's components against want's (as opj_decompress
// writes them, each of its own size): exactly, or within ±1 for share of
// the samples and never by more; it returns a description of the
// differences, "" when there are none to report.
func compare(img *Image, want pnm, exact bool) string {
	if len(img.Components) != len(want.comps) {
		return fmt.Sprintf("decoded %d components, want %d", len(img.Components), len(want.comps))
	}
	for _, c := range img.Components {
		if c.Width != want.w || c.Height != want.h {
			return fmt.Sprintf("decoded a component of %dx%d, want %dx%d", c.Width, c.Height, want.w, want.h)
		}
	}
	differ, far, n := 0, 0, 0
	for c, wc := range want.comps {
		for i, v := range img.Components[c].Pix {
			n++
			switch d := int(v) - int(wc[i]); {
			case d > 1 || d < -1:
				far++
			case d != 0:
				differ++
			}
		}
	}
	switch {
	case exact && differ+far > 0:
		return fmt.Sprintf("%d of %d samples differ", differ+far, n)
	case far > 0:
		return fmt.Sprintf("%d of %d samples differ by more than 1", far, n)
	case float64(n-differ)/float64(n) < lossyTolerance:
		return fmt.Sprintf("%d of %d samples differ by 1", differ, n)
	}
	return ""
}

func TestDecodeFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			img, err := Decode(readFixture(t, f.name), 1<<20, testBytes)
			if err != nil {
				t.Fatal(err)
			}
			if img.Space != f.space {
				t.Errorf("colour space %d, want %d", img.Space, f.space)
			}
			want := readPNM(t, readFixture(t, f.src))
			if d := compare(img, want, strings.HasPrefix(f.name, "lossless")); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestDecodeFreshEncodes codes the fixtures' sources anew with
// opj_compress, where it is installed, and compares the decoding with the
// source (lossless) or with opj_decompress's (lossy).
func TestDecodeFreshEncodes(t *testing.T) {
	enc, err1 := exec.LookPath("opj_compress")
	dec, err2 := exec.LookPath("opj_decompress")
	if err1 != nil || err2 != nil {
		t.Skip("libopenjp2-tools is not installed")
	}
	cases := []struct {
		src, ext string
		opts     []string
		lossy    bool
	}{
		{"gray.pgm", "j2k", []string{"-t", "40,72", "-p", "PCRL", "-n", "4", "-b", "8,32"}, false},
		{"gray.pgm", "jp2", []string{"-p", "CPRL", "-c", "[32,32],[16,16]", "-M", "9", "-r", "30,3,1"}, false},
		{"gray.pgm", "j2k", []string{"-I", "-r", "12", "-t", "96,64", "-p", "RPCL"}, true},
		{"gray.pgm", "j2k", []string{"-I", "-q", "30", "-M", "38", "-n", "2"}, true},
		{"rgb.ppm", "jp2", []string{"-t", "33,47", "-M", "6"}, false},
		{"rgb.ppm", "j2k", []string{"-I", "-r", "15,5", "-p", "LRCP", "-SOP", "-EPH"}, true},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(strings.Join(c.opts, " "), func(t *testing.T) {
			src := filepath.Join("testdata", c.src)
			coded := filepath.Join(dir, fmt.Sprintf("%d.%s", i, c.ext))
			if b, err := exec.Command(enc, append([]string{"-i", src, "-o", coded}, c.opts...)...).CombinedOutput(); err != nil {
				t.Fatalf("opj_compress: %v: %s", err, b)
			}
			ref := src
			if c.lossy {
				ref = filepath.Join(dir, fmt.Sprintf("%d.ref%s", i, filepath.Ext(c.src)))
				if b, err := exec.Command(dec, "-i", coded, "-o", ref).CombinedOutput(); err != nil {
					t.Fatalf("opj_decompress: %v: %s", err, b)
				}
			}
			data, err := os.ReadFile(coded)
			if err != nil {
				t.Fatal(err)
			}
			img, err := Decode(data, 1<<20, testBytes)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(ref)
			if err != nil {
				t.Fatal(err)
			}
			if d := compare(img, readPNM(t, want), !c.lossy); d != "" {
				t.Error(d)
			}
		})
	}
}

// testBytes is the byte budget of the tests' decodes: internal/pdf/pageimage's for
// one page image.
const testBytes = 256 << 20

// codestreamOf builds a codestream of comps grey 8-bit components, the given
// size and tiles, a default COD and QCD, and one empty tile-part.
func codestreamOf(w, h, tw, th int, comps int) []byte {
	var b []byte
	u16 := func(v int) { b = append(b, byte(v>>8), byte(v)) }
	u32 := func(v int) { b = append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v)) }
	u16(mSOC)
	u16(mSIZ)
	u16(38 + 3*comps)
	u16(0)
	u32(w)
	u32(h)
	u32(0)
	u32(0)
	u32(tw)
	u32(th)
	u32(0)
	u32(0)
	u16(comps)
	for range comps {
		b = append(b, 7, 1, 1)
	}
	u16(mCOD)
	u16(12)
	b = append(b, 0, 0, 0, 1, 0, 0, 4, 4, 0, 1)
	u16(mQCD)
	u16(4)
	b = append(b, 0x40, 8<<3)
	u16(mSOT)
	u16(10)
	u16(0)
	u32(0)
	b = append(b, 0, 1)
	u16(mSOD)
	b = append(b, 0)
	u16(mEOC)
	return b
}

func TestDecodeBounds(t *testing.T) {
	blank := codestreamOf(16, 16, 16, 16, 1)
	const cod = 2 + 2 + 41 // SOC, SIZ
	part2 := append(append(append([]byte(nil), blank[:cod]...), 0xFF, 0x72, 0, 3, 0), blank[cod:]...)
	ht := append([]byte(nil), blank...)
	ht[cod+4+1+4+3] = 0x40 // the COD's code-block style: high throughput (Part 15)
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"a tiny codestream of 100000×100000 pixels", codestreamOf(100000, 100000, 100000, 100000, 1), ErrTooManyPixels},
		{"65535 tiles", codestreamOf(65535, 1, 1, 1, 1), ErrTooLarge},
		{"5 components", codestreamOf(16, 16, 16, 16, 5), ErrUnsupported},
		{"not JPEG 2000", []byte("%PDF-1.4"), ErrMalformed},
		{"a Part 2 marker", part2, ErrUnsupported},
		{"high-throughput code-blocks", ht, ErrUnsupported},
		{"a JP2 signature and nothing", readFixture(t, "lossless-jp2.jp2")[:12], ErrMalformed},
		{"no codestream past SIZ", readFixture(t, "lossless-default.j2k")[:60], ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := Decode(c.data, 64<<20, testBytes)
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	// A blank tile of 16×16 decodes.
	img, err := Decode(codestreamOf(16, 16, 16, 16, 1), 1<<20, testBytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range img.Components[0].Pix {
		if v != 128 {
			t.Fatalf("a blank tile decoded to %d, want 128", v)
		}
	}
}

// TestDecodeTruncated: a fixture cut anywhere decodes to an error or an
// image (what its data had), without a panic, quickly.
func TestDecodeTruncated(t *testing.T) {
	for _, name := range []string{"lossless-default.j2k", "lossy-97-layers.j2k", "lossless-allmodes.j2k", "lossless-rgb-jp2.jp2", "lossless-tileparts.j2k"} {
		data := readFixture(t, name)
		start := time.Now()
		for n := 0; n < len(data); n += 1 + n/8 {
			img, err := Decode(data[:n], 1<<20, testBytes)
			if err == nil && (img == nil || len(img.Components) == 0) {
				t.Fatalf("%s cut at %d: no image and no error", name, n)
			}
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: %v for its cuts", name, d)
		}
	}
}

// The fuzz target's bounds: inputs of at most fuzzInput bytes, images of
// at most fuzzPixels pixels decoded within fuzzBytes, so that every run
// is quick and the fuzzer explores rather than decodes. Its seeds, in
// testdata/fuzz/FuzzDecode, are small codestreams of the coding options
// the fixtures use and the hostile geometries of TestHostileGeometry,
// written by TestWriteFuzzSeeds.
const (
	fuzzInput  = 8 << 10
	fuzzPixels = 1 << 14
	fuzzBytes  = 2 << 20
)

func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzInput {
			return
		}
		// A hang fails the input (the fuzzer keeps it) rather than the
		// time left to fuzzing.
		timer := time.AfterFunc(10*time.Second, func() { panic("Decode ran over 10 s") })
		defer timer.Stop()
		img, err := Decode(data, fuzzPixels, fuzzBytes)
		if err == nil {
			for _, c := range img.Components {
				if len(c.Pix) != c.Width*c.Height {
					t.Fatalf("a component of %dx%d has %d samples", c.Width, c.Height, len(c.Pix))
				}
			}
		}
	})
}

// fuzzSeedOptions are opj_compress's options of the seeds, one seed each:
// the spread of testdata/make.sh at the seeds' size.
var fuzzSeedOptions = map[string]string{
	"default":     "",
	"jp2":         "",
	"tiles":       "-t 16,16 -n 3",
	"offset":      "-d 3,5 -T 1,2 -t 13,11 -n 2",
	"rlcp":        "-p RLCP -r 20,10,1",
	"rpcl":        "-p RPCL -c [16,16],[16,16],[8,8] -r 20,5,1",
	"cprl":        "-p CPRL -c [32,32],[16,16] -r 4,1",
	"poc":         "-POC T1=0,0,1,2,1,CPRL/T1=0,0,1,6,1,LRCP",
	"tileparts":   "-t 16,16 -n 3 -TP R",
	"cb4x16":      "-b 4,16",
	"levels0":     "-n 1",
	"allmodes":    "-M 63",
	"sop-eph":     "-SOP -EPH",
	"roi":         "-ROI c=0,U=3",
	"97":          "-I -r 10",
	"97-layers":   "-I -r 40,10,4 -p RLCP",
	"rgb":         "",
	"subsampled":  "-s 2,2",
	"16bit":       "",
	"rgb-97-tile": "-I -r 5 -t 16,16 -n 3",
}

// TestWriteFuzzSeeds remakes FuzzDecode's seeds when JPX_FUZZ_SEEDS is
// set, with opj_compress: the inkiest 40×32 pixels of the fixtures'
// sources coded with fuzzSeedOptions, and TestHostileGeometry's geometries at the
// fuzzer's size.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("JPX_FUZZ_SEEDS") == "" {
		t.Skip("JPX_FUZZ_SEEDS is not set")
	}
	opj, err := exec.LookPath("opj_compress")
	if err != nil {
		t.Fatal(err)
	}
	const w, h = 40, 32
	tmp := t.TempDir()
	// The inkiest window of the grey page inside the colour crop (of the
	// same origin, 128×96).
	g := readPNM(t, readFixture(t, "gray.pgm"))
	x0, y0, ink := 0, 0, -1
	for y := 0; y+h <= 96; y += 4 {
		for x := 0; x+w <= 128; x += 4 {
			n := 0
			for yy := y; yy < y+h; yy++ {
				for xx := x; xx < x+w; xx++ {
					n += 255 - int(g.comps[0][yy*g.w+xx])
				}
			}
			if n > ink {
				x0, y0, ink = x, y, n
			}
		}
	}
	crop := func(name string, depth int) string {
		src := readPNM(t, readFixture(t, name))
		maxv := 255
		if depth == 16 {
			maxv = 65535
		}
		magic := "P5"
		if len(src.comps) == 3 {
			magic = "P6"
		}
		b := []byte(fmt.Sprintf("%s\n%d %d\n%d\n", magic, w, h, maxv))
		for y := range h {
			for x := range w {
				for _, c := range src.comps {
					v := c[(y+y0)*src.w+x+x0]
					if depth == 16 {
						b = append(b, byte(v>>8))
					}
					b = append(b, byte(v))
				}
			}
		}
		out := filepath.Join(tmp, strings.TrimSuffix(name, filepath.Ext(name))+filepath.Ext(name))
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	gray, rgb, gray16 := crop("gray.pgm", 8), crop("rgb.ppm", 8), crop("gray16.pgm", 16)
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		if len(data) > fuzzInput {
			t.Fatalf("%s: %d bytes, over the fuzzer's %d", name, len(data), fuzzInput)
		}
		seed := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(seed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, opts := range fuzzSeedOptions {
		src, ext := gray, "j2k"
		switch {
		case strings.HasPrefix(name, "rgb"), name == "subsampled":
			src = rgb
		case name == "16bit":
			src = gray16
		case name == "jp2":
			ext = "jp2"
		}
		out := filepath.Join(tmp, name+"."+ext)
		args := append([]string{"-i", src, "-o", out}, strings.Fields(opts)...)
		if b, err := exec.Command(opj, args...).CombinedOutput(); err != nil {
			t.Fatalf("opj_compress %s: %v: %s", opts, err, b)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(data, fuzzPixels, fuzzBytes); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		write(name, data)
	}
	for name, o := range map[string]hostilepdf.JPXOptions{
		"hostile-components": {Width: 128, Height: 128, Components: 4, Depth: 16, TileW: 32, TileH: 32},
		"hostile-tile":       {Width: 128, Height: 128, Components: 4, Levels: 5},
		"hostile-precincts":  {Width: 128, Height: 128, Levels: 5, BlockExp: 2, PrecinctExp: 1},
		"hostile-area":       {Width: 8000, Height: 8000, Components: 4, Depth: 16, TileW: 1024, TileH: 1024},
	} {
		write(name, hostilepdf.JPXCodestream(o))
	}
}

// TestHostileGeometry: codestreams of a few hundred bytes whose geometry
// (components and bit depth over the area, one huge tile, tiny precincts
// and code-blocks) would take from half a gigabyte to several to decode
// fail with ErrMemory at once, allocating a few megabytes; the same
// geometries at a size the budget allows decode.
func TestHostileGeometry(t *testing.T) {
	tests := []struct {
		name string
		o    hostilepdf.JPXOptions
	}{
		{"4 components of 16 bits over 8000×8000", hostilepdf.JPXOptions{Width: 8000, Height: 8000, Components: 4, Depth: 16, TileW: 1024, TileH: 1024}},
		{"one tile of 4 components over 4096×4096", hostilepdf.JPXOptions{Width: 4096, Height: 4096, Components: 4, Levels: 5}},
		{"1000×1000 in precincts of 2×2 and code-blocks of 4×4", hostilepdf.JPXOptions{Width: 1000, Height: 1000, Levels: 5, BlockExp: 2, PrecinctExp: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := hostilepdf.JPXCodestream(tt.o)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Decode(data, 64<<20, testBytes)
			if !errors.Is(err, ErrMemory) || !errors.Is(err, ErrTooLarge) {
				t.Errorf("%d bytes: got %v, want ErrMemory", len(data), err)
			}
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
				t.Errorf("allocated %d MB", n>>20)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			// A sixteenth of the area is within the budget.
			small := tt.o
			small.Width, small.Height = tt.o.Width/4, tt.o.Height/4
			small.TileW, small.TileH = min(small.TileW, small.Width), min(small.TileH, small.Height)
			img, err := Decode(hostilepdf.JPXCodestream(small), 64<<20, testBytes)
			if err != nil {
				t.Fatalf("at %d×%d: %v", small.Width, small.Height, err)
			}
			if len(img.Components) != max(small.Components, 1) || img.Width != small.Width {
				t.Errorf("at %d×%d: %d components %d wide", small.Width, small.Height, len(img.Components), img.Width)
			}
		})
	}
}
