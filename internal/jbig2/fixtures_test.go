package jbig2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/researchctx/researchctx/internal/mq"
)

// The fixtures in testdata are made by TestWriteFixtures from a part of a
// real page, testdata/crop.pbm, and each decodes to it. They were
// checked against jbig2dec when made, and TestJbig2dec checks them, and
// fresh output of the encoder, again where jbig2dec is installed.
//
// To remake them (and the PDF fixtures of internal/pdf), with pdftoppm,
// libtiff's ppm2tiff and jbig2dec installed:
//
//	go run ./internal/cmd/samplevault /tmp/v
//	pdftoppm -r 200 -mono -f 1 -l 1 /tmp/v/papers/2401.01234/2401.01234.pdf /tmp/p
//	JBIG2_FIXTURE_PAGE=/tmp/p-1.pbm go test ./internal/jbig2 -run TestWriteFixtures
//
// The crop is the page's 640×288 pixels at 280, 200: its title, authors
// and the start of its abstract.

// fixture is one test stream: the page segments and the global ones.
type fixture struct {
	name string
	make func(t testing.TB, c *Bitmap) (data, globals []byte)
	// poppler: the oracle is poppler (pdfimages), not jbig2dec, which
	// does not decode intermediate regions.
	poppler bool
}

// oracle decodes a fixture's page with its oracle, or skips the test.
func (f fixture) oracle(t testing.TB, data, globals []byte) *Bitmap {
	if f.poppler {
		return pdfimages(t, data, globals)
	}
	return jbig2dec(t, data, globals)
}

// pdfimages decodes a page with poppler, as the image of a PDF, or skips
// the test.
func pdfimages(t testing.TB, data, globals []byte) *Bitmap {
	t.Helper()
	prog := lookPath(t, "pdfimages", "poppler-utils")
	segs, err := parseSegments(data, MaxSegments)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range segs {
		if s.typ != typePageInfo {
			continue
		}
		// The PDF's image is the page's size.
		pr := &reader{b: s.data}
		w, h := pr.u32(), pr.u32()
		dir := t.TempDir()
		src := filepath.Join(dir, "page.pdf")
		if err := os.WriteFile(src, onePagePDF(int(w), int(h), data, globals), 0o644); err != nil {
			t.Fatal(err)
		}
		if o, err := exec.Command(prog, src, filepath.Join(dir, "im")).CombinedOutput(); err != nil || len(o) > 0 {
			t.Fatalf("pdfimages: %v: %s", err, o)
		}
		return readPBM(t, readFile(t, filepath.Join(dir, "im-000.pbm")))
	}
	t.Fatal("no page information")
	return nil
}

// noise is a reproducible w×h bitmap of random pixels.
func noise(w, h int, seed uint64) *Bitmap {
	b := newBitmap(w, h)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range b.Data {
		b.Data[i] = byte(rng.Uint32())
	}
	b.clearPadding()
	return b
}

func xorBitmaps(a, b *Bitmap) *Bitmap {
	c := newBitmap(a.Width, a.Height)
	for i := range c.Data {
		c.Data[i] = a.Data[i] ^ b.Data[i]
	}
	return c
}

// genericStream is a page of c's size holding c as one generic region.
func genericStream(c *Bitmap, p genericParams, mmr []byte) []byte {
	st := &stream{}
	st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
	st.segment(typeLosslessGeneric, 1, nil, genericData(c, 0, 0, opOR, p, mmr))
	return st.Bytes()
}

// textStream is a page of c's size holding c as a text region of its
// connected components, the symbol dictionary among the globals or not.
func textStream(c *Bitmap, template, logStrips int, global bool) (data, globals []byte) {
	syms, inst := symbols(c)
	sd, order := symbolDictData(syms, template)
	place := make([]int, len(syms))
	for i, s := range order {
		place[s] = i
	}
	dict := make([]*Bitmap, len(syms))
	for i := range inst {
		inst[i].id = place[inst[i].id]
	}
	for i, s := range order {
		dict[i] = syms[s]
	}
	st, gst := &stream{}, &stream{}
	var ref uint32
	if global {
		ref = gst.segment(typeSymbolDict, 0, nil, sd)
		st.next = gst.next
	}
	st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
	if !global {
		ref = st.segment(typeSymbolDict, 1, nil, sd)
	}
	st.segment(typeImmediateLosslessText, 1, []uint32{ref}, textRegionData(c.Width, c.Height, dict, inst, logStrips))
	if global {
		return st.Bytes(), gst.Bytes()
	}
	return st.Bytes(), nil
}

