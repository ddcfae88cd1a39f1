package object

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// TestValueAccessors: a value of the wanted type reads as itself (a
// stream as its dictionary), any other as the zero value.
func TestValueAccessors(t *testing.T) {
	d := types.Dict{"Type": types.Name("Font")}
	type got struct {
		Dict  types.Dict
		Array types.Array
		Name  string
		Num   float64
		IsNum bool
	}
	read := func(o types.Object) got {
		n, ok := NumOf(o)
		return got{DictOf(o), ArrayOf(o), NameOf(o), n, ok}
	}
	tests := []struct {
		name string
		in   types.Object
		want got
	}{
		{"dictionary", d, got{Dict: d}},
		{"stream", types.StreamDict{Dict: d}, got{Dict: d}},
		{"array", types.Array{types.Integer(1)}, got{Array: types.Array{types.Integer(1)}}},
		{"name", types.Name("F1"), got{Name: "F1"}},
		{"integer", types.Integer(7), got{Num: 7, IsNum: true}},
		{"real", types.Float(0.5), got{Num: 0.5, IsNum: true}},
		{"string", types.StringLiteral("7"), got{}},
		{"reference", *types.NewIndirectRef(3, 0), got{}},
		{"nil", nil, got{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, read(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
