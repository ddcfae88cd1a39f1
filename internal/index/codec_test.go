package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// clone returns a deep copy of ix that can be edited without touching ix.
func clone(ix *Index) *Index {
	c := *ix
	for _, a := range []*[]uint32{&c.keyEnd, &c.titleLen, &c.bodyLen, &c.bodyStart, &c.termOff, &c.postStart, &c.postDoc, &c.posStart, &c.pos} {
		*a = slices.Clone(*a)
	}
	return &c
}

// termList returns the terms of ix in term order.
func termList(ix *Index) []string {
	var ts []string
	for t := range len(ix.termOff) - 1 {
		ts = append(ts, ix.terms[ix.termOff[t]:ix.termOff[t+1]])
	}
	return ts
}

// setTerms replaces the dictionary strings of ix, keeping term numbers.
func setTerms(ix *Index, ts []string) {
	ix.terms = strings.Join(ts, "")
	ix.termOff = []uint32{0}
	for _, t := range ts {
		ix.termOff = append(ix.termOff, ix.termOff[len(ix.termOff)-1]+uint32(len(t)))
	}
}

// firstRun returns the start of the first run start[i]:start[i+1] with at
// least two elements.
func firstRun(tb testing.TB, start []uint32) uint32 {
	for i := range len(start) - 1 {
		if start[i+1]-start[i] >= 2 {
			return start[i]
		}
	}
	tb.Fatal("no run of two")
	return 0
}

// TestReadInconsistent feeds Read files with a valid checksum whose
// content WriteTo could not have written.
func TestReadInconsistent(t *testing.T) {
	good := sampleIndex()
	header := func(i int, v uint32) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint32(b[len(magic)+4+4*i:], v) }
	}
	tests := []struct {
		name  string
		edit  func(ix *Index) // on a copy of good, before encoding
		patch func(b []byte)  // on the encoding, before resealing
	}{
		{name: "terms out of order", edit: func(ix *Index) {
			ts := termList(ix)
			ts[0], ts[1] = ts[1], ts[0]
			setTerms(ix, ts)
		}},
		{name: "duplicate term", edit: func(ix *Index) {
			ts := termList(ix)
			ts[1] = ts[0]
			setTerms(ix, ts)
		}},
		{name: "empty term", edit: func(ix *Index) {
			ts := termList(ix)
			ts[0] = ""
			setTerms(ix, ts)
		}},
		{name: "term not UTF-8", edit: func(ix *Index) {
			ts := termList(ix)
			ts[len(ts)-1] += "\xff"
			setTerms(ix, ts)
		}},
		{name: "term boundary inside a character", edit: func(ix *Index) {
			for i := range len(ix.termOff) - 1 {
				if ix.terms[ix.termOff[i]] >= 0x80 {
					ix.termOff[i]++
					return
				}
			}
			t.Fatal("no term starting with a multi-byte character")
		}},
		{name: "term without postings", edit: func(ix *Index) { ix.postStart[1] = ix.postStart[0] }},
		{name: "posting offsets descend", edit: func(ix *Index) { ix.postStart[1], ix.postStart[2] = ix.postStart[2], ix.postStart[1] }},
		{name: "document out of range", edit: func(ix *Index) { ix.postDoc[0] = uint32(ix.Len()) }},
		{name: "documents out of order", edit: func(ix *Index) {
			j := firstRun(t, ix.postStart)
			ix.postDoc[j], ix.postDoc[j+1] = ix.postDoc[j+1], ix.postDoc[j]
		}},
		{name: "repeated document", edit: func(ix *Index) {
			j := firstRun(t, ix.postStart)
			ix.postDoc[j+1] = ix.postDoc[j]
		}},
		{name: "posting without positions", edit: func(ix *Index) { ix.posStart[1] = ix.posStart[0] }},
		{name: "position offsets past the end", edit: func(ix *Index) { ix.posStart[1] = uint32(len(ix.pos) + 1) }},
		{name: "positions out of order", edit: func(ix *Index) {
			k := firstRun(t, ix.posStart)
			ix.pos[k], ix.pos[k+1] = ix.pos[k+1], ix.pos[k]
		}},
		{name: "repeated position", edit: func(ix *Index) {
			k := firstRun(t, ix.posStart)
			ix.pos[k+1] = ix.pos[k]
		}},
		{name: "document count disagrees with length", patch: header(0, 4)},
		{name: "posting count disagrees with length", patch: header(2, 1<<31)},
		{name: "key offsets descend", patch: func(b []byte) { binary.LittleEndian.PutUint32(b[headerLen:], 1<<30) }},
		{name: "key offsets short of the keys", patch: func(b []byte) {
			n := int(binary.LittleEndian.Uint32(b[len(magic)+4:]))
			binary.LittleEndian.PutUint32(b[headerLen+4*(n-1):], 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := clone(good)
			if tt.edit != nil {
				tt.edit(ix)
			}
			b := encode(t, ix)
			if tt.patch != nil {
				tt.patch(b)
			}
			got, err := Read(bytes.NewReader(reseal(b)))
			t.Log(err)
			if !errors.Is(err, ErrCorrupt) || got != nil {
				t.Errorf("Read = %v, %v; want nil, %v", got, err, ErrCorrupt)
			}
		})
	}
	// The edits above leave the original intact and decodable.
	if _, err := Read(bytes.NewReader(encode(t, good))); err != nil {
		t.Fatal(err)
	}
}

