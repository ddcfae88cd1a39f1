// Package hostilepdf generates PDFs built to exhaust a text extractor, one per
// class of attack, for the hostile-content tests and the pdfhostile
// measurement command, and measures the peak memory of a process. Each is small on disk (at most a few megabytes) and
// costly to read: the fixtures are made by code, never committed.
package hostilepdf

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Case is one hostile document.
type Case struct {
	Name string
	// Make builds the document.
	Make func() []byte
}

// Cases returns one case per class of attack, at the sizes the issue
// tracker reported (or larger).
func Cases() []Case {
	cases := []Case{
		{"content arrays nested 1M deep", func() []byte { return DeepContent("[", 1<<20) }},
		{"content dictionaries nested 1M deep", func() []byte { return DeepContent("<<", 1<<20) }},
		{"content arrays nested 30M deep, compressed", func() []byte { return DeepContentFlate(30 << 20) }},
		{"object arrays nested 1M deep", func() []byte { return DeepObject("[", 1<<20) }},
		{"object dictionaries nested 100k deep", func() []byte { return DeepObject("<</A ", 100000) }},
		{"object arrays nested 1M deep in an object stream", func() []byte { return DeepObjectStream(1 << 20) }},
		{"operand stack flood", func() []byte { return OperandFlood(1 << 20) }},
		{"text bomb, one page", func() []byte { return TextBomb(1, 30<<20) }},
		{"text bomb, 400 pages", func() []byte { return TextBomb(400, 1<<20) }},
		{"2000 pages", func() []byte { return ManyPages(2000) }},
		{"2000 pages sharing one text stream", func() []byte { return TextBomb(2000, 256<<10) }},
		{"Flate bomb, 1 GiB of zeros", func() []byte { return FlateBomb(1 << 30) }},
		{"huge stream, 40 MB", func() []byte { return HugeStream(40 << 20) }},
		{"40 pages sharing a 30 MB stream", func() []byte { return SharedStream(40, 30<<20) }},
		{"form drawing itself", SelfForm},
		{"form fan-out", func() []byte { return FormFanOut(11, 16) }},
		{"name tree listing itself as its kids", func() []byte { return NameTreeCycle(1000) }},
		{"large file, 120 MB", func() []byte { return LargeFile(120 << 20) }},
		{"large file, 120 MB, no cross-reference table", func() []byte { return NoXRef(LargeFile(120 << 20)) }},
		{"broken xref over 8 object-stream bombs of 30 MB", func() []byte { return BrokenXRefObjectStreams(8, 30<<20) }},
		{"TrueType cmap of 2000 huge unassigned groups", func() []byte { return SparseCmapFont(2000) }},
		{"xref stream of 4M entries", func() []byte { return XRefStreamFlood(4_000_000) }},
		{"xref stream of 500k entries", func() []byte { return XRefStreamFlood(500_000) }},
		{"xref stream of 4M free entries", func() []byte { return XRefStreamFreeFlood(4_000_000) }},
		{"object stream claiming 4M objects", func() []byte { return ObjectStreamFlood(4_000_000) }},
		{"classic xref claiming 4M objects", func() []byte { return ClassicXRefHugeSize(4_000_000) }},
		{"200 pages of 2000 annotations of 1000 characters", func() []byte { return AnnotFlood(200, 2000, 1000) }},
		{"xref listing one 100 kB object 4000 times", func() []byte { return DuplicateObjectFlood(4000, 100_000) }},
		{"65,000 small objects", func() []byte { return ManyObjects(65_000) }},
		{"300,000 small objects", func() []byte { return ManyObjects(300_000) }},
		{"300,000 small objects, no cross-reference table", func() []byte { return NoXRef(ManyObjects(300_000)) }},
	}
	for i := range cases {
		cases[i].Make = keep(cases[i].Name, cases[i].Make)
	}
	return cases
}

// maxKept is the largest document keep holds on to. The small ones are
// the costly ones to make (a GiB of zeros compressed, thousands of
// compressed pages); the large ones are written out fast, and held they
// would weigh on the process that reads them.
const maxKept = 4 << 20

// kept holds the documents of the cases made so far, by case name.
var kept sync.Map

