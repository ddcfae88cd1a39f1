package tools

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// uncharged are the string fields of the results that cost nothing, each
// for a reason: the framing every result carries whatever it holds, the
// budget report, and the index's progress, which describe the call rather
// than hand out the library's content. A field tagged charge:"free" that
// this list does not name fails TestChargeCoversEveryString: making a field
// free is a decision reviewed here.
var uncharged = []string{
	"Indexing.",
	"Budget.",
	"Notice",
	"Note",
	"NextCursor", // opaque: a token to hand back, not content
}

// TestChargeCoversEveryString: every string a result holds is charged,
// field by field, found by reflection over the result types, so a field
// added to a card, a read or a relation without its charge (tagged free,
// or left out by a part's own rule) fails here rather than passing text
// to the agent for free. Each string field is set
// alone, to three characters, in a result whose every slice holds one
// element and every pointer is set; its charge must then be 3.
func TestChargeCoversEveryString(t *testing.T) {
	for _, res := range []interface{ Chars() int }{&SearchOutput{}, &ReadOutput{}, &RelationsOutput{}} {
		typ := reflect.TypeOf(res).Elem()
		paths := stringFields(typ, "")
		if len(paths) < 5 {
			t.Fatalf("%s: only %d string fields found", typ.Name(), len(paths))
		}
		for _, p := range paths {
			if slices.ContainsFunc(uncharged, func(u string) bool { return p == u || strings.HasPrefix(p, u) && strings.HasSuffix(u, ".") }) {
				continue
			}
			v := reflect.New(typ)
			setString(v.Elem(), strings.Split(p, "."), "abc")
			want := 3
			if strings.HasPrefix(p, "Cards.Mark.") && p != "Cards.Mark.Kind" {
				// A card's mark of no kind is no mark: give it one.
				setString(v.Elem(), []string{"Cards", "Mark", "Kind"}, "abc")
				want = 6
			}
			if got := v.Interface().(interface{ Chars() int }).Chars(); got != want {
				t.Errorf("%s.%s holds 3 characters and is charged %d", typ.Name(), p, got-want+3)
			}
		}
	}
}

// stringFields returns the paths ("Cards.Title") of every string field
// reachable from typ through structs, slices and pointers.
func stringFields(typ reflect.Type, prefix string) []string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.String:
		return []string{strings.TrimSuffix(prefix, ".")}
	case reflect.Struct:
		var out []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			out = append(out, stringFields(f.Type, prefix+f.Name+".")...)
		}
		return out
	}
	return nil
}

// setString sets the string at path below v, making the slices and
// pointers on its way hold one element.
func setString(v reflect.Value, path []string, s string) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
			continue
		}
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		v = v.Index(0)
	}
	if len(path) == 0 || path[0] == "" {
		v.SetString(s)
		return
	}
	setString(v.FieldByName(path[0]), path[1:], s)
}