var fixtures = []fixture{
	{"generic-t0", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		return genericStream(c, genericParams{template: 0, tpgdon: true, at: nominalAT[0]}, nil), nil
	}, false},
	{"generic-t1", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		return genericStream(c, genericParams{template: 1, at: [4]at{{5, -3}}}, nil), nil
	}, false},
	{"generic-t2", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		return genericStream(c, genericParams{template: 2, tpgdon: true, at: nominalAT[2]}, nil), nil
	}, false},
	{"generic-t3", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		return genericStream(c, genericParams{template: 3, at: [4]at{{-5, 0}}}, nil), nil
	}, false},
	{"generic-t0-at", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		return genericStream(c, genericParams{template: 0, at: [4]at{{-40, -1}, {7, -2}, {0, -6}, {-3, 0}}}, nil), nil
	}, false},
	{"generic-mmr", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		return genericStream(c, genericParams{}, g4(t, c)), nil
	}, false},
	{"text", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		return textStream(c, 0, 2, false)
	}, false},
	{"text-globals", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		return textStream(c, 2, 0, true)
	}, false},
	{"stripes", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// A page of unknown height, black by default, in two stripes, each
		// half of the crop replacing the page, noise XORed twice on the
		// second; an end of page.
		h := max(c.Height/2, 1)
		n := noise(min(c.Width, 100), min(c.Height-h, 60), 3)
		p := genericParams{template: 0, tpgdon: true, at: nominalAT[0]}
		st := &stream{}
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), 0xFFFFFFFF, 1, h))
		st.segment(typeImmediateGeneric, 1, nil, genericData(crop(c, 0, 0, c.Width, h), 0, 0, opREPLACE, p, nil))
		st.segment(typeEndOfStripe, 1, nil, u32s(uint32(h-1)))
		st.segment(typeImmediateGeneric, 1, nil, genericData(crop(c, 0, h, c.Width, c.Height-h), 0, h, opREPLACE, p, nil))
		st.segment(typeImmediateGeneric, 1, nil, genericData(n, 0, h, opXOR, p, nil))
		st.segment(typeImmediateGeneric, 1, nil, genericData(n, 0, h, opXOR, p, nil))
		st.segment(typeEndOfStripe, 1, nil, u32s(uint32(c.Height-1)))
		st.segment(typeEndOfPage, 1, nil, nil)
		return st.Bytes(), nil
	}, false},
	{"generic-unknown-length", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// A generic region of unknown length and height, as a streaming
		// coder writes it: its data ends with the marker and its rows.
		p := genericParams{template: 0, tpgdon: true, at: nominalAT[0]}
		d := genericData(c, 0, 0, opOR, p, nil)
		binary.BigEndian.PutUint32(d[4:], 0xFFFFFFFF)
		d = append(d, u32s(uint32(c.Height))...)
		st := &stream{}
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
		n := len(st.Bytes())
		st.segment(typeImmediateGeneric, 1, nil, d)
		b := st.Bytes()
		binary.BigEndian.PutUint32(b[n+7:], 0xFFFFFFFF)
		return b, nil
	}, false},
	{"refine", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// An intermediate generic region of the crop perturbed, refined
		// to the crop. (Poppler's typical prediction in refinement is not
		// jbig2dec's, nor this package's, so the fixture that poppler
		// checks does without it.)
		pert := perturb(c, 20, 6)
		st := &stream{}
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
		ref := st.segment(typeIntermediateGeneric, 1, nil, genericData(pert, 0, 0, opOR, genericParams{template: 0, tpgdon: true, at: nominalAT[0]}, nil))
		st.segment(typeImmediateRefine, 1, []uint32{ref}, refinementData(c, 0, 0, opOR, refineParams{template: 0, at: nominalRefineAT, ref: pert}))
		return st.Bytes(), nil
	}, true},
	{"refine-page", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// The perturbed crop drawn on the page, which a refinement region
		// of template 1 refines in place, then perturbed again and
		// refined by template 0 with typical prediction and adaptive
		// pixels moved. (jbig2dec refines a page's part against the
		// whole page, this package and poppler against the part, so the
		// regions are the page.)
		pert := perturb(c, 10, 7)
		pert2 := perturb(c, 30, 8)
		st := &stream{}
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
		st.segment(typeImmediateGeneric, 1, nil, genericData(pert, 0, 0, opOR, genericParams{template: 2, at: nominalAT[2]}, nil))
		st.segment(typeLosslessRefine, 1, nil, refinementData(c, 0, 0, opREPLACE, refineParams{template: 1, ref: pert}))
		st.segment(typeImmediateGeneric, 1, nil, genericData(xorBitmaps(c, pert2), 0, 0, opXOR, genericParams{template: 3, at: nominalAT[3]}, nil))
		st.segment(typeLosslessRefine, 1, nil, refinementData(c, 0, 0, opREPLACE, refineParams{template: 0, tpgron: true, at: [2]at{{-2, -1}, {1, 1}}, ref: pert2}))
		return st.Bytes(), nil
	}, false},
	{"text-refine", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// A text region of refined instances: the dictionary's symbols are
		// the components perturbed, every other one also a column
		// narrower, and every third instance is placed unrefined where it
		// is a component's own bitmap.
		syms, inst := symbols(c)
		dict := make([]*Bitmap, len(syms))
		for i, s := range syms {
			dict[i] = perturb(s, 8, uint64(i))
			if i%2 == 1 && s.Width > 1 {
				dict[i] = crop(dict[i], 0, 0, s.Width-1, s.Height)
			}
		}
		var refined []refinedInstance
		extra := []*Bitmap{}
		for i, in := range inst {
			if i%3 == 0 {
				// Unrefined: a symbol of its own, after the others.
				extra = append(extra, syms[in.id])
				refined = append(refined, refinedInstance{instance{len(syms) + len(extra) - 1, in.x, in.y}, nil})
				continue
			}
			refined = append(refined, refinedInstance{in, syms[in.id]})
		}
		dict = append(dict, extra...)
		sd, order := symbolDictData(dict, 1)
		place := make([]int, len(dict))
		for i, s := range order {
			place[s] = i
		}
		sorted := make([]*Bitmap, len(dict))
		for i, s := range order {
			sorted[i] = dict[s]
		}
		for i := range refined {
			refined[i].id = place[refined[i].id]
		}
		st := &stream{}
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
		ref := st.segment(typeSymbolDict, 1, nil, sd)
		d := regionData(c.Width, c.Height, 0, 0, opOR)
		d = binary.BigEndian.AppendUint16(d, uint16(1<<2|cornerTopLeft<<4|2)) // SBREFINE, 2 strips, template 0
		for _, a := range nominalRefineAT {
			d = append(d, byte(int8(a.dx)), byte(int8(a.dy)))
		}
		d = append(d, u32s(uint32(len(refined)))...)
		e := mq.NewEncoder()
		encodeText(e, newTextCoder(symbolCodeLen(len(sorted)), 0), sorted, refined, 1, true, 0)
		st.segment(typeImmediateText, 1, []uint32{ref}, append(d, e.Flush()...))
		return st.Bytes(), nil
	}, false},
	{"symbol-refagg", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// A dictionary of the components perturbed, in the globals; a
		// dictionary refining them to the components, and aggregating
		// pairs of the refined symbols next to each other in a line;
		// the text region places the refined symbols and the pairs.
		syms, inst := symbols(c)
		base := make([]*Bitmap, len(syms))
		for i, s := range syms {
			base[i] = perturb(s, 6, uint64(i+100))
		}
		bd, border := symbolDictData(base, 0)
		bplace := make([]int, len(base))
		in := make([]*Bitmap, len(base))
		for i, s := range border {
			bplace[s] = i
			in[i] = base[s]
		}
		var specs []symbolSpec
		for i, s := range syms {
			specs = append(specs, symbolSpec{b: s, ref: bplace[i]})
		}
		// Pairs: instances one after another whose boxes start on one row.
		var placed []instance
		for i := 0; i < len(inst); i++ {
			a := inst[i]
			if i+1 < len(inst) && inst[i+1].y == a.y && inst[i+1].x > a.x && len(specs) < len(syms)+40 {
				b := inst[i+1]
				w := max(a.x+syms[a.id].Width, b.x+syms[b.id].Width) - a.x
				h := max(syms[a.id].Height, syms[b.id].Height)
				pair := newBitmap(w, h)
				pair.compose(syms[a.id], 0, 0, opOR)
				pair.compose(syms[b.id], b.x-a.x, 0, opOR)
				specs = append(specs, symbolSpec{b: pair, agg: []instance{
					{len(base) + a.id, 0, 0}, {len(base) + b.id, b.x - a.x, 0}}})
				placed = append(placed, instance{len(base) + len(specs) - 1, a.x, a.y})
				i++
				continue
			}
			placed = append(placed, instance{len(base) + a.id, a.x, a.y})
		}
		rd, order := refAggDictData(in, specs)
		place := make([]int, len(specs))
		for i, s := range order {
			place[s] = i
		}
		all := slices.Clone(in)
		for _, s := range order {
			all = append(all, specs[s].b)
		}
		for i := range placed {
			placed[i].id = len(base) + place[placed[i].id-len(base)]
		}
		st, gst := &stream{}, &stream{}
		d1 := gst.segment(typeSymbolDict, 0, nil, bd)
		st.next = gst.next
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
		d2 := st.segment(typeSymbolDict, 1, []uint32{d1}, rd)
		st.segment(typeImmediateLosslessText, 1, []uint32{d1, d2}, textRegionData(c.Width, c.Height, all, placed, 0))
		return st.Bytes(), gst.Bytes()
	}, false},
	{"huffman", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// Huffman coding with the standard tables: a symbol dictionary of
		// collective bitmaps, uncompressed and in MMR, and a text region.
		return huffTextStream(t, c, false)
	}, false},
	{"huffman-user", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// Huffman coding with user tables for the text region, which and
		// the dictionary are in the globals.
		return huffTextStream(t, c, true)
	}, false},
	{"halftone", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// A halftone region of template 1 over the 16 patterns of 2×2
		// pixels, its grid partly off the region and skipped there.
		return halftoneStream(c, 1), nil
	}, false},
	{"huffman-refine", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// A Huffman-coded text region of refined instances (B.15), its
		// dictionary the components perturbed. (jbig2dec does not read
		// Huffman-coded refinements as the standard places them; poppler
		// does.)
		syms, inst := symbols(c)
		dict := make([]*Bitmap, len(syms))
		for i, s := range syms {
			dict[i] = perturb(s, 8, uint64(i))
		}
		sd, order := symbolDictData(dict, 0)
		place := make([]int, len(dict))
		sorted := make([]*Bitmap, len(dict))
		exact := make([]*Bitmap, len(dict))
		for i, s := range order {
			place[s] = i
			sorted[i] = dict[s]
			exact[i] = syms[s]
		}
		for i := range inst {
			inst[i].id = place[inst[i].id]
		}
		strips := huffStrips(sorted, inst, 1)
		for i := range strips {
			for _, id := range strips[i].ids {
				strips[i].refined = append(strips[i].refined, &huffRefinement{exact[id], 0, 0})
			}
			// The S gaps follow the refined bitmaps, which are the
			// components' own sizes as the dictionary's are.
		}
		text, _ := huffRefinedTextData(t, c.Width, c.Height, sorted, strips, 1, 6, 8, 11, 15, nil)
		st := &stream{}
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 0, 0))
		ref := st.segment(typeSymbolDict, 1, nil, sd)
		st.segment(typeImmediateText, 1, []uint32{ref}, text)
		return st.Bytes(), nil
	}, true},
	{"operators", func(t testing.TB, c *Bitmap) ([]byte, []byte) {
		// A black page: the crop XNORed on it, noise XORed twice, and a
		// black square ANDed, each leaving the crop; regions beyond the
		// page's right and bottom edges are clipped.
		p := genericParams{template: 1, at: nominalAT[1]}
		n := noise(60, 30, 4)
		black := newBitmap(16, 16)
		black.fill(1)
		black.clearPadding()
		st := &stream{}
		st.segment(typePageInfo, 1, nil, pageInfoData(uint32(c.Width), uint32(c.Height), 1, 0))
		st.segment(typeImmediateGeneric, 1, nil, genericData(c, 0, 0, opXNOR, p, nil))
		st.segment(typeImmediateGeneric, 1, nil, genericData(n, min(37, c.Width-1), min(11, c.Height-1), opXOR, p, nil))
		st.segment(typeImmediateGeneric, 1, nil, genericData(n, min(37, c.Width-1), min(11, c.Height-1), opXOR, p, nil))
		st.segment(typeImmediateGeneric, 1, nil, genericData(n, max(c.Width-50, 0), max(c.Height-20, 0), opXOR, p, nil))
		st.segment(typeImmediateGeneric, 1, nil, genericData(n, max(c.Width-50, 0), max(c.Height-20, 0), opXOR, p, nil))
		st.segment(typeImmediateGeneric, 1, nil, genericData(black, 3, 5, opAND, p, nil))
		st.segment(typeEndOfFile, 0, nil, nil)
		return st.Bytes(), nil
	}, false},
}