// keep returns build, remembering what it returns when that is at most
// maxKept bytes: tests of several readers make every case, and a case
// made again is made the same. Each call returns a copy of its own.
func keep(name string, build func() []byte) func() []byte {
	return func() []byte {
		if data, ok := kept.Load(name); ok {
			return bytes.Clone(data.([]byte))
		}
		data := build()
		if len(data) <= maxKept {
			kept.Store(name, bytes.Clone(data))
		}
		return data
	}
}

// writer assembles a PDF from object sources, numbered from 1 in the order
// added, with a classic cross-reference table.
type writer struct{ objs [][]byte }

func (w *writer) add(src string) int {
	w.objs = append(w.objs, []byte(src))
	return len(w.objs)
}

func (w *writer) set(n int, src string) { w.objs[n-1] = []byte(src) }

// stream adds a stream object holding data as it is (already encoded
// when dict names a filter).
func (w *writer) stream(dict string, data []byte) int {
	var b bytes.Buffer
	b.Grow(len(dict) + len(data) + 64)
	fmt.Fprintf(&b, "<< %s /Length %d >>\nstream\n", dict, len(data))
	b.Write(data)
	b.WriteString("\nendstream")
	w.objs = append(w.objs, b.Bytes())
	return len(w.objs)
}

// flate adds a FlateDecode stream of what r yields.
func (w *writer) flate(r io.Reader) int { return w.flateDict("", r) }

// flateDict adds a FlateDecode stream of what r yields, with the entries
// of dict besides.
func (w *writer) flateDict(dict string, r io.Reader) int {
	return w.stream(strings.TrimSpace(dict+" /Filter /FlateDecode"), zlibBytes(r))
}

// flateRun adds a FlateDecode stream of n bytes c.
func (w *writer) flateRun(c byte, n int64) int {
	return w.stream("/Filter /FlateDecode", zlibRun(c, n))
}

// zlibWriters holds zlib writers at the best compression for reuse: a
// new one allocates and clears about a megabyte of state, which is most
// of the cost of compressing a small stream (ManyPages makes thousands).
var zlibWriters = sync.Pool{New: func() any {
	z, _ := zlib.NewWriterLevel(nil, zlib.BestCompression)
	return z
}}

// zlibBytes returns the zlib stream of what r yields, at the best
// compression.
func zlibBytes(r io.Reader) []byte {
	var b bytes.Buffer
	z := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(z)
	z.Reset(&b)
	if _, err := io.Copy(z, r); err != nil {
		panic(err) // readers here are in memory
	}
	z.Close()
	return b.Bytes()
}

// runKey names a run of n bytes c.
type runKey struct {
	c byte
	n int64
}

// zlibRuns holds the zlib streams zlibRun made, by run: about a
// thousandth of the run each.
var zlibRuns sync.Map

// zlibRun returns the zlib stream of n bytes c (deflateRun), made once
// per process: the same run recurs (eight times in one
// BrokenXRefObjectStreams document). The stream is shared: callers copy
// it, never change it.
func zlibRun(c byte, n int64) []byte {
	key := runKey{c, n}
	if z, ok := zlibRuns.Load(key); ok {
		return z.([]byte)
	}
	z := deflateRun(c, n)
	zlibRuns.Store(key, z)
	return z
}

func (w *writer) bytes(root int) []byte {
	var out bytes.Buffer
	n := 1024
	for _, o := range w.objs {
		n += len(o) + 64
	}
	out.Grow(n) // once: a file of a large stream grew by copies of it
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(w.objs))
	for i, o := range w.objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n", i+1)
		out.Write(o)
		out.WriteString("\nendobj\n")
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(w.objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(w.objs)+1, root, xref)
	return out.Bytes()
}

