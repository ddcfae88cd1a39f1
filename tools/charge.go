package tools

import (
	"reflect"
	"sync"
	"unicode/utf8"
)

// The charge of a result is what it costs the turn's budget: the number of
// characters (Unicode code points) of every string the result holds — text,
// excerpts, titles, authors, ids, section titles, documents, entry names and
// kinds, paths, citation URIs. Numbers, the budget report and the opaque
// cursor (a token to hand back, not content) are free. A result never holds
// more than the call reserved, and the usage line logs exactly its charge.
//
// The charge is derived from the result types themselves: every string
// reachable through exported fields, slices and pointers counts, whatever
// its json tag says (a result's Problems are said in its text), except a
// field tagged charge:"free" — the framing every result carries and the
// cursor. A field added to a result is charged without a line more here.

// Chars returns the charge of a search result.
func (o *SearchOutput) Chars() int { return charge(o) }

// Chars returns the charge of a read result.
func (o *ReadOutput) Chars() int { return charge(o) }

// Chars returns the charge of a relations result.
func (o *RelationsOutput) Chars() int { return charge(o) }

func (c *Card) chars() int         { return charge(c) }
func (f *FigureInfo) chars() int   { return charge(f) }
func (c *RelationCard) chars() int { return charge(c) }

// ownCharge is a part of a result charged by a rule of its own rather
// than field by field.
type ownCharge interface{ ownCharge() int }

// ownCharge: a card's mark of no kind is no mark, and costs nothing.
func (m *CardMark) ownCharge() int {
	if m.Kind == "" {
		return 0
	}
	return chargeFields(reflect.ValueOf(m).Elem())
}

// charge returns the charge of v, a pointer to a result or a part of one.
func charge(v any) int {
	rv := reflect.ValueOf(v)
	if f := chargerOf(rv.Type()); f != nil {
		return f(rv)
	}
	return 0
}

// chargeFields returns the charge of the fields of the struct v, without
// the rule of its own it may have.
func chargeFields(v reflect.Value) int {
	n := 0
	for _, f := range fieldChargers(v.Type()) {
		n += f.charge(v.Field(f.index))
	}
	return n
}

// A charger returns the charge of a value of its type.
type charger func(reflect.Value) int

// A fieldCharger charges one field of a struct.
type fieldCharger struct {
	index  int
	charge charger
}

// chargers and fieldsOf cache, by type, how a value is charged: a result
// is measured at every step of its cut to the budget.
var chargers, fieldsOf sync.Map // reflect.Type → charger, []fieldCharger

var ownChargeType = reflect.TypeFor[ownCharge]()

// chargerOf returns how a value of type t is charged, or nil when it
// holds no string.
func chargerOf(t reflect.Type) charger {
	if f, ok := chargers.Load(t); ok {
		return f.(charger)
	}
	f := newCharger(t)
	chargers.Store(t, f)
	return f
}

func newCharger(t reflect.Type) charger {
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value) int { return utf8.RuneCountInString(v.String()) }
	case reflect.Pointer:
		elem := chargerOf(t.Elem())
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) int {
			if v.IsNil() {
				return 0
			}
			return elem(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return func(v reflect.Value) int {
				n := 0
				for i := range v.Len() {
					n += utf8.RuneCountInString(v.Index(i).String())
				}
				return n
			}
		}
		elem := chargerOf(t.Elem())
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) int {
			n := 0
			for i := range v.Len() {
				n += elem(v.Index(i))
			}
			return n
		}
	case reflect.Struct:
		if reflect.PointerTo(t).Implements(ownChargeType) {
			return func(v reflect.Value) int {
				if !v.CanAddr() {
					p := reflect.New(t)
					p.Elem().Set(v)
					v = p.Elem()
				}
				return v.Addr().Interface().(ownCharge).ownCharge()
			}
		}
		if len(fieldChargers(t)) == 0 {
			return nil
		}
		return chargeFields
	}
	return nil
}

// fieldChargers returns how the charged fields of the struct type t are
// charged: those exported, not tagged free, that can hold a string.
func fieldChargers(t reflect.Type) []fieldCharger {
	if f, ok := fieldsOf.Load(t); ok {
		return f.([]fieldCharger)
	}
	var fs []fieldCharger
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("charge") == "free" {
			continue
		}
		if c := chargerOf(f.Type); c != nil {
			fs = append(fs, fieldCharger{i, c})
		}
	}
	fieldsOf.Store(t, fs)
	return fs
}

func runes(ss ...string) int {
	n := 0
	for _, s := range ss {
		n += utf8.RuneCountInString(s)
	}
	return n
}
