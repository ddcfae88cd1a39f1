package index

import (
	"slices"
	"strings"
)

// Merge returns one index of the documents of segs that keep admits, in
// segment order and then document order; keep is read as Set.Search reads
// allow. Terms left without postings are dropped. It is how segments of an
// incremental index are merged without tokenising their text again.
// Merge reads every posting: an index opened by LoadLazy must pass Verify
// first.
func Merge(segs []*Index, keep [][]bool) *Index {
	admits := func(si, d int) bool {
		if keep == nil {
			return true
		}
		if si >= len(keep) {
			return false
		}
		return keep[si] == nil || (d < len(keep[si]) && keep[si][d])
	}
	out := &Index{p: defaults}
	remap := make([][]int32, len(segs))
	var termCount int
	var keys strings.Builder
	for si, ix := range segs {
		remap[si] = make([]int32, ix.Len())
		for d := range ix.Len() {
			if !admits(si, d) {
				remap[si][d] = -1
				continue
			}
			remap[si][d] = int32(out.Len())
			out.appendKey(&keys, ix.Key(d))
			out.titleLen = append(out.titleLen, ix.titleLen[d])
			out.bodyLen = append(out.bodyLen, ix.bodyLen[d])
			out.bodyStart = append(out.bodyStart, ix.bodyStart[d])
		}
		termCount += len(ix.termOff) - 1
	}
	out.keyData = keys.String()
	all := make([]string, 0, termCount)
	for _, ix := range segs {
		for t := 0; t+1 < len(ix.termOff); t++ {
			all = append(all, ix.terms[ix.termOff[t]:ix.termOff[t+1]])
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)

	var terms strings.Builder
	out.termOff = []uint32{0}
	cursor := make([]int, len(segs)) // next term of each segment, in order
	for _, t := range all {
		start := len(out.postDoc)
		for si, ix := range segs {
			c := cursor[si]
			if c+1 >= len(ix.termOff) || ix.terms[ix.termOff[c]:ix.termOff[c+1]] != t {
				continue
			}
			cursor[si]++
			for j := ix.postStart[c]; j < ix.postStart[c+1]; j++ {
				nd := remap[si][ix.postDoc[j]]
				if nd < 0 {
					continue
				}
				out.postDoc = append(out.postDoc, uint32(nd))
				out.posStart = append(out.posStart, uint32(len(out.pos)))
				out.pos = append(out.pos, ix.pos[ix.posStart[j]:ix.posStart[j+1]]...)
			}
		}
		if len(out.postDoc) == start {
			continue // every posting was dropped
		}
		out.postStart = append(out.postStart, uint32(start))
		terms.WriteString(t)
		out.termOff = append(out.termOff, uint32(terms.Len()))
	}
	out.terms = terms.String()
	out.postStart = append(out.postStart, uint32(len(out.postDoc)))
	out.posStart = append(out.posStart, uint32(len(out.pos)))
	out.finish()
	return out
}
