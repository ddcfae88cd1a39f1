package pdf

import (
	"bytes"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/pdf/object"
)

// xmp returns the catalog's /Metadata stream decoded, or nil when there is
// none, it does not decode, or it is larger than MaxXMPBytes. It is
// decoded under its own small limit, outside the pages' budget, so that
// metadata never costs the document its text.
func (d *doc) xmp() []byte {
	root := d.xr.Catalog()
	if root == nil {
		return nil
	}
	sd, ok := d.resolve(root["Metadata"]).(types.StreamDict)
	if !ok {
		return nil
	}
	b, err := object.DecodeStream(&sd, MaxXMPBytes)
	if err != nil || len(b) == 0 || len(b) > MaxXMPBytes {
		return nil
	}
	return bytes.Clone(b)
}

func (d *doc) infoRef() types.Object {
	return d.xr.Info()
}
