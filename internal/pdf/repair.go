package pdf

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
)

// rebuildXRef reconstructs the cross-reference table of a file whose table
// is broken (wrong offsets, a damaged section), as viewers do: it scans the
// file for "N G obj" headers, the last definition of each object number
// winning as in an incremental update, and appends a fresh table and
// trailer, so that the file reads as an update of itself. The trailer's
// /Root, /Info, /Encrypt and /ID are the last ones written in the file
// (a classic trailer or a cross-reference stream); without a /Root the
// first object typed /Catalog is the root. Objects inside object streams
// keep no entry of their own: a file whose only cross-reference is a
// broken stream loses them. It returns nil when no object or no root is
// found.
func rebuildXRef(data []byte) []byte {
	type entry struct {
		off int
		gen int
	}
	objs := map[int]entry{}
	maxNr := 0
	catalog := 0
	for i := 0; ; {
		k := bytes.Index(data[i:], []byte("obj"))
		if k < 0 {
			break
		}
		at := i + k
		i = at + 3
		if i < len(data) && !isSpace(data[i]) && !isDelim(data[i]) {
			continue // "objstm" and the like
		}
		nr, gen, start, ok := objHeader(data, at)
		if !ok || nr <= 0 || nr >= maxObjects || len(objs) >= maxObjects {
			continue
		}
		objs[nr] = entry{start, gen}
		maxNr = max(maxNr, nr)
		if catalog == 0 {
			head := data[i:min(len(data), i+512)]
			if e := bytes.Index(head, []byte("endobj")); e >= 0 {
				head = head[:e]
			}
			if catalogType.Match(head) {
				catalog = nr
			}
		}
	}
	if len(objs) == 0 {
		return nil
	}
	root := lastRef(data, "Root")
	if root == "" && catalog > 0 {
		root = strconv.Itoa(catalog) + " 0 R"
	}
	if root == "" {
		return nil
	}
	var out bytes.Buffer
	out.Grow(len(data) + 20*(maxNr+1) + 256)
	out.Write(data)
	out.WriteString("\n")
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", maxNr+1)
	for nr := 1; nr <= maxNr; nr++ {
		if e, ok := objs[nr]; ok {
			fmt.Fprintf(&out, "%010d %05d n \n", e.off, e.gen)
		} else {
			out.WriteString("0000000000 65535 f \n")
		}
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %s", maxNr+1, root)
	for _, key := range []string{"Info", "Encrypt"} {
		if ref := lastRef(data, key); ref != "" {
			fmt.Fprintf(&out, " /%s %s", key, ref)
		}
	}
	if id := lastMatch(trailerID, data); id != nil {
		out.WriteString(" ")
		out.Write(id[0])
	}
	fmt.Fprintf(&out, " >>\nstartxref\n%d\n%%%%EOF\n", xref)
	return out.Bytes()
}

var (
	catalogType = regexp.MustCompile(`/Type\s*/Catalog\b`)
	trailerID   = regexp.MustCompile(`/ID\s*\[\s*<[0-9A-Fa-f\s]*>\s*<[0-9A-Fa-f\s]*>\s*\]`)
	refKeys     = map[string]*regexp.Regexp{}
)

func init() {
	for _, k := range []string{"Root", "Info", "Encrypt"} {
		refKeys[k] = regexp.MustCompile(`/` + k + `\s+(\d+)\s+(\d+)\s+R\b`)
	}
}

// lastRef returns the last "/key N G R" of the file as "N G R".
func lastRef(data []byte, key string) string {
	m := lastMatch(refKeys[key], data)
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