// pages adds a page tree whose pages draw the given content streams with
// Helvetica as /F1 and extra resources, and the catalog; it returns the
// catalog's object number.
func (w *writer) pages(contents []int, resources, pageExtra string) int {
	font := w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	res := w.add(fmt.Sprintf("<< /Font << /F1 %d 0 R >> %s >>", font, resources))
	tree := w.add("")
	kids := make([]string, len(contents))
	for i, c := range contents {
		kids[i] = fmt.Sprintf("%d 0 R", w.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources %d 0 R /Contents %d 0 R %s >>", tree, res, c, pageExtra)))
	}
	w.set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	return w.add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
}

// onePage is a document of one page drawing content.
func onePage(content int, w *writer) []byte { return w.bytes(w.pages([]int{content}, "", "")) }

// DeepContent is a page whose content stream opens depth arrays (open
// "[") or dictionaries (open "<<") inside one another, uncompressed.
func DeepContent(open string, depth int) []byte {
	w := &writer{}
	data := "BT /F1 12 Tf 72 700 Td (before) Tj " + strings.Repeat(open, depth) + " TJ ET"
	return onePage(w.stream("", []byte(data)), w)
}

// DeepContentFlate is DeepContent("[", depth) with the content stream
// compressed: a few kilobytes on disk.
func DeepContentFlate(depth int) []byte {
	w := &writer{}
	r := io.MultiReader(strings.NewReader("BT /F1 12 Tf 72 700 Td "), repeat('[', int64(depth)), strings.NewReader(" TJ ET"))
	return onePage(w.flate(r), w)
}

// DeepObject is a document whose page dictionary holds an entry nested
// depth deep (open "[" or "<</A "), in the file's own object syntax.
func DeepObject(open string, depth int) []byte {
	w := &writer{}
	c := w.stream("", []byte("BT /F1 12 Tf 72 700 Td (deep object) Tj ET"))
	return w.bytes(w.pages([]int{c}, "", "/Deep "+strings.Repeat(open, depth)))
}

// OperandFlood is a page with n operands before one operator.
func OperandFlood(n int) []byte {
	w := &writer{}
	data := "BT /F1 12 Tf 72 700 Td " + strings.Repeat("1 ", n) + "Tj ET"
	return onePage(w.stream("", []byte(data)), w)
}

// TextBomb is a document of pages pages that all draw one compressed
// content stream of about size bytes of shown text.
func TextBomb(pages, size int) []byte {
	w := &writer{}
	line := "(" + strings.Repeat("text bomb ", 8) + ") Tj T* "
	n := max(1, size/len(line))
	r := io.MultiReader(strings.NewReader("BT /F1 10 Tf 12 TL 72 760 Td "), strings.NewReader(strings.Repeat(line, n)), strings.NewReader("ET"))
	c := w.flate(r)
	contents := make([]int, pages)
	for i := range contents {
		contents[i] = c
	}
	return w.bytes(w.pages(contents, "", ""))
}

// ManyPages is a document of n pages of ordinary text, each page its own
// small compressed content stream: about 0.3 kB per page on disk.
func ManyPages(n int) []byte {
	w := &writer{}
	contents := make([]int, n)
	for i := range contents {
		var b strings.Builder
		b.WriteString("BT /F1 10 Tf 12 TL 72 760 Td ")
		for l := 0; l < 55; l++ {
			fmt.Fprintf(&b, "(Page %d line %d: the quick brown fox jumps over the lazy dog again.) Tj T* ", i+1, l+1)
		}
		b.WriteString("ET")
		contents[i] = w.flate(strings.NewReader(b.String()))
	}
	return w.bytes(w.pages(contents, "", ""))
}

// FlateBomb is a page whose content stream decodes to size zero bytes.
func FlateBomb(size int64) []byte {
	w := &writer{}
	return onePage(w.flateRun(0, size), w)
}

// HugeStream is a page whose uncompressed content stream is size bytes of
// text operators.
func HugeStream(size int) []byte {
	w := &writer{}
	op := "BT /F1 10 Tf 72 700 Td (huge) Tj ET\n"
	return onePage(w.stream("", []byte(strings.Repeat(op, size/len(op)+1))), w)
}

// SelfForm is a page drawing a Form XObject that draws itself.
func SelfForm() []byte {
	w := &writer{}
	form := w.add("")
	w.set(form, string(streamSrc(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X %d 0 R >> >>", form), "BT /F1 10 Tf 72 700 Td (self) Tj ET /X Do")))
	c := w.stream("", []byte("/X Do"))
	return w.bytes(w.pages([]int{c}, fmt.Sprintf("/XObject << /X %d 0 R >>", form), ""))
}

// FormFanOut is a page drawing a chain of levels Form XObjects each of
// which draws the next one fan times: fan^levels draws of the last.
func FormFanOut(levels, fan int) []byte {
	w := &writer{}
	first := len(w.objs) + 1
	for i := 0; i < levels; i++ {
		w.add("")
	}
	for i := 0; i < levels; i++ {
		body := strings.Repeat("/N Do ", fan)
		res := fmt.Sprintf("/Resources << /XObject << /N %d 0 R >> >>", first+i+1)
		if i == levels-1 {
			body, res = "BT /F1 10 Tf 72 700 Td (leaf) Tj ET", ""
		}
		w.set(first+i, string(streamSrc("/Type /XObject /Subtype /Form /BBox [0 0 612 792] "+res, body)))
	}
	c := w.stream("", []byte("/X Do"))
	return w.bytes(w.pages([]int{c}, fmt.Sprintf("/XObject << /X %d 0 R >>", first), ""))
}

func streamSrc(dict, data string) []byte {
	return []byte(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data))
}

// repeat yields n copies of c.
func repeat(c byte, n int64) io.Reader {
	return io.LimitReader(byteReader(c), n)
}

type byteReader byte

func (b byteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// Plain is an ordinary one-page document showing lines: the control case
// beside the hostile ones.
func Plain(lines ...string) []byte {
	w := &writer{}
	var b strings.Builder
	b.WriteString("BT /F1 10 Tf 12 TL 72 740 Td ")
	for _, l := range lines {
		fmt.Fprintf(&b, "(%s) Tj T* ", strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l))
	}
	b.WriteString("ET")
	return onePage(w.stream("", []byte(b.String())), w)
}

// LargeFile is a page of text drawing an image of size bytes of noise
// (which no filter shrinks): a file near the size limit.
func LargeFile(size int) []byte {
	w := &writer{}
	// Eight bytes of each xorshift step: a step per byte took seconds.
	noise := make([]byte, (size+7)/8*8)
	x := uint64(0x9E3779B97F4A7C15)
	for i := 0; i < len(noise); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(noise[i:], x)
	}
	noise = noise[:size]
	img := w.stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", size), noise)
	c := w.stream("", []byte("q 612 0 0 792 0 0 cm /Im Do Q BT /F1 10 Tf 72 700 Td (large file) Tj ET"))
	return w.bytes(w.pages([]int{c}, fmt.Sprintf("/XObject << /Im %d 0 R >>", img), ""))
}

// PeakRSS returns the calling process's peak resident set in bytes (VmHWM
// from /proc), or -1 where /proc does not give it. A parent cannot take it
// from the rusage of a waited child: that counts the parent's own pages,
// shared with the child before exec.
func PeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return -1
}

// DeepObjectStream is DeepObject("[", depth) with the nested object kept
// compressed in an object stream, which a parser reads by another path
// than the file's plain objects, under a cross-reference stream.
func DeepObjectStream(depth int) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	content := "BT /F1 12 Tf 72 700 Td (deep object stream) Tj ET"
	deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	var zs bytes.Buffer
	z, _ := zlib.NewWriterLevel(&zs, zlib.BestCompression)
	header := "7 0 "
	io.WriteString(z, header+deep)
	z.Close()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R /Deep 7 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		fmt.Sprintf("<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", len(header), zs.Len(), zs.String()),
	}
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	// Cross-reference stream: objects 0..8 (7 in the object stream, 8 the
	// stream itself), fields of 1, 4 and 2 bytes.
	xrefAt := out.Len()
	var rows []byte
	row := func(typ byte, f2 uint32, f3 uint16) {
		rows = append(rows, typ, byte(f2>>24), byte(f2>>16), byte(f2>>8), byte(f2), byte(f3>>8), byte(f3))
	}
	row(0, 0, 65535)
	for _, off := range offs {
		row(1, uint32(off), 0)
	}
	row(2, 6, 0)
	row(1, uint32(xrefAt), 0)
	fmt.Fprintf(&out, "8 0 obj\n<< /Type /XRef /Size 9 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", len(rows))
	out.Write(rows)
	fmt.Fprintf(&out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefAt)
	return out.Bytes()
}

