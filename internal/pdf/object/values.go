package object

import "github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

// The accessors below read a resolved object as the type a reader wants,
// or its zero value: a hostile file's wrong type reads as absent, never
// as an error. Both the interpreter and the font loader resolve
// references their own way first, then read values through these.

// DictOf returns o as a dictionary (a stream's own dictionary for a
// stream), or nil.
func DictOf(o types.Object) types.Dict {
	switch v := o.(type) {
	case types.Dict:
		return v
	case types.StreamDict:
		return v.Dict
	}
	return nil
}

// ArrayOf returns o as an array, or nil.
func ArrayOf(o types.Object) types.Array {
	a, _ := o.(types.Array)
	return a
}

// NameOf returns o as a name, or "".
func NameOf(o types.Object) string {
	n, _ := o.(types.Name)
	return string(n)
}

// NumOf returns o as a number (an integer or a real), and whether it is
// one.
func NumOf(o types.Object) (float64, bool) {
	switch v := o.(type) {
	case types.Integer:
		return float64(v), true
	case types.Float:
		return float64(v), true
	}
	return 0, false
}
