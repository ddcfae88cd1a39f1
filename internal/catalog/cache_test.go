package catalog

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// cacheVault writes a small Vault whose papers use every field of the
// cache: metadata of every kind, a broken metadata.json, notes, a PAPER.md
// heading, nested papers and PDFs.
func cacheVault(t testing.TB) string {
	dir := t.TempDir()
	w := func(rel, content string) { write(t, dir, rel, content) }
	w("papers/a/metadata.json", `{"title":"Attention","authors":["Ada","Bo"],"year":2017,"date":"2017-06-12",
		"abstract":"Line one\nline two","doi":"10.1/A","arxiv_id":"1706.03762v5","tags":["nlp","x"],"publication":"NeurIPS"}`)
	w("papers/a/a.pdf", "%PDF-1.4")
	w("papers/a/NOTES.md", "notes")
	w("papers/b/metadata.json", `{broken`)
	w("papers/b/PAPER.md", "# Heading B\n")
	w("papers/org/NOTES.md", "# index")
	w("papers/org/c/NOTES.md", "notes")
	w("papers/org/c/files/z.pdf", "%PDF")
	w("papers/2401.01234/2401.01234.pdf", "%PDF")
	w("papers/ü 名前/metadata.json", `{"title":"Ünïcode","date":"1969-12-31"}`)
	return dir
}

// cacheBody returns the cache body (without its seal) the Vault at dir
// writes, and the catalogue it was written from.
func cacheBody(t testing.TB, dir string) ([]byte, *Catalogue) {
	v, err := Open(dir, &Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	c, err := v.Catalogue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return encodeCatalogue(cachedForm(c)), c
}

// cachedForm is what storeCache writes of c.
func cachedForm(c *Catalogue) (cacheHead, []cachedStamp, []cachedPaper) {
	var stamps []cachedStamp
	for _, s := range c.stamps {
		stamps = append(stamps, cachedStamp{Path: s.path, MTime: s.mtime, Size: s.size, Dir: s.dir})
	}
	var papers []cachedPaper
	for _, p := range c.papers {
		cp := cachedPaper{Ref: p.Ref, PDF: p.PDF, Meta: p.Meta, HasNotes: p.HasNotes, HasBody: p.HasBody, Heading: p.heading}
		if p.MetaErr != nil {
			cp.MetaErr = p.MetaErr.Error()
		}
		papers = append(papers, cp)
	}
	return cacheHead{Version: catalogueCacheVersion, Stamps: len(stamps), Papers: len(papers)}, stamps, papers
}

// catalogueOptions compare two catalogues field by field, errors by their
// text and times by their instant.
var catalogueOptions = cmp.Options{
	cmp.AllowUnexported(Catalogue{}, Paper{}, stamp{}),
	cmp.Comparer(func(a, b error) bool { return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error()) }),
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
}

// TestCatalogueCacheRoundTrip: what a process writes, the next one reads
// back whole: every paper field, the stamps and the identifier index.
func TestCatalogueCacheRoundTrip(t *testing.T) {
	dir := cacheVault(t)
	body, built := cacheBody(t, dir)
	got := decodeCatalogue(dir, body)
	if got == nil {
		t.Fatal("the cache written from a catalogue was not read back")
	}
	if diff := cmp.Diff(built, got, catalogueOptions); diff != "" {
		t.Errorf("decoded catalogue (-built +decoded):\n%s", diff)
	}
	if p := got.Paper("papers/a"); p == nil || len(p.Meta.Authors) != 2 || p.Meta.Year != 2017 || !p.HasNotes || p.PDF != "papers/a/a.pdf" {
		t.Errorf("papers/a decoded as %+v", p)
	}
	if p := got.Paper("papers/b"); p == nil || p.MetaErr == nil || p.Title() != "Heading B" || !p.HasBody {
		t.Errorf("papers/b decoded as %+v", p)
	}
}

// TestCatalogueCacheFields: every value a field can hold survives the
// encoding: times before 1970 and far from now, nanoseconds, negative and
// large sizes and years, empty and long strings.
func TestCatalogueCacheFields(t *testing.T) {
	times := []time.Time{
		time.Unix(0, 0), time.Unix(-1, 999_999_999), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 123_456_789, time.UTC), time.Unix(1_700_000_000, 1),
	}
	for _, mt := range times {
		for _, size := range []int64{0, -1, 1 << 62} {
			stamps := []cachedStamp{{Path: "papers", MTime: mt, Dir: true}, {Path: "papers/a/metadata.json", MTime: mt, Size: size}}
			papers := []cachedPaper{{Ref: "papers/a", Meta: Metadata{Title: strings.Repeat("t", 300), Year: -7, Authors: []string{"x"}}, MetaErr: "bad", HasBody: true}}
			body := encodeCatalogue(cacheHead{Version: catalogueCacheVersion, Stamps: 2, Papers: 1}, stamps, papers)
			d := cacheDecoder{s: string(body)}
			d.value()
			if v, s, p := d.int(), d.int(), d.int(); v != catalogueCacheVersion || s != 2 || p != 1 {
				t.Fatalf("head = %d %d %d", v, s, p)
			}
			for _, want := range stamps {
				d.value()
				got := cachedStamp{Path: d.str()}
				sec, nsec := d.varint(), d.uvarint()
				got.MTime, got.Size, got.Dir = time.Unix(sec, int64(nsec)), d.varint(), d.flags(1) == 1
				if diff := cmp.Diff(want, got, catalogueOptions); diff != "" {
					t.Errorf("stamp (-want +got):\n%s", diff)
				}
			}
			if !d.ok() {
				t.Fatal("a well-formed cache did not decode")
			}
		}
	}
}

