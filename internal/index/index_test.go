package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func keys(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Key)
	}
	return out
}

// filler is neutral text that pads documents to similar lengths.
const filler = "Samples were collected over several seasons and stored at low temperature before analysis."

func TestSearchRanking(t *testing.T) {
	tests := []struct {
		name  string
		docs  []Doc
		query string
		want  []string
	}{
		{
			name: "title match beats body match",
			docs: []Doc{
				{Key: "a", Title: "Field notes", Body: "Graphene sheets. " + filler},
				{Key: "b", Title: "Graphene sheets", Body: "Field notes. " + filler},
			},
			query: "graphene",
			want:  []string{"b", "a"}, // without the title weight, a tie ordered by key
		},
		{
			name: "terms together beat terms apart",
			docs: []Doc{
				{Key: "apart", Body: "Heart rate was stable. " + filler + " " + filler + " Attack of fever was noted."},
				{Key: "phrase", Body: "Heart attack was noted. " + filler + " " + filler + " Rate of fever was stable."},
			},
			query: "heart attack",
			want:  []string{"phrase", "apart"}, // without the bonus, a tie ordered by key
		},
		{
			name: "ties ordered by key",
			docs: []Doc{
				{Key: "c", Body: "same words"},
				{Key: "a", Body: "same words"},
				{Key: "b", Body: "same words"},
			},
			query: "words",
			want:  []string{"a", "b", "c"},
		},
		{
			name: "stemming and folding",
			docs: []Doc{
				{Key: "x", Body: "The CAFÉ was connected to the network."},
				{Key: "y", Body: "Nothing to see."},
			},
			query: "cafe connections",
			want:  []string{"x"},
		},
		{
			name: "ligature in text",
			docs: []Doc{
				{Key: "x", Body: "An eﬃcient ﬁlter."},
			},
			query: "efficient filter",
			want:  []string{"x"},
		},
		{
			name: "chinese bigrams",
			docs: []Doc{
				{Key: "zh1", Body: "本文提出一种新的数据处理方法。"},
				{Key: "zh2", Body: "处理器的数量。"},
			},
			query: "数据处理",
			want:  []string{"zh1", "zh2"},
		},
		{
			name:  "stopwords only",
			docs:  []Doc{{Key: "x", Body: "the of and"}},
			query: "the and",
			want:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := Build(tt.docs)
			hits, _ := ix.Search(tt.query, 10)
			if diff := cmp.Diff(tt.want, keys(hits)); diff != "" {
				t.Errorf("Search(%q) keys (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

func TestSearchDeterministic(t *testing.T) {
	var docs []Doc
	for i := range 300 {
		docs = append(docs, Doc{
			Key:   string(rune('a'+i%26)) + strings.Repeat("x", i%7),
			Title: "report " + string(rune('a'+i%5)),
			Body:  strings.Repeat("protein folding energy ", 1+i%3) + filler,
		})
	}
	ix := Build(docs)
	first, n := ix.Search("protein energy report", 50)
	if n != 300 {
		t.Fatalf("matched = %d, want 300", n)
	}
	for range 5 {
		again, _ := Build(docs).Search("protein energy report", 50)
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("search is not deterministic (-first +again):\n%s", diff)
		}
	}
	for i := 1; i < len(first); i++ {
		a, b := first[i-1], first[i]
		if a.Score < b.Score || (a.Score == b.Score && a.Key > b.Key) {
			t.Fatalf("hits %d and %d out of order: %+v, %+v", i-1, i, a, b)
		}
	}
}

func TestSearchCountsAndNorm(t *testing.T) {
	ix := Build([]Doc{
		{Key: "1", Body: "alpha beta"},
		{Key: "2", Body: "alpha"},
		{Key: "3", Body: "gamma"},
	})
	hits, n := ix.Search("alpha beta", 1)
	if n != 2 || len(hits) != 1 || hits[0].Key != "1" {
		t.Fatalf("Search = %v, %d; want doc 1 of 2 matched", hits, n)
	}
	if hits[0].Norm <= 0 || hits[0].Norm > 1 {
		t.Errorf("Norm = %v, want in (0, 1]", hits[0].Norm)
	}
	// A query word the index lacks lowers the normalised score.
	more, _ := ix.Search("alpha beta zeta", 1)
	if more[0].Norm >= hits[0].Norm {
		t.Errorf("Norm with an unknown word %v, want below %v", more[0].Norm, hits[0].Norm)
	}
	if h, n := ix.Search("", 5); h != nil || n != 0 {
		t.Errorf("empty query = %v, %d", h, n)
	}
	if h, _ := ix.Search("alpha", 0); h != nil {
		t.Errorf("k=0 gave %v", h)
	}
	if h, n := Build(nil).Search("alpha", 5); h != nil || n != 0 {
		t.Errorf("empty index = %v, %d", h, n)
	}
}

func sampleIndex() *Index {
	return Build([]Doc{
		{Key: "notes/a.txt", Title: "Graphene transport", Body: "Electron mobility in graphene sheets.\nSecond line about phonons."},
		{Key: "papers/x.pdf#page=3", Title: "", Body: "数据处理方法。 データを解析した。"},
		{Key: "notes/b.txt", Title: "Café notes", Body: "Naïve measurements of mobility."},
	})
}

func encode(t *testing.T, ix *Index) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := ix.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v (buffer %d)", n, err, buf.Len())
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	ix := sampleIndex()
	got, err := Read(bytes.NewReader(encode(t, ix)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ix, got, cmp.AllowUnexported(Index{}, params{}), ignoreBlocks); diff != "" {
		t.Errorf("index after round trip (-want +got):\n%s", diff)
	}
	for _, q := range []string{"graphene mobility", "数据", "cafe", "phonons electron"} {
		a, an := ix.Search(q, 5)
		b, bn := got.Search(q, 5)
		if diff := cmp.Diff(a, b); diff != "" || an != bn {
			t.Errorf("Search(%q) differs after round trip (-want +got):\n%s", q, diff)
		}
	}
	empty, err := Read(bytes.NewReader(encode(t, Build(nil))))
	if err != nil || empty.Len() != 0 {
		t.Errorf("empty index round trip = %v, %v", empty, err)
	}
}

// reseal recomputes the head's checksum of an edited index file, so that
// only the checks after it can find the edit. A file whose counts
// disagree with its length gets a checksum of all of it: decode refuses
// it before looking.
func reseal(b []byte) []byte {
	b = append([]byte(nil), b...)
	body := b[:len(b)-4]
	sum := crc32.Checksum(body, castagnoli)
	if len(b) >= headerLen+4 {
		c := func(i int) uint64 { return uint64(binary.LittleEndian.Uint32(b[len(magic)+4+4*i:])) }
		nd, nt, np, npos, kb, tb, nb := c(0), c(1), c(2), c(3), c(4), c(5), c(6)
		if encodedLen(nd, nt, np, npos, kb, tb, nb) == len(b) {
			head := headerLen + 4*int(4*nd+2*(nt+1)+2*nb+1)
			sum = crc32.Update(crc32.Checksum(b[:head], castagnoli), castagnoli, body[len(body)-int(kb+tb):])
		}
	}
	binary.LittleEndian.PutUint32(b[len(b)-4:], sum)
	return b
}

func TestReadCorrupt(t *testing.T) {
	good := encode(t, sampleIndex())
	flip := func(i int) []byte {
		b := append([]byte(nil), good...)
		b[i] ^= 0x41
		return b
	}
	body := len(magic) + 4
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"not an index", []byte("hello, world, this is text"), ErrCorrupt},
		{"other version", reseal(append(append([]byte(magic), 9, 0, 0, 0), good[body:]...)), ErrVersion},
		{"truncated", good[:len(good)-10], ErrCorrupt},
		{"trailing byte", append(append([]byte(nil), good...), 0), ErrCorrupt},
		{"flipped byte in body", flip(body + 5), ErrCorrupt},
		{"flipped byte in checksum", flip(len(good) - 1), ErrCorrupt},
		{"valid checksum, inconsistent body", reseal(func() []byte {
			b := append([]byte(nil), good...)
			b[body] = 0x7f // document count far beyond what follows
			return b
		}()), ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Read(bytes.NewReader(tt.data))
			if !errors.Is(err, tt.want) || ix != nil {
				t.Errorf("Read = %v, %v; want nil, %v", ix, err, tt.want)
			}
		})
	}
	// Every single-byte change is caught.
	for i := range good {
		if _, err := Read(bytes.NewReader(flip(i))); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	sampleIndex().WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A resealed mutation exercises the decoder past the checksum.
		for _, d := range [][]byte{data, reseal(append(data, 0, 0, 0, 0))} {
			ix, err := Read(bytes.NewReader(d))
			if err != nil {
				continue
			}
			ix.Search("graphene 数据 mobility", 5)
			ix.BestPassage("Graphene mobility.", "graphene", 50)
		}
	})
}

