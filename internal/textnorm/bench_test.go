package textnorm

import (
	"strings"
	"testing"
)

var benchText = strings.Repeat("Myelodysplastic syndromes (MDS) are age-dependent stem cell malignancies that share biological features of activated adaptive immune response and ineffective hematopoiesis.\n", 50) +
	strings.Repeat("我们提出了一种新的数据处理方法，本研究ではデータを解析した。", 50)

func BenchmarkTokens(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		Tokens(benchText)
	}
}

func BenchmarkLocate(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		Locate(benchText, "adaptive immune response and ineffective")
	}
}
