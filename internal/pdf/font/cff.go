package font

// A minimal reader of the Compact Font Format (Adobe Technical Note #5176)
// for one purpose: a simple font with an embedded CFF program (FontFile3,
// Type1C) and no usable /Encoding takes its codes from the program's
// built-in encoding and charset, which together give each code a glyph name.

type cffReader struct {
	b   []byte
	pos int
	bad bool
}

func (r *cffReader) u8() int {
	if r.pos >= len(r.b) {
		r.bad = true
		return 0
	}
	v := r.b[r.pos]
	r.pos++
	return int(v)
}

func (r *cffReader) u16() int { return r.u8()<<8 | r.u8() }

func (r *cffReader) offset(size int) int {
	v := 0
	for i := 0; i < size; i++ {
		v = v<<8 | r.u8()
	}
	return v
}

// index reads an INDEX structure and returns its items.
func (r *cffReader) index() [][]byte {
	count := r.u16()
	if count == 0 || r.bad {
		return nil
	}
	offSize := r.u8()
	if offSize < 1 || offSize > 4 {
		r.bad = true
		return nil
	}
	offs := make([]int, count+1)
	for i := range offs {
		offs[i] = r.offset(offSize)
	}
	base := r.pos - 1
	items := make([][]byte, count)
	for i := 0; i < count; i++ {
		a, b := base+offs[i], base+offs[i+1]
		if a < 0 || b < a || b > len(r.b) {
			r.bad = true
			return nil
		}
		items[i] = r.b[a:b]
	}
	if end := base + offs[count]; end <= len(r.b) {
		r.pos = end
	} else {
		r.bad = true
	}
	return items
}

// topDict reads the integer operands of the operators in a Top DICT.
func topDict(b []byte) map[int][]int {
	m := map[int][]int{}
	var ops []int
	for i := 0; i < len(b); {
		c := int(b[i])
		switch {
		case c <= 21:
			op := c
			i++
			if c == 12 && i < len(b) {
				op = 1200 + int(b[i])
				i++
			}
			m[op] = ops
			ops = nil
		case c == 28 && i+2 < len(b):
			ops = append(ops, int(int16(uint16(b[i+1])<<8|uint16(b[i+2]))))
			i += 3
		case c == 29 && i+4 < len(b):
			ops = append(ops, int(int32(uint32(b[i+1])<<24|uint32(b[i+2])<<16|uint32(b[i+3])<<8|uint32(b[i+4]))))
			i += 5
		case c == 30: // real: skip nibbles up to the 0xf terminator
			i++
			for i < len(b) {
				v := b[i]
				i++
				if v&0x0f == 0x0f || v>>4 == 0x0f {
					break
				}
			}
			ops = append(ops, 0)
		case c >= 32 && c <= 246:
			ops = append(ops, c-139)
			i++
		case c >= 247 && c <= 250 && i+1 < len(b):
			ops = append(ops, (c-247)*256+int(b[i+1])+108)
			i += 2
		case c >= 251 && c <= 254 && i+1 < len(b):
			ops = append(ops, -(c-251)*256-int(b[i+1])-108)
			i += 2
		default:
			i++
		}
		if len(ops) > 48 {
			ops = ops[:0]
		}
	}
	return m
}

