package font

import (
	"sort"
	"unicode"
	"unicode/utf16"

	"github.com/researchctx/researchctx/internal/pdf/object"
)

// codespace is one codespacerange entry: codes of n bytes between lo and hi.
type codespace struct {
	n      int
	lo, hi uint32
}

// cmapRange maps codes lo..hi to consecutive CIDs or texts starting at base.
type cmapRange struct {
	lo, hi uint32
	base   []rune // text CMaps: text of lo; the last rune is incremented
	cid    uint32 // CID CMaps: CID of lo
}

// cmap is a parsed CMap: a ToUnicode CMap (code → text, §9.10.3) or an
// embedded encoding CMap (code → CID, §9.7.5). Single codes go to maps;
// ranges stay ranges, searched by binary search.
type cmap struct {
	spaces []codespace
	text   map[uint32]string
	cids   map[uint32]uint32
	ranges []cmapRange
}

// maxCMapEntries caps the entries one CMap may define, bounding memory.
const maxCMapEntries = 1 << 17

// parseCMap reads the codespace, bfchar/bfrange and cidchar/cidrange
// sections of a CMap stream, ignoring everything else.
func parseCMap(data []byte) *cmap {
	cm := &cmap{}
	lx := object.NewLexer(data)
	var ops []object.Token
	entries := 0
	for {
		t := lx.Next()
		if t.Kind == object.TokEOF {
			break
		}
		switch t.Kind {
		case object.TokString:
			t.Val = append([]byte(nil), t.Val...)
			ops = append(ops, t)
			continue
		case object.TokNum:
			ops = append(ops, t)
			continue
		case object.TokArrayOpen:
			// bfrange with an array of destinations: <lo> <hi> [<t1> <t2> ...]
			var arr [][]byte
			for {
				u := lx.Next()
				if u.Kind == object.TokEOF || u.Kind == object.TokArrayClose {
					break
				}
				if u.Kind == object.TokString {
					arr = append(arr, append([]byte(nil), u.Val...))
				}
			}
			if len(ops) >= 2 && ops[len(ops)-1].Kind == object.TokString && ops[len(ops)-2].Kind == object.TokString {
				lo, hi := codeValue(ops[len(ops)-2].Val), codeValue(ops[len(ops)-1].Val)
				for i, dst := range arr {
					if lo+uint32(i) > hi || entries >= maxCMapEntries {
						break
					}
					cm.setText(lo+uint32(i), utf16Text(dst))
					entries++
				}
				ops = ops[:len(ops)-2]
			}
			continue
		case object.TokOp:
		default:
			ops = ops[:0]
			continue
		}
		switch string(t.Val) {
		case "endcodespacerange":
			for i := 0; i+1 < len(ops); i += 2 {
				if ops[i].Kind == object.TokString && ops[i+1].Kind == object.TokString && len(ops[i].Val) > 0 && len(ops[i].Val) <= 4 {
					cm.spaces = append(cm.spaces, codespace{n: len(ops[i].Val), lo: codeValue(ops[i].Val), hi: codeValue(ops[i+1].Val)})
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(ops) && entries < maxCMapEntries; i += 2 {
				if ops[i].Kind == object.TokString && ops[i+1].Kind == object.TokString {
					cm.setText(codeValue(ops[i].Val), utf16Text(ops[i+1].Val))
					entries++
				}
			}
		case "endbfrange":
			for i := 0; i+2 < len(ops) && entries < maxCMapEntries; i += 3 {
				a, b, c := ops[i], ops[i+1], ops[i+2]
				if a.Kind != object.TokString || b.Kind != object.TokString || c.Kind != object.TokString {
					continue
				}
				lo, hi := codeValue(a.Val), codeValue(b.Val)
				if hi < lo {
					continue
				}
				base := rangeBase(c.Val)
				if len(base) == 0 {
					continue
				}
				cm.ranges = append(cm.ranges, cmapRange{lo: lo, hi: hi, base: base})
				entries++
			}
		case "endcidchar":
			for i := 0; i+1 < len(ops) && entries < maxCMapEntries; i += 2 {
				if ops[i].Kind == object.TokString && ops[i+1].Kind == object.TokNum {
					cm.setCID(codeValue(ops[i].Val), uint32(max(0, ops[i+1].Num)))
					entries++
				}
			}
		case "endcidrange":
			for i := 0; i+2 < len(ops) && entries < maxCMapEntries; i += 3 {
				if ops[i].Kind == object.TokString && ops[i+1].Kind == object.TokString && ops[i+2].Kind == object.TokNum {
					lo, hi := codeValue(ops[i].Val), codeValue(ops[i+1].Val)
					if hi >= lo {
						cm.ranges = append(cm.ranges, cmapRange{lo: lo, hi: hi, cid: uint32(max(0, ops[i+2].Num))})
						entries++
					}
				}
			}
		}
		ops = ops[:0]
	}
	sort.Slice(cm.ranges, func(i, j int) bool { return cm.ranges[i].lo < cm.ranges[j].lo })
	return cm
}

// findRange returns the range holding code, by binary search over ranges
// sorted by their first code (overlapping ranges are rare and resolved to
// the one starting last).
func (cm *cmap) findRange(code uint32) *cmapRange {
	i := sort.Search(len(cm.ranges), func(i int) bool { return cm.ranges[i].lo > code })
	for k := i - 1; k >= 0 && k >= i-4; k-- {
		if r := &cm.ranges[k]; code <= r.hi {
			return r
		}
	}
	return nil
}

func (cm *cmap) setText(code uint32, s string) {
	if cm.text == nil {
		cm.text = make(map[uint32]string)
	}
	cm.text[code] = expandLigature(s)
}

func (cm *cmap) setCID(code, cid uint32) {
	if cm.cids == nil {
		cm.cids = make(map[uint32]uint32)
	}
	cm.cids[code] = cid
}

// lookupText returns the text of code and whether the CMap maps it.
func (cm *cmap) lookupText(code uint32) (string, bool) {
	if s, ok := cm.text[code]; ok {
		return s, true
	}
	if r := cm.findRange(code); r != nil && r.base != nil {
		if len(r.base) == 1 {
			c := r.base[0] + rune(code-r.lo)
			switch {
			case c >= 0xFB00 && c <= 0xFB06:
				return ligatures[c-0xFB00], true
			case c == 0 || (c >= 0xD800 && c <= 0xDFFF) || c > unicode.MaxRune:
				return "", true
			}
			return string(c), true
		}
		rs := append([]rune(nil), r.base...)
		rs[len(rs)-1] += rune(code - r.lo)
		return expandLigature(string(rs)), true
	}
	return "", false
}

// lookupCID returns the CID of code in an encoding CMap.
func (cm *cmap) lookupCID(code uint32) (uint32, bool) {
	if c, ok := cm.cids[code]; ok {
		return c, true
	}
	if r := cm.findRange(code); r != nil && r.base == nil {
		return r.cid + code - r.lo, true
	}
	return 0, false
}

// codeLen returns how many bytes of s form the next code under the
// codespace ranges, or 0 when there are none.
func (cm *cmap) codeLen(s []byte) int {
	if cm == nil || len(cm.spaces) == 0 {
		return 0
	}
	for n := 1; n <= 4 && n <= len(s); n++ {
		for _, sp := range cm.spaces {
			if sp.n == n && inSpace(s[:n], sp) {
				return n
			}
		}
	}
	// No range matched: use the shortest length defined, as Acrobat does.
	n := 4
	for _, sp := range cm.spaces {
		n = min(n, sp.n)
	}
	return min(n, len(s))
}

// inSpace reports whether code lies in a codespace range, which bounds
// each byte on its own (§9.7.6.2): <8140> <9FFC> holds 8140 and 9F40 but
// not 81FD.
func inSpace(code []byte, sp codespace) bool {
	for i, c := range code {
		shift := 8 * uint(len(code)-1-i)
		if c < byte(sp.lo>>shift) || c > byte(sp.hi>>shift) {
			return false
		}
	}
	return true
}

func codeValue(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}

// utf16Text decodes a ToUnicode destination (UTF-16BE).
func utf16Text(b []byte) string {
	if len(b) == 1 {
		return string(rune(b[0]))
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	rs := utf16.Decode(u)
	// Drop NULs and unpaired surrogates some producers emit.
	out := rs[:0]
	for _, r := range rs {
		if r != 0 && r != 0xFFFD {
			out = append(out, r)
		}
	}
	return string(out)
}

// rangeBase decodes a bfrange destination. Unlike utf16Text it keeps a
// lone U+0000: "<0000> <FFFF> <0000>" is the identity map (code c is U+c)
// that mPDF and TCPDF write, and dropping it loses the whole font.
func rangeBase(b []byte) []rune {
	if len(b) == 2 && b[0] == 0 && b[1] == 0 {
		return []rune{0}
	}
	return []rune(utf16Text(b))
}
