package object

import (
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Objects is what a document's objects are read through: pdfcpu's
// table of a file it parsed whole (table), or the lazy reader, which
// parses an object when it is first asked for (lazy). Both give the
// same pdfcpu types.
type Objects interface {
	// Deref returns the object ref names, nil when there is none.
	Deref(ref types.IndirectRef) types.Object
	// Catalog returns the document catalog, nil when there is none.
	Catalog() types.Dict
	// Info returns the trailer's /Info reference, or nil.
	Info() types.Object
}

// Table reads objects from pdfcpu's cross-reference table.
type Table struct{ XR *model.XRefTable }

// Deref returns the object ref names, nil when there is none or it
// does not parse.
func (t Table) Deref(ref types.IndirectRef) types.Object {
	v, err := t.XR.Dereference(ref)
	if err != nil {
		return nil
	}
	return v
}

// Catalog returns the document catalog, nil when there is none.
func (t Table) Catalog() types.Dict {
	root, err := t.XR.Catalog()
	if err != nil {
		return nil
	}
	return root
}

// Info returns the trailer's /Info reference, or nil.
func (t Table) Info() types.Object {
	if t.XR.Info == nil {
		return nil
	}
	return *t.XR.Info
}
