package pdf

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// pageLabels computes printed labels from the /PageLabels number tree.
func (d *doc) pageLabels(n int) []string {
	root := d.xr.Catalog()
	tree := d.dict(root["PageLabels"])
	if tree == nil {
		return make([]string, n)
	}
	type rng struct {
		start int
		dict  types.Dict
	}
	var rs []rng
	seen := map[int]bool{}
	var walk func(t types.Dict, depth int)
	walk = func(t types.Dict, depth int) {
		if t == nil || depth > 32 || len(rs) > 100000 {
			return
		}
		nums := d.array(t["Nums"])
		for i := 0; i+1 < len(nums); i += 2 {
			k, ok := d.num(nums[i])
			if ok {
				rs = append(rs, rng{int(k), d.dict(nums[i+1])})
			}
		}
		for _, k := range d.array(t["Kids"]) {
			if nr := objNr(k); nr > 0 {
				if seen[nr] {
					continue
				}
				seen[nr] = true
			}
			walk(d.dict(k), depth+1)
		}
	}
	walk(tree, 0)
	// Each page takes the range with the largest start not after it (the
	// last listed among equal starts): one pass over the sorted ranges, not
	// one per page, which a tree of 100,000 ranges would make slow.
	slices.SortStableFunc(rs, func(a, b rng) int { return cmp.Compare(a.start, b.start) })
	labels := make([]string, n)
	cur := -1
	for i := 0; i < n; i++ {
		for cur+1 < len(rs) && rs[cur+1].start <= i {
			cur++
		}
		if cur < 0 || rs[cur].dict == nil {
			continue
		}
		ld := rs[cur].dict
		st := 1.0
		if v, ok := d.num(ld["St"]); ok {
			st = v
		}
		num := int(st) + i - rs[cur].start
		label := d.text(ld["P"])
		switch d.name(ld["S"]) {
		case "D":
			label += strconv.Itoa(num)
		case "R":
			label += strings.ToUpper(roman(num))
		case "r":
			label += roman(num)
		case "A":
			label += letters(num)
		case "a":
			label += strings.ToLower(letters(num))
		}
		labels[i] = label
	}
	return labels
}

func roman(n int) string {
	if n <= 0 || n >= 5000 {
		return strconv.Itoa(n)
	}
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"}
	var sb strings.Builder
	for i, v := range vals {
		for n >= v {
			sb.WriteString(syms[i])
			n -= v
		}
	}
	return sb.String()
}

// letters gives A..Z, AA..ZZ, AAA... as §12.4.2 specifies.
func letters(n int) string {
	if n <= 0 || n > 26*100 {
		return strconv.Itoa(n)
	}
	return strings.Repeat(string(rune('A'+(n-1)%26)), (n-1)/26+1)
}