// TestReadSources reads one encoding through every kind of reader and
// with the arrays at an address that cannot be used in place.
func TestReadSources(t *testing.T) {
	want := sampleIndex()
	data := encode(t, want)
	path := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() io.Reader {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	tests := []struct {
		name string
		r    func() io.Reader
	}{
		{"bytes.Reader", func() io.Reader { return bytes.NewReader(data) }},
		{"strings.Reader", func() io.Reader { return strings.NewReader(string(data)) }},
		{"bytes.Buffer", func() io.Reader { return bytes.NewBuffer(slices.Clone(data)) }},
		{"file", open},
		{"one byte at a time", func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) }},
		{"plain reader", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(data)} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.r())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(Index{}, params{}), ignoreBlocks); diff != "" {
				t.Errorf("index (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("misaligned", func(t *testing.T) {
		buf := make([]byte, len(data)+1)
		odd := buf[1:]
		copy(odd, data)
		got, err := decode(odd)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(Index{}, params{}), ignoreBlocks); diff != "" {
			t.Errorf("index (-want +got):\n%s", diff)
		}
	})
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := Read(io.MultiReader(bytes.NewReader(data[:20]), iotest.ErrReader(boom)))
		if !errors.Is(err, boom) {
			t.Errorf("Read = %v, want %v", err, boom)
		}
	})
}

// blockDocs returns 600 documents of 120 words drawn from 3,000, the same
// each call: enough terms for a dictionary of many blocks.
func blockDocs() []Doc {
	r := rand.New(rand.NewPCG(4, 2))
	var docs []Doc
	for d := range 600 {
		w := make([]string, 120)
		for i := range w {
			w[i] = fmt.Sprintf("w%04d", r.IntN(3000))
		}
		docs = append(docs, Doc{Key: fmt.Sprintf("d%03d", d), Title: w[0], Body: strings.Join(w[1:], " ")})
	}
	return docs
}

