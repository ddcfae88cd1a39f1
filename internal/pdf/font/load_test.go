package font

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// testObjects is a document of numbered objects whose streams are stored
// decoded, for Load.
type testObjects map[int]types.Object

func (o testObjects) Resolve(x types.Object) types.Object {
	for range 32 {
		ref, ok := x.(types.IndirectRef)
		if !ok {
			return x
		}
		x = o[ref.ObjectNumber.Value()]
	}
	return nil
}

func (o testObjects) Text(x types.Object) string {
	s, _ := o.Resolve(x).(types.StringLiteral)
	return string(s)
}

func (o testObjects) Stream(sd types.StreamDict) []byte { return sd.Raw }

func (o testObjects) StreamPrefix(sd types.StreamDict, n int64) []byte {
	if int64(len(sd.Raw)) < n {
		return nil
	}
	return sd.Raw[:n]
}

func ref(n int) types.IndirectRef { return *types.NewIndirectRef(n, 0) }

func stream(data string) types.StreamDict {
	return types.StreamDict{Dict: types.NewDict(), Raw: []byte(data)}
}

func nums(vs ...float64) types.Array {
	a := make(types.Array, len(vs))
	for i, v := range vs {
		a[i] = types.Float(v)
	}
	return a
}

// TestLoad checks what the interpreter reads of a loaded font: each code's
// text, width and word-spacing flag, and the font's direction, weight and
// em, for each kind of font, its entries reached through references.
func TestLoad(t *testing.T) {
	toUnicode := stream(`1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0003> <0048> <0004> <FB01> endbfchar`)
	objs := testObjects{
		1: types.Name("WinAnsiEncoding"),
		2: nums(722, 278, 250),
		3: toUnicode,
		4: types.Dict{"Type": types.Name("FontDescriptor"), "FontWeight": types.Integer(700)},
		5: types.Dict{
			"Subtype":        types.Name("CIDFontType2"),
			"BaseFont":       types.Name("ABCDEF+Sans"),
			"CIDSystemInfo":  types.Dict{"Registry": types.StringLiteral("Adobe"), "Ordering": types.StringLiteral("Identity")},
			"DW":             types.Integer(1000),
			"W":              types.Array{types.Integer(3), types.Array{types.Integer(600), types.Integer(550)}},
			"FontDescriptor": ref(4),
		},
	}
	tests := []struct {
		name     string
		fd       types.Dict
		s        string
		want     []Code
		vertical bool
		bold     bool
		scale    float64
	}{{
		name: "simple, WinAnsi, /Widths",
		fd: types.Dict{"Subtype": types.Name("TrueType"), "BaseFont": types.Name("Arial"),
			"Encoding": ref(1), "FirstChar": types.Integer(72), "Widths": ref(2)},
		s:     "HI\x93",
		want:  []Code{{Text: "H", Width: 0.722}, {Text: "I", Width: 0.278}, {Text: "“", Width: 0}},
		scale: 1,
	}, {
		name:  "simple without /Widths: core-14 metrics by name, word space",
		fd:    types.Dict{"Subtype": types.Name("Type1"), "BaseFont": types.Name("Times-Bold")},
		s:     "a b",
		want:  []Code{{Text: "a", Width: 0.5}, {Text: " ", Width: 0.25, Space: true}, {Text: "b", Width: 0.556}},
		bold:  true,
		scale: 1,
	}, {
		name: "Type 0, Identity-H, ToUnicode, /W and /DW",
		fd: types.Dict{"Subtype": types.Name("Type0"), "Encoding": types.Name("Identity-H"),
			"DescendantFonts": types.Array{ref(5)}, "ToUnicode": ref(3)},
		s:     "\x00\x03\x00\x04\x00\x09",
		want:  []Code{{Text: "H", Width: 0.6}, {Text: "fi", Width: 0.55}, {Text: "", Width: 1}},
		bold:  true,
		scale: 1,
	}, {
		name: "Type 0, UniJIS-UCS2-V: vertical, codes are UTF-16",
		fd: types.Dict{"Subtype": types.Name("Type0"), "Encoding": types.Name("UniJIS-UCS2-V"),
			"DescendantFonts": types.Array{types.Dict{"Subtype": types.Name("CIDFontType0")}}},
		s:        "\x65\xe5",
		want:     []Code{{Text: "日", Width: 1}},
		vertical: true,
		scale:    1,
	}, {
		name: "Type 3: widths through the font matrix, em from the bounding box",
		fd: types.Dict{"Subtype": types.Name("Type3"), "FontMatrix": nums(0.01, 0, 0, 0.01, 0, 0),
			"FontBBox": nums(0, -20, 100, 130), "FirstChar": types.Integer(65), "Widths": nums(50),
			"Encoding": types.Dict{"Differences": types.Array{types.Integer(65), types.Name("A")}}},
		s:     "A",
		want:  []Code{{Text: "A", Width: 0.5}},
		scale: 1.5,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Load(objs, tt.fd)
			got := f.Decode([]byte(tt.s), nil)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Decode(%q) (-want +got):\n%s", tt.s, diff)
			}
			if f.Vertical() != tt.vertical || f.Bold() != tt.bold || f.SizeScale() != tt.scale {
				t.Errorf("vertical %v, bold %v, size scale %v; want %v, %v, %v",
					f.Vertical(), f.Bold(), f.SizeScale(), tt.vertical, tt.bold, tt.scale)
			}
		})
	}
}