// SharedStream is a document of pages pages that all draw one compressed
// content stream of size bytes of white space: each page decodes it
// again.
func SharedStream(pages int, size int64) []byte {
	w := &writer{}
	c := w.flateRun(' ', size)
	contents := make([]int, pages)
	for i := range contents {
		contents[i] = c
	}
	return w.bytes(w.pages(contents, "", ""))
}

// NameTreeCycle is a page with an outline of items bookmarks, each naming
// a destination that is not there, in a /Dests name tree whose root lists
// itself eight times as a kid: a reader that walks the tree's paths rather
// than its nodes takes 8^depth steps per lookup.
func NameTreeCycle(items int) []byte {
	w := &writer{}
	c := w.stream("", []byte("BT /F1 12 Tf 72 700 Td (name tree) Tj ET"))
	tree := w.add("")
	w.set(tree, fmt.Sprintf("<< /Kids [%s] >>", strings.Repeat(fmt.Sprintf("%d 0 R ", tree), 8)))
	outline := w.add("")
	first := len(w.objs) + 1
	for i := 0; i < items; i++ {
		next := ""
		if i+1 < items {
			next = fmt.Sprintf("/Next %d 0 R", first+i+1)
		}
		w.add(fmt.Sprintf("<< /Title (Item %d) /Parent %d 0 R /Dest (missing%d) %s >>", i, outline, i, next))
	}
	w.set(outline, fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Count %d >>", first, items))
	root := w.pages([]int{c}, "", "")
	// The catalog is the last object: give it the outline and the names.
	cat := string(w.objs[root-1])
	w.set(root, strings.TrimSuffix(cat, ">>")+fmt.Sprintf("/Outlines %d 0 R /Names << /Dests %d 0 R >> >>", outline, tree))
	return w.bytes(root)
}

// BrokenXRefObjectStreams is a one-page document whose cross-reference
// offsets are all wrong, so that it is read by rebuilding the table, and
// which holds n object streams each decoding to size zero bytes: the
// rebuild unpacks object streams, and must do so within its budget.
func BrokenXRefObjectStreams(n int, size int64) []byte {
	w := &writer{}
	text := w.stream("", []byte("BT /F1 10 Tf 72 700 Td (still here) Tj ET"))
	for range n {
		w.stream("/Type /ObjStm /N 1 /First 10 /Filter /FlateDecode", zlibRun(0, size))
	}
	data := onePage(text, w)
	return regexp.MustCompile(`(?m)^\d{10} 00000 n`).ReplaceAll(data, []byte("0000000017 00000 n"))
}

// SparseCmapTrueType is a TrueType program holding only a cmap table whose
// one subtable (Windows, UCS-4) is format 12 with groups groups, each
// mapping U+40000–U+DFFFF, code points no version of Unicode assigns, to
// glyphs from 1: about 12 bytes a group, and groups × 655,360 codes for a
// reader that walks every code of every group looking for one to keep.
func SparseCmapTrueType(groups int) []byte {
	var sub bytes.Buffer
	be := func(v any) { binary.Write(&sub, binary.BigEndian, v) }
	be(uint16(12))             // format
	be(uint16(0))              // reserved
	be(uint32(16 + 12*groups)) // length
	be(uint32(0))              // language
	be(uint32(groups))         // numGroups
	for range groups {
		be([3]uint32{0x40000, 0xDFFFF, 1}) // startCharCode, endCharCode, startGlyphID
	}
	var cmap bytes.Buffer
	binary.Write(&cmap, binary.BigEndian, []uint16{0, 1, 3, 10}) // version, numTables, platform, encoding
	binary.Write(&cmap, binary.BigEndian, uint32(12))            // subtable offset
	cmap.Write(sub.Bytes())
	var font bytes.Buffer
	binary.Write(&font, binary.BigEndian, []uint32{0x00010000})  // sfnt version
	binary.Write(&font, binary.BigEndian, []uint16{1, 16, 0, 0}) // numTables, searchRange, entrySelector, rangeShift
	font.WriteString("cmap")
	binary.Write(&font, binary.BigEndian, []uint32{0, 28, uint32(cmap.Len())}) // checksum, offset, length
	font.Write(cmap.Bytes())
	return font.Bytes()
}

// SparseCmapFont is a page showing text in a Type 0 font with neither a
// ToUnicode CMap nor an Adobe collection, whose embedded TrueType program
// (SparseCmapTrueType(groups)) is its only source of text.
func SparseCmapFont(groups int) []byte {
	w := &writer{}
	prog := w.flate(bytes.NewReader(SparseCmapTrueType(groups)))
	desc := w.add(fmt.Sprintf("<< /Type /FontDescriptor /FontName /Sparse /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 %d 0 R >>", prog))
	cid := w.add(fmt.Sprintf("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Sparse /CIDSystemInfo << /Registry (Hostile) /Ordering (Sparse) /Supplement 0 >> /FontDescriptor %d 0 R /DW 1000 /CIDToGIDMap /Identity >>", desc))
	t0 := w.add(fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /Sparse /Encoding /Identity-H /DescendantFonts [%d 0 R] >>", cid))
	helv := w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	c := w.stream("", []byte("BT /F1 12 Tf 72 700 Td (sparse cmap) Tj /F2 12 Tf <00010002> Tj ET"))
	tree := w.add("")
	page := w.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> /Contents %d 0 R >>", tree, helv, t0, c))
	w.set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	return w.bytes(w.add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree)))
}