// TestLoadLazyDamagedBlock damages one block of postings: Load refuses the
// index, LoadLazy opens it, a search reads only the blocks of its terms,
// and the damaged block is reported by Damaged and never used.
func TestLoadLazyDamagedBlock(t *testing.T) {
	docs := blockDocs()
	var buf bytes.Buffer
	if _, err := Build(docs).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	clean, err := LoadLazy(slices.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	nb := len(clean.blockSum)
	if nb < 4 {
		t.Fatalf("%d blocks, want several", nb)
	}
	// Damage a position in the middle block.
	bad := nb / 2
	_, _, qlo, qhi, _ := clean.blockRanges(bad)
	headLen := len(data) - 4 - len(clean.terms) - keyBytes(clean) - 4*(len(clean.postDoc)+len(clean.posStart)+len(clean.pos))
	at := headLen + 4*(len(clean.postDoc)+len(clean.posStart)) + 4*int((qlo+qhi)/2)
	damaged := slices.Clone(data)
	damaged[at] ^= 0x55

	if _, err := Load(slices.Clone(damaged)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load of a damaged block: %v, want ErrCorrupt", err)
	}
	ix, err := LoadLazy(damaged)
	if err != nil {
		t.Fatalf("LoadLazy: %v", err)
	}
	termIn := func(b int) string {
		tm := ix.blockTerm[b]
		return ix.terms[ix.termOff[tm]:ix.termOff[tm+1]]
	}
	checkedBlocks := func() int {
		n := 0
		for i := range ix.checked {
			if ix.checked[i].Load() != blockUnchecked {
				n++
			}
		}
		return n
	}
	if n := checkedBlocks(); n != 0 {
		t.Fatalf("%d blocks checked before any search", n)
	}
	good := termIn(0)
	set, cleanSet := NewSet(ix), NewSet(clean)
	if d := set.Damaged(good); len(d) != 0 {
		t.Fatalf("Damaged(%q) = %v, want none", good, d)
	}
	got, _ := set.Search(good, 10, nil)
	want, _ := cleanSet.Search(good, 10, nil)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search of an undamaged block (-want +got):\n%s", diff)
	}
	if n := checkedBlocks(); n != 1 {
		t.Errorf("%d blocks checked by a one-term search, want 1", n)
	}
	q := termIn(bad)
	if d := set.Damaged(q); !slices.Equal(d, []int{0}) {
		t.Fatalf("Damaged(%q) = %v, want [0]", q, d)
	}
	if hits, total := set.Search(q, 10, nil); len(hits) != 0 || total != 0 {
		t.Errorf("search of a damaged block: %d hits (total %d), want none", len(hits), total)
	}
}

func keyBytes(ix *Index) int { return len(ix.keyData) }

// TestWriteToStreams checks that WriteTo, which streams through a small
// buffer, writes the bytes of the layout as one piece (the encoding it
// replaced), for an index larger than its buffer, and that a writer that
// fails stops it with the writer's error.
func TestWriteToStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 3))
	var docs []Doc
	for d := range 400 {
		w := make([]string, 200)
		for i := range w {
			w[i] = fmt.Sprintf("w%04d", r.IntN(5000))
		}
		docs = append(docs, Doc{Key: fmt.Sprintf("d%03d", d), Title: w[0], Body: strings.Join(w[1:], " ")})
	}
	for _, ix := range []*Index{Build(nil), sampleIndex(), Build(docs)} {
		var buf bytes.Buffer
		n, err := ix.WriteTo(&buf)
		if err != nil || n != int64(buf.Len()) {
			t.Fatalf("WriteTo = %d, %v (buffer %d)", n, err, buf.Len())
		}
		if want := wholeEncoding(ix); !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("WriteTo wrote %d bytes differing from the layout's %d", buf.Len(), len(want))
		}
	}
	big := Build(docs)
	fail := errors.New("disk full")
	w := &failingWriter{left: writeChunk + 10, err: fail}
	if _, err := big.WriteTo(w); !errors.Is(err, fail) {
		t.Errorf("WriteTo to a failing writer = %v, want %v", err, fail)
	}
}

type failingWriter struct {
	left int
	err  error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, w.err
	}
	w.left -= len(p)
	return len(p), nil
}

