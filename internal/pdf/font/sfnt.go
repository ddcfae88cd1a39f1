package font

import (
	"encoding/binary"
	"unicode"
)

// A minimal reader of TrueType and OpenType font programs (the sfnt
// format) for one purpose: a CIDFontType2 font without a ToUnicode CMap
// takes each glyph's text from the program's own cmap table, inverted
// (glyph → character), else from the glyph names of its post table.

// sfntTable returns the bytes of the table tag, or nil.
func sfntTable(data []byte, tag string) []byte {
	if len(data) < 12 {
		return nil
	}
	n := int(binary.BigEndian.Uint16(data[4:]))
	for i := 0; i < n; i++ {
		rec := 12 + 16*i
		if rec+16 > len(data) {
			return nil
		}
		if string(data[rec:rec+4]) != tag {
			continue
		}
		off := int(binary.BigEndian.Uint32(data[rec+8:]))
		ln := int(binary.BigEndian.Uint32(data[rec+12:]))
		if off < 0 || ln < 0 || off > len(data) || ln > len(data)-off {
			return nil
		}
		return data[off : off+ln]
	}
	return nil
}

// sfntGlyphText returns glyph → text from the program's cmap (a Unicode
// subtable), completed by the post table's glyph names.
func sfntGlyphText(data []byte) map[uint32]string {
	out := map[uint32]string{}
	if cm := sfntTable(data, "cmap"); cm != nil {
		sfntCmap(cm, out)
	}
	if post := sfntTable(data, "post"); post != nil {
		sfntPost(post, out)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// maxCMapVisits caps the character codes sfntCmap looks at in one cmap
// table, mapped or not. The cap on entries alone does not bound the walk:
// codes that map to no glyph, or to no printable character, add nothing,
// so a hostile table (format 4 segments over all 65,535 codes, or format
// 12 groups each spanning a million unassigned code points) would make
// extraction walk billions of codes with no check of the deadline. A real
// font maps at most 65,535 glyphs and never comes near it.
const maxCMapVisits = 4 * maxCMapEntries

// sfntCmap inverts the best Unicode subtable of a cmap table into out,
// looking at no more than maxCMapVisits codes.
func sfntCmap(cm []byte, out map[uint32]string) {
	sub := sfntSubtable(cm, func(pid, eid uint16) int {
		switch {
		case pid == 3 && eid == 10:
			return 4
		case pid == 0:
			return 3
		case pid == 3 && eid == 1:
			return 2
		}
		return 0
	})
	sfntWalk(sub, func(c rune, g int) bool {
		if len(out) >= maxCMapEntries {
			return false
		}
		if g <= 0 || c == 0 || !unicode.IsPrint(c) && !unicode.IsSpace(c) {
			return true
		}
		if _, dup := out[uint32(g)]; !dup {
			out[uint32(g)] = string(c)
		}
		return true
	})
}

// sfntSubtable returns the subtable of a cmap table whose encoding record
// ranks highest (rank 0: never), or nil.
func sfntSubtable(cm []byte, rank func(pid, eid uint16) int) []byte {
	if len(cm) < 4 {
		return nil
	}
	n := int(binary.BigEndian.Uint16(cm[2:]))
	best, bestRank := -1, 0
	for i := 0; i < n; i++ {
		rec := 4 + 8*i
		if rec+8 > len(cm) {
			break
		}
		pid, eid := binary.BigEndian.Uint16(cm[rec:]), binary.BigEndian.Uint16(cm[rec+2:])
		if r := rank(pid, eid); r > bestRank {
			best, bestRank = int(binary.BigEndian.Uint32(cm[rec+4:])), r
		}
	}
	if best < 0 || best+4 > len(cm) {
		return nil
	}
	return cm[best:]
}

// sfntWalk calls visit with each code of a cmap subtable (formats 0, 4,
// 6 and 12) and its glyph, looking at no more than maxCMapVisits codes;
// visit returns false to stop.
func sfntWalk(sub []byte, visit func(c rune, g int) bool) {
	if len(sub) < 4 {
		return
	}
	u16 := func(o int) int {
		if o < 0 || o+2 > len(sub) {
			return -1
		}
		return int(binary.BigEndian.Uint16(sub[o:]))
	}
	u32 := func(o int) int64 {
		if o < 0 || o+4 > len(sub) {
			return -1
		}
		return int64(binary.BigEndian.Uint32(sub[o:]))
	}
	visits := 0
	stopped := false
	// more counts one more code looked at and reports whether the walk may
	// go on: every loop over codes below stops once it returns false.
	more := func() bool {
		visits++
		return visits <= maxCMapVisits && !stopped
	}
	add := func(c rune, g int) {
		if !visit(c, g) {
			stopped = true
		}
	}
	switch u16(0) {
	case 4:
		segs := u16(6) / 2
		if segs <= 0 {
			return
		}
		ends, starts, deltas, ranges := 14, 16+2*segs, 16+4*segs, 16+6*segs
		for s := 0; s < segs && visits < maxCMapVisits && !stopped; s++ {
			end, start, delta, ro := u16(ends+2*s), u16(starts+2*s), u16(deltas+2*s), u16(ranges+2*s)
			if end < 0 || start < 0 || delta < 0 || ro < 0 || start > end {
				continue
			}
			for c := start; c <= end && c != 0xFFFF && more(); c++ {
				var g int
				if ro == 0 {
					g = (c + delta) & 0xFFFF
				} else if g = u16(ranges + 2*s + ro + 2*(c-start)); g > 0 {
					g = (g + delta) & 0xFFFF
				}
				add(rune(c), g)
			}
		}
	case 12:
		groups := u32(12)
		for i := int64(0); i < groups && i < maxCMapEntries && visits < maxCMapVisits && !stopped; i++ {
			o := 16 + 12*int(i)
			start, end, g := u32(o), u32(o+4), u32(o+8)
			if start < 0 || end < start || g < 0 || end > unicode.MaxRune {
				break
			}
			for c := start; c <= end && more(); c++ {
				add(rune(c), int(g+c-start))
			}
		}
	case 6:
		first, count := u16(6), u16(8)
		for i := 0; i < count && more(); i++ {
			add(rune(first+i), u16(10+2*i))
		}
	case 0:
		for c := 0; c < 256 && more(); c++ {
			if c+6 < len(sub) {
				add(rune(c), int(sub[6+c]))
			}
		}
	}
}

// sfntCodeGlyphs returns the glyph of each one-byte code of a simple
// TrueType font by its cmap table (§9.6.6.4): for a symbolic font the
// (3,0) subtable at the code or at 0xF000, 0xF100 or 0xF200 plus the
// code, else the (1,0) Mac Roman subtable at the code.
func sfntCodeGlyphs(cm []byte) (byCode [256]uint16, ok bool) {
	if sub := sfntSubtable(cm, func(pid, eid uint16) int { return b2i(pid == 3 && eid == 0) }); sub != nil {
		sfntWalk(sub, func(c rune, g int) bool {
			if hi := c &^ 0xFF; g > 0 && (hi == 0 || hi == 0xF000 || hi == 0xF100 || hi == 0xF200) && byCode[c&0xFF] == 0 {
				byCode[c&0xFF], ok = uint16(g), true
			}
			return true
		})
	}
	if sub := sfntSubtable(cm, func(pid, eid uint16) int { return b2i(pid == 1 && eid == 0) }); sub != nil {
		sfntWalk(sub, func(c rune, g int) bool {
			if g > 0 && c < 256 && byCode[c] == 0 {
				byCode[c], ok = uint16(g), true
			}
			return c < 256
		})
	}
	return byCode, ok
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sfntPostTable reads a version 2 post table: its number of glyphs, whose
// name indexes start at byte 34, and its custom names (index 258 on).
func sfntPostTable(post []byte) (n int, custom []string, ok bool) {
	if len(post) < 34 || binary.BigEndian.Uint32(post) != 0x00020000 {
		return 0, nil, false
	}
	n = int(binary.BigEndian.Uint16(post[32:]))
	names := 34 + 2*n
	if names > len(post) {
		return 0, nil, false
	}
	for p := names; p < len(post) && len(custom) < 65536; {
		l := int(post[p])
		if p+1+l > len(post) {
			break
		}
		custom = append(custom, string(post[p+1:p+1+l]))
		p += 1 + l
	}
	return n, custom, true
}

// sfntPostNames returns the glyph names of a version 2 post table by
// glyph (the standard Macintosh names not included), or nil.
func sfntPostNames(post []byte) map[string]uint16 {
	n, custom, ok := sfntPostTable(post)
	if !ok {
		return nil
	}
	out := map[string]uint16{}
	for g := 0; g < n; g++ {
		k := int(binary.BigEndian.Uint16(post[34+2*g:]))
		if k >= 258 && k-258 < len(custom) {
			if _, dup := out[custom[k-258]]; !dup {
				out[custom[k-258]] = uint16(g)
			}
		}
	}
	return out
}

// sfntPost adds the glyph names of a version 2 post table: custom names,
// and the printable ASCII names of the standard Macintosh order (glyphs 3
// to 97 are space to asciitilde).
func sfntPost(post []byte, out map[uint32]string) {
	n, custom, ok := sfntPostTable(post)
	if !ok {
		return
	}
	for g := 0; g < n; g++ {
		if _, ok := out[uint32(g)]; ok {
			continue
		}
		k := int(binary.BigEndian.Uint16(post[34+2*g:]))
		var t string
		switch {
		case k >= 3 && k <= 97:
			t = string(rune(' ' + k - 3))
		case k >= 258 && k-258 < len(custom):
			t = glyphText(custom[k-258])
		}
		if t != "" {
			out[uint32(g)] = t
		}
	}
}