// xrefStreamDoc is a one-page document of plain objects whose
// cross-reference stream (fields of 1, 4 and 2 bytes, Flate-compressed)
// lists the document's own objects and then the rows extra gives, numbered
// on from them; dict is added to the stream's dictionary. It returns the
// file and the offsets of the plain objects.
func xrefStreamDoc(objs []string, extra func(offs []int, row func(typ byte, f2 uint32, f3 uint16)) int, dict string) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xrefAt := out.Len()
	var zs bytes.Buffer
	z, _ := zlib.NewWriterLevel(&zs, zlib.BestCompression)
	bz := bufio.NewWriterSize(z, 64<<10) // millions of rows: a call each costs more than the rows
	var rowBuf [7]byte
	row := func(typ byte, f2 uint32, f3 uint16) {
		rowBuf = [7]byte{typ, byte(f2 >> 24), byte(f2 >> 16), byte(f2 >> 8), byte(f2), byte(f3 >> 8), byte(f3)}
		bz.Write(rowBuf[:])
	}
	row(0, 0, 65535)
	for _, off := range offs {
		row(1, uint32(off), 0)
	}
	self := len(objs) + 1
	row(1, uint32(xrefAt), 0)
	n := self + 1
	if extra != nil {
		n += extra(offs, row)
	}
	bz.Flush()
	z.Close()
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length %d %s >>\nstream\n", self, n, zs.Len(), dict)
	out.Write(zs.Bytes())
	fmt.Fprintf(&out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefAt)
	return out.Bytes()
}

