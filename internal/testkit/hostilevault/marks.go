package hostilevault

import (
	"bytes"
	"fmt"
	"strings"
)

// MarksCase is a hostile marks/annotations.json: Make builds it, and
// Problem is what the reader's note on it must say.
type MarksCase struct {
	Name    string
	Make    func() []byte
	Problem string
}

// MarksCases returns one hostile marks file per class: over the bytes a
// marks file may have, over its entries, nested deeper than a decoder
// may go, and junk just under the bounds that must be read in full.
func MarksCases() []MarksCase {
	return []MarksCase{
		{"16 MiB of tiny junk entries", func() []byte { return TinyMarks((16<<20 - 4096) / 3) }, "larger than the 4 MiB limit of a marks file"},
		{"a million tiny entries", func() []byte { return TinyMarks(1_000_000) }, "more than 20000 entries"},
		{"arrays nested 3 million deep", func() []byte { return []byte(strings.Repeat("[", 3_000_000)) }, "not valid JSON"},
		{"an entry nested a million deep", func() []byte {
			return []byte(`{"annotations": [{"page": 1, "x": ` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}]}`)
		}, "not valid JSON"},
		{"3.96 MB of junk entries, just under the bounds", func() []byte { return JunkMarks(3_960_000) }, "19901 entries left out"},
	}
}

// JunkMarks is an annotations object of about size bytes of entries that
// are not marks (no page; nested junk, numbers, a comment) of about 200
// bytes each: 19,901 of them in 3.96 MB.
func JunkMarks(size int) []byte {
	const entry = `{"pageX": 1, "junk": [1, 2.5, "three", {"four": [4, 4, 4, {"five": null}]}], "comment": "not a mark: it has no page", "color": 7, "tags": ["a", "b", "c"], "more": {"x": {"y": {"z": [true, false]}}}}`
	var b bytes.Buffer
	b.Grow(size + len(entry) + 64)
	b.WriteString(`{"schemaVersion": 1, "annotations": [`)
	for b.Len() < size {
		b.WriteString(entry)
		b.WriteByte(',')
	}
	b.WriteString(entry + "]}")
	return b.Bytes()
}

// TinyMarks is an array of n empty objects.
func TinyMarks(n int) []byte {
	return fmt.Appendf(nil, "[%s{}]", strings.Repeat("{},", n-1))
}