func TestBestPassage(t *testing.T) {
	ix := sampleIndex()
	text := "Graphene transport\n" +
		"We grew samples on copper. They were cleaned twice.\n" +
		"Electron mobility in graphene sheets reached record values at room temperature.\n" +
		"Phonons limit transport above 200 K. Further work is planned."
	tests := []struct {
		name     string
		text     string
		query    string
		max      int
		want     string // the passage must start with this
		contains string // and hold this
	}{
		{"picks the matching sentence", text, "electron mobility graphene", 120, "Electron mobility", "record values"},
		{"adds following sentences within the cap", text, "electron mobility graphene", 400, "Electron mobility", "Phonons limit"},
		{"sentence end inside a line", text, "phonons limit", 45, "Phonons limit", "200 K."},
		{"long sentence is cut at words", text, "room temperature", 30, "", "room temperature"},
		{"no match gives the beginning", text, "zebra", 60, "Graphene transport", ""},
		{"chinese", "第一句话。数据处理方法很重要。最后一句。", "数据处理", 10, "数据处理", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e := ix.BestPassage(tt.text, tt.query, tt.max)
			if s < 0 || e > len(tt.text) || s > e {
				t.Fatalf("span [%d,%d) out of range", s, e)
			}
			got := tt.text[s:e]
			if n := utf8.RuneCountInString(got); n > tt.max || n == 0 {
				t.Errorf("passage %q has %d characters, cap %d", got, n, tt.max)
			}
			if !utf8.ValidString(got) {
				t.Errorf("passage %q splits a character", got)
			}
			if !strings.HasPrefix(got, tt.want) || !strings.Contains(got, tt.contains) {
				t.Errorf("passage = %q, want it to start with %q and hold %q", got, tt.want, tt.contains)
			}
		})
	}
	if s, e := ix.BestPassage(text, "graphene", 0); s != 0 || e != 0 {
		t.Errorf("cap 0 gave [%d,%d)", s, e)
	}
	if s, e := ix.BestPassage("  \n ", "graphene", 50); s != 0 || e != 0 {
		t.Errorf("blank text gave [%d,%d)", s, e)
	}
}

func TestBuilderTooLarge(t *testing.T) {
	var b Builder
	b.positions = 1<<32 - 2
	if err := b.Add(Doc{Key: "k", Body: "three more words"}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Add beyond the limit = %v, want ErrTooLarge", err)
	}
}

// Tokenising apart and adding in order builds the same index as Add.
func TestAddTokenizedSameAsAdd(t *testing.T) {
	docs := []Doc{
		{Key: "a", Title: "Sparse attention", Body: "Blocks attend densely; global tokens summarise. 稀疏注意力"},
		{Key: "b", Title: "Routing", Body: "Tokens are routed to memory slots, the slots attend."},
		{Key: "c", Title: "", Body: "the and of"},
	}
	var add, tok Builder
	for _, d := range docs {
		if err := add.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	ts := make([]Tokenized, len(docs))
	done := make(chan int)
	for i, d := range docs {
		go func() { ts[i] = Tokenize(d); done <- i }()
	}
	for range docs {
		<-done
	}
	for _, td := range ts {
		if err := tok.AddTokenized(td); err != nil {
			t.Fatal(err)
		}
	}
	var a, b bytes.Buffer
	add.Index().WriteTo(&a)
	tok.Index().WriteTo(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("AddTokenized built a different index from Add")
	}
}
