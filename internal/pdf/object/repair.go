package object

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"sync"
)

// maxRepairBytes bounds what a repair decodes from object streams, all
// of which it holds in memory at once.
const maxRepairBytes = 64 << 20

// packed is one object taken out of an object stream.
type packed struct {
	nr   int
	body []byte
}

// objectStream reads the objects of the object stream whose body (after
// "obj") starts body: a Flate-compressed stream without predictor, its
// header of /N number-offset pairs in its first /First bytes, /N at most
// limit. It spends what it decodes from budget and gives nothing for
// anything else.
func objectStream(body []byte, budget *int64, limit int) []packed {
	s := bytes.Index(body, []byte("stream"))
	if s < 0 {
		return nil
	}
	dict := body[:s]
	if !flateOnly().Match(dict) || bytes.Contains(dict, []byte("/DecodeParms")) {
		return nil
	}
	nm, fm := lastMatch(objStmN(), dict), lastMatch(objStmFirst(), dict)
	if nm == nil || fm == nil {
		return nil
	}
	n, _ := strconv.Atoi(string(nm[1]))
	first, _ := strconv.Atoi(string(fm[1]))
	data := body[s+len("stream"):]
	if len(data) > 0 && data[0] == '\r' {
		data = data[1:]
	}
	if len(data) > 0 && data[0] == '\n' {
		data = data[1:]
	}
	if e := bytes.Index(data, []byte("endstream")); e >= 0 {
		data = data[:e]
	}
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	most := min(*budget, MaxStreamBytes)
	plain, _ := io.ReadAll(io.LimitReader(zr, most+1)) // a truncated stream keeps what it gave
	*budget -= int64(len(plain))
	if int64(len(plain)) > most || first <= 0 || first > len(plain) || n <= 0 || n > limit {
		return nil
	}
	lx := NewLexer(plain[:first])
	var out []packed
	var offs []int
	for i := 0; i < n; i++ {
		a, b := lx.Next(), lx.Next()
		if a.Kind != TokNum || b.Kind != TokNum || b.Num < 0 || first+int(b.Num) > len(plain) {
			break
		}
		out = append(out, packed{nr: int(a.Num)})
		offs = append(offs, first+int(b.Num))
	}
	for i := range out {
		end := len(plain)
		if i+1 < len(offs) && offs[i+1] >= offs[i] {
			end = offs[i+1]
		}
		out[i].body = plain[offs[i]:end]
	}
	return out
}

// RebuildXRef reconstructs the cross-reference table of a file whose table
// is broken (wrong offsets, a damaged section), as viewers do: it scans the
// file for "N G obj" headers, the last definition of each object number
// winning as in an incremental update, and returns a fresh table and
// trailer to append to the file, so that the file reads as an update of
// itself. The trailer's
// /Root, /Info, /Encrypt and /ID are the last ones written in the file
// (a classic trailer or a cross-reference stream); without a /Root the
// first object typed /Catalog is the root. Objects inside object streams
// (Flate-compressed, as writers make them) are written out after the file
// as plain objects. Object numbers are kept below MaxEntries of the file,
// and the table lists only the objects found, in runs of consecutive
// numbers, so that the rebuilt file is one AuditXRef accepts when its
// objects lie side by side. It returns nil when no object or no root is
// found.
func RebuildXRef(data []byte) []byte { return rebuildTable(data, "Info", "Encrypt") }