// lookPath finds an oracle program of the tests, or skips the test
// without it, except under CI, which installs it (.ci/run).
func lookPath(t testing.TB, name, pkg string) string {
	t.Helper()
	prog, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (CI installs %s)", name, pkg)
		}
		t.Skipf("%s is not installed", name)
	}
	return prog
}

// g4 codes b in CCITT Group 4 with libtiff.
func g4(t testing.TB, b *Bitmap) []byte {
	t.Helper()
	prog := lookPath(t, "ppm2tiff", "libtiff-tools")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pbm"), filepath.Join(dir, "out.tif")
	if err := os.WriteFile(in, pbm(b), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := exec.Command(prog, "-c", "g4", "-r", "1000000", in, out).CombinedOutput(); err != nil {
		t.Fatalf("ppm2tiff: %v: %s", err, o)
	}
	return tiffStrip(t, readFile(t, out))
}

// tiffStrip returns the one strip of a little- or big-endian TIFF.
func tiffStrip(t testing.TB, f []byte) []byte {
	t.Helper()
	var bo binary.ByteOrder = binary.LittleEndian
	if bytes.HasPrefix(f, []byte("MM")) {
		bo = binary.BigEndian
	}
	ifd := int(bo.Uint32(f[4:]))
	n := int(bo.Uint16(f[ifd:]))
	var off, size int = -1, -1
	for i := range n {
		e := f[ifd+2+12*i:]
		tag, typ, count := bo.Uint16(e), bo.Uint16(e[2:]), bo.Uint32(e[4:])
		v := int(bo.Uint32(e[8:]))
		if typ == 3 {
			v = int(bo.Uint16(e[8:]))
		}
		if (tag == 273 || tag == 279) && count != 1 {
			t.Fatalf("a TIFF of %d strips", count)
		}
		switch tag {
		case 273:
			off = v
		case 279:
			size = v
		}
	}
	if off < 0 || size < 0 || off+size > len(f) {
		t.Fatal("no strip in the TIFF")
	}
	return f[off : off+size]
}

func fixturePath(name string, global bool) string {
	if global {
		return filepath.Join("testdata", name+".globals.jb2")
	}
	return filepath.Join("testdata", name+".jb2")
}

// jbig2dec decodes a page with jbig2dec, or skips the test.
func jbig2dec(t testing.TB, data, globals []byte) *Bitmap {
	t.Helper()
	prog := lookPath(t, "jbig2dec", "jbig2dec")
	dir := t.TempDir()
	page, glob, out := filepath.Join(dir, "page.jb2"), filepath.Join(dir, "globals.jb2"), filepath.Join(dir, "out.pbm")
	os.WriteFile(page, data, 0o644)
	args := []string{"-e", "-t", "pbm", "-o", out, page}
	if globals != nil {
		os.WriteFile(glob, globals, 0o644)
		args = []string{"-t", "pbm", "-o", out, glob, page}
	}
	o, err := exec.Command(prog, args...).CombinedOutput()
	if err != nil || bytes.Contains(o, []byte("FATAL")) || bytes.Contains(o, []byte("error")) {
		t.Fatalf("jbig2dec: %v: %s", err, o)
	}
	return readPBM(t, readFile(t, out))
}

// differ counts the pixels that differ between two bitmaps of one size.
func differ(a, b *Bitmap) string {
	if a.Width != b.Width || a.Height != b.Height {
		return fmt.Sprintf("%dx%d, want %dx%d", a.Width, a.Height, b.Width, b.Height)
	}
	// Equal rows byte by byte first: the pixels are counted only for the
	// message, and one by one they take most of some tests' time.
	full, rest := a.Width/8, uint(a.Width%8)
	same := true
	for y := 0; y < a.Height && same; y++ {
		ra, rb := a.Data[y*a.Stride:], b.Data[y*b.Stride:]
		same = bytes.Equal(ra[:full], rb[:full]) && (rest == 0 || (ra[full]^rb[full])>>(8-rest) == 0)
	}
	if same {
		return ""
	}
	n := 0
	for y := range a.Height {
		for x := range a.Width {
			if a.at(x, y) != b.at(x, y) {
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d pixels differ", n)
}

// TestDiffer checks that differ counts a pixel that differs anywhere in
// a row, the last of an odd width included, and not the padding.
func TestDiffer(t *testing.T) {
	base := noise(37, 5, 7)
	base.clearPadding()
	for _, tt := range []struct {
		name string
		x, y int
		pad  bool
		want string
	}{
		{"same", -1, 0, false, ""},
		{"padding only", -1, 0, true, ""},
		{"first pixel", 0, 0, false, "1 pixels differ"},
		{"last of a row", 36, 2, false, "1 pixels differ"},
		{"last of the last row", 36, 4, true, "1 pixels differ"},
	} {
		b := &Bitmap{Width: base.Width, Height: base.Height, Stride: base.Stride, Data: bytes.Clone(base.Data)}
		if tt.x >= 0 {
			b.Data[tt.y*b.Stride+tt.x>>3] ^= 0x80 >> uint(tt.x&7)
		}
		if tt.pad {
			b.Data[b.Stride-1] ^= 1
		}
		if got := differ(b, base); got != tt.want {
			t.Errorf("%s: differ = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestWriteFixtures remakes testdata (see above) when
// JBIG2_FIXTURE_PAGE names the page.
func TestWriteFixtures(t *testing.T) {
	src := os.Getenv("JBIG2_FIXTURE_PAGE")
	if src == "" {
		t.Skip("JBIG2_FIXTURE_PAGE is not set")
	}
	page := readPBM(t, readFile(t, src))
	c := crop(page, 280, 200, 640, 288)
	if err := os.WriteFile(filepath.Join("testdata", "crop.pbm"), pbm(c), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		data, globals := f.make(t, c)
		if d := differ(f.oracle(t, data, globals), c); d != "" {
			t.Fatalf("%s: oracle: %s", f.name, d)
		}
		os.WriteFile(fixturePath(f.name, false), data, 0o644)
		if globals != nil {
			os.WriteFile(fixturePath(f.name, true), globals, 0o644)
		}
	}
	writePDFFixtures(t, page)
}

// writePDFFixtures writes internal/pdf's JBIG2 pages: the page as one
// generic region, and as a text region whose symbol dictionary is in the
// stream's /JBIG2Globals, each checked against jbig2dec.
func writePDFFixtures(t *testing.T, page *Bitmap) {
	// As PDF holds them: no end of page.
	generic := &stream{}
	generic.segment(typePageInfo, 1, nil, pageInfoData(uint32(page.Width), uint32(page.Height), 0, 0))
	generic.segment(typeLosslessGeneric, 1, nil, genericData(page, 0, 0, opOR, genericParams{template: 0, tpgdon: true, at: nominalAT[0]}, nil))
	text, globals := textStream(page, 0, 2, true)
	for _, f := range []struct {
		name          string
		data, globals []byte
	}{
		{"jbig2-generic.pdf", generic.Bytes(), nil},
		{"jbig2-globals.pdf", text, globals},
	} {
		if d := differ(jbig2dec(t, f.data, f.globals), page); d != "" {
			t.Fatalf("%s: jbig2dec: %s", f.name, d)
		}
		out := filepath.Join("..", "pdf", "testdata", f.name)
		if err := os.WriteFile(out, onePagePDF(page.Width, page.Height, f.data, f.globals), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// onePagePDF is a letter page drawing one JBIG2 image, its globals in
// their own stream if any.
func onePagePDF(w, h int, data, globals []byte) []byte {
	var b bytes.Buffer
	var offs []int
	obj := func(body string, stream []byte) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s", len(offs), body)
		if stream != nil {
			fmt.Fprintf(&b, "\nstream\n")
			b.Write(stream)
			b.WriteString("\nendstream")
		}
		b.WriteString("\nendobj\n")
	}
	b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	content := []byte("q 612 0 0 792 0 0 cm /Im0 Do Q")
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", nil)
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>", nil)
	obj(fmt.Sprintf("<< /Length %d >>", len(content)), content)
	parms := ""
	if globals != nil {
		parms = " /DecodeParms << /JBIG2Globals 6 0 R >>"
	}
	obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode%s /Length %d >>", w, h, parms, len(data)), data)
	if globals != nil {
		obj(fmt.Sprintf("<< /Length %d >>", len(globals)), globals)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return b.Bytes()
}
