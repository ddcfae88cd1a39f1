package tools_test

import (
	"strconv"
	"testing"

	"github.com/researchctx/researchctx/tools"
)

// BenchmarkReadChars measures the charge of a large read result: a marks
// read of 200 marks (the default listEntries) with their tags, beside 1,000
// sections, as reader.fit measures it at every step of a cut.
func BenchmarkReadChars(b *testing.B) {
	out := &tools.ReadOutput{Target: "papers/x", Mode: tools.ReadMarks, Title: "A title", CitationURI: "papers/x/x.pdf#page=1"}
	for i := range 200 {
		out.Marks = append(out.Marks, tools.MarkInfo{
			Kind: "highlight", Page: i + 1, Text: "marked text of the page " + strconv.Itoa(i), Comment: "a comment",
			Color: "#ffee00", Tags: []string{"one", "two"}, CitationURI: "papers/x/x.pdf#page=" + strconv.Itoa(i+1),
		})
	}
	for i := range 1000 {
		out.Sections = append(out.Sections, tools.SectionInfo{Title: "Section " + strconv.Itoa(i), Number: strconv.Itoa(i), Level: 1, Page: i})
	}
	want := out.Chars()
	b.ReportAllocs()
	for b.Loop() {
		if out.Chars() != want {
			b.Fatal("the charge changed")
		}
	}
}