// wholeEncoding is the layout WriteTo writes, built in one buffer.
func wholeEncoding(ix *Index) []byte {
	keyBytes := len(ix.keyData)
	bt := ix.blocks()
	counts := [...]int{ix.Len(), len(ix.termOff) - 1, len(ix.postDoc), len(ix.pos), keyBytes, len(ix.terms), len(bt) - 1}
	sums := make([]uint32, len(bt)-1)
	tmp := &Index{postStart: ix.postStart, postDoc: ix.postDoc, posStart: ix.posStart, pos: ix.pos, blockTerm: bt}
	for b := range sums {
		sums[b], _ = tmp.blockSumOf(b)
	}
	b := append([]byte(magic), binary.LittleEndian.AppendUint32(nil, Version)...)
	for _, c := range counts {
		b = binary.LittleEndian.AppendUint32(b, uint32(c))
	}
	end := uint32(0)
	for d := range ix.Len() {
		end += uint32(len(ix.Key(d)))
		b = binary.LittleEndian.AppendUint32(b, end)
	}
	for _, a := range [][]uint32{ix.titleLen, ix.bodyLen, ix.bodyStart, ix.termOff, ix.postStart, bt, sums} {
		b = appendUint32s(b, a)
	}
	headEnd := len(b)
	for _, a := range [][]uint32{ix.postDoc, ix.posStart, ix.pos} {
		b = appendUint32s(b, a)
	}
	tail := len(b)
	for d := range ix.Len() {
		b = append(b, ix.Key(d)...)
	}
	b = append(b, ix.terms...)
	c := crc32.Update(crc32.Update(0, castagnoli, b[:headEnd]), castagnoli, b[tail:])
	return binary.LittleEndian.AppendUint32(b, c)
}

// TestLoadLazyForgedTerms forges a file (checksums made to match) whose
// terms inside one block are out of order: Load refuses it, LoadLazy opens
// it (a block's terms are checked with the block, when a lookup first
// reaches it), a search of another block's term is not affected, and a
// term of the forged block is reported by Damaged and finds nothing. A
// block's first term out of order is refused by LoadLazy itself.
func TestLoadLazyForgedTerms(t *testing.T) {
	docs := blockDocs()
	data := encode(t, Build(docs))
	clean, err := LoadLazy(slices.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	nb := len(clean.blockSum)
	if nb < 4 {
		t.Fatalf("%d blocks, want several", nb)
	}
	// swap returns data with terms i and j (of one length) swapped, resealed.
	termsAt := len(data) - 4 - len(clean.terms)
	swap := func(i, j uint32) []byte {
		b := slices.Clone(data)
		ti, tj := clean.term(i), clean.term(j)
		if len(ti) != len(tj) {
			t.Fatalf("terms %q and %q differ in length", ti, tj)
		}
		copy(b[termsAt+int(clean.termOff[i]):], tj)
		copy(b[termsAt+int(clean.termOff[j]):], ti)
		return reseal(b)
	}
	bad := nb / 2
	lo := clean.blockTerm[bad]
	if clean.blockTerm[bad+1]-lo < 3 {
		t.Fatalf("block %d has %d terms, want at least 3", bad, clean.blockTerm[bad+1]-lo)
	}
	forged := swap(lo+1, lo+2)
	if _, err := Load(slices.Clone(forged)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load of misordered terms: %v, want ErrCorrupt", err)
	}
	ix, err := LoadLazy(forged)
	if err != nil {
		t.Fatalf("LoadLazy: %v", err)
	}
	set, cleanSet := NewSet(ix), NewSet(clean)
	good := clean.term(clean.blockTerm[0] + 1)
	if d := set.Damaged(good); len(d) != 0 {
		t.Fatalf("Damaged(%q) = %v, want none", good, d)
	}
	got, _ := set.Search(good, 10, nil)
	want, _ := cleanSet.Search(good, 10, nil)
	if len(want) == 0 {
		t.Fatalf("no hits for %q in the clean index", good)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search of an undamaged block (-want +got):\n%s", diff)
	}
	for _, q := range []string{clean.term(lo + 1), clean.term(lo + 2)} {
		if d := set.Damaged(q); !slices.Equal(d, []int{0}) {
			t.Errorf("Damaged(%q) = %v, want [0]", q, d)
		}
		if hits, total := set.Search(q, 10, nil); len(hits) != 0 || total != 0 {
			t.Errorf("search of %q in the forged block: %d hits (total %d), want none", q, len(hits), total)
		}
	}

	// A block's first term before the previous block's first term.
	first := swap(clean.blockTerm[bad-1], clean.blockTerm[bad])
	if _, err := LoadLazy(first); !errors.Is(err, ErrCorrupt) {
		t.Errorf("LoadLazy with a block's first term out of order: %v, want ErrCorrupt", err)
	}
}