// smallDocObjects are the plain objects of a one-page document: catalog,
// page tree, page, font and content stream.
func smallDocObjects(text string) []string {
	content := fmt.Sprintf("BT /F1 12 Tf 72 700 Td (%s) Tj ET", text)
	return []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
}

// XRefStreamFlood is a one-page document whose compressed
// cross-reference stream lists entries more objects, every one in use at
// the offset of the page's font dictionary: a reader that keeps (and
// parses) an object per entry pays for each, while the file stays a few
// bytes per thousand entries.
func XRefStreamFlood(entries int) []byte {
	return xrefStreamDoc(smallDocObjects("xref stream flood"), func(offs []int, row func(byte, uint32, uint16)) int {
		for range entries {
			row(1, uint32(offs[3]), 0)
		}
		return entries
	}, "")
}

// XRefStreamFreeFlood is XRefStreamFlood with every extra entry free:
// nothing to parse, only the entries themselves.
func XRefStreamFreeFlood(entries int) []byte {
	return xrefStreamDoc(smallDocObjects("free entry flood"), func(offs []int, row func(byte, uint32, uint16)) int {
		for range entries {
			row(0, 0, 0)
		}
		return entries
	}, "")
}

// ObjectStreamFlood is a one-page document holding an object stream that
// claims n objects (/N), its header listing them all (the same object
// number again and again, so that it compresses to almost nothing), one
// of which the cross-reference stream names.
func ObjectStreamFlood(n int) []byte {
	var zs bytes.Buffer
	z, _ := zlib.NewWriterLevel(&zs, zlib.BestCompression)
	bz := bufio.NewWriterSize(z, 64<<10)
	pair := []byte("9 0 ")
	for range n {
		bz.Write(pair)
	}
	bz.WriteString("null ")
	bz.Flush()
	z.Close()
	first := n * len(pair)
	objs := smallDocObjects("object stream flood")
	objs = append(objs, fmt.Sprintf("<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", n, first, zs.Len(), zs.String()))
	// Objects 1–6 plain, 7 the cross-reference stream, 8 free, 9 in the
	// object stream (object 6).
	return xrefStreamDoc(objs, func(offs []int, row func(byte, uint32, uint16)) int {
		row(0, 0, 0)
		row(2, 6, 0)
		return 2
	}, "")
}

