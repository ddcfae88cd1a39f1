package object

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type tokView struct {
	Kind TokKind
	Num  float64
	Val  string
}

func lexAll(data []byte) []tokView {
	lx := NewLexer(data)
	var out []tokView
	for i := 0; i < 4*len(data)+8; i++ {
		t := lx.Next()
		if t.Kind == TokEOF {
			return out
		}
		out = append(out, tokView{t.Kind, t.Num, string(t.Val)})
		if t.Kind == TokOp && string(t.Val) == "ID" {
			lx.SkipInlineImage()
		}
	}
	panic("lexer did not reach the end")
}

func TestLexer(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []tokView
	}{
		{"numbers", "1 -2.5 .5 +3 4. --1", []tokView{{TokNum, 1, ""}, {TokNum, -2.5, ""}, {TokNum, .5, ""}, {TokNum, 3, ""}, {TokNum, 4, ""}, {TokNum, 1, ""}}},
		{"names with escapes", "/F1 /A#20B /", []tokView{{TokName, 0, "F1"}, {TokName, 0, "A B"}, {TokName, 0, ""}}},
		{"literal string escapes and nesting", `(a\(b\)c (d) \101\n\
x)`, []tokView{{TokString, 0, "a(b)c (d) A\nx"}}},
		{"hex string with odd digit", "<48 65 6C6C 6F2>", []tokView{{TokString, 0, "Hello "}}},
		{"arrays, dicts and operators", "[(a) -120 (b)] TJ << /K 1 >> BDC", []tokView{
			{TokArrayOpen, 0, ""}, {TokString, 0, "a"}, {TokNum, -120, ""}, {TokString, 0, "b"}, {TokArrayClose, 0, ""}, {TokOp, 0, "TJ"},
			{TokDictOpen, 0, ""}, {TokName, 0, "K"}, {TokNum, 1, ""}, {TokDictClose, 0, ""}, {TokOp, 0, "BDC"}}},
		{"comments", "% note\nq Q", []tokView{{TokOp, 0, "q"}, {TokOp, 0, "Q"}}},
		{"inline image data is skipped", "BI /W 1 ID \x00EI\xff EI Q", []tokView{{TokOp, 0, "BI"}, {TokName, 0, "W"}, {TokNum, 1, ""}, {TokOp, 0, "ID"}, {TokOp, 0, "Q"}}},
		{"unterminated string", "(abc", []tokView{{TokString, 0, "abc"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, lexAll([]byte(tt.in))); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
		})
	}
}