// cffBuiltinEncoding returns the code → text table of a CFF font program,
// or nil when it has none of its own (CID-keyed or predefined encodings).
func cffBuiltinEncoding(data []byte) (enc *baseEncoding) {
	defer func() {
		if recover() != nil {
			enc = nil
		}
	}()
	if len(data) < 4 {
		return nil
	}
	r := &cffReader{b: data, pos: int(data[2])}
	r.index() // names
	tops := r.index()
	strs := r.index()
	if r.bad || len(tops) == 0 {
		return nil
	}
	top := topDict(tops[0])
	if _, cid := top[1230]; cid {
		return nil
	}
	csOff, encOff := 0, 0
	if v := top[15]; len(v) == 1 {
		csOff = v[0]
	}
	if v := top[16]; len(v) == 1 {
		encOff = v[0]
	}
	v := top[17]
	if len(v) != 1 || v[0] <= 0 || v[0] >= len(data) {
		return nil
	}
	cr := &cffReader{b: data, pos: v[0]}
	nGlyphs := len(cr.index())
	if nGlyphs == 0 || nGlyphs > 65535 {
		return nil
	}
	name := func(sid int) string {
		if sid < len(cffStandardStrings) {
			return cffStandardStrings[sid]
		}
		if i := sid - len(cffStandardStrings); i < len(strs) {
			return string(strs[i])
		}
		return ""
	}
	sids := cffCharset(data, csOff, nGlyphs)
	if sids == nil {
		return nil
	}
	var out baseEncoding
	switch {
	case encOff == 0:
		for c, n := range standardNames {
			if n != "" {
				out[c] = glyphText(n)
			}
		}
		return &out
	case encOff == 1 || encOff >= len(data):
		return nil
	}
	er := &cffReader{b: data, pos: encOff}
	format := er.u8()
	switch format & 0x7f {
	case 0:
		n := er.u8()
		for g := 1; g <= n && !er.bad; g++ {
			c := er.u8()
			if g < nGlyphs {
				out[c] = glyphText(name(sids[g]))
			}
		}
	case 1:
		nr := er.u8()
		g := 1
		for i := 0; i < nr && !er.bad; i++ {
			first, left := er.u8(), er.u8()
			for k := 0; k <= left; k++ {
				if c := first + k; c < 256 && g < nGlyphs {
					out[c] = glyphText(name(sids[g]))
				}
				g++
			}
		}
	default:
		return nil
	}
	if format&0x80 != 0 {
		ns := er.u8()
		for i := 0; i < ns && !er.bad; i++ {
			c, sid := er.u8(), er.u16()
			out[c] = glyphText(name(sid))
		}
	}
	if er.bad {
		return nil
	}
	return &out
}

// cffCharset reads the charset at csOff: glyph index → SID (a CID in a
// CID-keyed font), or nil for the Expert charsets and damaged data.
func cffCharset(data []byte, csOff, nGlyphs int) []int {
	sids := make([]int, nGlyphs)
	switch {
	case csOff == 0:
		for g := range sids {
			if g <= 228 {
				sids[g] = g
			}
		}
	case csOff <= 2 || csOff >= len(data):
		return nil // the Expert charsets carry no text we would use
	default:
		r := &cffReader{b: data, pos: csOff}
		switch r.u8() {
		case 0:
			for g := 1; g < nGlyphs && !r.bad; g++ {
				sids[g] = r.u16()
			}
		case 1, 2:
			wide := data[csOff] == 2
			for g := 1; g < nGlyphs && !r.bad; {
				first := r.u16()
				var left int
				if wide {
					left = r.u16()
				} else {
					left = r.u8()
				}
				for k := 0; k <= left && g < nGlyphs; k++ {
					sids[g] = first + k
					g++
				}
			}
		default:
			return nil
		}
	}
	return sids
}

// cffGlyphText returns what a CIDFontType0 font without a ToUnicode CMap
// can learn from its CFF program: for a name-keyed program, whose glyph
// index is the CID, CID → text from the charset's glyph names; for a
// CID-keyed one, its character collection's ordering (such as "Japan1"),
// when the registry is Adobe.
func cffGlyphText(data []byte) (text map[uint32]string, ordering string) {
	defer func() {
		if recover() != nil {
			text, ordering = nil, ""
		}
	}()
	if len(data) < 4 {
		return nil, ""
	}
	r := &cffReader{b: data, pos: int(data[2])}
	r.index() // names
	tops := r.index()
	strs := r.index()
	if r.bad || len(tops) == 0 {
		return nil, ""
	}
	name := func(sid int) string {
		if sid < len(cffStandardStrings) {
			return cffStandardStrings[sid]
		}
		if i := sid - len(cffStandardStrings); i >= 0 && i < len(strs) {
			return string(strs[i])
		}
		return ""
	}
	top := topDict(tops[0])
	if ros := top[1230]; len(ros) >= 2 {
		if name(ros[0]) == "Adobe" {
			return nil, name(ros[1])
		}
		return nil, ""
	}
	v := top[17]
	if len(v) != 1 || v[0] <= 0 || v[0] >= len(data) {
		return nil, ""
	}
	cr := &cffReader{b: data, pos: v[0]}
	nGlyphs := len(cr.index())
	if nGlyphs == 0 || nGlyphs > 65535 {
		return nil, ""
	}
	csOff := 0
	if v := top[15]; len(v) == 1 {
		csOff = v[0]
	}
	sids := cffCharset(data, csOff, nGlyphs)
	text = map[uint32]string{}
	for g, sid := range sids {
		if t := glyphText(name(sid)); t != "" && g > 0 {
			text[uint32(g)] = t
		}
	}
	return text, ""
}