// ClassicXRefHugeSize is a one-page document with a classic
// cross-reference table whose trailer claims /Size objects.
func ClassicXRefHugeSize(size int) []byte {
	w := &writer{}
	data := onePage(w.stream("", []byte("BT /F1 12 Tf 72 700 Td (huge size) Tj ET")), w)
	return regexp.MustCompile(`/Size \d+`).ReplaceAll(data, []byte("/Size "+strconv.Itoa(size)))
}

// AnnotFlood is a document of pages pages, each listing annots times one
// free-text annotation whose /Contents is chars characters: text the page
// content never shows, the same object drawn over and over.
func AnnotFlood(pages, annots, chars int) []byte {
	return Annots(pages, annots, strings.Repeat("flood ", chars/6+1)[:chars])
}

// Annots is a document of pages pages, each listing annots times one
// free-text annotation whose /Contents is text.
func Annots(pages, annots int, text string) []byte {
	w := &writer{}
	text = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`, "\n", `\n`, "\r", `\r`).Replace(text)
	annot := w.add(fmt.Sprintf("<< /Type /Annot /Subtype /FreeText /Rect [72 72 540 200] /DA (/Helv 10 Tf 0 g) /Contents (%s) >>", text))
	list := w.add("[" + strings.Repeat(fmt.Sprintf("%d 0 R ", annot), annots) + "]")
	c := w.stream("", []byte("BT /F1 12 Tf 72 700 Td (page text) Tj ET"))
	contents := make([]int, pages)
	for i := range contents {
		contents[i] = c
	}
	return w.bytes(w.pages(contents, "", fmt.Sprintf("/Annots %d 0 R", list)))
}

// ManyObjects is a one-page document with n more small dictionaries, each
// its own object in a classic table: an honest file at the object limit.
func ManyObjects(n int) []byte {
	w := &writer{}
	c := w.stream("", []byte("BT /F1 12 Tf 72 700 Td (many objects) Tj ET"))
	for i := range n {
		w.add(fmt.Sprintf("<< /K %d >>", i))
	}
	return onePage(c, w)
}

// DuplicateObjectFlood is a one-page document whose cross-reference
// stream lists entries more objects, few enough for the file's size, all
// at the offset of one dictionary of about size bytes: a reader that
// parses each entry's object reads that dictionary entries times.
func DuplicateObjectFlood(entries, size int) []byte {
	objs := smallDocObjects("duplicate object flood")
	objs = append(objs, "<< /Pad ["+strings.Repeat("0 ", size/2)+"] >>")
	return xrefStreamDoc(objs, func(offs []int, row func(byte, uint32, uint16)) int {
		for range entries {
			row(1, uint32(offs[5]), 0)
		}
		return entries
	}, "")
}

// NoXRef is data with its cross-reference table and trailer cut off, so
// that a reader must find the objects by scanning the file.
func NoXRef(data []byte) []byte {
	if i := bytes.LastIndex(data, []byte("\nxref\n")); i >= 0 {
		return data[:i+1]
	}
	return data
}
