package index

import (
	"strings"
	"testing"
)

// The passage pick must cost linear time in the text, whatever its shape:
// one line of megabytes (a PAPER.md without line breaks) and a text of
// many tiny sentences used to cost quadratic time. Compare the ns/op of
// the 1 MiB and 4 MiB cases: about 4×.
func benchmarkLongText(b *testing.B, unit string, size int) {
	ix := sampleIndex()
	text := strings.Repeat(unit, size/len(unit))
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		ix.BestPassage(text, "graphene mobility", 300)
	}
}

func BenchmarkBestPassageOneLine1MiB(b *testing.B) {
	benchmarkLongText(b, "graphene mobility word ", 1<<20)
}

func BenchmarkBestPassageOneLine4MiB(b *testing.B) {
	benchmarkLongText(b, "graphene mobility word ", 4<<20)
}

func BenchmarkBestPassageShortSentences1MiB(b *testing.B) {
	benchmarkLongText(b, "Graphene. Mobility. ", 1<<20)
}

func BenchmarkBestPassageShortSentences4MiB(b *testing.B) {
	benchmarkLongText(b, "Graphene. Mobility. ", 4<<20)
}