// TestCatalogueCacheTruncated: every cut of a real cache body, and every
// body with one byte changed, either decodes to a catalogue that holds on
// the file system or is refused; none panics, and a cut is always refused.
func TestCatalogueCacheTruncated(t *testing.T) {
	dir := cacheVault(t)
	body, _ := cacheBody(t, dir)
	for n := range len(body) {
		if c := decodeCatalogue(dir, body[:n]); c != nil {
			t.Fatalf("a cache cut at %d of %d bytes was taken", n, len(body))
		}
	}
	if decodeCatalogue(dir, append(body[:len(body):len(body)], 0)) != nil {
		t.Error("a cache with a byte after its last paper was taken")
	}
	for i := range body {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := []byte(string(body))
			b[i] ^= x
			if c := decodeCatalogue(dir, b); c != nil {
				checkHolds(t, c)
			}
		}
	}
}

// TestCatalogueCacheHostile: forged fields the file system cannot refute
// by itself (it is never asked: the decoder refuses them first).
func TestCatalogueCacheHostile(t *testing.T) {
	dir := cacheVault(t)
	_, built := cacheBody(t, dir)
	head, stamps, papers := cachedForm(built)
	huge := func(b []byte) []byte { return append(b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01) }
	tests := []struct {
		name string
		body func() []byte
	}{
		{"another version", func() []byte {
			h := head
			h.Version = 5
			return encodeCatalogue(h, stamps, papers)
		}},
		{"negative counts", func() []byte {
			h := head
			h.Papers = -1
			return encodeCatalogue(h, stamps, papers)
		}},
		{"more papers than the file can hold", func() []byte {
			h := head
			h.Stamps, h.Papers = 1<<30, 1<<30
			return encodeCatalogue(h, stamps, papers)
		}},
		{"a count above 64 bits", func() []byte { return huge(nil) }},
		{"nanoseconds above a second", func() []byte {
			b := encodeCatalogue(cacheHead{Version: catalogueCacheVersion, Stamps: 1}, nil, nil)
			b = append(b, 6)
			b = append(b, "papers"...)
			return append(b, 0, 0x80, 0xa8, 0xd6, 0xb9, 0x07, 0, 1) // 2e9 ns
		}},
		{"unknown flags", func() []byte {
			b := encodeCatalogue(head, stamps, papers)
			b[len(b)-1] |= 4
			return b
		}},
		{"a string longer than the file", func() []byte {
			b := encodeCatalogue(cacheHead{Version: catalogueCacheVersion, Stamps: 1}, nil, nil)
			return append(binaryUvarint(b, 1<<40), "papers"...)
		}},
		{"an empty tag", func() []byte {
			p := append([]cachedPaper(nil), papers...)
			p[0].Meta.Tags = []string{"a", ""}
			return encodeCatalogue(head, stamps, p)
		}},
		{"a stamp path not clean", func() []byte {
			s := append([]cachedStamp(nil), stamps...)
			s[0].Path = "papers/../private"
			return encodeCatalogue(head, s, papers)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c := decodeCatalogue(dir, tt.body()); c != nil {
				t.Errorf("the forged cache was taken: %d papers", len(c.Papers()))
			}
		})
	}
}

func binaryUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// checkHolds fails unless every paper of c is one a walk could have found:
// a folder below papers/, once, with its PDF a .pdf inside it, and no
// empty name or tag.
func checkHolds(t testing.TB, c *Catalogue) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range c.Papers() {
		cp := cachedPaper{Ref: p.Ref, PDF: p.PDF, Meta: p.Meta}
		if !paperHolds(&cp) || seen[p.Ref] || c.Paper(p.Ref) != p {
			t.Fatalf("a decoded paper does not hold: %+v", p)
		}
		seen[p.Ref] = true
	}
	if len(c.stamps) == 0 {
		t.Fatal("a decoded catalogue without stamps")
	}
}

// FuzzCatalogueCache: no cache body makes the decoder panic, take more
// than its budget, or return a paper a walk could not have found. The
// seed is a real cache, written from a Vault that uses every field.
func FuzzCatalogueCache(f *testing.F) {
	dir := cacheVault(f)
	body, _ := cacheBody(f, dir)
	f.Add(body)
	f.Add(body[:len(body)/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if c := decodeCatalogue(dir, b); c != nil {
			checkHolds(t, c)
			if again := decodeCatalogue(dir, encodeCatalogue(cachedForm(c))); again == nil {
				t.Fatal("a decoded catalogue, written again, is not read back")
			}
		}
	})
}

// TestCatalogueCacheOldFileRemoved: a process that writes the cache
// removes the gob stream versions up to 5 wrote, which no process reads.
func TestCatalogueCacheOldFileRemoved(t *testing.T) {
	dir := cacheVault(t)
	write(t, dir, ".agentero/cache/"+oldCacheFile, "an old cache")
	v, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := v.Catalogue(context.Background()); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, ".agentero", "cache")
	if _, err := os.Stat(filepath.Join(cache, oldCacheFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the old cache is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, cacheFile)); err != nil {
		t.Errorf("the cache was not written: %v", err)
	}
}

// TestCatalogueCacheCountsBudgeted: a head whose counts the file could
// hold (at the smallest stamp's bytes each) but the memory budget cannot
// is refused before room is made for them.
func TestCatalogueCacheCountsBudgeted(t *testing.T) {
	const size = 12 << 20
	b := encodeCatalogue(cacheHead{Version: catalogueCacheVersion, Stamps: size / minStampBytes, Papers: 0}, nil, nil)
	b = append(b, make([]byte, size-len(b))...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := decodeCatalogue(t.TempDir(), b)
	runtime.ReadMemStats(&after)
	if c != nil {
		t.Fatal("the forged cache was taken")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*size {
		t.Errorf("refusing a %d MB cache allocated %d MB", size>>20, alloc>>20)
	}
}