// rebuildTable is RebuildXRef with the trailer keys besides /Root that
// the rebuilt trailer carries over from the file.
func rebuildTable(data []byte, keys ...string) []byte {
	limit := MaxEntries(int64(len(data)))
	type entry struct {
		off int
		gen int
	}
	objs := map[int]entry{}
	maxNr := 0
	catalog := 0
	var streams []int // offsets of object streams' bodies
	for h := range headers(data) {
		i, nr, gen, start := h.body, h.nr, h.gen, h.start
		if nr <= 0 || nr >= limit || len(objs) >= limit {
			continue
		}
		objs[nr] = entry{start, gen}
		maxNr = max(maxNr, nr)
		head := data[i:min(len(data), i+512)]
		if e := bytes.Index(head, []byte("endobj")); e >= 0 {
			head = head[:e]
		}
		if catalog == 0 && catalogType().Match(head) {
			catalog = nr
		}
		if objStmType().Match(head) {
			streams = append(streams, i)
		}
	}
	if len(objs) == 0 {
		return nil
	}
	// Objects stored in object streams have no header of their own: they
	// are taken out and written after the file as plain objects, unless
	// the file defines them plainly.
	var extra bytes.Buffer
	compressed := map[int]int{} // object number → offset in extra
	budget := int64(maxRepairBytes)
	for _, at := range streams {
		for _, o := range objectStream(data[at:], &budget, limit) {
			if _, plain := objs[o.nr]; plain || o.nr <= 0 || o.nr >= limit || len(objs)+len(compressed) >= limit {
				continue
			}
			if _, dup := compressed[o.nr]; dup {
				continue
			}
			compressed[o.nr] = extra.Len()
			fmt.Fprintf(&extra, "%d 0 obj\n", o.nr)
			extra.Write(o.body)
			extra.WriteString("\nendobj\n")
			maxNr = max(maxNr, o.nr)
			if catalog == 0 && catalogType().Match(o.body) {
				catalog = o.nr
			}
		}
	}
	root := lastRef(data, "Root")
	if root == "" && catalog > 0 {
		root = strconv.Itoa(catalog) + " 0 R"
	}
	if root == "" {
		return nil
	}
	var out bytes.Buffer
	nrs := make([]int, 0, len(objs)+len(compressed))
	for nr := range objs {
		nrs = append(nrs, nr)
	}
	for nr := range compressed {
		nrs = append(nrs, nr)
	}
	slices.Sort(nrs)
	out.Grow(extra.Len() + 20*(len(nrs)+1) + 256)
	out.WriteString("\n")
	extraAt := len(data) + out.Len()
	out.Write(extra.Bytes())
	xref := len(data) + out.Len()
	out.WriteString("xref\n0 1\n0000000000 65535 f \n")
	for i := 0; i < len(nrs); {
		j := i + 1
		for j < len(nrs) && nrs[j] == nrs[j-1]+1 {
			j++
		}
		fmt.Fprintf(&out, "%d %d\n", nrs[i], j-i)
		for _, nr := range nrs[i:j] {
			if e, ok := objs[nr]; ok {
				fmt.Fprintf(&out, "%010d %05d n \n", e.off, e.gen)
			} else {
				fmt.Fprintf(&out, "%010d 00000 n \n", extraAt+compressed[nr])
			}
		}
		i = j
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %s", maxNr+1, root)
	for _, key := range keys {
		if ref := lastRef(data, key); ref != "" {
			fmt.Fprintf(&out, " /%s %s", key, ref)
		}
	}
	if id := lastMatch(trailerID(), data); id != nil {
		out.WriteString(" ")
		out.Write(id[0])
	}
	fmt.Fprintf(&out, " >>\nstartxref\n%d\n%%%%EOF\n", xref)
	return out.Bytes()
}

var (
	catalogType = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/Catalog\b`) })
	objStmType  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/ObjStm\b`) })
	flateOnly   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Filter\s*(?:\[\s*)?/FlateDecode\s*\]?`) })
	objStmN     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/N\s+(\d+)`) })
	objStmFirst = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/First\s+(\d+)`) })
	trailerID   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`/ID\s*\[\s*<[0-9A-Fa-f\s]*>\s*<[0-9A-Fa-f\s]*>\s*\]`)
	})
	// Compiled when a file is first repaired: a process that reads no
	// broken PDF never needs them.
	refKeys = sync.OnceValue(func() map[string]*regexp.Regexp {
		m := map[string]*regexp.Regexp{}
		for _, k := range []string{"Root", "Info", "Encrypt"} {
			m[k] = regexp.MustCompile(`/` + k + `\s+(\d+)\s+(\d+)\s+R\b`)
		}
		return m
	})
)

// lastRef returns the last "/key N G R" of the file as "N G R".
func lastRef(data []byte, key string) string {
	m := lastMatch(refKeys()[key], data)
	if m == nil {
		return ""
	}
	return string(m[1]) + " " + string(m[2]) + " R"
}

// lastMatch returns the submatches of re's last match in data, or nil.
func lastMatch(re *regexp.Regexp, data []byte) [][]byte {
	loc := lastMatchIndex(re, data)
	if loc == nil {
		return nil
	}
	out := make([][]byte, len(loc)/2)
	for i := range out {
		if loc[2*i] >= 0 {
			out[i] = data[loc[2*i]:loc[2*i+1]]
		}
	}
	return out
}

// lastMatchIndex returns the submatch offsets of re's last match in data,
// or nil. It holds one match at a time, however many a hostile file
// repeats.
func lastMatchIndex(re *regexp.Regexp, data []byte) []int {
	var last []int
	for base := 0; base <= len(data); {
		loc := re.FindSubmatchIndex(data[base:])
		if loc == nil {
			break
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += base
			}
		}
		last = loc
		base = max(loc[1], loc[0]+1)
	}
	return last
}

// header is an object's "N G obj" header in a file.
type header struct {
	nr, gen int
	start   int // offset of N
	body    int // offset after "obj"
}

// headers yields the object headers of data in order, as the repairs
// scan a file for its objects: each "obj" keyword that ends at a space, a
// delimiter or the end ("objstm" and the like are not one), with an
// object number and a generation before it.
func headers(data []byte) iter.Seq[header] {
	return func(yield func(header) bool) {
		for i := 0; ; {
			k := bytes.Index(data[i:], []byte("obj"))
			if k < 0 {
				return
			}
			at := i + k
			i = at + 3
			if i < len(data) && !isSpace(data[i]) && !isDelim(data[i]) {
				continue
			}
			nr, gen, start, ok := objHeader(data, at)
			if ok && !yield(header{nr, gen, start, i}) {
				return
			}
		}
	}
}

// objHeader parses "N G" before the "obj" keyword at at, returning the
// object number, generation and the offset of N.
func objHeader(data []byte, at int) (nr, gen, start int, ok bool) {
	p := at
	skipSpace := func() bool {
		q := p
		for p > 0 && isSpace(data[p-1]) {
			p--
		}
		return p < q
	}
	digits := func() (int, bool) {
		q := p
		for p > 0 && data[p-1] >= '0' && data[p-1] <= '9' && q-p < 10 {
			p--
		}
		if p == q {
			return 0, false
		}
		v, err := strconv.Atoi(string(data[p:q]))
		return v, err == nil
	}
	skipSpace()
	gen, ok = digits()
	if !ok || !skipSpace() {
		return 0, 0, 0, false
	}
	nr, ok = digits()
	if !ok || (p > 0 && !isSpace(data[p-1]) && !isDelim(data[p-1])) {
		return 0, 0, 0, false
	}
	return nr, gen, p, gen < 65536
}
