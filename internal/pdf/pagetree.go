package pdf

import (
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// pageInfo is a leaf of the page tree with its inherited attributes.
type pageInfo struct {
	dict      types.Dict
	objNr     int
	resources types.Dict
	box       [4]float64 // crop box (or media box) in default user space
	rotate    int
}

// maxPageTreeDepth bounds recursion into /Kids.
const maxPageTreeDepth = 64

func (d *doc) pageTree() ([]pageInfo, error) {
	root := d.xr.Catalog()
	if root == nil {
		return nil, fmt.Errorf("%w: no document catalog", ErrMalformed)
	}
	var pages []pageInfo
	seen := map[int]bool{}
	nodes := 0
	var walk func(o types.Object, inh pageInfo, depth int) error
	walk = func(o types.Object, inh pageInfo, depth int) error {
		if depth > maxPageTreeDepth {
			return nil
		}
		// A tree of a million pages takes a while: the time limit holds
		// here too.
		if nodes++; nodes&4095 == 0 {
			if err := d.stopped(); err != nil {
				return err
			}
		}
		if nr := objNr(o); nr > 0 {
			if seen[nr] {
				return nil
			}
			seen[nr] = true
		}
		n := d.dict(o)
		if n == nil {
			return nil
		}
		if res := d.dict(n["Resources"]); res != nil {
			inh.resources = res
		}
		if b, ok := d.rect(n["MediaBox"]); ok {
			inh.box = b
		}
		if b, ok := d.rect(n["CropBox"]); ok {
			inh.box = intersect(inh.box, b)
		}
		if r, ok := d.num(n["Rotate"]); ok {
			inh.rotate = ((int(r) % 360) + 360) % 360 / 90 * 90
		}
		kids, hasKids := n["Kids"]
		if typ := d.name(n["Type"]); typ == "Page" || (!hasKids && typ != "Pages") {
			inh.dict = n
			inh.objNr = objNr(o)
			pages = append(pages, inh)
			if len(pages) > 1<<20 {
				return fmt.Errorf("%w: page tree too large", ErrTooLarge)
			}
			return nil
		}
		for _, k := range d.array(kids) {
			if err := walk(k, inh, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	def := pageInfo{box: [4]float64{0, 0, 612, 792}}
	if err := walk(root["Pages"], def, 0); err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("%w: no pages", ErrMalformed)
	}
	return pages, nil
}

func (d *doc) rect(o types.Object) ([4]float64, bool) {
	a := d.array(o)
	if len(a) != 4 {
		return [4]float64{}, false
	}
	var r [4]float64
	for i := range a {
		r[i], _ = d.num(a[i])
	}
	if r[0] > r[2] {
		r[0], r[2] = r[2], r[0]
	}
	if r[1] > r[3] {
		r[1], r[3] = r[3], r[1]
	}
	if r[2]-r[0] < 1 || r[3]-r[1] < 1 {
		return r, false
	}
	return r, true
}

func intersect(a, b [4]float64) [4]float64 {
	r := [4]float64{max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])}
	if r[2]-r[0] < 1 || r[3]-r[1] < 1 {
		return b
	}
	return r
}
